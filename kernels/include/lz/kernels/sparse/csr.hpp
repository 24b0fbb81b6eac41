// Sparse kernels: the compiled half of lz::csr_matrix (include/lz/sparse.hpp). CSR (compressed
// sparse row) over raw arrays: row i's entries are col_idx[k], values[k] for k in
// [row_ptr[i], row_ptr[i+1]). Products (spmv, spmm) report to the BLAS recorder (blas.hpp's
// `call`: routine "dcsrmv" / "dcsrmm" ...) and are traced under LZ_LOG=blas; building and
// checking patterns (triplets, validation, sorting) is here too so that the header stays small.
// Instantiated for V in {float, double, complex<float>, complex<double>} and I in {int32, int64}.
#pragma once

#include <lz/config.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lz::kernels::sparse {

/// A CSR matrix as the kernels read it (rows × cols, nnz = row_ptr[rows] - row_ptr[0]).
template <class V, class I>
struct csr {
  index_t rows = 0, cols = 0, nnz = 0;
  const I* row_ptr = nullptr; ///< rows + 1 offsets, non-decreasing
  const I* col_idx = nullptr; ///< nnz column indices in [0, cols), sorted within each row
  const V* values = nullptr;  ///< nnz values
  /// The bandwidths when known (-1: not known): every entry (i, c) has i - lower <= c <= i + upper
  /// (band_of). A transposed product's threads then each walk only the rows that reach their
  /// range of the output; never narrower than the entries (a wrong band drops them).
  index_t lower = -1, upper = -1;
  /// Optional: the same matrix cut into `nstrips` column strips (cut_strips), which an SpMV runs
  /// instead, strip by strip (null: none; SpMM and the other products ignore it).
  const csr* strips = nullptr;
  index_t nstrips = 0;
};

/// A CSR matrix's second copy cut into column strips (cut_strips): strip s is a rows × cols CSR
/// holding the entries with columns in [s·width, (s+1)·width), in storage order. An SpMV over
/// all the strips in order gathers x one strip's part at a time: on a matrix whose x does not
/// fit the L2 cache and whose rows reach all over it (a random pattern) the part does better.
/// `source` is the values array the copy was taken from (a product uses the strips only when it
/// reads exactly that array).
template <class V, class I>
struct csr_strips {
  csr_strips() = default;
  csr_strips(const csr_strips&) = delete; // (parts point into the vectors: moved, never copied)
  csr_strips& operator=(const csr_strips&) = delete;
  csr_strips(csr_strips&&) noexcept = default;
  csr_strips& operator=(csr_strips&&) noexcept = default;

  index_t width = 0;
  std::vector<std::vector<I>> row_ptr, col_idx;
  std::vector<std::vector<V>> values;
  std::vector<csr<V, I>> parts; ///< the strips as the kernels read them (views of the above)
  const V* source = nullptr;
};

/// The columns [strip_begin(cols, parts, s), strip_begin(cols, parts, s + 1)) of strip s of
/// `parts` (cut_strips: equal widths, the last narrower; a strip past cols empty).
inline index_t strip_begin(index_t cols, index_t parts, index_t s) {
  const index_t width = parts > 0 ? std::max<index_t>((cols + parts - 1) / parts, 1) : cols;
  return s >= parts ? cols : std::min(cols, s * width);
}

/// How many column strips an SpMV over A would gain from (1: none): x's part of a strip about
/// twice the L2 cache (`l2_bytes`; 0: the CPU's, else 1 MiB), at most 4 strips, and only for a
/// pattern whose band is unknown or wider than the L2 holds (a band matrix's rows gather from a
/// window of x that the cache keeps already).
template <class V, class I>
index_t strips_for(const csr<V, I>& A, index_t l2_bytes = 0);

/// Cuts A (any band; sorted rows) into `parts` column strips of equal width (the last narrower):
/// fills `out` (parts >= 1; a strip may be empty), its `source` A.values. Throws std::bad_alloc
/// only (before `out` is changed: the copy is built aside, then moved in).
template <class V, class I>
void cut_strips(const csr<V, I>& A, index_t parts, csr_strips<V, I>& out);

/// y = alpha·op(A)·x + beta·y (op: none, transpose, conj_transpose). x has op(A).cols entries,
/// y op(A).rows, at signed strides incx, incy (pointers to element 0). beta == 0 never reads y
/// (NaN and Inf in y do not leak). `threads`: false runs on the calling thread only; true lets
/// the kernel split the work over lazuli's threads (kernels::cpu::parallel_for) when it is large
/// enough. Results do not depend on the number of threads (each y element is summed in one fixed
/// order). op(A) = Aᵀ or Aᴴ scatters A's rows: y = β·y, then each entry added into y in storage
/// order (one serial scatter's order); threads split y's elements into ranges, each walking the
/// rows of A that reach its range (A.lower, A.upper known and narrow: about its share; else every
/// row) for its range's entries (no buffers), when A's band is narrow or its rows mostly fall
/// within one range (a random matrix's scatter runs on the calling thread). With A.strips set:
/// op(A) = A runs the strips in order, y = α·S₀·x + β·y, then y = α·Sₛ·x + y for each next one
/// (other roundings than A's own rows; again the same bits on any number of threads); a
/// transpose scatters each strip into its own range of y (threads take whole strips: the bits
/// of A's own scatter). One call recorded. @pre x and y do not overlap.
template <class V, class I>
void spmv(blas::trans t, const csr<V, I>& A, V alpha, const V* x, index_t incx, V beta, V* y,
          index_t incy, bool threads);

/// C = alpha·op(A)·B + beta·C with B op(A).cols × k and C op(A).rows × k, any signed strides
/// (element (i, j) of B at B[i*rsb + j*csb]). beta == 0 never reads C. @pre B and C do not
/// overlap.
template <class V, class I>
void spmm(blas::trans t, const csr<V, I>& A, index_t k, V alpha, const V* B, index_t rsb,
          index_t csb, V beta, V* C, index_t rsc, index_t csc, bool threads);

/// A function applied to values in place: `apply(ctx, v, n)` maps v[0..n) (the caller's
/// elementwise function, run on the calling thread or on one of lazuli's; it may be called from
/// several threads at once, on disjoint arrays). Null `apply`: the identity.
template <class V>
struct value_map {
  const void* ctx = nullptr;
  void (*apply)(const void* ctx, V* v, index_t n) = nullptr;
};

/// A function of the stored values a real SpMV applies itself as it reads each one (value_fill).
enum class value_fn : unsigned char { none, abs, square };

/// Values computed on demand: `fill(ctx, k0, v, n)` writes the values of entries [k0, k0 + n) (as
/// the kernels index A.values: row_ptr offsets) into v[0..n) (the caller's elementwise
/// expression over its own arrays, run on the calling thread or on one of lazuli's; it may be
/// called from several threads at once, for disjoint entries and into disjoint buffers).
template <class V>
struct value_fill {
  const void* ctx = nullptr;
  void (*fill)(const void* ctx, index_t k0, V* v, index_t n) = nullptr;
  /// Optional (may be null): a hint that entries [k0, k0 + n) are filled soon (it prefetches the
  /// arrays fill reads them from; never reads them).
  void (*touch)(const void* ctx, index_t k0, index_t n) = nullptr;
  /// Optional: F's value k is also `fn(src[k])` (src indexed as A.values; `abs` or `square` of
  /// real values). A real spmv_fill then reads src in its row loop and applies fn to each value:
  /// no blocks, fill and touch never called, the bits of spmv over fn(src) stored (a row longer
  /// than a block one sum, not pieces). spmm_fill and complex values still fill blocks.
  value_fn fn = value_fn::none;
  const V* src = nullptr;
};

/// y = alpha·op(F)·x + beta·y for the matrix F with A's pattern whose values `f` computes
/// (A.values is not read): each thread has f write its rows' values into a buffer of its own, a
/// block of at most 2048 entries at a time, and sums each row against x (A's column indices read
/// in place), so F's values never exist whole (`y = abs(A) * x` reads A once and writes no
/// temporary). A row longer than a block is cut at fixed multiples of 2048 from its start; each y
/// element is one sum in column order whatever the threads. op(F) = Fᵀ or Fᴴ scatters F's
/// entries as spmv scatters a stored matrix's (the same order: the same bits as spmv of F
/// stored); with threads, each one's f writes only the entries of a block in its range of y.
/// The result does not depend on the thread count. Recorded and traced as spmv ("dcsrmv";
/// "values=f" in the trace). beta == 0 never reads y. An exception from f propagates; y's elements
/// are then each old or new (op = none) or y is unspecified (a transpose: it scatters). @pre x and
/// y do not overlap.
template <class V, class I>
void spmv_fill(blas::trans t, const csr<V, I>& A, value_fill<V> f, V alpha, const V* x,
               index_t incx, V beta, V* y, index_t incy, bool threads);

/// Y = alpha·op(F)·X + beta·Y: spmv_fill for a dense X (op(A).cols × k) and Y (op(A).rows × k),
/// any signed strides; recorded and traced as spmm ("dcsrmm"). @pre X and Y do not overlap.
template <class V, class I>
void spmm_fill(blas::trans t, const csr<V, I>& A, value_fill<V> f, index_t k, V alpha, const V* X,
               index_t rsx, index_t csx, V beta, V* Y, index_t rsy, index_t csy, bool threads);

/// y = alpha·f(a·op(A) + b·op(B))·x + beta·y for two sparse matrices of one shape (op(A).rows ×
/// op(A).cols) without forming their sum: each thread merges its rows of op(A) and op(B) (sorted
/// columns), a block of at most 2048 entries at a time, into a buffer of its own (an entry in
/// both is a·a_ij + b·b_ij, one in either alone a·a_ij or b·b_ij), applies f to the block's
/// values in one call, then sums each row against x. f sees only the union's entries (f(0) = 0 is
/// assumed, as for a function of a sparse matrix). An operand with op = transpose (or
/// conj_transpose) is transposed into CSR first, in the kernel's own workspace. Each y element is
/// one sum over its row in column order, whatever the blocks and threads: the result does not
/// depend on the thread count. beta == 0 never reads y. An exception from f propagates; y's
/// elements are then each old or new. @pre x and y do not overlap.
template <class V, class I>
void spmv_sum(blas::trans ta, const csr<V, I>& A, V a, blas::trans tb, const csr<V, I>& B, V b,
              value_map<V> f, V alpha, const V* x, index_t incx, V beta, V* y, index_t incy,
              bool threads);

/// Y = alpha·f(a·op(A) + b·op(B))·X + beta·Y: spmv_sum for a dense X (op(A).cols × k) and Y
/// (op(A).rows × k), any signed strides (element (i, j) of X at X[i*rsx + j*csx]). Each element of
/// Y is one sum over its row in column order (the result does not depend on the thread count);
/// beta == 0 never reads Y. @pre X and Y do not overlap.
template <class V, class I>
void spmm_sum(blas::trans ta, const csr<V, I>& A, V a, blas::trans tb, const csr<V, I>& B, V b,
              value_map<V> f, index_t k, V alpha, const V* X, index_t rsx, index_t csx, V beta,
              V* Y, index_t rsy, index_t csy, bool threads);

/// C = alpha·op(A) + beta·C for a dense C (op(A).rows × op(A).cols, element (i, j) at
/// C[i*rsc + j*csc], any signed strides): C scaled (beta == 0 never reads it), then A's stored
/// entries added where they are (a scatter; op = conj_transpose conjugates them). `threads` as
/// for spmv; each element of C is written by one thread, so the result does not depend on the
/// thread count. @pre A has no duplicate entry (a checked pattern) and does not overlap C.
template <class V, class I>
void add_dense(blas::trans t, const csr<V, I>& A, V alpha, V beta, V* C, index_t rsc, index_t csc,
               bool threads);

/// Where a kernel that makes a new matrix puts its values: `get(ctx, nnz)` returns a buffer for
/// nnz values, called once, when the pattern is known (so a caller's container is written in
/// place: no copy, no zero-fill). An exception from it propagates.
template <class V>
struct value_buffer {
  void* ctx = nullptr;
  V* (*get)(void* ctx, index_t nnz) = nullptr;
};

/// C = alpha·A·B (+ beta·D when D is not null) for CSR matrices (A.cols == B.rows; D A.rows ×
/// B.cols): C's arrays written into row_ptr (A.rows + 1), col_idx and values, its columns sorted
/// in each row. The pattern is structural (an entry whose products cancel is stored as 0); D's
/// entries are in it (each row's products, sorted, merged with D's row). `threads` as for spmv; the
/// result does not depend on the thread count. Throws lz::layout_error when C's entry count does
/// not fit I.
template <class V, class I>
void spgemm(const csr<V, I>& A, const csr<V, I>& B, V alpha, const csr<V, I>* D, V beta,
            std::vector<I>& row_ptr, std::vector<I>& col_idx, value_buffer<V> values, bool threads);

/// C = alpha·op(A)·op(B) + beta·C for CSR A and B and a dense C (op(A).rows × op(B).cols,
/// element (i, j) at C[i*rsc + j*csc], any signed strides): no pattern is formed; each row of C
/// is scaled (beta == 0 never reads it), then accumulates alpha·a_ik·op(B)(k, :) for the
/// entries of row i of op(A), in place (Gustavson's product with the destination's row as the
/// accumulator; MKL's name for it, "dcsrmultd"). An operand with op = transpose (or
/// conj_transpose) is transposed into CSR first, in the kernel's own workspace (a counting
/// sort). `threads` as for spmv: rows are split by their multiply-adds and each element of C is
/// written by one thread in one fixed order, so the result does not depend on the thread count.
/// @pre op(A).cols == op(B).rows; A and B do not overlap C.
template <class V, class I>
void spgemm_dense(blas::trans ta, const csr<V, I>& A, blas::trans tb, const csr<V, I>& B, V alpha,
                  V beta, V* C, index_t rsc, index_t csc, bool threads);

/// The CSR arrays of op(M) for op a transpose of the stored M (rows × cols; conjugated when
/// `conj`): a counting sort by column, which leaves each new row's columns sorted. Writes rp
/// (M.cols + 1 offsets from 0), ci and v (M.nnz each) and returns the cols × rows view of them.
/// The one transposition of CSR arrays: csr_matrix's transposed copies, the spgemm and sparse_sum
/// rules' transposed operands and spgemm_dense's own all come here.
template <class V, class I>
csr<V, I> transpose(const csr<V, I>& M, bool conj, std::vector<I>& rp, std::vector<I>& ci,
                    std::vector<V>& v);

/// C = alpha·A + beta·B for two CSR matrices of one shape, over the union of their patterns
/// (an entry in both is alpha·a + beta·b, stored even when it cancels), columns sorted in each
/// row. `threads` as for spmv; the result does not depend on the thread count. Throws
/// lz::layout_error when C's entry count does not fit I.
template <class V, class I>
void add(const csr<V, I>& A, V alpha, const csr<V, I>& B, V beta, std::vector<I>& row_ptr,
         std::vector<I>& col_idx, value_buffer<V> values, bool threads);

/// Builds CSR arrays from `count` triplets (r[i], c[i], v[i]): indices checked against rows ×
/// cols (std::out_of_range naming the triplet), duplicates summed, columns sorted in each row.
/// Throws lz::layout_error when the entry count does not fit I.
template <class V, class I>
void from_triplets(index_t rows, index_t cols, index_t count, const I* r, const I* c, const V* v,
                   std::vector<I>& row_ptr, std::vector<I>& col_idx, std::vector<V>& values);

/// What is wrong with a CSR pattern, or nullptr when it is valid: row_ptr[0] == 0, non-decreasing,
/// row_ptr[rows] == nnz, every column in [0, cols); with `sorted`, strictly increasing columns in
/// each row (no duplicates). `where` receives the offending row.
template <class I>
const char* check_pattern(index_t rows, index_t cols, index_t nnz, const I* row_ptr,
                          const I* col_idx, bool sorted, index_t& where);

/// The bandwidths of a checked pattern (sorted columns): the least lower, upper >= 0 with
/// i - lower <= c <= i + upper for every entry (i, c); one pass over row_ptr and each row's first
/// and last column (O(rows)). For csr's `lower`, `upper`.
template <class I>
void band_of(index_t rows, const I* row_ptr, const I* col_idx, index_t& lower, index_t& upper);

/// Sorts each row's columns (values alongside) and sums duplicates in place; returns the new nnz
/// (row_ptr rewritten). @pre check_pattern(..., sorted = false) passed.
template <class V, class I>
index_t sort_rows(index_t rows, I* row_ptr, I* col_idx, V* values);

} // namespace lz::kernels::sparse
