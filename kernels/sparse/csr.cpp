// Sparse kernels (kernels/include/lz/kernels/sparse/csr.hpp): CSR products spmv and spmm on the
// calling thread or over lazuli's threads (kernels::cpu::parallel_for, never TBB itself), each
// call reported to the BLAS recorder and traced under LZ_LOG=blas like kernels/blas/cblas.cpp.
// Building and checking patterns is in build.cpp.
//
// Determinism. op(A) = A: every output element is one sum over its row of A, in storage order,
// with two accumulators (even and odd positions, added at the end) for a vector's rows of 8 or
// more entries, one for shorter ones, and one per column for a block of columns; threads take whole
// rows, so the result does not depend on how many there are. op(A) = Aᵀ or Aᴴ scatters rows of A
// into the output: every output element is summed in A's row order (one serial scatter's order:
// y = ((β·y + a₀) + a₁) + ...), and threads split the output rows, each walking A's rows (those
// within A's band of its range, when the band is known) for the entries in its range: no
// buffers, the same bits on any number of threads. A product
// whose values a callback computes (spmv_fill, spmm_fill) sums each whole row as a stored
// matrix's, and a row longer than its 2048-entry blocks in pieces from the row's start, added
// in order, or scatters its entries as above: again whatever the threads. A real SpMV whose
// values are abs or square of stored ones (value_fn) is the stored matrix's own loop, reading
// each value through the function. An SpMV over a matrix cut into column strips (csr_strips)
// sums each row strip by strip, y accumulating: y = α·S₀·x + β·y, then y = α·Sₛ·x + y; a
// transposed one scatters each strip into its own range of y (threads take whole strips): the
// bits of the matrix's own scatter.
#include "../blas/trace.hpp"
#include "common.hpp"

#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lz::kernels::sparse {
namespace {

using blas::trans;
using namespace common;

// How a kernel reads a value of A: as stored, conjugated (op = Aᴴ), or through one of the
// functions value_fn names (real values: F's values read from A's, no block filled).
enum class vread { plain, conj, abs, square };
template <vread R, class T>
inline T ld(const T* v, index_t k) {
  if constexpr (R == vread::conj && is_complex_v<T>)
    return T(v[k].real(), -v[k].imag());
  else if constexpr (R == vread::abs && !is_complex_v<T>)
    return std::abs(v[k]);
  else if constexpr (R == vread::square && !is_complex_v<T>)
    return v[k] * v[k];
  else
    return v[k];
}
// out = alpha·s (+ beta·out): one pass over the output, beta == 0 never reading it.
template <bool Beta0, class T>
inline T finish(T s, T alpha, T beta, const T* out) {
  if constexpr (Beta0)
    return mul(alpha, s);
  else
    return axpby(alpha, s, beta, *out);
}

template <class T>
void scale_vec(index_t n, T beta, T* y, index_t inc) {
  if (beta == T(0)) {
    if (inc == 1)
      std::fill(y, y + n, T(0));
    else
      for (index_t i = 0; i < n; ++i) y[i * inc] = T(0);
  } else if (beta != T(1)) {
    if (inc == 1)
      for (index_t i = 0; i < n; ++i) y[i] = mul(beta, y[i]);
    else
      for (index_t i = 0; i < n; ++i) y[i * inc] = mul(beta, y[i * inc]);
  }
}
// m × k at (rs, cs); a vector (k == 1) or a contiguous block as one scale_vec.
template <class T>
void scale_mat(index_t m, index_t k, T beta, T* C, index_t rs, index_t cs) {
  if (k == 1) return scale_vec(m, beta, C, rs);
  if (cs == 1 && rs == k) return scale_vec(m * k, beta, C, 1);
  for (index_t i = 0; i < m; ++i) scale_vec(k, beta, C + i * rs, cs);
}

// ---- splitting rows over threads ---------------------------------------------------------------
// Work below this many stored entries (times columns for spmm) runs on the calling thread.
constexpr index_t parallel_min_work = 32768;
// Chunks aim at this much work at least, and at 4 per thread (an uneven second tenant on a
// core does not leave the other idle at the end).
constexpr index_t chunk_min_work = 16384;

// Runs body(r0, r1) over all rows, split over threads when allowed and worth it; `work` is the
// call's work in entry units (nnz·k).
template <class I, class F>
void over_rows(const I* row_ptr, index_t rows, index_t nnz, index_t work, bool threads, F&& body) {
  if (rows <= 0) return;
  const int nt = threads && work >= parallel_min_work ? num_threads() : 1;
  if (nt <= 1) {
    body(index_t(0), rows);
    return;
  }
  const index_t parts = std::max<index_t>(
      1, std::min<index_t>({rows, index_t(4) * nt, std::max<index_t>(1, work / chunk_min_work)}));
  over_row_parts(row_ptr, rows, nnz, parts, true, body);
}

// ---- op(A) = A ------------------------------------------------------------------------------
// Rows with at least this many entries are summed with two accumulators (even and odd
// positions, added at the end): the chain of dependent additions halves, which pays when the
// gathers of x hit the cache (perf/w14_spmv, random 10 a row: 0.93-0.96 of the time of one
// accumulator); shorter rows (a 5-point stencil) keep one, and the loop stays minimal.
constexpr index_t two_sums_from = 8;

// One row's Σ_k v_k·x[c_k], in storage order: one fixed order for each row length, whatever
// the chunking.
template <vread R, class V, class I>
LZ_INLINE V row_sum(const I* __restrict ci, const V* __restrict va, index_t k, index_t e,
                    const V* __restrict x, index_t incx) {
  if (e - k >= two_sums_from) {
    V s0{}, s1{};
    for (; k + 1 < e; k += 2) {
      s0 = madd(s0, ld<R>(va, k), x[index_t(ci[k]) * incx]);
      s1 = madd(s1, ld<R>(va, k + 1), x[index_t(ci[k + 1]) * incx]);
    }
    if (k < e) s0 = madd(s0, ld<R>(va, k), x[index_t(ci[k]) * incx]);
    return s0 + s1;
  }
  V s{};
  for (; k < e; ++k) s = madd(s, ld<R>(va, k), x[index_t(ci[k]) * incx]);
  return s;
}

// y[i] = alpha·Σ_k v_k·x[c_k] (+ beta·y[i]) for rows [r0, r1), one pass over y; Unit: incx ==
// incy == 1 as constants (the contiguous loop). Software prefetches of x and non-temporal
// stores of y were measured and lost (perf/w14_spmv: prefetching x 32-128 entries ahead 1.19x
// the time on the random matrix; streaming y no gain on the Laplacian).
template <vread R, bool Beta0, bool Unit, class V, class I>
void mv_rows(const csr<V, I>& A, index_t r0, index_t r1, V alpha, const V* __restrict x,
             index_t incx, V beta, V* __restrict y, index_t incy) {
  const I* __restrict rp = A.row_ptr;
  const I* __restrict ci = A.col_idx;
  const V* __restrict va = A.values;
  if constexpr (Unit) incx = incy = 1;
  for (index_t i = r0; i < r1; ++i) {
    V* out = y + i * incy;
    *out = finish<Beta0>(row_sum<R>(ci, va, rp[i], rp[i + 1], x, incx), alpha, beta, out);
  }
}

template <vread R, class V, class I>
void mv_rows_any(const csr<V, I>& A, index_t r0, index_t r1, V alpha, const V* x, index_t incx,
                 V beta, V* y, index_t incy) {
  const bool b0 = beta == V(0), unit = incx == 1 && incy == 1;
  if (unit && b0)
    mv_rows<R, true, true>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else if (unit)
    mv_rows<R, false, true>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else if (b0)
    mv_rows<R, true, false>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else
    mv_rows<R, false, false>(A, r0, r1, alpha, x, incx, beta, y, incy);
}

// C[i, l0 + j] for j < W (W a compile-time width, or 0 for the run-time width w): one
// accumulator per column, every row of B read as a contiguous run when csb == 1.
template <vread R, bool Beta0, bool UnitB, bool UnitC, int W, class V, class I>
void mm_rows_block(const csr<V, I>& A, index_t r0, index_t r1, index_t w, V alpha,
                   const V* __restrict B, index_t rsb, index_t csb, V beta, V* __restrict C,
                   index_t rsc, index_t csc) {
  const I* __restrict rp = A.row_ptr;
  const I* __restrict ci = A.col_idx;
  const V* __restrict va = A.values;
  if constexpr (W > 0) w = W;
  if constexpr (UnitB) csb = 1;
  if constexpr (UnitC) csc = 1;
  constexpr int cap = W > 0 ? W : 4;
  for (index_t i = r0; i < r1; ++i) {
    V acc[cap];
    for (int j = 0; j < cap; ++j) acc[j] = V{};
    for (index_t k = rp[i], e = rp[i + 1]; k < e; ++k) {
      const V a = ld<R>(va, k);
      const V* b = B + index_t(ci[k]) * rsb;
      for (index_t j = 0; j < (W > 0 ? index_t(W) : w); ++j) acc[j] = madd(acc[j], a, b[j * csb]);
    }
    V* c = C + i * rsc;
    for (index_t j = 0; j < (W > 0 ? index_t(W) : w); ++j)
      c[j * csc] = finish<Beta0>(acc[j], alpha, beta, c + j * csc);
  }
}

template <vread R, bool Beta0, bool UnitB, bool UnitC, class V, class I>
void mm_rows_cols(const csr<V, I>& A, index_t r0, index_t r1, index_t k, V alpha, const V* B,
                  index_t rsb, index_t csb, V beta, V* C, index_t rsc, index_t csc) {
  // Widths that fill whole vector registers: 64 bytes of accumulators per register.
  constexpr int wide = 128 / int(sizeof(V));
  index_t l = 0;
  auto at = [&](index_t j, auto width_tag) {
    constexpr int Wd = decltype(width_tag)::value;
    mm_rows_block<R, Beta0, UnitB, UnitC, Wd>(A, r0, r1, Wd, alpha, B + j * csb, rsb, csb, beta,
                                              C + j * csc, rsc, csc);
  };
  for (; k - l >= wide; l += wide) at(l, std::integral_constant<int, wide>{});
  if (k - l >= wide / 2) {
    at(l, std::integral_constant<int, wide / 2>{});
    l += wide / 2;
  }
  if (k - l >= wide / 4 && wide / 4 > 1) {
    at(l, std::integral_constant<int, (wide / 4 > 1 ? wide / 4 : 1)>{});
    l += wide / 4;
  }
  for (; l < k; l += 4) {
    const index_t w = std::min<index_t>(4, k - l);
    mm_rows_block<R, Beta0, UnitB, UnitC, 0>(A, r0, r1, w, alpha, B + l * csb, rsb, csb, beta,
                                             C + l * csc, rsc, csc);
  }
}

template <vread R, class V, class I>
void mm_rows(const csr<V, I>& A, index_t r0, index_t r1, index_t k, V alpha, const V* B,
             index_t rsb, index_t csb, V beta, V* C, index_t rsc, index_t csc) {
  const bool b0 = beta == V(0);
  if (csb != 1 && rsb == 1) {
    // Column-major B: column by column as SpMVs, over tiles of rows small enough for A's tile to
    // stay in cache across the columns.
    const I* rp = A.row_ptr;
    for (index_t t0 = r0; t0 < r1;) {
      index_t t1 = t0 + 1;
      while (t1 < r1 && index_t(rp[t1]) - index_t(rp[t0]) + (t1 - t0) < 4096) ++t1;
      for (index_t l = 0; l < k; ++l)
        mv_rows_any<R>(A, t0, t1, alpha, B + l * csb, rsb, beta, C + l * csc, rsc);
      t0 = t1;
    }
    return;
  }
  auto run = [&](auto b0_, auto ub_, auto uc_) {
    mm_rows_cols<R, decltype(b0_)::value, decltype(ub_)::value, decltype(uc_)::value>(
        A, r0, r1, k, alpha, B, rsb, csb, beta, C, rsc, csc);
  };
  auto with_c = [&](auto b0_, auto ub_) {
    if (csc == 1)
      run(b0_, ub_, std::true_type{});
    else
      run(b0_, ub_, std::false_type{});
  };
  auto with_b = [&](auto b0_) {
    if (csb == 1)
      with_c(b0_, std::true_type{});
    else
      with_c(b0_, std::false_type{});
  };
  if (b0)
    with_b(std::true_type{});
  else
    with_b(std::false_type{});
}

// ---- op(A) = Aᵀ, Aᴴ: scatter -----------------------------------------------------------------
// Every output row is summed in A's row order (the order of one serial scatter) whatever the
// threads: threads split the OUTPUT rows, and each walks A's rows for the entries whose column
// falls in its range (columns are sorted within a row: one run per row): the rows within A's
// band of the range when the band is known (csr::lower, upper), else all of them, reading every
// row's offsets and the column indices at its run's ends. No buffers, the same bits on any
// number of threads. (Cutting A's rows into blocks with buffers, added in block order,
// made one thread pay the buffers: 1.6-2.1x Eigen's serial scatter on W14's Laplacian.)

// Rows with more entries than this find their run by binary search, shorter ones by a scan.
constexpr index_t run_search_from = 32;

// Entries [b, e) of a row (columns ci sorted): narrowed to those with columns in [j0, j1).
template <class I>
LZ_INLINE void column_run(const I* ci, index_t& b, index_t& e, index_t j0, index_t j1) {
  if (b == e || index_t(ci[b]) >= j1 || index_t(ci[e - 1]) < j0) {
    e = b;
    return;
  }
  if (e - b > run_search_from) {
    b = std::lower_bound(ci + b, ci + e, j0, [](I c, index_t j) { return index_t(c) < j; }) - ci;
    e = std::lower_bound(ci + b, ci + e, j1, [](I c, index_t j) { return index_t(c) < j; }) - ci;
    return;
  }
  while (index_t(ci[b]) < j0) ++b;
  while (index_t(ci[e - 1]) >= j1) --e;
}

// Out[c, :] += (alpha·X[i, :])·A(i, c) for A's entries in rows [r0, r1) with columns c in
// [j0, j1); X's row i at X + i·rsx (stride csx), Out's row c at Out + c·rso (stride cso); k
// columns. A vector over all of Out (one thread's scatter) has its own loop, with no run to find
// (a Laplacian's rows are 5 entries: the two ends' tests were 1.1-1.2x the time), and a
// contiguous y its own too. That loop still loads each row's last column and branches on it
// before the row's updates: W14's random matrix ran 1.3x faster with that test than without
// (Eigen's speed without; a prefetch of it instead: no gain; why is not established — no
// hardware counters in the VM it was measured in). Every product is an explicit fma
// (common.hpp), so the copies and any inlining compute the same bits.
template <vread R, class V, class I>
LZ_NOINLINE void scatter_rows(const csr<V, I>& A, index_t r0, index_t r1, index_t k, V alpha,
                              const V* X, index_t rsx, index_t csx, V* Out, index_t rso,
                              index_t cso, index_t j0, index_t j1) {
  const I* rp = A.row_ptr;
  const I* ci = A.col_idx;
  const V* va = A.values;
  if (k == 1) {
    const auto rows = [&]<bool Whole, bool Unit>(std::bool_constant<Whole>,
                                                 std::bool_constant<Unit>) {
      for (index_t i = r0; i < r1; ++i) {
        index_t b = rp[i], e = rp[i + 1];
        if constexpr (!Whole) {
          column_run(ci, b, e, j0, j1);
          if (b == e) continue;
        } else if (b == e || index_t(ci[e - 1]) < j0) { // (j0 = 0: never; see above)
          continue;
        }
        const V ax = mul(alpha, X[i * rsx]);
        for (index_t p = b; p < e; ++p) {
          V* o = Out + (Unit ? index_t(ci[p]) : index_t(ci[p]) * rso);
          *o = madd(*o, ax, ld<R>(va, p));
        }
      }
    };
    const bool whole = j0 == 0 && j1 == A.cols;
    if (whole && rso == 1)
      rows(std::true_type{}, std::true_type{});
    else if (whole)
      rows(std::true_type{}, std::false_type{});
    else if (rso == 1)
      rows(std::false_type{}, std::true_type{});
    else
      rows(std::false_type{}, std::false_type{});
    return;
  }
  std::vector<V> ax(static_cast<std::size_t>(k));
  for (index_t i = r0; i < r1; ++i) {
    index_t b = rp[i], e = rp[i + 1];
    column_run(ci, b, e, j0, j1);
    if (b == e) continue;
    for (index_t j = 0; j < k; ++j) ax[std::size_t(j)] = mul(alpha, X[i * rsx + j * csx]);
    for (index_t p = b; p < e; ++p) {
      const V a = ld<R>(va, p);
      V* o = Out + index_t(ci[p]) * rso;
      if (cso == 1)
        for (index_t j = 0; j < k; ++j) o[j] = madd(o[j], ax[std::size_t(j)], a);
      else
        for (index_t j = 0; j < k; ++j) o[j * cso] = madd(o[j * cso], ax[std::size_t(j)], a);
    }
  }
}

// Whether rows of A mostly fall within one of `parts` equal ranges of columns: of up to 256 rows
// spread over A, at most a quarter with a first and last column in different ranges (a band
// matrix's rows do, a random matrix's do not: every thread would then walk every row).
template <class V, class I>
bool rows_within_ranges(const csr<V, I>& A, index_t parts) {
  const index_t samples = std::min<index_t>(A.rows, 256);
  index_t across = 0;
  for (index_t q = 0; q < samples; ++q) {
    const index_t i = A.rows * q / samples, b = A.row_ptr[i], e = A.row_ptr[i + 1];
    if (b < e &&
        index_t(A.col_idx[b]) * parts / A.cols != index_t(A.col_idx[e - 1]) * parts / A.cols)
      ++across;
  }
  return 4 * across <= samples;
}

// The rows of A that may hold an entry with a column in [j0, j1) (0 <= j0 <= j1): with A's
// bandwidths known, [j0 - upper, j1 + lower) within [0, rows) (a band matrix's thread walks about
// its share of the rows), else all of them. (No overflow: lower < rows, upper < cols.)
template <class V, class I>
std::pair<index_t, index_t> rows_reaching(const csr<V, I>& A, index_t j0, index_t j1) {
  if (A.lower < 0 || A.upper < 0) return {0, A.rows};
  const index_t r0 = j0 <= A.upper ? 0 : std::min(j0 - A.upper, A.rows);
  const index_t r1 = j1 >= A.rows - A.lower ? A.rows : j1 + A.lower;
  return {r0, std::max(r0, r1)};
}

// Out (A.cols × k at (rso, cso)) = beta·Out + (the scatter of all of A's rows): rows(j0, j1, r0,
// r1) adds the products of the entries of A's rows [r0, r1) with columns in [j0, j1) into Out,
// in row order. One range (all of Out) on one thread; with threads, ranges of equal counts of
// output rows, when the work is worth it and the ranges hold at least 64 rows each: up to 4 a
// thread when A's known band is narrow (lower + upper at most a quarter of a range: each range
// walks only the rows reaching it, rows_reaching; one range a thread gave 0.96x on two threads
// when TBB's worker, woken late, took none), else one a thread when A's rows mostly fall within
// one range (each thread walks every row: on a CPU whose last-level cache does not hold A's
// indices, two threads ran a 10⁶-row Laplacian at 0.9-1.0x one thread's speed that way, 1.5x
// walking the band's rows). On a random matrix every thread would walk nearly every row and
// compute (for spmv_fill) nearly every value: two threads ran W14's random matrix (10 a row) at
// 0.5-0.8x one thread's speed at 40 000-160 000 rows, 0.75-1.1x at 360 000-640 000.
template <class V, class I, class Rows>
void scatter_ranges(const csr<V, I>& A, index_t k, V beta, V* Out, index_t rso, index_t cso,
                    bool threads, const Rows& rows) {
  const index_t cols = A.cols;
  const int nt = threads && A.nnz * k >= 2 * parallel_min_work ? num_threads() : 1;
  index_t parts = std::max<index_t>(1, std::min<index_t>(nt, cols / 64));
  bool narrow = false;
  if (parts > 1) {
    const index_t fine = std::max<index_t>(1, std::min<index_t>(index_t(4) * nt, cols / 64));
    const index_t room = cols / (4 * fine); // (lower + upper <= room, without overflow)
    narrow = A.lower >= 0 && A.upper >= 0 && A.lower <= room && A.upper <= room - A.lower;
    if (narrow)
      parts = fine;
    else if (!rows_within_ranges(A, parts))
      parts = 1;
  }
  if (parts == 1) {
    scale_mat(cols, k, beta, Out, rso, cso);
    rows(index_t(0), cols, index_t(0), A.rows);
    return;
  }
  cpu::parallel_for(parts, 1, [&](index_t p0, index_t p1) {
    const index_t j0 = cols * p0 / parts, j1 = cols * p1 / parts;
    scale_mat(j1 - j0, k, beta, Out + j0 * rso, rso, cso);
    const auto [r0, r1] = rows_reaching(A, j0, j1); // (a known band bounds any range)
    rows(j0, j1, r0, r1);
  });
}

// Out (A.cols × k at (rso, cso)) = beta·Out + alpha·op(A)·X for op a transpose.
template <vread R, class V, class I>
void scatter(const csr<V, I>& A, index_t k, V alpha, const V* X, index_t rsx, index_t csx, V beta,
             V* Out, index_t rso, index_t cso, bool threads) {
  scatter_ranges(A, k, beta, Out, rso, cso, threads,
                 [&](index_t j0, index_t j1, index_t r0, index_t r1) {
                   scatter_rows<R>(A, r0, r1, k, alpha, X, rsx, csx, Out, rso, cso, j0, j1);
                 });
}

// y = beta·y + alpha·Aᵀ·x over A's column strips (csr_strips): strip s holds exactly the
// entries that land in y's range [strip_begin(s), strip_begin(s + 1)), so the strips scatter
// independently (threads take whole strips, each scaling its range first), and every y element
// is summed in A's row order as one serial scatter sums it: the same bits as without strips, on
// any number of threads. Each strip is a whole scatter (every entry in its range: no run to find).
template <vread R, class V, class I>
void scatter_strips(const csr<V, I>& A, V alpha, const V* x, index_t incx, V beta, V* y,
                    index_t incy, bool threads) {
  const index_t n = A.nstrips;
  const auto strip = [&](index_t s0, index_t s1) {
    for (index_t s = s0; s < s1; ++s) {
      const index_t j0 = strip_begin(A.cols, n, s), j1 = strip_begin(A.cols, n, s + 1);
      scale_vec(j1 - j0, beta, y + j0 * incy, incy);
      const csr<V, I>& S = A.strips[s];
      if (S.nnz > 0) scatter_rows<R>(S, 0, S.rows, 1, alpha, x, incx, 0, y, incy, 0, 0, S.cols);
    }
  };
  if (threads && n > 1 && A.nnz >= 2 * parallel_min_work && num_threads() > 1)
    cpu::parallel_for(n, 1, strip);
  else
    strip(0, n);
}

// y = alpha·op(A)·x + beta·y (alpha != 0, A.nnz > 0), A's values read as R reads them: each
// row one sum (op = A), or A's rows scattered (a transpose).
template <vread R, class V, class I>
void mv_product(bool tr, const csr<V, I>& A, V alpha, const V* x, index_t incx, V beta, V* y,
                index_t incy, bool threads) {
  if (!tr)
    over_rows(A.row_ptr, A.rows, A.nnz, A.nnz, threads, [&](index_t r0, index_t r1) {
      mv_rows_any<R>(A, r0, r1, alpha, x, incx, beta, y, incy);
    });
  else
    scatter<R>(A, 1, alpha, x, incx, 0, beta, y, incy, 0, threads);
}

// ---- Y = alpha·f(a·A + b·B)·X + beta·Y: SpMV / SpMM over a merge -------------------------------
// The rows of A and B merged into a per-thread buffer this many entries at a time (values and
// columns: 24 KiB for double and int32, in L1 with the rows of X it gathers), f applied to the
// block's values in one call, then each row summed against X.
constexpr index_t merge_block = 2048;

// Rows [r0, r1) of Y (k columns: element (i, j) at Y[i*rsy + j*csy]; X likewise). k == 1 sums
// each row as spmv does (row_sum); k > 1 sums whole rows as spmm does (mm_rows) and a row longer
// than a block with one running sum per column, in column order.
template <class V, class I>
void sum_rows(const csr<V, I>& A, V a, const csr<V, I>& B, V b, const value_map<V>& f, index_t r0,
              index_t r1, index_t k, V alpha, const V* __restrict X, index_t rsx, index_t csx,
              V beta, V* __restrict Y, index_t rsy, index_t csy) {
  struct segment {
    index_t row, end; // the row's entries end at `end` in the buffer
    bool done;        // false: the row continues in the next block
  };
  std::vector<V> vals(merge_block);
  std::vector<I> cols(merge_block);
  std::vector<segment> segs(merge_block);
  std::vector<V> acc(std::size_t(k > 1 ? k : 0));              // k > 1: a long row's running sums
  std::vector<I> rp(std::size_t(k > 1 ? merge_block + 1 : 0)); // k > 1: whole rows as CSR
  bool continuing = false;                                     // k > 1: acc holds a long row
  index_t used = 0, nseg = 0;
  V carry{}; // k == 1: the sum so far of a row split over blocks (0 between rows)
  const auto store = [&](V* out, V s) {
    *out = beta == V(0) ? mul(alpha, s) : axpby(alpha, s, beta, *out);
  };
  // k > 1: entries [e0, e1) of a long row into acc (one running sum per column, in order).
  const auto accumulate = [&](index_t e0, index_t e1) {
    for (index_t p = e0; p < e1; ++p) {
      const V v = vals[p];
      const V* xr = X + index_t(cols[p]) * rsx;
      for (index_t j = 0; j < k; ++j) acc[j] = madd(acc[j], v, xr[j * csx]);
    }
  };
  const auto finish_long = [&](index_t row) {
    V* yr = Y + row * rsy;
    for (index_t j = 0; j < k; ++j) store(yr + j * csy, acc[j]), acc[j] = V{};
  };
  const auto flush = [&] {
    if (f.apply && used > 0) f.apply(f.ctx, vals.data(), used);
    if (k == 1) {
      index_t e = 0;
      for (index_t q = 0; q < nseg; ++q) {
        const segment& g = segs[q];
        // Each row's entries summed as spmv sums a row (row_sum); a row longer than a block is
        // cut at fixed offsets (it starts a block: see below), its pieces added in order.
        V s = row_sum<vread::plain>(cols.data(), vals.data(), e, g.end, X, rsx);
        if (carry != V{}) s = carry + s;
        if (g.done) {
          store(Y + g.row * rsy, s);
          carry = V{};
        } else {
          carry = s;
        }
        e = g.end;
      }
    } else {
      // A long row's pieces (the block's first segment when one continues, or its only one when
      // one starts) go through acc; the whole rows between, consecutive, are one CSR block for
      // spmm's own row kernel (mm_rows), written in place.
      index_t q0 = 0, q1 = nseg, e = 0;
      if (continuing && nseg > 0) {
        accumulate(0, segs[0].end);
        e = segs[0].end;
        if (segs[0].done) finish_long(segs[0].row), continuing = false;
        q0 = 1;
      }
      if (q1 > q0 && !segs[q1 - 1].done) --q1; // a long row starts: through acc below
      if (q1 > q0) {
        rp[0] = I(e);
        for (index_t q = q0; q < q1; ++q) rp[q - q0 + 1] = I(segs[q].end);
        const csr<V, I> whole{q1 - q0,   A.cols,      segs[q1 - 1].end - e,
                              rp.data(), cols.data(), vals.data()};
        mm_rows<vread::plain>(whole, 0, q1 - q0, k, alpha, X, rsx, csx, beta,
                              Y + segs[q0].row * rsy, rsy, csy);
      }
      if (q1 < nseg) { // the unfinished first piece of a long row
        accumulate(q1 > 0 ? segs[q1 - 1].end : e, segs[q1].end);
        continuing = true;
      }
    }
    used = 0, nseg = 0;
  };
  const I* arp = A.row_ptr;
  const I* aci = A.col_idx;
  const V* ava = A.values;
  const I* brp = B.row_ptr;
  const I* bci = B.col_idx;
  const V* bva = B.values;
  for (index_t i = r0; i < r1; ++i) {
    index_t ka = arp[i], kb = brp[i];
    const index_t ea = arp[i + 1], eb = brp[i + 1];
    // A row that might not fit starts a new block: a row fits one block whole, or is cut at
    // multiples of merge_block whatever the rows before it (the result never depends on how
    // the rows were split over threads).
    if (nseg == merge_block || (used > 0 && used + (ea - ka) + (eb - kb) > merge_block)) flush();
    // Merges until one side is done or the buffer holds `limit` entries.
    const auto merge = [&](index_t limit) {
      index_t u = used;
      while (ka < ea && kb < eb && u < limit) {
        const index_t ca = index_t(aci[ka]), cb = index_t(bci[kb]);
        if (ca < cb) {
          cols[u] = I(ca), vals[u] = mul(a, ava[ka++]);
        } else if (cb < ca) {
          cols[u] = I(cb), vals[u] = mul(b, bva[kb++]);
        } else {
          cols[u] = I(ca), vals[u] = axpby(a, ava[ka++], b, bva[kb++]);
        }
        ++u;
      }
      for (; ka < ea && u < limit; ++u) cols[u] = aci[ka], vals[u] = mul(a, ava[ka++]);
      for (; kb < eb && u < limit; ++u) cols[u] = bci[kb], vals[u] = mul(b, bva[kb++]);
      used = u;
    };
    merge(merge_block);
    while (ka < ea || kb < eb) { // a row longer than the buffer: its sum carries over
      segs[nseg++] = {i, used, false};
      flush();
      merge(merge_block);
    }
    segs[nseg++] = {i, used, true};
  }
  flush();
}

// ---- Y = alpha·F·X + beta·Y, F's values computed a block at a time ----------------------------
// Rows [r0, r1) of Y for F = A's pattern with the values f computes. Consecutive rows holding
// at most merge_block entries (and rows) in all are one block: f writes their values into a
// per-thread buffer, and the block, its row offsets rebased into a small array and its columns
// read in place, goes through spmv's or spmm's own row kernel (mv_rows_any / mm_rows: the same
// sums in the same order as a stored matrix). A longer row is summed in pieces of merge_block
// entries from its start, added in order (one running sum per column for k > 1).
constexpr index_t fill_parts = 8;

// F's rows (A's pattern, f's values) a block at a time, for one thread: consecutive whole rows
// holding at most merge_block entries and rows, or a piece of a longer row, each as a CSR matrix
// whose values f wrote into this buffer and whose row offsets are rebased (columns in place).
template <class V, class I>
struct filled_blocks {
  const csr<V, I>& A;
  const value_fill<V>& f;
  std::vector<V> vals = std::vector<V>(merge_block);
  std::vector<I> rp = std::vector<I>(merge_block + 1);

  // The end of the block of whole rows from row i (i < r1); i itself: row i is longer.
  index_t end(index_t i, index_t r1) const {
    const index_t base = A.row_ptr[i];
    index_t j = i;
    while (j < r1 && j - i < merge_block && index_t(A.row_ptr[j + 1]) - base <= merge_block) ++j;
    return j;
  }
  // Rows [i, j) (from end()); only the values of entries [s0, s1) written when given (the
  // others are left unspecified: a scatter of one range of output rows reads no other).
  csr<V, I> rows(index_t i, index_t j, index_t s0 = -1, index_t s1 = -1) {
    const index_t base = A.row_ptr[i], n = index_t(A.row_ptr[j]) - base;
    if (s0 < 0) s0 = base, s1 = base + n;
    if (s1 > s0) f.fill(f.ctx, s0, vals.data() + (s0 - base), s1 - s0);
    for (index_t r = i; r <= j; ++r) rp[r - i] = I(index_t(A.row_ptr[r]) - base);
    return {j - i, A.cols, n, rp.data(), A.col_idx + base, vals.data()};
  }
  // Entries [k0, k0 + n) of one row, as one row; values as for rows().
  csr<V, I> piece(index_t k0, index_t n, index_t s0 = -1, index_t s1 = -1) {
    if (s0 < 0) s0 = k0, s1 = k0 + n;
    if (s1 > s0) f.fill(f.ctx, s0, vals.data() + (s0 - k0), s1 - s0);
    rp[0] = 0, rp[1] = I(n);
    return {1, A.cols, n, rp.data(), A.col_idx + k0, vals.data()};
  }
};

// The entries [s0, s1) of rows [i, j) that span every entry with a column in [c0, c1) (the
// runs' first to last); none: s0 == s1. The first run from the front, the last from the back: a
// block inside the range costs two rows' tests.
template <class I>
void column_span(const I* row_ptr, const I* ci, index_t i, index_t j, index_t c0, index_t c1,
                 index_t& s0, index_t& s1) {
  s0 = s1 = 0;
  index_t r = i;
  for (; r < j; ++r) {
    index_t b = row_ptr[r], e = row_ptr[r + 1];
    column_run(ci, b, e, c0, c1);
    if (b < e) {
      s0 = b;
      break;
    }
  }
  for (index_t q = j; q-- > r;) {
    index_t b = row_ptr[q], e = row_ptr[q + 1];
    column_run(ci, b, e, c0, c1);
    if (b < e) {
      s1 = e;
      return;
    }
  }
}

template <class V, class I>
void fill_rows(const csr<V, I>& A, const value_fill<V>& f, index_t r0, index_t r1, index_t k,
               V alpha, const V* X, index_t rsx, index_t csx, V beta, V* Y, index_t rsy,
               index_t csy) {
  filled_blocks<V, I> fb{A, f};
  std::vector<V> acc(static_cast<std::size_t>(k));
  const I* arp = A.row_ptr;
  for (index_t i = r0; i < r1;) {
    const index_t j = fb.end(i, r1);
    if (j > i) { // rows [i, j): one block
      const csr<V, I> blk = fb.rows(i, j);
      // An SpMV's rows in parts, each after f's hint for a part of the next block's entries:
      // their values stream in while these rows gather x (f reads them in one burst otherwise,
      // with nothing to overlap: 1.25x the time on W14's Laplacian). An SpMM's rows gather k
      // columns each, which hides the burst: whole (parts cost it 1-3% on W14).
      const index_t next = arp[j], left = index_t(arp[r1]) - next;
      const index_t parts =
          k == 1 && f.touch && left > 0 ? std::min<index_t>(fill_parts, j - i) : 1;
      for (index_t q = 0; q < parts; ++q) {
        if (parts > 1) {
          const index_t t0 = merge_block * q / parts, t1 = merge_block * (q + 1) / parts;
          if (t0 < left) f.touch(f.ctx, next + t0, std::min(t1, left) - t0);
        }
        const index_t a0 = (j - i) * q / parts, a1 = (j - i) * (q + 1) / parts;
        if (k == 1)
          mv_rows_any<vread::plain>(blk, a0, a1, alpha, X, rsx, beta, Y + i * rsy, rsy);
        else
          mm_rows<vread::plain>(blk, a0, a1, k, alpha, X, rsx, csx, beta, Y + i * rsy, rsy, csy);
      }
      i = j;
      continue;
    }
    // Row i is longer than a block: its pieces summed in order.
    std::fill(acc.begin(), acc.end(), V{});
    for (index_t k0 = arp[i], e = arp[i + 1]; k0 < e; k0 += merge_block) {
      const index_t n = std::min(merge_block, e - k0);
      const csr<V, I> pc = fb.piece(k0, n);
      const I* ci = pc.col_idx;
      if (k == 1) {
        acc[0] = acc[0] + row_sum<vread::plain>(ci, pc.values, 0, n, X, rsx);
      } else {
        for (index_t q = 0; q < n; ++q) {
          const V v = pc.values[q];
          const V* xr = X + index_t(ci[q]) * rsx;
          for (index_t c = 0; c < k; ++c) acc[c] = madd(acc[c], v, xr[c * csx]);
        }
      }
    }
    V* yr = Y + i * rsy;
    for (index_t c = 0; c < k; ++c) {
      V* out = yr + c * csy;
      *out = beta == V(0) ? mul(alpha, acc[c]) : axpby(alpha, acc[c], beta, *out);
    }
    ++i;
  }
}

// ---- entry points ----------------------------------------------------------------------------
template <class V>
char trans_flag(trans t) {
  if (t == trans::conj_transpose && !is_complex_v<V>) return 'T';
  return static_cast<char>(t);
}

// The call record and the trace line of an SpMV / SpMM; ", values=f" marks a product whose values
// a value_fill computes (spmv_fill / spmm_fill), the rest is the same for both.
template <class V, class I>
blas::call mv_call(trans t, const csr<V, I>& A, V alpha, index_t incx, V beta, index_t incy) {
  return {names<V>::mv,     blas::order::row_major, t, trans::none, A.rows, A.cols, A.nnz,
          real_part(alpha), real_part(beta),        0, incx,        incy};
}

template <class V, class I>
std::string describe_mv(trans t, const csr<V, I>& A, bool filled, V alpha, index_t incx, V beta,
                        index_t incy) {
  return std::string(names<V>::mv) + "(trans=" + trans_flag<V>(t) + ", " +
         blas::detail::arg("m", A.rows) + ", " + blas::detail::arg("n", A.cols) + ", " +
         blas::detail::arg("nnz", A.nnz) + (filled ? ", values=f, " : ", ") +
         (A.strips ? blas::detail::arg("strips", A.nstrips) + ", " : "") +
         value_arg("alpha", alpha) + ", " + blas::detail::arg("incx", incx) + ", " +
         value_arg("beta", beta) + ", " + blas::detail::arg("incy", incy) + ")";
}

template <class V, class I>
blas::call mm_call(trans t, const csr<V, I>& A, index_t k, V alpha, index_t rsb, V beta,
                   index_t rsc) {
  return {names<V>::mm,     blas::order::row_major, t,     trans::none, A.rows, A.cols, k,
          real_part(alpha), real_part(beta),        A.nnz, rsb,         rsc};
}

template <class V, class I>
std::string describe_mm(trans t, const csr<V, I>& A, index_t k, bool filled, V alpha, index_t rsb,
                        index_t csb, V beta, index_t rsc, index_t csc) {
  return std::string(names<V>::mm) + "(trans=" + trans_flag<V>(t) + ", " +
         blas::detail::arg("m", A.rows) + ", " + blas::detail::arg("n", A.cols) + ", " +
         blas::detail::arg("k", k) + ", " + blas::detail::arg("nnz", A.nnz) +
         (filled ? ", values=f, " : ", ") + value_arg("alpha", alpha) + ", B=(" +
         std::to_string(rsb) + "," + std::to_string(csb) + "), " + value_arg("beta", beta) +
         ", C=(" + std::to_string(rsc) + "," + std::to_string(csc) + "))";
}

} // namespace

template <class V, class I>
void spmv(trans t, const csr<V, I>& A, V alpha, const V* x, index_t incx, V beta, V* y,
          index_t incy, bool threads) {
  const blas::call c = mv_call(t, A, alpha, incx, beta, incy);
  auto describe = [&] { return describe_mv(t, A, false, alpha, incx, beta, incy); };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz), false, describe, [&] {
    const bool tr = t != trans::none;
    const index_t ny = tr ? A.cols : A.rows;
    if (ny == 0) return;
    if (alpha == V(0) || A.nnz == 0) {
      scale_vec(ny, beta, y, incy);
      return;
    }
    const bool strips = A.strips && A.nstrips > 0;
    if (tr && t == trans::conj_transpose && is_complex_v<V>) {
      if (strips)
        scatter_strips<vread::conj>(A, alpha, x, incx, beta, y, incy, threads);
      else
        mv_product<vread::conj>(tr, A, alpha, x, incx, beta, y, incy, threads);
    } else if (tr && strips) {
      scatter_strips<vread::plain>(A, alpha, x, incx, beta, y, incy, threads);
    } else if (strips) {
      // Strip by strip, y accumulating (csr_strips): an empty strip adds nothing.
      for (index_t s = 0; s < A.nstrips; ++s) {
        const csr<V, I>& S = A.strips[s];
        const V b = s == 0 ? beta : V(1);
        if (S.nnz > 0)
          mv_product<vread::plain>(false, S, alpha, x, incx, b, y, incy, threads);
        else if (s == 0)
          scale_vec(ny, beta, y, incy);
      }
    } else {
      mv_product<vread::plain>(tr, A, alpha, x, incx, beta, y, incy, threads);
    }
  });
}

template <class V, class I>
void spmm(trans t, const csr<V, I>& A, index_t k, V alpha, const V* B, index_t rsb, index_t csb,
          V beta, V* C, index_t rsc, index_t csc, bool threads) {
  const blas::call c = mm_call(t, A, k, alpha, rsb, beta, rsc);
  auto describe = [&] { return describe_mm(t, A, k, false, alpha, rsb, csb, beta, rsc, csc); };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz) * double(k), false, describe, [&] {
    const bool tr = t != trans::none;
    const index_t m = tr ? A.cols : A.rows;
    if (m == 0 || k <= 0) return;
    if (alpha == V(0) || A.nnz == 0) {
      scale_mat(m, k, beta, C, rsc, csc);
      return;
    }
    if (!tr) {
      over_rows(A.row_ptr, A.rows, A.nnz, A.nnz * k, threads, [&](index_t r0, index_t r1) {
        mm_rows<vread::plain>(A, r0, r1, k, alpha, B, rsb, csb, beta, C, rsc, csc);
      });
    } else if (t == trans::conj_transpose && is_complex_v<V>) {
      scatter<vread::conj>(A, k, alpha, B, rsb, csb, beta, C, rsc, csc, threads);
    } else {
      scatter<vread::plain>(A, k, alpha, B, rsb, csb, beta, C, rsc, csc, threads);
    }
  });
}

// The merged product's body: op(A), op(B) as CSR (a transposed operand transposed into this
// call's workspace), then the rows over threads.
template <class V, class I>
void sum_product(trans ta, const csr<V, I>& A, V a, trans tb, const csr<V, I>& B, V b,
                 const value_map<V>& f, index_t m, index_t k, V alpha, const V* X, index_t rsx,
                 index_t csx, V beta, V* Y, index_t rsy, index_t csy, bool threads) {
  if (m == 0 || k <= 0) return;
  if (alpha == V(0)) {
    scale_mat(m, k, beta, Y, rsy, csy);
    return;
  }
  std::vector<I> rpa, cia, rpb, cib;
  std::vector<V> va, vb;
  const csr<V, I> opa =
      ta == trans::none
          ? A
          : transpose(A, ta == trans::conj_transpose && is_complex_v<V>, rpa, cia, va);
  const csr<V, I> opb =
      tb == trans::none
          ? B
          : transpose(B, tb == trans::conj_transpose && is_complex_v<V>, rpb, cib, vb);
  over_rows(opa.row_ptr, m, opa.nnz, (opa.nnz + opb.nnz) * k, threads, [&](index_t r0, index_t r1) {
    sum_rows(opa, a, opb, b, f, r0, r1, k, alpha, X, rsx, csx, beta, Y, rsy, csy);
  });
}

// scatter_rows for rows [r0, r1) of F (A's pattern, f's values), the entries with columns in
// [j0, j1): blocks of whole rows (at most merge_block entries and rows) and pieces of a longer
// row, every entry added into Out in storage order, as the stored matrix's are. For one range
// of output rows (a thread's share), f writes only the span of the block's entries in it (a
// block with none is skipped: a band matrix's thread computes about its share of the values).
// For all of Out, a vector's block is scattered in parts, each after f's hint for a part of the
// next block's entries, as fill_rows does (f's burst read of its values overlaps the scatter).
template <vread R, class V, class I>
void scatter_fill_rows(const csr<V, I>& A, const value_fill<V>& f, index_t k, V alpha, const V* X,
                       index_t rsx, index_t csx, V* Out, index_t rso, index_t cso, index_t j0,
                       index_t j1, index_t r0, index_t r1) {
  filled_blocks<V, I> fb{A, f};
  const I* rp = A.row_ptr;
  const bool whole = j0 == 0 && j1 == A.cols;
  index_t s0, s1;
  for (index_t i = r0; i < r1;) {
    const index_t j = fb.end(i, r1);
    if (j > i) { // rows [i, j): one block
      if (whole)
        s0 = rp[i], s1 = rp[j];
      else
        column_span(rp, A.col_idx, i, j, j0, j1, s0, s1);
      if (s1 > s0) {
        const csr<V, I> blk = fb.rows(i, j, s0, s1);
        const index_t next = rp[j], left = index_t(rp[r1]) - next;
        const index_t parts =
            k == 1 && f.touch && left > 0 ? std::min<index_t>(fill_parts, j - i) : 1;
        for (index_t q = 0; q < parts; ++q) {
          if (parts > 1) {
            const index_t t0 = merge_block * q / parts, t1 = merge_block * (q + 1) / parts;
            if (t0 < left) f.touch(f.ctx, next + t0, std::min(t1, left) - t0);
          }
          const index_t a0 = (j - i) * q / parts, a1 = (j - i) * (q + 1) / parts;
          scatter_rows<R>(blk, a0, a1, k, alpha, X + i * rsx, rsx, csx, Out, rso, cso, j0, j1);
        }
      }
      i = j;
      continue;
    }
    for (index_t k0 = rp[i], e = rp[i + 1]; k0 < e; k0 += merge_block) { // longer
      const index_t n = std::min(merge_block, e - k0);
      const I r[2] = {I(k0), I(k0 + n)};
      column_span(r, A.col_idx, 0, 1, j0, j1, s0, s1);
      if (s1 > s0)
        scatter_rows<R>(fb.piece(k0, n, s0, s1), 0, 1, k, alpha, X + i * rsx, rsx, csx, Out, rso,
                        cso, j0, j1);
    }
    ++i;
  }
}

// spmv_fill / spmm_fill's body: F's rows over threads, each with its own buffer; op(F) = Fᵀ or
// Fᴴ scatters them as spmv / spmm do a stored matrix's (the same ranges, the same order).
template <class V, class I>
void fill_product(trans t, const csr<V, I>& A, const value_fill<V>& f, index_t k, V alpha,
                  const V* X, index_t rsx, index_t csx, V beta, V* Y, index_t rsy, index_t csy,
                  bool threads) {
  const index_t m = t == trans::none ? A.rows : A.cols;
  if (m == 0 || k <= 0) return;
  if (alpha == V(0) || A.nnz == 0) {
    scale_mat(m, k, beta, Y, rsy, csy);
    return;
  }
  if constexpr (!is_complex_v<V>) {
    if (k == 1 && f.fn != value_fn::none && f.src != nullptr) { // fn applied as each is read
      csr<V, I> S = A;
      S.values = f.src;
      const bool tr = t != trans::none;
      if (f.fn == value_fn::abs)
        mv_product<vread::abs>(tr, S, alpha, X, rsx, beta, Y, rsy, threads);
      else
        mv_product<vread::square>(tr, S, alpha, X, rsx, beta, Y, rsy, threads);
      return;
    }
  }
  if (t == trans::none) {
    over_rows(A.row_ptr, A.rows, A.nnz, A.nnz * k, threads, [&](index_t r0, index_t r1) {
      fill_rows(A, f, r0, r1, k, alpha, X, rsx, csx, beta, Y, rsy, csy);
    });
    return;
  }
  const auto rows = [&]<vread R>(std::integral_constant<vread, R>) {
    return [&](index_t j0, index_t j1, index_t r0, index_t r1) {
      scatter_fill_rows<R>(A, f, k, alpha, X, rsx, csx, Y, rsy, csy, j0, j1, r0, r1);
    };
  };
  if (t == trans::conj_transpose && is_complex_v<V>)
    scatter_ranges(A, k, beta, Y, rsy, csy, threads,
                   rows(std::integral_constant<vread, vread::conj>{}));
  else
    scatter_ranges(A, k, beta, Y, rsy, csy, threads,
                   rows(std::integral_constant<vread, vread::plain>{}));
}

template <class V, class I>
void spmv_fill(trans t, const csr<V, I>& A, value_fill<V> f, V alpha, const V* x, index_t incx,
               V beta, V* y, index_t incy, bool threads) {
  const blas::call c = mv_call(t, A, alpha, incx, beta, incy);
  auto describe = [&] { return describe_mv(t, A, true, alpha, incx, beta, incy); };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz), false, describe, [&] {
    fill_product(t, A, f, 1, alpha, x, incx, 0, beta, y, incy, 0, threads);
  });
}

template <class V, class I>
void spmm_fill(trans t, const csr<V, I>& A, value_fill<V> f, index_t k, V alpha, const V* X,
               index_t rsx, index_t csx, V beta, V* Y, index_t rsy, index_t csy, bool threads) {
  const blas::call c = mm_call(t, A, k, alpha, rsx, beta, rsy);
  auto describe = [&] { return describe_mm(t, A, k, true, alpha, rsx, csx, beta, rsy, csy); };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz) * double(k), false, describe, [&] {
    fill_product(t, A, f, k, alpha, X, rsx, csx, beta, Y, rsy, csy, threads);
  });
}

template <class V, class I>
std::string describe_sum(const char* routine, trans ta, const csr<V, I>& A, V a, trans tb,
                         const csr<V, I>& B, V b, bool f, index_t m, index_t n, V alpha, V beta,
                         const std::string& operands) {
  return std::string(routine) + "(transa=" + trans_flag<V>(ta) + ", transb=" + trans_flag<V>(tb) +
         ", " + blas::detail::arg("m", m) + ", " + blas::detail::arg("n", n) + ", " +
         blas::detail::arg("nnza", A.nnz) + ", " + blas::detail::arg("nnzb", B.nnz) + ", " +
         value_arg("a", a) + ", " + value_arg("b", b) + (f ? ", f" : "") + ", " +
         value_arg("alpha", alpha) + ", " + value_arg("beta", beta) + ", " + operands + ")";
}

template <class V, class I>
void spmv_sum(trans ta, const csr<V, I>& A, V a, trans tb, const csr<V, I>& B, V b, value_map<V> f,
              V alpha, const V* x, index_t incx, V beta, V* y, index_t incy, bool threads) {
  const index_t m = ta == trans::none ? A.rows : A.cols, n = ta == trans::none ? A.cols : A.rows;
  const blas::call c{names<V>::summv,  blas::order::row_major, ta,    tb,   m,   n, A.nnz,
                     real_part(alpha), real_part(beta),        B.nnz, incx, incy};
  auto describe = [&] {
    return describe_sum(names<V>::summv, ta, A, a, tb, B, b, f.apply != nullptr, m, n, alpha, beta,
                        blas::detail::arg("incx", incx) + ", " + blas::detail::arg("incy", incy));
  };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz + B.nnz), false, describe, [&] {
    sum_product(ta, A, a, tb, B, b, f, m, 1, alpha, x, incx, 0, beta, y, incy, 0, threads);
  });
}

template <class V, class I>
void spmm_sum(trans ta, const csr<V, I>& A, V a, trans tb, const csr<V, I>& B, V b, value_map<V> f,
              index_t k, V alpha, const V* X, index_t rsx, index_t csx, V beta, V* Y, index_t rsy,
              index_t csy, bool threads) {
  const index_t m = ta == trans::none ? A.rows : A.cols, n = ta == trans::none ? A.cols : A.rows;
  const blas::call c{names<V>::summm,  blas::order::row_major, ta,    tb,  m,  n, k,
                     real_part(alpha), real_part(beta),        A.nnz, rsx, rsy};
  auto describe = [&] {
    return describe_sum(names<V>::summm, ta, A, a, tb, B, b, f.apply != nullptr, m, n, alpha, beta,
                        blas::detail::arg("k", k) + ", X=(" + std::to_string(rsx) + "," +
                            std::to_string(csx) + "), Y=(" + std::to_string(rsy) + "," +
                            std::to_string(csy) + ")");
  };
  blas::detail::run(c, madd_flops<V>() * double(A.nnz + B.nnz) * double(k), false, describe, [&] {
    sum_product(ta, A, a, tb, B, b, f, m, k, alpha, X, rsx, csx, beta, Y, rsy, csy, threads);
  });
}

#define LZ_SPARSE_PRODUCTS(V, I)                                                                   \
  template void spmv<V, I>(trans, const csr<V, I>&, V, const V*, index_t, V, V*, index_t, bool);   \
  template void spmv_fill<V, I>(trans, const csr<V, I>&, value_fill<V>, V, const V*, index_t, V,   \
                                V*, index_t, bool);                                                \
  template void spmm_fill<V, I>(trans, const csr<V, I>&, value_fill<V>, index_t, V, const V*,      \
                                index_t, index_t, V, V*, index_t, index_t, bool);                  \
  template void spmv_sum<V, I>(trans, const csr<V, I>&, V, trans, const csr<V, I>&, V,             \
                               value_map<V>, V, const V*, index_t, V, V*, index_t, bool);          \
  template void spmm_sum<V, I>(trans, const csr<V, I>&, V, trans, const csr<V, I>&, V,             \
                               value_map<V>, index_t, V, const V*, index_t, index_t, V, V*,        \
                               index_t, index_t, bool);                                            \
  template void spmm<V, I>(trans, const csr<V, I>&, index_t, V, const V*, index_t, index_t, V, V*, \
                           index_t, index_t, bool);
#define LZ_SPARSE_PRODUCTS_V(V)                                                                    \
  LZ_SPARSE_PRODUCTS(V, std::int32_t)                                                              \
  LZ_SPARSE_PRODUCTS(V, std::int64_t)
LZ_SPARSE_PRODUCTS_V(float)
LZ_SPARSE_PRODUCTS_V(double)
LZ_SPARSE_PRODUCTS_V(cf)
LZ_SPARSE_PRODUCTS_V(cd)
#undef LZ_SPARSE_PRODUCTS_V
#undef LZ_SPARSE_PRODUCTS

} // namespace lz::kernels::sparse
