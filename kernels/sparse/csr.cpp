// Sparse kernels (kernels/include/lz/kernels/sparse/csr.hpp): CSR products spmv and spmm on the
// calling thread or over lazuli's threads (kernels::cpu::parallel_for, never TBB itself), each
// call reported to the BLAS recorder and traced under LZ_LOG=blas like kernels/blas/cblas.cpp.
// Building and checking patterns is in build.cpp.
//
// Determinism. op(A) = A: every output element is one sum over its row of A, in storage order,
// with two accumulators (even and odd positions, added at the end) for a vector's rows of 8 or
// more entries, one for shorter ones, and one per column for a block of columns; threads take whole
// rows, so the result does not depend on how many there are. op(A) = Aᵀ or Aᴴ scatters rows of A
// into the output: the rows are cut into a number of blocks that depends only on the matrix (nnz,
// cols and k, never the threads or the `threads` flag, see transpose_blocks), block 0 adds into the
// (scaled) output, every other block into a zeroed buffer of its own (over the output rows it
// touches), and the buffers are then added to the output in block order: y = ((β·y + s₀) + s₁)
// + ... whether the blocks ran on one thread (reusing one buffer) or on several. A product
// whose values a callback computes (spmv_fill, spmm_fill) sums each whole row as a stored
// matrix's, and a row longer than its 2048-entry blocks in pieces from the row's start, added
// in order, or scatters its blocks as above: again whatever the threads.
#include "../blas/trace.hpp"
#include "common.hpp"

#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace lz::kernels::sparse {
namespace {

using blas::trans;
using namespace common;

// A value of A as op reads it.
template <bool Conj, class T>
inline T ld(const T* v, index_t k) {
  if constexpr (Conj && is_complex_v<T>)
    return T(v[k].real(), -v[k].imag());
  else
    return v[k];
}
// out = alpha·s (+ beta·out): one pass over the output, beta == 0 never reading it.
template <bool Beta0, class T>
inline T finish(T s, T alpha, T beta, const T* out) {
  if constexpr (Beta0)
    return mul(alpha, s);
  else
    return mul(alpha, s) + mul(beta, *out);
}

template <class T>
void scale_vec(index_t n, T beta, T* y, index_t inc) {
  if (beta == T(0)) {
    for (index_t i = 0; i < n; ++i) y[i * inc] = T(0);
  } else if (beta != T(1)) {
    for (index_t i = 0; i < n; ++i) y[i * inc] = mul(beta, y[i * inc]);
  }
}
template <class T>
void scale_mat(index_t m, index_t k, T beta, T* C, index_t rs, index_t cs) {
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
template <bool Conj, class V, class I>
LZ_INLINE V row_sum(const I* __restrict ci, const V* __restrict va, index_t k, index_t e,
                    const V* __restrict x, index_t incx) {
  if (e - k >= two_sums_from) {
    V s0{}, s1{};
    for (; k + 1 < e; k += 2) {
      s0 = madd(s0, ld<Conj>(va, k), x[index_t(ci[k]) * incx]);
      s1 = madd(s1, ld<Conj>(va, k + 1), x[index_t(ci[k + 1]) * incx]);
    }
    if (k < e) s0 = madd(s0, ld<Conj>(va, k), x[index_t(ci[k]) * incx]);
    return s0 + s1;
  }
  V s{};
  for (; k < e; ++k) s = madd(s, ld<Conj>(va, k), x[index_t(ci[k]) * incx]);
  return s;
}

// y[i] = alpha·Σ_k v_k·x[c_k] (+ beta·y[i]) for rows [r0, r1), one pass over y; Unit: incx ==
// incy == 1 as constants (the contiguous loop). Software prefetches of x and non-temporal
// stores of y were measured and lost (perf/w14_spmv: prefetching x 32-128 entries ahead 1.19x
// the time on the random matrix; streaming y no gain on the Laplacian).
template <bool Conj, bool Beta0, bool Unit, class V, class I>
void mv_rows(const csr<V, I>& A, index_t r0, index_t r1, V alpha, const V* __restrict x,
             index_t incx, V beta, V* __restrict y, index_t incy) {
  const I* __restrict rp = A.row_ptr;
  const I* __restrict ci = A.col_idx;
  const V* __restrict va = A.values;
  if constexpr (Unit) incx = incy = 1;
  for (index_t i = r0; i < r1; ++i) {
    V* out = y + i * incy;
    *out = finish<Beta0>(row_sum<Conj>(ci, va, rp[i], rp[i + 1], x, incx), alpha, beta, out);
  }
}

template <bool Conj, class V, class I>
void mv_rows_any(const csr<V, I>& A, index_t r0, index_t r1, V alpha, const V* x, index_t incx,
                 V beta, V* y, index_t incy) {
  const bool b0 = beta == V(0), unit = incx == 1 && incy == 1;
  if (unit && b0)
    mv_rows<Conj, true, true>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else if (unit)
    mv_rows<Conj, false, true>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else if (b0)
    mv_rows<Conj, true, false>(A, r0, r1, alpha, x, incx, beta, y, incy);
  else
    mv_rows<Conj, false, false>(A, r0, r1, alpha, x, incx, beta, y, incy);
}

// C[i, l0 + j] for j < W (W a compile-time width, or 0 for the run-time width w): one
// accumulator per column, every row of B read as a contiguous run when csb == 1.
template <bool Conj, bool Beta0, bool UnitB, bool UnitC, int W, class V, class I>
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
      const V a = ld<Conj>(va, k);
      const V* b = B + index_t(ci[k]) * rsb;
      for (index_t j = 0; j < (W > 0 ? index_t(W) : w); ++j) acc[j] = madd(acc[j], a, b[j * csb]);
    }
    V* c = C + i * rsc;
    for (index_t j = 0; j < (W > 0 ? index_t(W) : w); ++j)
      c[j * csc] = finish<Beta0>(acc[j], alpha, beta, c + j * csc);
  }
}

template <bool Conj, bool Beta0, bool UnitB, bool UnitC, class V, class I>
void mm_rows_cols(const csr<V, I>& A, index_t r0, index_t r1, index_t k, V alpha, const V* B,
                  index_t rsb, index_t csb, V beta, V* C, index_t rsc, index_t csc) {
  // Widths that fill whole vector registers: 64 bytes of accumulators per register.
  constexpr int wide = 128 / int(sizeof(V));
  index_t l = 0;
  auto at = [&](index_t j, auto width_tag) {
    constexpr int Wd = decltype(width_tag)::value;
    mm_rows_block<Conj, Beta0, UnitB, UnitC, Wd>(A, r0, r1, Wd, alpha, B + j * csb, rsb, csb, beta,
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
    mm_rows_block<Conj, Beta0, UnitB, UnitC, 0>(A, r0, r1, w, alpha, B + l * csb, rsb, csb, beta,
                                                C + l * csc, rsc, csc);
  }
}

template <bool Conj, class V, class I>
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
        mv_rows_any<Conj>(A, t0, t1, alpha, B + l * csb, rsb, beta, C + l * csc, rsc);
      t0 = t1;
    }
    return;
  }
  auto run = [&](auto b0_, auto ub_, auto uc_) {
    mm_rows_cols<Conj, decltype(b0_)::value, decltype(ub_)::value, decltype(uc_)::value>(
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
// How many blocks the rows are cut into: a function of the matrix and k only (the result does
// not depend on threads). One block below 2·parallel_min_work entries; at most 8; the
// buffers (blocks - 1 of cols·k elements) never more than twice the entries they gather (times
// k) nor more than 2^24 elements in all.
index_t transpose_blocks(index_t rows, index_t cols, index_t nnz, index_t k) {
  if (rows <= 1 || nnz < 2 * parallel_min_work || cols <= 0) return 1;
  index_t b = std::min<index_t>(8, nnz / parallel_min_work);
  b = std::min(b, 2 * nnz / cols + 1);
  b = std::min(b, (index_t(1) << 24) / std::max<index_t>(1, cols * k) + 1);
  return std::max<index_t>(1, b);
}

// Out[c_k, :] += (alpha·X[i, :])·v_k for rows [r0, r1); X's row i at X + i·rsx (stride csx),
// Out's row j at Out + (j - lo)·rso (stride cso: Out holds the output rows from lo on); k columns.
// Out of line: one compiled copy for every caller (one thread or several, values stored or
// computed), so that no inlining site contracts its complex products into FMAs differently
// (complex<float> results differed between 1 and 2 threads once the callers changed).
template <bool Conj, class V, class I>
LZ_NOINLINE void scatter_rows(const csr<V, I>& A, index_t r0, index_t r1, index_t k, V alpha,
                              const V* X, index_t rsx, index_t csx, V* Out, index_t rso,
                              index_t cso, index_t lo) {
  const I* rp = A.row_ptr;
  const I* ci = A.col_idx;
  const V* va = A.values;
  if (k == 1) {
    for (index_t i = r0; i < r1; ++i) {
      const V ax = mul(alpha, X[i * rsx]);
      for (index_t p = rp[i], e = rp[i + 1]; p < e; ++p) {
        V* o = Out + (index_t(ci[p]) - lo) * rso;
        *o = madd(*o, ax, ld<Conj>(va, p));
      }
    }
    return;
  }
  std::vector<V> ax(static_cast<std::size_t>(k));
  for (index_t i = r0; i < r1; ++i) {
    for (index_t j = 0; j < k; ++j) ax[std::size_t(j)] = mul(alpha, X[i * rsx + j * csx]);
    for (index_t p = rp[i], e = rp[i + 1]; p < e; ++p) {
      const V a = ld<Conj>(va, p);
      V* o = Out + (index_t(ci[p]) - lo) * rso;
      if (cso == 1)
        for (index_t j = 0; j < k; ++j) o[j] = madd(o[j], ax[std::size_t(j)], a);
      else
        for (index_t j = 0; j < k; ++j) o[j * cso] = madd(o[j * cso], ax[std::size_t(j)], a);
    }
  }
}

// The output rows A's rows [r0, r1) add into: [lo, hi) from each row's first and last column
// (columns are sorted within rows); none: lo = hi.
template <class V, class I>
void touched_rows(const csr<V, I>& A, index_t r0, index_t r1, index_t& lo, index_t& hi) {
  lo = A.cols, hi = 0;
  for (index_t i = r0; i < r1; ++i) {
    const index_t b = A.row_ptr[i], e = A.row_ptr[i + 1];
    if (b == e) continue;
    lo = std::min<index_t>(lo, A.col_idx[b]);
    hi = std::max<index_t>(hi, index_t(A.col_idx[e - 1]) + 1);
  }
  if (lo >= hi) lo = hi = 0;
}

// Out (A.cols × k at (rso, cso)) = beta·Out + (the scatter of A's rows): rows(r0, r1, O, ro, co,
// lo) adds the products of A's rows [r0, r1) into O (output row j at O + (j - lo)·ro, stride co),
// over the blocks of transpose_blocks: block 0 into Out, every other one into a zeroed buffer
// spanning only the output rows its rows touch (a band: W14's Laplacian transposed took 2.0-2.1x
// Eigen's time on one thread with buffers of every output row), added into Out in block order,
// whatever the threads.
template <class V, class I, class Rows>
void scatter_blocks(const csr<V, I>& A, index_t k, V beta, V* Out, index_t rso, index_t cso,
                    bool threads, const Rows& rows) {
  const index_t blocks = transpose_blocks(A.rows, A.cols, A.nnz, k);
  const index_t cols = A.cols;
  if (blocks == 1) {
    scale_mat(cols, k, beta, Out, rso, cso);
    rows(index_t(0), A.rows, Out, rso, cso, index_t(0));
    return;
  }
  const index_t total = A.nnz + A.rows;
  // Block b: its rows, and for b > 0 the output rows they touch with a zeroed buffer over them
  // (row-major (hi - lo) × k), set by `start`.
  struct span {
    index_t r0, r1, lo = 0, hi = 0;
    std::vector<V> buf;
  };
  std::vector<span> sp(static_cast<std::size_t>(blocks));
  for (index_t b = 0; b < blocks; ++b) {
    span& q = sp[std::size_t(b)];
    q.r0 = b == 0 ? 0 : row_at_work(A.row_ptr, A.rows, total * b / blocks);
    q.r1 = b + 1 == blocks ? A.rows : row_at_work(A.row_ptr, A.rows, total * (b + 1) / blocks);
  }
  auto start = [&](span& q) {
    touched_rows(A, q.r0, q.r1, q.lo, q.hi);
    q.buf.assign(static_cast<std::size_t>((q.hi - q.lo) * k), V(0));
  };
  // Block q's buffer added into Out for output rows [j0, j1).
  auto add_into = [&](const span& q, index_t j0, index_t j1) {
    for (index_t j = std::max(j0, q.lo); j < std::min(j1, q.hi); ++j)
      for (index_t l = 0; l < k; ++l)
        Out[j * rso + l * cso] += q.buf[std::size_t((j - q.lo) * k + l)];
  };
  const bool par = threads && num_threads() > 1;
  if (!par) {
    scale_mat(cols, k, beta, Out, rso, cso);
    rows(sp[0].r0, sp[0].r1, Out, rso, cso, index_t(0));
    for (index_t b = 1; b < blocks; ++b) {
      span& q = sp[std::size_t(b)];
      if (b > 1) q.buf = std::move(sp[std::size_t(b - 1)].buf); // (one buffer, reused)
      start(q);
      rows(q.r0, q.r1, q.buf.data(), k, index_t(1), q.lo);
      add_into(q, 0, cols);
    }
    return;
  }
  cpu::parallel_for(blocks, 1, [&](index_t b0, index_t b1) {
    for (index_t b = b0; b < b1; ++b) {
      span& q = sp[std::size_t(b)];
      if (b == 0) {
        scale_mat(cols, k, beta, Out, rso, cso);
        rows(q.r0, q.r1, Out, rso, cso, index_t(0));
      } else {
        start(q);
        rows(q.r0, q.r1, q.buf.data(), k, index_t(1), q.lo);
      }
    }
  });
  // Out[j] = ((Out[j] + buf₁[j]) + buf₂[j]) + ...: the order of the one-thread loop above.
  const index_t grain = std::max<index_t>(1, 16384 / std::max<index_t>(1, k));
  cpu::parallel_for(cols, grain, [&](index_t j0, index_t j1) {
    for (index_t b = 1; b < blocks; ++b) add_into(sp[std::size_t(b)], j0, j1);
  });
}

// Out (A.cols × k at (rso, cso)) = beta·Out + alpha·op(A)·X for op a transpose.
template <bool Conj, class V, class I>
void scatter(const csr<V, I>& A, index_t k, V alpha, const V* X, index_t rsx, index_t csx, V beta,
             V* Out, index_t rso, index_t cso, bool threads) {
  scatter_blocks(A, k, beta, Out, rso, cso, threads,
                 [&](index_t r0, index_t r1, V* O, index_t ro, index_t co, index_t lo) {
                   scatter_rows<Conj>(A, r0, r1, k, alpha, X, rsx, csx, O, ro, co, lo);
                 });
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
    *out = beta == V(0) ? mul(alpha, s) : mul(alpha, s) + mul(beta, *out);
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
        V s = row_sum<false>(cols.data(), vals.data(), e, g.end, X, rsx);
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
        mm_rows<false>(whole, 0, q1 - q0, k, alpha, X, rsx, csx, beta, Y + segs[q0].row * rsy, rsy,
                       csy);
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
          cols[u] = I(ca), vals[u] = mul(a, ava[ka++]) + mul(b, bva[kb++]);
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
  // Rows [i, j) (from end()).
  csr<V, I> rows(index_t i, index_t j) {
    const index_t base = A.row_ptr[i], n = index_t(A.row_ptr[j]) - base;
    if (n > 0) f.fill(f.ctx, base, vals.data(), n);
    for (index_t r = i; r <= j; ++r) rp[r - i] = I(index_t(A.row_ptr[r]) - base);
    return {j - i, A.cols, n, rp.data(), A.col_idx + base, vals.data()};
  }
  // Entries [k0, k0 + n) of one row, as one row.
  csr<V, I> piece(index_t k0, index_t n) {
    f.fill(f.ctx, k0, vals.data(), n);
    rp[0] = 0, rp[1] = I(n);
    return {1, A.cols, n, rp.data(), A.col_idx + k0, vals.data()};
  }
};

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
          mv_rows_any<false>(blk, a0, a1, alpha, X, rsx, beta, Y + i * rsy, rsy);
        else
          mm_rows<false>(blk, a0, a1, k, alpha, X, rsx, csx, beta, Y + i * rsy, rsy, csy);
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
        acc[0] = acc[0] + row_sum<false>(ci, pc.values, 0, n, X, rsx);
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
      *out = beta == V(0) ? mul(alpha, acc[c]) : mul(alpha, acc[c]) + mul(beta, *out);
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
    if (!tr) {
      over_rows(A.row_ptr, A.rows, A.nnz, A.nnz, threads, [&](index_t r0, index_t r1) {
        mv_rows_any<false>(A, r0, r1, alpha, x, incx, beta, y, incy);
      });
    } else if (t == trans::conj_transpose && is_complex_v<V>) {
      scatter<true>(A, 1, alpha, x, incx, 0, beta, y, incy, 0, threads);
    } else {
      scatter<false>(A, 1, alpha, x, incx, 0, beta, y, incy, 0, threads);
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
        mm_rows<false>(A, r0, r1, k, alpha, B, rsb, csb, beta, C, rsc, csc);
      });
    } else if (t == trans::conj_transpose && is_complex_v<V>) {
      scatter<true>(A, k, alpha, B, rsb, csb, beta, C, rsc, csc, threads);
    } else {
      scatter<false>(A, k, alpha, B, rsb, csb, beta, C, rsc, csc, threads);
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

// scatter_rows for rows [r0, r1) of F (A's pattern, f's values): blocks of whole rows (at most
// merge_block entries and rows) and pieces of a longer row, their values written by f into a
// buffer, each through scatter_rows with its row offsets rebased: every entry is added into Out
// in storage order, as the stored matrix's are.
template <bool Conj, class V, class I>
void scatter_fill_rows(const csr<V, I>& A, const value_fill<V>& f, index_t r0, index_t r1,
                       index_t k, V alpha, const V* X, index_t rsx, index_t csx, V* Out,
                       index_t rso, index_t cso, index_t lo) {
  filled_blocks<V, I> fb{A, f};
  for (index_t i = r0; i < r1;) {
    const index_t j = fb.end(i, r1);
    if (j > i) { // rows [i, j): one block
      scatter_rows<Conj>(fb.rows(i, j), 0, j - i, k, alpha, X + i * rsx, rsx, csx, Out, rso, cso,
                         lo);
      i = j;
      continue;
    }
    for (index_t k0 = A.row_ptr[i], e = A.row_ptr[i + 1]; k0 < e; k0 += merge_block) // longer
      scatter_rows<Conj>(fb.piece(k0, std::min(merge_block, e - k0)), 0, 1, k, alpha, X + i * rsx,
                         rsx, csx, Out, rso, cso, lo);
    ++i;
  }
}

// spmv_fill / spmm_fill's body: F's rows over threads, each with its own buffer; op(F) = Fᵀ or
// Fᴴ scatters them as spmv / spmm do a stored matrix's (the same blocks, the same order).
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
  if (t == trans::none) {
    over_rows(A.row_ptr, A.rows, A.nnz, A.nnz * k, threads, [&](index_t r0, index_t r1) {
      fill_rows(A, f, r0, r1, k, alpha, X, rsx, csx, beta, Y, rsy, csy);
    });
    return;
  }
  const auto rows = [&]<bool Conj>(std::bool_constant<Conj>) {
    return [&](index_t r0, index_t r1, V* O, index_t ro, index_t co, index_t lo) {
      scatter_fill_rows<Conj>(A, f, r0, r1, k, alpha, X, rsx, csx, O, ro, co, lo);
    };
  };
  if (t == trans::conj_transpose && is_complex_v<V>)
    scatter_blocks(A, k, beta, Y, rsy, csy, threads, rows(std::true_type{}));
  else
    scatter_blocks(A, k, beta, Y, rsy, csy, threads, rows(std::false_type{}));
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
