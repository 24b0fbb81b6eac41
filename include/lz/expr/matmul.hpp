// Product node: A*B (matrix × matrix) and A*x (matrix × vector). Structure only; the fusion
// pass (fusion/rules/gemm.hpp, gemv.hpp, chain.hpp, ...) turns products and their surroundings
// into BLAS calls. Inner dimensions are checked here, at the line the user wrote.
#pragma once

#include <lz/expr/fixed.hpp>
#include <lz/expr/nodes.hpp>
#include <lz/expr/solve.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/ops/operators.hpp>

namespace lz {

/// Linear-algebra product of a rank-2 expression with a rank-2 or rank-1 expression.
template <class A, class B>
struct matmul_expr {
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = rank_v<B>;
  using value_type =
      std::remove_cvref_t<decltype(std::declval<value_t<A>>() * std::declval<value_t<B>>() +
                                   std::declval<value_t<A>>() * std::declval<value_t<B>>())>;
  A lhs;
  B rhs;
  shape_t<rank> shape_;

  const shape_t<rank>& shape() const noexcept { return shape_; }

  /// Evaluates the product into a fresh tensor through the fusion pass (used when a product
  /// sits where no rule plans it, e.g. inside a reduction's operand).
  template <class P>
  tensor<value_type, rank> materialize(const P& pol) const {
    tensor<value_type, rank> t(shape_, uninitialized);
    detail::assign_with<detail::assign_op::set>(pol, t.view(), *this);
    return t;
  }
};

namespace detail {
template <class A, class B>
struct static_product_shape {
  static constexpr bool known = [] { // both known and the inner dimensions agree
    if constexpr (static_shape_of<A>::known && static_shape_of<B>::known)
      return static_shape_of<A>::value[1] == static_shape_of<B>::value[0];
    else
      return false;
  }();
  static constexpr int fixed_leaves =
      static_shape_of<A>::fixed_leaves + static_shape_of<B>::fixed_leaves;
  static constexpr int batched = static_shape_of<A>::batched + static_shape_of<B>::batched;
  static constexpr shape_t<rank_v<B>> value = [] {
    shape_t<rank_v<B>> s{};
    if constexpr (known) {
      s[0] = static_shape_of<A>::value[0];
      if constexpr (rank_v<B> == 2) s[1] = static_shape_of<B>::value[1];
    }
    return s;
  }();
};
template <class A, class B>
struct static_shape_of<matmul_expr<A, B>>
    : std::conditional_t<(fixed_leaves_v<A, B> > 0), static_product_shape<A, B>, no_static_shape> {
};
} // namespace detail

template <class E>
inline constexpr bool is_matmul_v = false;
template <class A, class B>
inline constexpr bool is_matmul_v<matmul_expr<A, B>> = true;

namespace detail {

/// shape_error: a matrix product of shapes a[0..2) and b[0..rb) (kernels/common/errors.cpp).
[[noreturn]] void throw_matmul_inner(const index_t* a, const index_t* b, std::size_t rb);

template <class A, class B>
auto make_plain_matmul(A&& a, B&& b);

template <class A, class B>
auto make_matmul(A&& a, B&& b) {
  static_assert(rank_v<A> == 2 && (rank_v<B> == 2 || rank_v<B> == 1),
                "lz::matmul: the left operand must be a matrix and the right a matrix or vector");
  static_assert(!mixes_host_and_device(space_v<A> | space_v<B>),
                "lz: a product mixes host and device operands; copy one side explicitly with "
                "lz::to_device(x) or lz::to_host(d)");
  static_assert(mixes_host_and_device(space_v<A> | space_v<B>) ||
                    !mixes_spaces(space_v<A> | space_v<B>),
                "lz: a product mixes memory spaces; move one side explicitly first");
  if constexpr (inverse_factor_v<A>) { // inv(A) * B: a solve, never an inverse
    return make_inverse_product(a, std::forward<B>(b));
  } else if constexpr (inverse_factor_v<B>) { // B * inv(A): the transposed solve
    return make_product_inverse(std::forward<A>(a), b);
  } else {
    return make_plain_matmul(std::forward<A>(a), std::forward<B>(b));
  }
}

template <class A, class B>
auto make_plain_matmul(A&& a, B&& b) {
  using SA = static_shape_of<closure_t<A&&>>;
  using SB = static_shape_of<closure_t<B&&>>;
  if constexpr (SA::fixed_leaves + SB::fixed_leaves > 0 && SA::known && SB::known) {
    (void)fixed_product_agrees<fixed_shape_of_t<closure_t<A&&>>,         // (its static_assert names
                               fixed_shape_of_t<closure_t<B&&>>>::value; // both shapes)
  }
  const auto sa = a.shape();
  const auto sb = b.shape();
  if (sa[1] != sb[0]) detail::throw_matmul_inner(sa.data(), sb.data(), rank_v<B>);
  shape_t<rank_v<B>> s{};
  s[0] = sa[0];
  if constexpr (rank_v<B> == 2) s[1] = sb[1];
  return matmul_expr<closure_t<A&&>, closure_t<B&&>>{make_closure(std::forward<A>(a)),
                                                     make_closure(std::forward<B>(b)), s};
}

} // namespace detail

/// `A * B` and `A * x`: the linear-algebra product (every other `*` is elementwise).
template <class A, class B>
requires(detail::is_product_v<A, B>) auto operator*(A&& a, B&& b) {
  return detail::make_matmul(std::forward<A>(a), std::forward<B>(b));
}

/// The product spelled out: `lz::matmul(A, B)`, `lz::matmul(A, x)`.
template <expression A, expression B>
auto matmul(A&& a, B&& b) {
  return detail::make_matmul(std::forward<A>(a), std::forward<B>(b));
}

/// Outer product of two vectors: outer(x, y)(i, j) = x(i) * y(j), an elementwise node over
/// two zero-stride broadcasts (no memory beyond the result).
template <vector_expression X, vector_expression Y>
auto outer(X&& x, Y&& y) {
  const index_t m = x.shape()[0], n = y.shape()[0];
  auto xc = make_closure(std::forward<X>(x));
  auto yc = make_closure(std::forward<Y>(y));
  // x along rows: broadcast to (n, m), then transpose to (m, n).
  auto xb = permute_expr<broadcast_expr<decltype(xc), 2>>{
      broadcast_expr<decltype(xc), 2>{std::move(xc), {n, m}}, {1, 0}, {m, n}};
  auto yb = broadcast_expr<decltype(yc), 2>{std::move(yc), {m, n}};
  return make_map("outer", fn::multiplies_fn{}, std::move(xb), std::move(yb));
}

} // namespace lz
