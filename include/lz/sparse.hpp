// Sparse matrices: lz::csr_matrix<T, I> (compressed sparse row, values float, double or complex,
// indices int32 or int64), adopted CSR / CSC arrays (lz::adopt_csr, lz::adopt_csc: zero-copy),
// and the same expressions as dense matrices: `y = 2*A*x - 3*y` is one SpMV with α and β folded,
// `C = transpose(A)*B + C` one SpMM, `B = 2*abs(A)` one loop over the values (the pattern shared,
// not copied), `C = A + B` one merge of the two patterns, `C = A * B` one SpGEMM, `lz::sum(A)` a
// reduction over the values. docs/sparse.md is the user's page.
#pragma once

#include <lz/evaluate.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/fusion/rules/sparse_apply.hpp>
#include <lz/kernels/sparse/csr.hpp>
#include <lz/ops/reductions.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace lz {

namespace detail {
template <class I>
void check_index_fits(const char* call, const char* what, index_t v) {
  if (v < 0 || (sizeof(I) < sizeof(index_t) && v > index_t(std::numeric_limits<I>::max())))
    throw_index_overflow(call, what, v, int(sizeof(I) * 8));
}
} // namespace detail

/// How adopted or moved-in CSR arrays are treated: checked as they are (sorted, no duplicate
/// columns in a row: else lz::layout_error), or sorted (and duplicates summed) in place.
enum class csr_order : unsigned char { check, sort };

/// A sparse matrix in compressed sparse row form: rows × cols, `nnz()` stored entries, row i's
/// at [row_ptr()[i], row_ptr()[i+1]) of col_idx() and values(). The pattern (row_ptr, col_idx) is
/// immutable and shared between matrices made from one another (`B = 2*A` copies no index); the
/// values are the matrix's own. Copying copies the values and shares the pattern.
template <class T, class I = std::int32_t>
class csr_matrix {
  static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                "lz::csr_matrix: the index type is std::int32_t or std::int64_t");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> ||
                    std::is_same_v<T, std::complex<double>>,
                "lz::csr_matrix: values are float, double or std::complex of them");
  using pattern_t = detail::csr_pattern<I>;

 public:
  using lz_sparse = void;
  using lz_kind = detail::sparse_kind;
  static constexpr memory_space lz_space = memory_space::host;
  static constexpr std::size_t rank = 2;
  using value_type = T;
  using index_type = I;

  /// 0 × 0.
  csr_matrix() : csr_matrix(0, 0) {}
  /// rows × cols with no stored entry.
  csr_matrix(index_t rows, index_t cols) {
    detail::check_index_fits<I>("lz::csr_matrix", "rows", rows);
    detail::check_index_fits<I>("lz::csr_matrix", "cols", cols);
    auto p = std::make_shared<pattern_t>();
    p->rows = rows;
    p->cols = cols;
    p->own_row_ptr.assign(std::size_t(rows) + 1, I(0));
    p->row_ptr = p->own_row_ptr.data();
    p->lower = p->upper = 0;
    p_ = std::move(p);
  }
  /// Takes CSR arrays over (moved in). `order`: check them (lz::layout_error naming the row) or
  /// sort each row and sum duplicate columns.
  csr_matrix(index_t rows, index_t cols, std::vector<I> row_ptr, std::vector<I> col_idx,
             std::vector<T> values, csr_order order = csr_order::check) {
    constexpr const char* call = "lz::csr_matrix";
    detail::check_index_fits<I>(call, "rows", rows);
    detail::check_index_fits<I>(call, "cols", cols);
    if (row_ptr.size() != std::size_t(rows) + 1 || col_idx.size() != values.size())
      detail::throw_bad_pattern(call,
                                row_ptr.size() != std::size_t(rows) + 1
                                    ? "row_ptr must have rows + 1 entries"
                                    : "col_idx and values must have the same length",
                                -1);
    index_t where = -1;
    const index_t nnz = index_t(col_idx.size());
    if (const char* bad = kernels::sparse::check_pattern<I>(
            rows, cols, nnz, row_ptr.data(), col_idx.data(), order == csr_order::check, where))
      detail::throw_bad_pattern(call, bad, where);
    index_t n = nnz;
    if (order == csr_order::sort)
      n = kernels::sparse::sort_rows<T, I>(rows, row_ptr.data(), col_idx.data(), values.data());
    col_idx.resize(std::size_t(n));
    adopt_arrays(rows, cols, std::move(row_ptr), std::move(col_idx), values.data(), n);
  }
  /// A deep copy of any sparse operand (a view, a transposed view, a values expression).
  template <sparse_expression S>
  requires(!std::is_same_v<std::remove_cvref_t<S>, csr_matrix>) csr_matrix(const S& s) {
    *this = s;
  }

  /// From triplets (row, col, value): duplicates summed, indices checked (std::out_of_range
  /// naming the triplet).
  static csr_matrix from_triplets(index_t rows, index_t cols, std::span<const I> r,
                                  std::span<const I> c, std::span<const T> v) {
    if (r.size() != c.size() || r.size() != v.size())
      throw shape_error("lz::csr_matrix::from_triplets: rows, cols and values must have the "
                        "same length (" +
                        std::to_string(r.size()) + ", " + std::to_string(c.size()) + ", " +
                        std::to_string(v.size()) + ")");
    detail::check_index_fits<I>("lz::csr_matrix::from_triplets", "rows", rows);
    detail::check_index_fits<I>("lz::csr_matrix::from_triplets", "cols", cols);
    std::vector<I> rp, ci;
    std::vector<T> vals;
    kernels::sparse::from_triplets<T, I>(rows, cols, index_t(r.size()), r.data(), c.data(),
                                         v.data(), rp, ci, vals);
    csr_matrix m;
    m.adopt_arrays(rows, cols, std::move(rp), std::move(ci), vals.data(), index_t(vals.size()));
    return m;
  }

  /// The entries of a dense matrix expression with |value| > tol (tol = 0: every nonzero).
  template <matrix_expression E>
  static csr_matrix from_dense(const E& e, double tol = 0) {
    static_assert(std::is_same_v<value_t<E>, T>,
                  "lz::csr_matrix::from_dense: the expression's element type must be T");
    const tensor<T, 2> d = lz::eval(e);
    const index_t m = d.shape()[0], n = d.shape()[1];
    detail::check_index_fits<I>("lz::csr_matrix::from_dense", "rows", m);
    detail::check_index_fits<I>("lz::csr_matrix::from_dense", "cols", n);
    std::vector<I> rp(std::size_t(m) + 1, I(0)), ci;
    std::vector<T> vals;
    for (index_t i = 0; i < m; ++i) {
      for (index_t j = 0; j < n; ++j) {
        const T x = d(i, j);
        if (std::abs(x) > tol || (tol == 0 && x != T(0))) {
          ci.push_back(I(j));
          vals.push_back(x);
        }
      }
      detail::check_index_fits<I>("lz::csr_matrix::from_dense", "nnz", index_t(ci.size()));
      rp[std::size_t(i) + 1] = I(ci.size());
    }
    csr_matrix r;
    r.adopt_arrays(m, n, std::move(rp), std::move(ci), vals.data(), index_t(vals.size()));
    return r;
  }

  /// A sparse product or sum (`lz::csr_matrix<double> C = A * B;`, `= A + B`): see operator=.
  template <computed_sparse G>
  csr_matrix(const G& g) {
    *this = g;
  }
  /// C = α·op(A)·op(B) (A, B sparse): ONE SpGEMM into new arrays (fusion/rules/spgemm.hpp),
  /// which *this takes once the product has succeeded; `A = A * A` is fine. An error (C's entry
  /// count past I) leaves *this unchanged.
  template <spgemm_expression G>
  csr_matrix& operator=(const G& g) {
    check_result_type<G>();
    return take(fusion::run_spgemm<T, I>(g), g.shape());
  }
  /// C = α·L + β·R (sparse terms): the union of the patterns (fusion/rules/sparse_sum.hpp). Two
  /// operands with the same pattern: ONE loop over the values, C taking that pattern as
  /// operator=(sparse_expression) does (in place when C holds it already); a product term: ONE
  /// SpGEMM merged with the other term; else ONE merge into new arrays, which *this takes once
  /// the call has succeeded (`A = A + B` is fine; an error leaves *this unchanged).
  template <sparse_sum_expression G>
  csr_matrix& operator=(const G& g) {
    check_result_type<G>();
    if constexpr (fusion::sparse_sum_plan_v<G> == fusion::sparse_sum_plan::values_or_merge) {
      if (fusion::sparse_sum_same_pattern(g)) {
        const auto l = g.lhs.values_expr();
        const auto r = g.rhs.values_expr();
        if (g.alpha == T(1) && g.beta == T(1))
          return *this = detail::make_sparse_values(g.lhs, l + r);
        if (g.alpha == T(1) && g.beta == T(-1))
          return *this = detail::make_sparse_values(g.lhs, l - r);
        return *this = detail::make_sparse_values(g.lhs, g.alpha * l + g.beta * r);
      }
    }
    return take(fusion::run_sparse_sum<T, I>(g), g.shape());
  }
  /// C = f(T) for a sparse sum or product T (`C = lz::abs(A + B)`): T into new arrays, then ONE
  /// loop applies f to their values (in place when f keeps the type); *this takes the arrays once
  /// both succeeded (fusion/rules/sparse_apply.hpp).
  /// A function of a sum of two operands with the same pattern is ONE loop over the values,
  /// f(α·a + β·b), C taking that pattern (as operator=(sparse_sum_expression) does for the sum).
  template <sparse_apply_expression G>
  csr_matrix& operator=(const G& g) {
    check_result_type<G>();
    if constexpr (fusion::sparse_apply_of_operand_sum<G>()) {
      if (fusion::sparse_apply_same_pattern(g)) {
        const auto& s = g.arg;
        return *this = detail::make_sparse_values(
                   s.lhs, g.f(s.alpha * s.lhs.values_expr() + s.beta * s.rhs.values_expr()));
      }
    }
    return take(fusion::run_sparse_apply<T, I>(g), g.shape());
  }
  csr_matrix(const csr_matrix& o) : p_(o.p_), v_(o.v_) {}
  csr_matrix(csr_matrix&&) noexcept = default;
  csr_matrix& operator=(const csr_matrix& o) {
    if (this != &o) {
      v_ = o.v_;
      p_ = o.p_;
      s_.reset(); // (o's strips were cut from o's values)
    }
    return *this;
  }
  csr_matrix& operator=(csr_matrix&&) noexcept = default;

  /// Evaluates a sparse expression: its pattern (shared when it has an owner, else copied) and
  /// its values in ONE loop (the dense engine over the values) — into this matrix's own values,
  /// with no allocation, when it already holds that pattern object (`B = 2*B`, `B = -A` after
  /// `B = 2*A`). A transposed operand is transposed into CSR here (one counting sort). Errors
  /// lazuli raises leave *this unchanged; a user function (lz::map) that throws leaves each value
  /// old or new, as for a dense destination (docs/errors.md).
  template <sparse_expression S>
  requires(!std::is_same_v<std::remove_cvref_t<S>, csr_matrix>) csr_matrix& operator=(const S& s) {
    static_assert(std::is_same_v<typename S::index_type, I>,
                  "lz::csr_matrix: assigning a sparse expression of another index type");
    (void)sizeof(detail::check_narrowing<value_t<S>, T, S>);
    const auto& pr = s.pattern();
    if (!pr.trans && pr.owner && *pr.owner == p_) {
      // The same pattern object (B = 2*B, or B made from A before): the values in place, one
      // loop, no allocation (a loop cannot fail half-way once started: the shape is checked).
      s_.reset();
      detail::assign_to<detail::assign_op::set>(v_.view(), s.values_expr());
      return *this;
    }
    tensor<T, 1> v(shape_t<1>{pr.nnz}, uninitialized);
    detail::assign_to<detail::assign_op::set>(v.view(), s.values_expr());
    if (pr.trans) {
      *this = transposed_copy(pr, v.data());
      return *this;
    }
    std::shared_ptr<const pattern_t> p;
    if (pr.owner)
      p = *pr.owner;
    else
      p = copy_pattern(pr);
    p_ = std::move(p);
    v_ = std::move(v);
    s_.reset();
    return *this;
  }

  index_t rows() const noexcept { return p_->rows; }
  index_t cols() const noexcept { return p_->cols; }
  index_t nnz() const noexcept { return p_->nnz; }
  shape_t<2> shape() const noexcept { return {p_->rows, p_->cols}; }
  std::span<const I> row_ptr() const noexcept { return {p_->row_ptr, std::size_t(p_->rows) + 1}; }
  std::span<const I> col_idx() const noexcept { return {p_->col_idx, std::size_t(p_->nnz)}; }
  std::span<const T> values() const noexcept { return {v_.data(), std::size_t(p_->nnz)}; }
  /// The values, writable (drops the column-strip copy: see optimize_products).
  std::span<T> values() noexcept {
    s_.reset();
    return {v_.data(), std::size_t(p_->nnz)};
  }
  /// The values as a rank-1 tensor view (write them with any dense expression; drops the
  /// column-strip copy).
  tensor_view<T, 1> values_view() noexcept {
    s_.reset();
    return v_.view();
  }

  /// Keeps a second copy of the matrix cut into column strips, which `y = α·A·x + β·y` then runs
  /// strip by strip (each strip gathers from its own part of x): for large matrices whose rows
  /// reach all over a long x (a random pattern), not for band matrices. `strips` = 0 chooses
  /// (kernels::sparse::strips_for: x's part of a strip about twice the L2 cache, at most 4; 1 when
  /// x fits, when A's band does, or when rows hold under 2 entries a strip); 1 drops the copy.
  /// Returns the count kept (1: none). The copy costs A's memory again (values and column
  /// indices, and rows + 1 offsets a strip) and one pass to build; only SpMV uses it (SpMM and
  /// values expressions such as abs(A)·x read A itself; 2*A*x folds the 2 into α and does use
  /// it). Each row's sum is then added strip by strip: other roundings than A's own (the same on
  /// any number of threads); `transpose(A) * w` scatters each strip into its own range of y, with
  /// A's own bits, threads taking whole strips (a random pattern's scatter has no other split).
  /// The copy is a snapshot: every non-const access to the values (values(), values_view(),
  /// view(), an assignment) drops it; a span or view of them taken before this call must not be
  /// written after it. A product looks the strips up when it is assigned (an expression built
  /// earlier sees them as they are then). perf/w14_spmv measures them (docs/sparse.md).
  index_t optimize_products(index_t strips = 0) {
    const kernels::sparse::csr<T, I> a = kernel_csr();
    if (strips <= 0) strips = kernels::sparse::strips_for<T, I>(a);
    if (strips <= 1 || p_->nnz == 0) {
      s_.reset();
      return 1;
    }
    auto c = std::make_shared<kernels::sparse::csr_strips<T, I>>();
    kernels::sparse::cut_strips<T, I>(a, strips, *c);
    s_ = std::move(c);
    return strips;
  }
  /// The column strips an SpMV runs (1: none kept; optimize_products).
  index_t product_strips() const noexcept { return s_ ? index_t(s_->parts.size()) : 1; }
  tensor_view<const T, 1> values_expr() const noexcept { return v_.view(); }
  const T* leaf_values() const noexcept { return v_.data(); }
  /// True when both matrices hold the same pattern object (made from one another).
  bool shares_pattern_with(const csr_matrix& o) const noexcept { return p_ == o.p_; }

  detail::pattern_ref<I> pattern() const noexcept {
    return {p_->rows, p_->cols, p_->nnz,   p_->row_ptr, p_->col_idx, false,
            &p_,      true,     p_->lower, p_->upper,   &s_,         &strips_of};
  }
  /// A view with writable values (drops the column-strip copy).
  csr_view<T, I> view() noexcept {
    s_.reset();
    return {pattern(), v_.data()};
  }
  csr_view<const T, I> view() const noexcept { return {pattern(), v_.data()}; }

  /// The entry (i, j): its stored value or 0 (a binary search in row i).
  T operator()(index_t i, index_t j) const {
    if (i < 0 || i >= rows() || j < 0 || j >= cols())
      throw std::out_of_range("lz::csr_matrix: (" + std::to_string(i) + ", " + std::to_string(j) +
                              ") is outside " + std::to_string(rows()) + " x " +
                              std::to_string(cols()));
    const I* b = p_->col_idx + p_->row_ptr[i];
    const I* e = p_->col_idx + p_->row_ptr[i + 1];
    const I* it = std::lower_bound(b, e, I(j));
    return it != e && *it == I(j) ? v_.data()[it - p_->col_idx] : T(0);
  }

 private:
  template <class G>
  static constexpr void check_result_type() {
    static_assert(std::is_same_v<typename G::index_type, I>,
                  "lz::csr_matrix: assigning a sparse product or sum of another index type");
    static_assert(std::is_same_v<typename G::value_type, T>,
                  "lz::csr_matrix: assigning a sparse product or sum of another element type");
  }
  // The bandwidths of a new pattern (one pass over its rows' ends; products' threads use them).
  static void find_band(pattern_t& p) {
    kernels::sparse::band_of<I>(p.rows, p.row_ptr, p.col_idx, p.lower, p.upper);
  }
  // Takes a product's or sum's arrays: the pattern's vectors and the values' tensor, moved.
  csr_matrix& take(fusion::spgemm_result<T, I>&& r, const shape_t<2>& shape) {
    auto p = std::make_shared<pattern_t>();
    p->rows = shape[0];
    p->cols = shape[1];
    p->nnz = index_t(r.col_idx.size());
    p->own_row_ptr = std::move(r.row_ptr);
    p->own_col_idx = std::move(r.col_idx);
    p->row_ptr = p->own_row_ptr.data();
    p->col_idx = p->own_col_idx.data();
    find_band(*p);
    if (r.values.size() != p->nnz) // (a kernel that returned before asking for the values)
      r.values = tensor<T, 1>(shape_t<1>{p->nnz}, uninitialized);
    p_ = std::move(p);
    v_ = std::move(r.values);
    s_.reset();
    return *this;
  }
  void adopt_arrays(index_t rows, index_t cols, std::vector<I> rp, std::vector<I> ci, const T* vals,
                    index_t nnz) {
    auto p = std::make_shared<pattern_t>();
    p->rows = rows;
    p->cols = cols;
    p->nnz = nnz;
    p->own_row_ptr = std::move(rp);
    p->own_col_idx = std::move(ci);
    p->row_ptr = p->own_row_ptr.data();
    p->col_idx = p->own_col_idx.data();
    find_band(*p);
    tensor<T, 1> v(shape_t<1>{nnz}, uninitialized);
    std::copy(vals, vals + nnz, v.data());
    p_ = std::move(p);
    v_ = std::move(v);
    s_.reset();
  }
  static std::shared_ptr<const pattern_t> copy_pattern(const detail::pattern_ref<I>& pr) {
    auto p = std::make_shared<pattern_t>();
    p->rows = pr.rows;
    p->cols = pr.cols;
    p->nnz = pr.nnz;
    p->own_row_ptr.assign(pr.row_ptr, pr.row_ptr + pr.rows + 1);
    p->own_col_idx.assign(pr.col_idx, pr.col_idx + pr.nnz);
    p->row_ptr = p->own_row_ptr.data();
    p->col_idx = p->own_col_idx.data();
    find_band(*p);
    return p;
  }
  // CSR of the transpose of the stored (rows × cols) matrix (kernels::sparse::transpose).
  static csr_matrix transposed_copy(const detail::pattern_ref<I>& pr, const T* vals) {
    std::vector<I> rp, ci;
    std::vector<T> v;
    kernels::sparse::transpose<T, I>({pr.rows, pr.cols, pr.nnz, pr.row_ptr, pr.col_idx, vals},
                                     false, rp, ci, v);
    csr_matrix m;
    m.adopt_arrays(pr.cols, pr.rows, std::move(rp), std::move(ci), v.data(), pr.nnz);
    return m;
  }

  // pattern_ref::strips_of: the strips *owner (an s_) keeps when cut from `values`.
  static const void* strips_of(const void* owner, const void* values, int tag,
                               index_t& n) noexcept {
    const auto& s = *static_cast<const decltype(s_)*>(owner);
    if (!s || tag != detail::strips_tag<T>() || static_cast<const void*>(s->source) != values)
      return nullptr;
    n = index_t(s->parts.size());
    return s->parts.data();
  }
  kernels::sparse::csr<T, I> kernel_csr() const noexcept {
    return {p_->rows, p_->cols, p_->nnz, p_->row_ptr, p_->col_idx, v_.data(), p_->lower, p_->upper};
  }

  std::shared_ptr<const pattern_t> p_;
  tensor<T, 1> v_;
  std::shared_ptr<const kernels::sparse::csr_strips<T, I>> s_; ///< optimize_products' copy
};

/// Adopts CSR arrays the caller owns (zero-copy; they must outlive the view and every expression
/// over it). The pattern is checked (lz::layout_error naming the row), or with csr_order::sort
/// sorted in place first (duplicates are then refused: sorting cannot shrink adopted arrays),
/// and its bandwidths found (kernels::sparse::band_of): row_ptr and col_idx must not change
/// while the view is in use (values may).
template <class T, class I>
csr_view<T, I> adopt_csr(index_t rows, index_t cols, index_t nnz, I* row_ptr, I* col_idx, T* values,
                         csr_order order = csr_order::check) {
  constexpr const char* call = "lz::adopt_csr";
  detail::check_index_fits<I>(call, "rows", rows);
  detail::check_index_fits<I>(call, "cols", cols);
  detail::check_index_fits<I>(call, "nnz", nnz);
  if (!row_ptr || (nnz > 0 && (!col_idx || !values)))
    detail::throw_bad_pattern(call, "null array", -1);
  index_t where = -1;
  if (const char* bad =
          kernels::sparse::check_pattern<I>(rows, cols, nnz, row_ptr, col_idx, true, where)) {
    if (order == csr_order::check ||
        kernels::sparse::check_pattern<I>(rows, cols, nnz, row_ptr, col_idx, false, where))
      detail::throw_bad_pattern(call, bad, where);
    if (kernels::sparse::sort_rows<std::remove_const_t<T>, I>(rows, row_ptr, col_idx, values) !=
        nnz)
      detail::throw_bad_pattern(call, "duplicate column in a row (cannot be summed in place)", -1);
  }
  detail::pattern_ref<I> p{rows, cols, nnz, row_ptr, col_idx, false, nullptr};
  kernels::sparse::band_of<I>(rows, row_ptr, col_idx, p.lower, p.upper);
  return {p, values};
}

/// Adopts CSC arrays (col_ptr: cols + 1 offsets, row_idx): the transposed view of the CSR
/// arrays of the transpose, zero-copy.
template <class T, class I>
csr_view<T, I> adopt_csc(index_t rows, index_t cols, index_t nnz, I* col_ptr, I* row_idx, T* values,
                         csr_order order = csr_order::check) {
  auto v = adopt_csr(cols, rows, nnz, col_ptr, row_idx, values, order);
  v.pattern_ = v.pattern_.transposed();
  return v;
}

/// The plan of `C = A * B` for sparse A and B (one SpGEMM), as text; nothing runs.
template <class T, class I, spgemm_expression G>
std::string explain(csr_matrix<T, I>& dst, const G& g) {
  (void)dst;
  return fusion::explain_spgemm(g.shape(), g);
}

/// The plan of `C = A + B` for sparse terms A and B (one merge, one values loop, or one SpGEMM
/// with an addend), as text; nothing runs.
template <class T, class I, sparse_sum_expression G>
std::string explain(csr_matrix<T, I>& dst, const G& g) {
  (void)dst;
  return fusion::explain_sparse_sum(g.shape(), g);
}

/// The plan of `C = f(T)` for a sparse sum or product T (T's plan, then one loop over its
/// values), as text; nothing runs.
template <class T, class I, sparse_apply_expression G>
std::string explain(csr_matrix<T, I>& dst, const G& g) {
  (void)dst;
  return fusion::explain_sparse_apply(g.shape(), g);
}

namespace detail {
template <class G>
using sparse_result_t = csr_matrix<typename G::value_type, typename G::index_type>;
} // namespace detail

/// A sparse operand as a dense tensor (zeros where nothing is stored).
template <sparse_expression S>
tensor<value_t<S>, 2> to_dense(const S& s) {
  static_assert(space_v<S> == memory_space::host,
                "lz::to_dense: a device sparse matrix: copy it with lz::to_host first");
  using T = value_t<S>;
  const auto& p = s.pattern();
  tensor<T, 1> v(shape_t<1>{p.nnz}, uninitialized);
  detail::assign_to<detail::assign_op::set>(v.view(), s.values_expr());
  tensor<T, 2> d(s.shape());
  for (index_t i = 0; i < p.rows; ++i)
    for (index_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
      const index_t j = p.col_idx[k];
      (p.trans ? d(j, i) : d(i, j)) += v(k);
    }
  return d;
}

// Sum of the stored values (the entries not stored are 0).
template <sparse_expression S>
auto sum(S&& s) {
  detail::check_sparse_lvalue<S>();
  return lz::sum(s.values_expr());
}
// Frobenius norm: sqrt of the sum of the squared stored values.
template <sparse_expression S>
auto norm2(S&& s) {
  detail::check_sparse_lvalue<S>();
  return lz::norm2(s.values_expr());
}

/// A sparse sum or product (or a function of one) as a dense tensor (computed as a csr_matrix
/// first).
template <computed_sparse G>
auto to_dense(const G& g) {
  const detail::sparse_result_t<G> c = g;
  return to_dense(c);
}
// Sum of a sparse sum's or product's entries: computed as a csr_matrix first, so the value
// itself (not a lazy reduction) is returned.
template <computed_sparse G>
auto sum(const G& g) {
  const detail::sparse_result_t<G> c = g;
  return lz::eval(lz::sum(c));
}
// Frobenius norm of a sparse sum or product: computed as a csr_matrix first (the value returned).
template <computed_sparse G>
auto norm2(const G& g) {
  const detail::sparse_result_t<G> c = g;
  return lz::eval(lz::norm2(c));
}

} // namespace lz
