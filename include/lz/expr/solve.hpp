// Solver nodes: lz::solve(A, B), lz::inv(A), lz::lstsq(A, B), and the property tags lz::sympd
// and lz::triangular<lz::lower / lz::upper>. Structure only, like products (matmul.hpp): nothing
// is factored until assignment, where the solver rules (fusion/rules/solve.hpp, inverse.hpp,
// normal_equations.hpp) turn them into LAPACK calls. `inv(A) * B` builds a solve node, never an
// inverse; `B * inv(A)` the transposed solve. Shapes are checked here, at the line the user wrote.
#pragma once

#include <lz/expr/nodes.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/layout/slice.hpp>

#include <complex>
#include <type_traits>

namespace lz {

/// A triangle of a matrix (lz::triangular<lz::lower>(L)).
enum class triangle : unsigned char { lower, upper };
inline constexpr triangle lower = triangle::lower; ///< the lower triangle (with the diagonal)
inline constexpr triangle upper = triangle::upper; ///< the upper triangle (with the diagonal)

/// How a solve node's matrix is factored: by the rules (general LU, Cholesky, triangular as is,
/// QR for least squares) or already (a factorization value: lz::lu(A).solve(B)).
enum class solve_kind : unsigned char {
  lu,
  cholesky,
  lower,
  upper,
  lstsq,
  factored_lu,
  factored_cholesky
};

namespace detail {
template <class T>
inline constexpr bool lapack_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// (Where: the caller's type, so that each mistake is its own instantiation and its own error.)
template <class T, class Where = void>
constexpr void check_lapack_type() {
  static_assert(lapack_type_v<T>, "lz::solve / inv / lstsq / det and the factorizations need "
                                  "float, double or complex elements (convert an integer matrix "
                                  "with lz::cast<double>(A))");
}

/// A factorization value (lz/linalg.hpp) is computed at once on the host.
template <class A>
constexpr void check_host_operand() {
  static_assert((space_v<A> | memory_space::device) != space_v<A>,
                "lz: factorization values (lz::lu, lz::qr, ...) are computed on the host: copy "
                "with lz::to_host(d), or write the solve itself (lz::solve(dA, db) runs on "
                "cuSOLVER)");
}
/// Solver nodes: host operands, or float/double device operands (cuSOLVER), never both.
template <class A, class B = A>
constexpr void check_solver_operands() {
  constexpr memory_space s = space_v<A> | space_v<B>;
  static_assert(!mixes_spaces(s), "lz::solve: the matrix and the right-hand side are in "
                                  "different memory spaces; move one explicitly first");
  static_assert(s != memory_space::device || std::is_same_v<value_t<A>, float> ||
                    std::is_same_v<value_t<A>, double>,
                "lz: solvers on the device take float or double matrices");
  static_assert(s == memory_space::device || s == memory_space::host || s == memory_space::any,
                "lz: solvers take host or device operands (not distributed ones yet)");
}

/// A factorization's pivots and storage order, carried by factored solve nodes.
struct factor_info {
  const int* ipiv = nullptr; ///< LU: 1-based row interchanges (getrf)
  bool transposed = false;   ///< the factors are of Aᵀ (a row-major A factored as stored)
};
} // namespace detail

/// op(A)⁻¹·B (or, for lstsq, the least-squares solution of A·X ≈ B), times alpha.
/// `lhs` is the matrix (for factored kinds, a view of its factors), `rhs` the right-hand side.
template <class A, class B, solve_kind K>
struct solve_expr {
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = rank_v<B>;
  static constexpr solve_kind kind = K;
  using value_type = value_t<B>;
  A lhs;
  B rhs;
  shape_t<rank> shape_;
  value_type alpha{1};
  detail::factor_info factors{};

  const shape_t<rank>& shape() const noexcept { return shape_; }
  static constexpr const char* op_name() {
    return K == solve_kind::lstsq ? "lstsq" : K == solve_kind::cholesky ? "solve_sympd" : "solve";
  }
  /// Evaluates the solve into a fresh tensor through the fusion pass (for a solve inside a
  /// reduction's operand).
  template <class P>
  tensor<value_type, rank> materialize(const P& pol) const {
    tensor<value_type, rank> t(shape_, uninitialized);
    detail::assign_with<detail::assign_op::set>(pol, t.view(), *this);
    return t;
  }
};

/// alpha·A⁻¹ as a value (lz::inv(A)); `inv(A) * B` never builds one (it is a solve).
template <class A>
struct inv_expr {
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = 2;
  using value_type = value_t<A>;
  A arg;
  shape_t<2> shape_;
  value_type alpha{1};

  const shape_t<2>& shape() const noexcept { return shape_; }
  static constexpr const char* op_name() { return "inv"; }
  template <class P>
  tensor<value_type, 2> materialize(const P& pol) const {
    tensor<value_type, 2> t(shape_, uninitialized);
    detail::assign_with<detail::assign_op::set>(pol, t.view(), *this);
    return t;
  }
};

/// A matrix the user states is symmetric (Hermitian) positive definite: lz::sympd(A).
template <class A>
struct sympd_t {
  A a;
};
/// A matrix the user states is triangular (the other triangle is never read).
template <class A, triangle U>
struct triangular_t {
  A a;
};

template <class E>
inline constexpr bool is_solve_v = false;
template <class A, class B, solve_kind K>
inline constexpr bool is_solve_v<solve_expr<A, B, K>> = true;
template <class E>
inline constexpr bool is_inv_v = false;
template <class A>
inline constexpr bool is_inv_v<inv_expr<A>> = true;

namespace detail {

/// The transpose of a matrix operand held by a node: a view with swapped strides for a
/// tensor view (keeping its lifetime number), a permute node for anything else.
template <class C>
inline constexpr bool is_matrix_view_v = false;
template <class T>
inline constexpr bool is_matrix_view_v<tensor_view<T, 2>> = true;

template <class C>
auto transposed_closure(const C& c) {
  if constexpr (is_matrix_view_v<C>) {
    if constexpr (requires { c.lz_serial(); })
      return C(c.data(), permute_layout(c.layout(), {1, 0}), trusted, c.lz_serial());
    else
      return C(c.data(), permute_layout(c.layout(), {1, 0}), trusted);
  } else {
    const auto s = c.shape();
    return permute_expr<C>{c, {1, 0}, {s[1], s[0]}};
  }
}

/// shape_error for a solver: `call` with matrix shape a and right-hand side shape b[0..rb)
/// (kernels/common/errors.cpp); `what` says what must agree.
[[noreturn]] void throw_solve_shape(const char* call, const char* what, const index_t* a,
                                    const index_t* b, std::size_t rb);

template <class A>
void check_square(const char* call, const A& a) {
  const auto s = a.shape();
  if (s[0] != s[1]) throw_solve_shape(call, "the matrix must be square", s.data(), s.data(), 2);
}

template <solve_kind K, class A, class B>
auto make_solve_node(const char* call, A&& a, B&& b) {
  using CA = closure_t<A&&>;
  using CB = closure_t<B&&>;
  static_assert(rank_v<CA> == 2, "lz::solve: the matrix must have rank 2");
  static_assert(rank_v<CB> == 1 || rank_v<CB> == 2,
                "lz::solve: the right-hand side must be a vector or a matrix");
  static_assert(std::is_same_v<value_t<CA>, value_t<CB>>,
                "lz::solve: the matrix and the right-hand side must have the same element type "
                "(convert one with lz::cast<T>)");
  check_lapack_type<value_t<CA>, solve_expr<CA, CB, K>>();
  check_solver_operands<CA, CB>();
  const auto sa = a.shape();
  const auto sb = b.shape();
  if constexpr (K != solve_kind::lstsq)
    if (sa[0] != sa[1])
      throw_solve_shape(call, "the matrix must be square", sa.data(), sb.data(), rank_v<CB>);
  if (sa[0] != sb[0])
    throw_solve_shape(call, "the matrix's rows and the right-hand side's rows must agree",
                      sa.data(), sb.data(), rank_v<CB>);
  shape_t<rank_v<CB>> s = sb;
  s[0] = sa[1];
  return solve_expr<CA, CB, K>{make_closure(std::forward<A>(a)), make_closure(std::forward<B>(b)),
                               s};
}

template <class X>
struct solve_matrix { // a plain matrix: LU
  static constexpr bool tag = false;
  static constexpr solve_kind kind = solve_kind::lu;
  template <class Y>
  static decltype(auto) get(Y&& y) {
    return std::forward<Y>(y);
  }
};
template <class A>
struct solve_matrix<sympd_t<A>> {
  static constexpr bool tag = true;
  static constexpr solve_kind kind = solve_kind::cholesky;
  template <class Y>
  static decltype(auto) get(Y&& y) {
    return (std::forward<Y>(y).a);
  }
};
template <class A, triangle U>
struct solve_matrix<triangular_t<A, U>> {
  static constexpr bool tag = true;
  static constexpr solve_kind kind = U == triangle::lower ? solve_kind::lower : solve_kind::upper;
  template <class Y>
  static decltype(auto) get(Y&& y) {
    return (std::forward<Y>(y).a);
  }
};

} // namespace detail

/// A symmetric (Hermitian) positive definite matrix, as the user knows it: lz::solve(lz::sympd(A),
/// b) factors it by Cholesky (half LU's work; only the lower triangle is read).
template <expression A>
auto sympd(A&& a) {
  return sympd_t<closure_t<A&&>>{make_closure(std::forward<A>(a))};
}
/// A triangular matrix: lz::solve(lz::triangular<lz::lower>(L), b) is one triangular solve
/// (trsm) reading L in place; the other triangle is never read.
template <triangle U, expression A>
auto triangular(A&& a) {
  return triangular_t<closure_t<A&&>, U>{make_closure(std::forward<A>(a))};
}

/// x = A⁻¹·b (B a vector or a matrix), without forming A⁻¹: LU with partial pivoting (getrf +
/// getrs); lz::sympd(A) → Cholesky, lz::triangular<lz::lower>(L) → one triangular solve.
/// Evaluated at assignment; a singular matrix throws lz::linalg_error.
template <class A, expression B>
requires(expression<A> || detail::solve_matrix<std::remove_cvref_t<A>>::tag) auto solve(A&& a,
                                                                                        B&& b) {
  using S = detail::solve_matrix<std::remove_cvref_t<A>>;
  return detail::make_solve_node<S::kind>("lz::solve", S::get(std::forward<A>(a)),
                                          std::forward<B>(b));
}

/// The least-squares solution of A·X ≈ B (A m×n with m ≥ n: min ‖A·X − B‖; m < n: the
/// minimum-norm solution), by QR (gels); A must have full rank.
template <expression A, expression B>
auto lstsq(A&& a, B&& b) {
  return detail::make_solve_node<solve_kind::lstsq>("lz::lstsq", std::forward<A>(a),
                                                    std::forward<B>(b));
}

/// A⁻¹ (square A), evaluated at assignment (getrf + getri). `inv(A) * B`, `inv(A) * x` and
/// `B * inv(A)` never form it: they are solves.
template <expression A>
auto inv(A&& a) {
  using CA = closure_t<A&&>;
  static_assert(rank_v<CA> == 2, "lz::inv: the operand must be a matrix");
  detail::check_lapack_type<value_t<CA>, inv_expr<CA>>();
  detail::check_solver_operands<CA>();
  detail::check_square("lz::inv", a);
  const auto s = a.shape();
  return inv_expr<CA>{make_closure(std::forward<A>(a)), s};
}

namespace detail {

// inv(A) * B and B * inv(A) (the inverse carries the scalars of `c * inv(A)`, `-inv(A)`):
// matmul.hpp sends a product with an inverse factor here.
template <class E>
inline constexpr bool inverse_factor_v = is_inv_v<std::remove_cvref_t<E>>;

template <class I, class B>
auto make_inverse_product(const I& inv, B&& b) { // inv(A) * B
  auto s = make_solve_node<solve_kind::lu>("lz::inv(A) * B", inv.arg, std::forward<B>(b));
  s.alpha = inv.alpha;
  return s;
}
template <class B, class I>
auto make_product_inverse(B&& b, const I& inv) { // B * inv(A) = (Aᵀ⁻¹·Bᵀ)ᵀ
  static_assert(rank_v<B> == 2, "lz: B * inv(A) needs a matrix B");
  const auto& a = inv.arg;
  if (b.shape()[1] != a.shape()[0])
    throw_solve_shape("lz::B * inv(A)", "B's columns and the matrix's rows must agree",
                      a.shape().data(), b.shape().data(), 2);
  const auto bc = make_closure(std::forward<B>(b));
  auto s = make_solve_node<solve_kind::lu>("lz::B * inv(A)", transposed_closure(a),
                                           transposed_closure(bc));
  s.alpha = inv.alpha;
  const auto sh = s.shape();
  return permute_expr<decltype(s)>{std::move(s), {1, 0}, {sh[1], sh[0]}};
}

} // namespace detail

/// c · inv(A), inv(A) · c, inv(A) / c and -inv(A): the scalar joins the inverse (then the
/// solve it becomes).
template <class S, class A>
requires(!expression<S> && std::is_convertible_v<S, value_t<A>>) auto operator*(S c,
                                                                                inv_expr<A> e) {
  e.alpha = e.alpha * value_t<A>(c);
  return e;
}
template <class S, class A>
requires(!expression<S> && std::is_convertible_v<S, value_t<A>>) auto operator*(inv_expr<A> e,
                                                                                S c) {
  e.alpha = e.alpha * value_t<A>(c);
  return e;
}
template <class S, class A>
requires(!expression<S> && std::is_convertible_v<S, value_t<A>>) auto operator/(inv_expr<A> e,
                                                                                S c) {
  e.alpha = e.alpha / value_t<A>(c);
  return e;
}
template <class A>
auto operator-(inv_expr<A> e) {
  e.alpha = -e.alpha;
  return e;
}
template <class S, class A, class B, solve_kind K>
requires(!expression<S> && std::is_convertible_v<S, value_t<B>>) auto
operator*(S c, solve_expr<A, B, K> e) {
  e.alpha = e.alpha * value_t<B>(c);
  return e;
}
template <class S, class A, class B, solve_kind K>
requires(!expression<S> && std::is_convertible_v<S, value_t<B>>) auto
operator*(solve_expr<A, B, K> e, S c) {
  e.alpha = e.alpha * value_t<B>(c);
  return e;
}
template <class A, class B, solve_kind K>
auto operator-(solve_expr<A, B, K> e) {
  e.alpha = -e.alpha;
  return e;
}

} // namespace lz
