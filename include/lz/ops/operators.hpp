// Arithmetic, comparison and logical operators on expressions: each builds one map node (no
// work). `*` is elementwise except matrix*matrix and matrix*vector, which are linear-algebra
// products (expr/matmul.hpp) handed to the fusion pass.
#pragma once

#include <lz/expr/nodes.hpp>
#include <lz/ops/functors.hpp>

namespace lz {
namespace detail {

// Element type of an expression, or the type of a plain scalar.
template <class X>
struct value_or_self {
  using type = std::remove_cvref_t<X>;
};
template <expression X>
struct value_or_self<X> {
  using type = value_t<X>;
};

// The first expression among the operands (the one scalars take their type from).
template <class... A>
struct first_expression;
template <class A, class... R>
struct first_expression<A, R...> {
  using type = std::conditional_t<expression<A> || sizeof...(R) == 0, A,
                                  typename first_expression<R...>::type>;
};
template <class A>
struct first_expression<A> {
  using type = A;
};

// An operand next to `Other`: expressions by the closure rule, scalars typed after Other.
template <class Other, class X>
auto as_operand(X&& x) {
  if constexpr (expression<X>)
    return make_closure(std::forward<X>(x));
  else
    return make_scalar<typename value_or_self<Other>::type>(x);
}

template <class A, class B>
concept elementwise_operands = expression_or_scalar<A> && expression_or_scalar<B> &&
    (expression<A> || expression<B>);

template <class F, class A, class B>
auto binary(A&& a, B&& b) {
  return make_map(F::name, F{}, as_operand<B>(std::forward<A>(a)),
                  as_operand<A>(std::forward<B>(b)));
}

} // namespace detail

/// a + b elementwise (scalars broadcast; integers wrap).
template <class A, class B>
requires detail::elementwise_operands<A, B>
auto operator+(A&& a, B&& b) {
  return detail::binary<fn::plus_fn>(std::forward<A>(a), std::forward<B>(b));
}
/// a - b elementwise (scalars broadcast; integers wrap).
template <class A, class B>
requires detail::elementwise_operands<A, B>
auto operator-(A&& a, B&& b) {
  return detail::binary<fn::minus_fn>(std::forward<A>(a), std::forward<B>(b));
}
/// a / b elementwise (integer division by zero gives 0, INT_MIN / -1 gives INT_MIN).
template <class A, class B>
requires detail::elementwise_operands<A, B>
auto operator/(A&& a, B&& b) {
  return detail::binary<fn::divides_fn>(std::forward<A>(a), std::forward<B>(b));
}

namespace detail {
// matrix*matrix and matrix*vector are products; everything else with `*` is elementwise.
template <class A, class B>
inline constexpr bool is_product_v = [] {
  if constexpr (expression<A> && expression<B>)
    return rank_v<A> == 2 && (rank_v<B> == 2 || rank_v<B> == 1);
  else
    return false;
}();
} // namespace detail

/// a * b elementwise, except matrix * matrix and matrix * vector, which are the linear-algebra
/// product (lz/expr/matmul.hpp); lz::hadamard is the elementwise product of two matrices.
template <class A, class B>
requires(detail::elementwise_operands<A, B> && !detail::is_product_v<A, B>) auto operator*(A&& a,
                                                                                           B&& b) {
  return detail::binary<fn::multiplies_fn>(std::forward<A>(a), std::forward<B>(b));
}

/// Negation elementwise (integers wrap).
template <expression A>
auto operator-(A&& a) {
  return make_map("-", fn::negate_fn{}, make_closure(std::forward<A>(a)));
}
/// Unary plus: the expression itself.
template <expression A>
auto operator+(A&& a) {
  return make_closure(std::forward<A>(a));
}

#define LZ_COMPARISON(OP, F)                                                                       \
  template <class A, class B>                                                                      \
  requires detail::elementwise_operands<A, B>                                                      \
  auto operator OP(A&& a, B&& b) {                                                                 \
    return detail::binary<fn::F>(std::forward<A>(a), std::forward<B>(b));                          \
  }
/// Elementwise comparison: a bool expression (NumPy's ==).
LZ_COMPARISON(==, equal_fn)
/// Elementwise comparison: a bool expression.
LZ_COMPARISON(!=, not_equal_fn)
/// Elementwise comparison: a bool expression.
LZ_COMPARISON(<, less_fn)
/// Elementwise comparison: a bool expression.
LZ_COMPARISON(<=, less_equal_fn)
/// Elementwise comparison: a bool expression.
LZ_COMPARISON(>, greater_fn)
/// Elementwise comparison: a bool expression.
LZ_COMPARISON(>=, greater_equal_fn)
/// Elementwise logical and of bool expressions (both sides evaluated).
LZ_COMPARISON(&&, logical_and_fn)
/// Elementwise logical or of bool expressions (both sides evaluated).
LZ_COMPARISON(||, logical_or_fn)
#undef LZ_COMPARISON

/// Elementwise logical not.
template <expression A>
auto operator!(A&& a) {
  return make_map("!", fn::logical_not_fn{}, make_closure(std::forward<A>(a)));
}

} // namespace lz
