// Sparse operands in expressions: the CSR leaf (`csr_view`; `lz::csr_matrix` in sparse.hpp owns
// one), elementwise expressions over a sparse matrix's stored values with its own pattern
// (`sparse_values_expr`: 2*A, abs(A)), the sparse × dense product node (`spmul_expr`: A*x, A*B,
// transpose(A)*x; and A + D with D dense, as op(A)·I: `sparse_identity`), and the three nodes with
// a sparse result whose pattern is computed at assignment (the `computed_sparse` terms):
// `spgemm_expr` (A*B, both sparse), `sparse_sum_expr` (α·A + β·B, the union of the patterns;
// A*B + D) and `sparse_apply_expr` (f of either: abs(A + B)); their transposes are pushed down to
// the operands. Structure only: the sparse rules (fusion/rules/spmv.hpp, spmm.hpp) turn products
// and their surroundings into SpMV / SpMM steps, fusion/rules/spgemm.hpp, sparse_sum.hpp and
// sparse_apply.hpp compute sparse results (inside a dense tree, before it is planned:
// fusion/sparse.hpp); a values expression is ONE dense loop over the values (sparse.hpp). A
// sparse operand is not an lz::expression: `lz::exp(A)` does not compile (densify with
// lz::to_dense first); `A + D` with a dense matrix D is a dense expression.
#pragma once

#include <lz/expr/matmul.hpp>
#include <lz/expr/nodes.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/ops/math.hpp>

#include <complex>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace lz {

namespace detail {
/// A CSR pattern (rows × cols as stored): owned (the vectors) or adopted (the pointers only).
/// Immutable once built, so matrices with the same pattern share it (B = 2*A copies no index).
template <class I>
struct csr_pattern {
  index_t rows = 0, cols = 0, nnz = 0;
  const I* row_ptr = nullptr;
  const I* col_idx = nullptr;
  std::vector<I> own_row_ptr, own_col_idx;
  index_t lower = -1, upper = -1; ///< the bandwidths (kernels::sparse::band_of; -1: not known)
};

/// The value type a column-strip lookup asks for (pattern_ref::strips_of): 1 float, 2 double,
/// 3 complex<float>, 4 complex<double>.
template <class V>
constexpr int strips_tag() {
  return std::is_same_v<V, float>                  ? 1
         : std::is_same_v<V, double>               ? 2
         : std::is_same_v<V, std::complex<float>>  ? 3
         : std::is_same_v<V, std::complex<double>> ? 4
                                                   : 0;
}

/// Where a sparse operand's pattern is: the arrays, whether the operand is the stored matrix's
/// transpose (a CSC view), and the owning pattern when there is one (for sharing it).
template <class I>
struct pattern_ref {
  index_t rows = 0, cols = 0, nnz = 0; ///< of the stored CSR
  const I* row_ptr = nullptr;
  const I* col_idx = nullptr;
  bool trans = false;
  const std::shared_ptr<const csr_pattern<I>>* owner = nullptr;
  bool host_readable = true; ///< the arrays are host memory (device patterns: compared by address)
  index_t lower = -1, upper = -1; ///< the stored CSR's bandwidths (csr_pattern's; -1: not known)
  /// The matrix's column-strip copy (csr_matrix::optimize_products), looked up when a product
  /// is planned, so that an expression built before the copy was made or dropped sees the matrix
  /// as it is then: `strips_of(strips_owner, values, strips_tag<V>(), n)` returns the n strips
  /// (kernels::sparse::csr<V, I>) when the matrix keeps some cut from exactly `values`, else
  /// null. Null strips_of: none (a view, adopted arrays).
  const void* strips_owner = nullptr;
  const void* (*strips_of)(const void* owner, const void* values, int tag, index_t& n) = nullptr;

  shape_t<2> shape() const noexcept {
    return trans ? shape_t<2>{cols, rows} : shape_t<2>{rows, cols};
  }
  pattern_ref transposed() const noexcept {
    pattern_ref p = *this;
    p.trans = !p.trans;
    return p;
  }
  /// Same entries at the same places (the same arrays, or equal ones).
  bool same_as(const pattern_ref& o) const noexcept {
    if (trans != o.trans || rows != o.rows || cols != o.cols || nnz != o.nnz) return false;
    if (row_ptr == o.row_ptr && col_idx == o.col_idx) return true;
    if (!host_readable || !o.host_readable) return false;
    for (index_t i = 0; i <= rows; ++i)
      if (row_ptr[i] != o.row_ptr[i]) return false;
    for (index_t k = 0; k < nnz; ++k)
      if (col_idx[k] != o.col_idx[k]) return false;
    return true;
  }
};

/// shape_error: `op` on two sparse operands whose patterns differ (kernels/common/errors.cpp).
[[noreturn]] void throw_sparse_pattern(const char* op, const index_t* a, const index_t* b);
/// layout_error for CSR arrays kernels::sparse::check_pattern refused, in `call`.
[[noreturn]] void throw_bad_pattern(const char* call, const char* what, index_t row);
/// layout_error: `what` (rows, cols or nnz) = v is negative or does not fit a `bits`-bit index.
[[noreturn]] void throw_index_overflow(const char* call, const char* what, index_t v, int bits);
} // namespace detail

/// A sparse operand: lz::csr_matrix, lz::csr_view, or an expression over one's values.
template <class S>
concept sparse_expression = requires {
  typename std::remove_cvref_t<S>::lz_sparse;
};

/// A non-owning CSR matrix (rows × cols stored row by row), or its transpose when `trans`
/// (which is how a CSC matrix is seen: lz::adopt_csc). Made by csr_matrix::view(), lz::adopt_csr,
/// lz::transpose of a sparse leaf. The arrays must outlive it.
template <class T, class I = std::int32_t>
struct csr_view {
  using lz_sparse = void;
  using lz_kind = detail::sparse_kind;
  static constexpr memory_space lz_space = memory_space::host;
  static constexpr std::size_t rank = 2;
  using value_type = std::remove_const_t<T>;
  using index_type = I;

  detail::pattern_ref<I> pattern_;
  T* values_ = nullptr;

  /// The operand's shape (the stored matrix's, or its transpose's).
  shape_t<2> shape() const noexcept { return pattern_.shape(); }
  index_t nnz() const noexcept { return pattern_.nnz; }
  const detail::pattern_ref<I>& pattern() const noexcept { return pattern_; }
  T* values_data() const noexcept { return values_; }
  /// The stored values as a rank-1 view (nnz elements).
  tensor_view<T, 1> values() const noexcept {
    return tensor_view<T, 1>(values_, strided_layout<1>::right(shape_t<1>{pattern_.nnz}),
                             detail::trusted);
  }
  /// The values as an expression (what elementwise operations on the matrix apply to).
  tensor_view<const value_type, 1> values_expr() const noexcept {
    return tensor_view<const value_type, 1>(
        values_, strided_layout<1>::right(shape_t<1>{pattern_.nnz}), detail::trusted);
  }
  /// The stored values when this operand is a plain leaf (spmul reads them in place).
  const value_type* leaf_values() const noexcept { return values_; }
  /// The read-only view expressions hold (as_const()).
  using const_view = csr_view<const value_type, I>;
  const_view as_const() const noexcept { return {pattern_, values_}; }
};

/// An elementwise expression over a sparse matrix's stored values, with the matrix's pattern:
/// 2*A, abs(A), A + A (the same pattern). `values` is a dense rank-1 expression of nnz elements.
/// `base` is the leaf's own values when `values` is a plain view of them.
template <class I, class E>
struct sparse_values_expr {
  using lz_sparse = void;
  using lz_kind = detail::sparse_kind;
  static constexpr memory_space lz_space = space_v<E>; ///< the values' (host or device)
  static constexpr std::size_t rank = 2;
  using value_type = value_t<E>;
  using index_type = I;

  detail::pattern_ref<I> pattern_;
  E values;

  shape_t<2> shape() const noexcept { return pattern_.shape(); }
  index_t nnz() const noexcept { return pattern_.nnz; }
  const detail::pattern_ref<I>& pattern() const noexcept { return pattern_; }
  const E& values_expr() const noexcept { return values; }
  const value_type* leaf_values() const noexcept { return nullptr; }
};

/// op(A)·X for a sparse A and a dense vector or matrix X (built by `A * x`, `A * B`).
template <class S, class X>
struct spmul_expr {
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = rank_v<X>;
  using value_type = value_t<X>;
  S lhs;
  X rhs;
  shape_t<rank> shape_;

  const shape_t<rank>& shape() const noexcept { return shape_; }
  static constexpr const char* op_name() { return rank == 1 ? "spmv" : "spmm"; }
  /// Evaluates the product into a fresh tensor (a product inside a reduction's operand).
  template <class P>
  tensor<value_type, rank> materialize(const P& pol) const {
    tensor<value_type, rank> t(shape_, uninitialized);
    detail::assign_with<detail::assign_op::set>(pol, t.view(), *this);
    return t;
  }
};

template <class E>
inline constexpr bool is_spmul_v = false;
template <class S, class X>
inline constexpr bool is_spmul_v<spmul_expr<S, X>> = true;

/// The right factor of a sparse operand read as a dense term (`A + D`, D dense): op(A)·I, a
/// product in form only: the step it lowers to adds α·op(A) into the destination
/// (fusion/sparse.hpp: one `?csradd`, a scatter of the stored entries). Never built by users.
template <class V>
struct sparse_identity {
  using value_type = V;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = 2;
  static constexpr memory_space lz_space = memory_space::host;
  index_t n = 0;
  shape_t<2> shape() const noexcept { return {n, n}; }
};
template <class X>
inline constexpr bool is_sparse_identity_v = false;
template <class V>
inline constexpr bool is_sparse_identity_v<sparse_identity<V>> = true;

/// α·op(A)·op(B) for two sparse terms (built by `A * B`, `transpose(A) * B`, `2 * A * B`): a
/// sparse result, computed by ONE SpGEMM when assigned to (or used to construct) an
/// lz::csr_matrix (fusion/include/lz/fusion/rules/spgemm.hpp; docs/sparse.md).
template <class A, class B>
struct spgemm_expr {
  using lz_spgemm = void;
  using lz_kind = detail::opaque_kind; ///< (walked through lhs and rhs inside A * B + D)
  static constexpr memory_space lz_space = memory_space::host;
  static constexpr std::size_t rank = 2;
  using value_type = typename A::value_type;
  using index_type = typename A::index_type;
  A lhs;
  B rhs;
  value_type alpha;
  shape_t<2> shape_;

  const shape_t<2>& shape() const noexcept { return shape_; }
};

/// A sparse × sparse product (lz::spgemm_expr).
template <class G>
concept spgemm_expression = requires {
  typename std::remove_cvref_t<G>::lz_spgemm;
};

/// α·L + β·R for two sparse terms of one shape (built by `A + B`, `A - B`, `2*A - B/3`,
/// `A * B + D`): a sparse result over the union of the two patterns, computed when assigned to
/// (or used to construct) an lz::csr_matrix (fusion/include/lz/fusion/rules/sparse_sum.hpp):
/// ONE `?csrgeam` merge, ONE loop over the values when both operands have the same pattern, ONE
/// SpGEMM merged with the other term when a term is a product. Host operands only.
template <class L, class R>
struct sparse_sum_expr {
  using lz_sparse_sum = void;
  using lz_kind = detail::opaque_kind; ///< (walked through lhs and rhs)
  static constexpr memory_space lz_space = memory_space::host;
  static constexpr std::size_t rank = 2;
  using value_type = typename L::value_type;
  using index_type = typename L::index_type;
  L lhs;
  R rhs;
  value_type alpha, beta;
  shape_t<2> shape_;

  const shape_t<2>& shape() const noexcept { return shape_; }
};

/// A sum of two sparse terms (lz::sparse_sum_expr).
template <class G>
concept sparse_sum_expression = requires {
  typename std::remove_cvref_t<G>::lz_sparse_sum;
};

/// f(T) for a sparse sum or product T (or a function of one): `lz::abs(A + B)`,
/// `2 * lz::sqrt(A * B)`, `lz::map(f, A - B)`. A sparse result with T's pattern (f should map 0
/// to 0, as for a sparse operand's values): T is computed into new arrays, then ONE loop applies
/// f to those values, in place when f keeps the element type. `f` maps the values (a dense
/// rank-1 view of nnz elements) to a dense expression; functions and scalars applied to the node
/// compose into it.
template <class G, class F>
struct sparse_apply_expr {
  using lz_sparse_apply = void;
  static constexpr memory_space lz_space = memory_space::host;
  static constexpr std::size_t rank = 2;
  using term_value_type = typename G::value_type;
  using values_view = tensor_view<const term_value_type, 1>;
  using value_type = value_t<std::invoke_result_t<const F&, const values_view&>>;
  using index_type = typename G::index_type;
  using lz_kind = detail::opaque_kind; ///< (walked through arg, as lhs and rhs of the others)
  G arg; ///< the term (`arg`: tree walkers such as the lifetime check descend into it)
  F f;

  shape_t<2> shape() const noexcept { return arg.shape(); }
};

/// A function of a sparse sum or product (lz::sparse_apply_expr).
template <class G>
concept sparse_apply_expression = requires {
  typename std::remove_cvref_t<G>::lz_sparse_apply;
};

/// A node whose sparse result is computed at assignment (its pattern is known only then): a
/// sparse × sparse product, a sparse sum, a function of one.
template <class G>
concept computed_sparse =
    spgemm_expression<G> || sparse_sum_expression<G> || sparse_apply_expression<G>;

/// Anything with a sparse result: a sparse operand, or a computed sparse term.
template <class S>
concept sparse_term = sparse_expression<S> || computed_sparse<S>;

namespace detail {

// How a sparse operand is held inside a node: every leaf as a view of const values (csr_view, or
// the device's; the matrix must outlive the expression, as a dense lvalue must), a values
// expression by value.
template <class S>
auto sparse_closure(const S& s) {
  if constexpr (requires { s.view(); })
    return s.view(); // (the const overload: a view of const values)
  else if constexpr (requires { s.values_; })
    return s.as_const();
  else
    return s;
}
template <class S>
using sparse_closure_t = decltype(sparse_closure(std::declval<const S&>()));

template <class S>
constexpr void check_sparse_lvalue() {
  static_assert(
      !std::is_rvalue_reference_v<S&&> || !requires { std::declval<S>().view(); },
      "lz: a temporary lz::csr_matrix cannot be an operand (an expression would "
      "outlive it): store the matrix in a variable first");
}

template <class S, class E>
auto make_sparse_values(const S& s, E&& e) {
  return sparse_values_expr<typename std::remove_cvref_t<S>::index_type, std::remove_cvref_t<E>>{
      s.pattern(), std::forward<E>(e)};
}

template <class A, class B>
void same_pattern(const char* op, const A& a, const B& b) {
  static_assert(std::is_same_v<typename std::remove_cvref_t<A>::index_type,
                               typename std::remove_cvref_t<B>::index_type>,
                "lz: sparse operands with different index types");
  if (!a.pattern().same_as(b.pattern()))
    throw_sparse_pattern(op, a.shape().data(), b.shape().data());
}

// g's values through fn: a computed term T becomes fn(T); a function of one composes
// (fn(f(T)): still one loop over T's values).
template <class G, class Fn>
auto apply_to_values(const G& g, Fn fn) {
  using SG = std::remove_cvref_t<G>;
  if constexpr (sparse_apply_expression<SG>) {
    auto h = [f = g.f, fn](const auto& v) { return fn(f(v)); };
    return sparse_apply_expr<decltype(g.arg), decltype(h)>{g.arg, h};
  } else {
    return sparse_apply_expr<SG, Fn>{g, fn};
  }
}
} // namespace detail

// ---- elementwise on the stored values (the overloads carry // comments: the API reference keeps
// the dense functions' briefs for these names) ----------------------------------------------

// c·A, A·c, A/c, -A: the values scaled, the pattern kept.
template <scalar_like C, sparse_expression S>
auto operator*(const C& c, S&& s) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, c * s.values_expr());
}
template <sparse_expression S, scalar_like C>
auto operator*(S&& s, const C& c) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, s.values_expr() * c);
}
template <sparse_expression S, scalar_like C>
auto operator/(S&& s, const C& c) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, s.values_expr() / c);
}
template <sparse_expression S>
auto operator-(S&& s) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, -s.values_expr());
}
// Functions with f(0) = 0 keep the pattern (a stored zero stays consistent with the implicit
// ones); others (exp, cos) would fill it and are not offered.
#define LZ_SPARSE_UNARY(NAME)                                                                      \
  template <sparse_expression S>                                                                   \
  auto NAME(S&& s) {                                                                               \
    detail::check_sparse_lvalue<S>();                                                              \
    return detail::make_sparse_values(s, lz::NAME(s.values_expr()));                               \
  }                                                                                                \
  template <computed_sparse G>                                                                     \
  auto NAME(G&& g) {                                                                               \
    return detail::apply_to_values(g, [](const auto& v) { return lz::NAME(v); });                  \
  }
// Elementwise on a sparse matrix's stored values (the pattern kept): |A|.
LZ_SPARSE_UNARY(abs)
// Elementwise on the stored values: √A.
LZ_SPARSE_UNARY(sqrt)
// Elementwise on the stored values: A².
LZ_SPARSE_UNARY(square)
// Elementwise on the stored values: sin(A).
LZ_SPARSE_UNARY(sin)
// Elementwise on the stored values: tanh(A).
LZ_SPARSE_UNARY(tanh)
#undef LZ_SPARSE_UNARY

// f applied to a sparse matrix's stored values (the pattern kept: f should map 0 to 0, since
// the entries that are not stored stay 0).
template <class F, sparse_expression S>
auto map(F f, S&& s) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, lz::map(f, s.values_expr()));
}
// f applied to the entries of a sparse sum or product (computed first, then one loop).
template <class F, computed_sparse G>
auto map(F f, G&& g) {
  return detail::apply_to_values(g, [f](const auto& v) { return lz::map(f, v); });
}

// The stored values converted to T (the pattern kept): what mixing element types asks for.
template <class T, sparse_expression S>
auto cast(S&& s) {
  detail::check_sparse_lvalue<S>();
  return detail::make_sparse_values(s, lz::cast<T>(s.values_expr()));
}
// The entries of a sparse sum or product converted to T (computed first, then one loop).
template <class T, computed_sparse G>
auto cast(G&& g) {
  return detail::apply_to_values(g, [](const auto& v) { return lz::cast<T>(v); });
}

namespace detail {
// What lz::transpose views as CSC: a leaf (host or device), or an expression over a host matrix's
// values (an elementwise function commutes with the transpose).
template <class S>
constexpr bool sparse_transposable() {
  if constexpr (requires(const S& s) { s.view(); })
    return true;
  else if constexpr (requires(const S& s) { s.values_; })
    return true;
  else if constexpr (requires(const S& s) { s.values; })
    return space_v<S> == memory_space::host;
  else
    return false;
}
} // namespace detail

// The transpose of a sparse leaf, or of an expression over a host matrix's values: the same
// arrays read as CSC (never copies).
template <sparse_expression S>
requires(detail::sparse_transposable<std::remove_cvref_t<S>>()) auto transpose(S&& s) {
  detail::check_sparse_lvalue<S>();
  auto v = detail::sparse_closure(s);
  v.pattern_ = v.pattern_.transposed();
  return v;
}

// ---- products --------------------------------------------------------------------------------

// op(A)·x and op(A)·B: a sparse matrix times a dense vector or matrix (one SpMV / SpMM at
// assignment, with scalars and the destination folded into α and β).
template <sparse_expression S, expression X>
auto operator*(S&& s, X&& x) {
  detail::check_sparse_lvalue<S>();
  static_assert(rank_v<X> == 1 || rank_v<X> == 2,
                "lz: a sparse matrix multiplies a dense vector or matrix");
  static_assert(std::is_same_v<value_t<S>, value_t<X>>,
                "lz: a sparse product's operands must have the same element type (convert one "
                "with lz::cast<T>)");
  static_assert(!mixes_spaces(space_v<S> | space_v<X>),
                "lz: a sparse product mixes host and device operands: copy one side explicitly "
                "(lz::to_device / lz::to_host)");
  const auto sa = s.shape();
  const auto sx = x.shape();
  if (sa[1] != sx[0]) detail::throw_matmul_inner(sa.data(), sx.data(), rank_v<X>);
  shape_t<rank_v<X>> r = sx;
  r[0] = sa[0];
  using CS = detail::sparse_closure_t<S>;
  using CX = closure_t<X&&>;
  return spmul_expr<CS, CX>{detail::sparse_closure(s), make_closure(std::forward<X>(x)), r};
}

namespace detail {
/// shape_error: `op` on two sparse terms of different shapes (kernels/common/errors.cpp).
[[noreturn]] void throw_sparse_shapes(const char* op, const index_t* a, const index_t* b);

// How a sparse term is held inside a product or sum node: a sparse operand as sparse_closure
// holds it, a product or sum node by value (it holds closures itself).
template <class S>
auto term_closure(const S& s) {
  if constexpr (sparse_expression<S>)
    return sparse_closure(s);
  else
    return s;
}
template <class S>
using term_closure_t = decltype(term_closure(std::declval<const S&>()));

template <class A, class B>
constexpr void check_sparse_pair(const char* what) {
  (void)what;
  using SA = std::remove_cvref_t<A>;
  using SB = std::remove_cvref_t<B>;
  static_assert(std::is_same_v<typename SA::index_type, typename SB::index_type>,
                "lz: two sparse operands with different index types");
  static_assert(std::is_same_v<value_t<SA>, value_t<SB>>,
                "lz: two sparse operands with different element types (convert the values of one "
                "with lz::cast<T>)");
}

template <class A, class B>
auto make_sparse_sum(const char* op, const A& a, const B& b, bool minus) {
  check_sparse_pair<A, B>(op);
  const auto sa = a.shape();
  const auto sb = b.shape();
  if (sa[0] != sb[0] || sa[1] != sb[1]) throw_sparse_shapes(op, sa.data(), sb.data());
  using V = value_t<A>;
  return sparse_sum_expr<term_closure_t<A>, term_closure_t<B>>{term_closure(a), term_closure(b),
                                                               V(1), minus ? V(-1) : V(1), sa};
}

// A ± B: device operands are one loop over the values, which needs the same pattern (cuSPARSE's
// SpGEAM is not wired); host terms a sparse_sum_expr.
template <class A, class B>
auto add_or_subtract(const char* op, const A& a, const B& b, bool minus) {
  if constexpr (space_v<A> != memory_space::host || space_v<B> != memory_space::host) {
    static_assert(sparse_expression<A> && sparse_expression<B>,
                  "lz: sums of sparse products run on the host only for now");
    same_pattern(op, a, b);
    if (minus) return make_sparse_values(a, a.values_expr() - b.values_expr());
    return make_sparse_values(a, a.values_expr() + b.values_expr());
  } else {
    return make_sparse_sum(op, a, b, minus);
  }
}

// op(S)·x for a sparse term S and a dense closure x, as a dense expression: a sparse operand is
// one product node; a sum distributes (α·(L·x) + β·(R·x): two SpMV / SpMM, no union formed); a
// sparse product associates (α·(L·(R·x)): two SpMV, no SpGEMM).
template <class S, class CX>
auto sparse_times(const S& s, const CX& cx) {
  if constexpr (sparse_sum_expression<S>) {
    return s.alpha * sparse_times(s.lhs, cx) + s.beta * sparse_times(s.rhs, cx);
  } else if constexpr (spgemm_expression<S>) {
    return s.alpha * sparse_times(s.lhs, sparse_times(s.rhs, cx));
  } else {
    shape_t<rank_v<CX>> r = cx.shape();
    r[0] = s.shape()[0];
    return spmul_expr<S, CX>{s, cx, r};
  }
}
// A sparse term as a dense expression term: an operand is op(A)·I (added into the destination
// by one scatter at assignment), a sparse × sparse product (op(A)·op(B))·I (accumulated into the
// destination's rows by one csrmultd); a sum distributes.
template <class S>
auto as_dense_term(const S& s) {
  if constexpr (sparse_sum_expression<S>) {
    return s.alpha * as_dense_term(s.lhs) + s.beta * as_dense_term(s.rhs);
  } else {
    // An operand, a function of a sum or product: op(A)·I, added into the destination; a sparse
    // × sparse product: (α·op(A)·op(B))·I, accumulated into the destination's rows (a computed
    // operand of either is settled first: fusion/sparse.hpp).
    using V = value_t<S>;
    return spmul_expr<S, sparse_identity<V>>{s, sparse_identity<V>{s.shape()[1]}, s.shape()};
  }
}

template <class S, class X>
void check_sparse_dense(const char* op, const S& s, const X& x) {
  static_assert(rank_v<X> == 2, "lz: a sparse matrix plus a dense operand needs a dense matrix "
                                "(rank 2; broadcast explicitly)");
  static_assert(std::is_same_v<value_t<S>, value_t<X>>,
                "lz: a sparse matrix plus a dense matrix must have the same element type (convert "
                "one with lz::cast<T>)");
  static_assert(space_v<S> == memory_space::host && space_v<X> == memory_space::host,
                "lz: sparse + dense runs on the host only for now");
  const auto sa = s.shape();
  const auto sx = x.shape();
  if (sa[0] != sx[0] || sa[1] != sx[1]) throw_sparse_shapes(op, sa.data(), sx.data());
}
} // namespace detail

// A + D, D + A, A - D, D - A for a sparse term A and a dense matrix expression D: a dense result.
// At assignment D is written into the destination (or is it: `D = D - A` runs in place) and
// α·op(A) is added by one scatter of the stored entries (rule sparse_add).
template <sparse_term S, expression X>
auto operator+(S&& s, X&& x) {
  detail::check_sparse_lvalue<S>();
  detail::check_sparse_dense("+", s, x);
  return detail::as_dense_term(detail::term_closure(s)) + std::forward<X>(x);
}
template <expression X, sparse_term S>
auto operator+(X&& x, S&& s) {
  detail::check_sparse_lvalue<S>();
  detail::check_sparse_dense("+", s, x);
  return std::forward<X>(x) + detail::as_dense_term(detail::term_closure(s));
}
template <sparse_term S, expression X>
auto operator-(S&& s, X&& x) {
  detail::check_sparse_lvalue<S>();
  detail::check_sparse_dense("-", s, x);
  return detail::as_dense_term(detail::term_closure(s)) - std::forward<X>(x);
}
template <expression X, sparse_term S>
auto operator-(X&& x, S&& s) {
  detail::check_sparse_lvalue<S>();
  detail::check_sparse_dense("-", s, x);
  return std::forward<X>(x) - detail::as_dense_term(detail::term_closure(s));
}

namespace detail {
// M ⊕= S (⊕ = Op) for a dense matrix M and a sparse term S, as M = M ⊕ S.
template <assign_op Op, class M, class S>
M& update_with_sparse(M& m, S&& s) {
  check_sparse_lvalue<S>();
  check_sparse_dense(assign_op_symbol(Op), s, m);
  assign_to<Op>(m.view(), as_dense_term(term_closure(s)));
  return m;
}
} // namespace detail

/// M += S for a dense matrix M (a tensor or a view) and a sparse term S: S added in place, as
/// `M = M + S` is (one scatter; one csrmultd for a sparse product; one step per term of a sum).
template <class M, sparse_term S>
requires(expression<M> && !sparse_term<M>) M& operator+=(M& m, S&& s) {
  return detail::update_with_sparse<detail::assign_op::add>(m, std::forward<S>(s));
}
/// M -= S for a dense matrix M and a sparse term S: S subtracted in place (as operator+=).
template <class M, sparse_term S>
requires(expression<M> && !sparse_term<M>) M& operator-=(M& m, S&& s) {
  return detail::update_with_sparse<detail::assign_op::sub>(m, std::forward<S>(s));
}

// A + B, A - B for two sparse terms of one shape: the union of their patterns (one merge at
// assignment, or one loop over the values when the patterns are the same); a shape mismatch is
// lz::shape_error naming both.
template <sparse_term A, sparse_term B>
auto operator+(A&& a, B&& b) {
  detail::check_sparse_lvalue<A>();
  detail::check_sparse_lvalue<B>();
  return detail::add_or_subtract("+", a, b, false);
}
template <sparse_term A, sparse_term B>
auto operator-(A&& a, B&& b) {
  detail::check_sparse_lvalue<A>();
  detail::check_sparse_lvalue<B>();
  return detail::add_or_subtract("-", a, b, true);
}

// c·(α·L + β·R), (α·L + β·R)·c, /c, -(...): the scalar folded into α and β.
template <scalar_like C, sparse_sum_expression G>
auto operator*(const C& c, G&& g) {
  std::remove_cvref_t<G> r = g;
  using V = typename std::remove_cvref_t<G>::value_type;
  r.alpha = V(c) * r.alpha;
  r.beta = V(c) * r.beta;
  return r;
}
template <sparse_sum_expression G, scalar_like C>
auto operator*(G&& g, const C& c) {
  return c * std::forward<G>(g);
}
template <sparse_sum_expression G, scalar_like C>
auto operator/(G&& g, const C& c) {
  std::remove_cvref_t<G> r = g;
  using V = typename std::remove_cvref_t<G>::value_type;
  r.alpha = r.alpha / V(c);
  r.beta = r.beta / V(c);
  return r;
}
template <sparse_sum_expression G>
auto operator-(G&& g) {
  std::remove_cvref_t<G> r = g;
  r.alpha = -r.alpha;
  r.beta = -r.beta;
  return r;
}

// op(A)·op(B) for two sparse terms: a sparse result (one SpGEMM when assigned to an
// lz::csr_matrix; the product's pattern is computed then). A sum or product operand is computed
// into new arrays first.
template <sparse_term A, sparse_term B>
auto operator*(A&& a, B&& b) {
  detail::check_sparse_lvalue<A>();
  detail::check_sparse_lvalue<B>();
  using SA = std::remove_cvref_t<A>;
  using SB = std::remove_cvref_t<B>;
  detail::check_sparse_pair<SA, SB>("*");
  static_assert(space_v<SA> == memory_space::host && space_v<SB> == memory_space::host,
                "lz: sparse x sparse products (SpGEMM) run on the host only for now: copy the "
                "operands with lz::to_host (cuSPARSE's SpGEMM is not wired yet)");
  const auto sa = a.shape();
  const auto sb = b.shape();
  if (sa[1] != sb[0]) detail::throw_matmul_inner(sa.data(), sb.data(), 2);
  using G = spgemm_expr<detail::term_closure_t<A>, detail::term_closure_t<B>>;
  return G{detail::term_closure(a), detail::term_closure(b), typename G::value_type(1),
           shape_t<2>{sa[0], sb[1]}};
}
// c·(A·B), (A·B)·c, (A·B)/c, -(A·B): the scalar folded into the product's α.
template <scalar_like C, spgemm_expression G>
auto operator*(const C& c, G&& g) {
  std::remove_cvref_t<G> r = g;
  r.alpha = typename std::remove_cvref_t<G>::value_type(c) * r.alpha;
  return r;
}
template <spgemm_expression G, scalar_like C>
auto operator*(G&& g, const C& c) {
  return c * std::forward<G>(g);
}
template <spgemm_expression G, scalar_like C>
auto operator/(G&& g, const C& c) {
  std::remove_cvref_t<G> r = g;
  r.alpha = r.alpha / typename std::remove_cvref_t<G>::value_type(c);
  return r;
}
template <spgemm_expression G>
auto operator-(G&& g) {
  std::remove_cvref_t<G> r = g;
  r.alpha = -r.alpha;
  return r;
}

// c·f(T), f(T)·c, f(T)/c, -f(T) for a function of a sparse sum or product: composed into f.
template <scalar_like C, sparse_apply_expression G>
auto operator*(const C& c, G&& g) {
  return detail::apply_to_values(g, [c](const auto& v) { return c * v; });
}
template <sparse_apply_expression G, scalar_like C>
auto operator*(G&& g, const C& c) {
  return detail::apply_to_values(g, [c](const auto& v) { return v * c; });
}
template <sparse_apply_expression G, scalar_like C>
auto operator/(G&& g, const C& c) {
  return detail::apply_to_values(g, [c](const auto& v) { return v / c; });
}
template <sparse_apply_expression G>
auto operator-(G&& g) {
  return detail::apply_to_values(g, [](const auto& v) { return -v; });
}

// The transpose of a sparse sum, product or function of one, pushed down to the operands where
// it is free: (α·L + β·R)ᵀ = α·Lᵀ + β·Rᵀ, (α·L·R)ᵀ = α·Rᵀ·Lᵀ, f(T)ᵀ = f(Tᵀ). Nothing is
// computed: the result is a term of the same kind over transposed (CSC) views.
template <computed_sparse G>
auto transpose(G&& g) {
  using SG = std::remove_cvref_t<G>;
  const shape_t<2> s{g.shape()[1], g.shape()[0]};
  if constexpr (sparse_sum_expression<SG>) {
    auto l = transpose(g.lhs);
    auto r = transpose(g.rhs);
    return sparse_sum_expr<decltype(l), decltype(r)>{l, r, g.alpha, g.beta, s};
  } else if constexpr (spgemm_expression<SG>) {
    auto l = transpose(g.rhs);
    auto r = transpose(g.lhs);
    return spgemm_expr<decltype(l), decltype(r)>{l, r, g.alpha, s};
  } else {
    auto t = transpose(g.arg);
    return sparse_apply_expr<decltype(t), decltype(g.f)>{t, g.f};
  }
}

// (α·L + β·R)·x and (A·B)·x with x dense: distributed and associated into SpMV / SpMM terms
// (two products into the destination, no sparse result formed); f(T)·x: one SpMV / SpMM over the
// merge of T's operands (T a sum of two, f lazuli's own), else T computed, f applied to its
// values, then one SpMV / SpMM (fusion/sparse.hpp).
template <computed_sparse G, expression X>
auto operator*(G&& g, X&& x) {
  static_assert(rank_v<X> == 1 || rank_v<X> == 2,
                "lz: a sparse matrix multiplies a dense vector or matrix");
  static_assert(std::is_same_v<value_t<G>, value_t<X>>,
                "lz: a sparse product's operands must have the same element type (convert one "
                "with lz::cast<T>)");
  static_assert(space_v<X> == memory_space::host,
                "lz: a sparse product mixes host and device operands: copy one side explicitly "
                "(lz::to_device / lz::to_host)");
  const auto sa = g.shape();
  const auto sx = x.shape();
  if (sa[1] != sx[0]) detail::throw_matmul_inner(sa.data(), sx.data(), rank_v<X>);
  return detail::sparse_times(g, make_closure(std::forward<X>(x)));
}

} // namespace lz
