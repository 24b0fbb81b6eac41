// Sparse × sparse products (kernels/include/lz/kernels/sparse/csr.hpp, spgemm): Gustavson's
// row-by-row algorithm in two passes over A. The first counts each row of C (the union of the
// columns of the rows of B that row i of A names, through a marker per column, and of D's row i
// when there is an addend D), a prefix sum gives row_ptr, the second accumulates each row into a
// dense accumulator and writes it with its columns sorted (merged with beta·D's sorted row). Rows
// are split over lazuli's threads (kernels::cpu::parallel_for) by the multiply-adds they cost;
// every row is one fixed computation (A's entries in storage order, each B row in storage order),
// so the result does not depend on the thread count. Recorded and traced like the other sparse
// products
// ("dcsrgemm").
#include "../blas/trace.hpp"
#include "common.hpp"

#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace lz::detail {
[[noreturn]] void throw_index_overflow(const char* call, const char* what, index_t v, int bits);
} // namespace lz::detail

namespace lz::kernels::sparse {
using namespace common;

template <class V, class I>
void spgemm(const csr<V, I>& A, const csr<V, I>& B, V alpha, const csr<V, I>* D, V beta,
            std::vector<I>& row_ptr, std::vector<I>& col_idx, value_buffer<V> out_values,
            bool threads) {
  const index_t m = A.rows, n = B.cols;
  // Multiply-adds per row of A (the work), as a prefix: the split over threads (read like a
  // row_ptr by over_row_parts) and the call's recorded flops.
  std::vector<index_t> flops(std::size_t(m) + 1, 0);
  for (index_t i = 0; i < m; ++i) {
    index_t f = 0;
    for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
      const index_t k = A.col_idx[p];
      f += index_t(B.row_ptr[k + 1]) - index_t(B.row_ptr[k]);
    }
    if (D) f += index_t(D->row_ptr[i + 1]) - index_t(D->row_ptr[i]);
    flops[std::size_t(i) + 1] = flops[std::size_t(i)] + f;
  }
  const index_t work = flops[std::size_t(m)];
  const blas::call c{names<V>::gemm,
                     blas::order::row_major,
                     blas::trans::none,
                     blas::trans::none,
                     m,
                     n,
                     A.cols,
                     real_part(alpha),
                     D ? real_part(beta) : 0.0,
                     A.nnz,
                     B.nnz,
                     D ? D->nnz : 0};
  auto describe = [&] {
    return std::string(names<V>::gemm) + "(" + blas::detail::arg("m", m) + ", " +
           blas::detail::arg("n", n) + ", " + blas::detail::arg("k", A.cols) + ", " +
           blas::detail::arg("nnzA", A.nnz) + ", " + blas::detail::arg("nnzB", B.nnz) + ", " +
           (D ? value_arg("beta", beta) + ", " + blas::detail::arg("nnzD", D->nnz) + ", "
              : std::string()) +
           blas::detail::arg("multiply-adds", work) + ")";
  };
  blas::detail::run(c, madd_flops<V>() * double(work), false, describe, [&] {
    const int nt = threads && work >= 32768 ? lz::num_threads() : 1;
    const index_t parts = std::max<index_t>(1, std::min<index_t>(m, nt));
    // Pass 1: the entry count of each row of C, through a marker per column of B (the last row
    // that touched it); then D's columns the products did not reach.
    std::vector<index_t> count(std::size_t(m) + 1, 0);
    over_row_parts(flops.data(), m, work, parts, nt > 1, [&](index_t r0, index_t r1) {
      std::vector<index_t> mark(std::size_t(n), -1);
      for (index_t i = r0; i < r1; ++i) {
        index_t c_i = 0;
        for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
          const index_t k = A.col_idx[p];
          for (index_t q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
            const index_t j = B.col_idx[q];
            if (mark[std::size_t(j)] != i) {
              mark[std::size_t(j)] = i;
              ++c_i;
            }
          }
        }
        if (D)
          for (index_t q = D->row_ptr[i]; q < D->row_ptr[i + 1]; ++q)
            c_i += mark[std::size_t(D->col_idx[q])] != i;
        count[std::size_t(i) + 1] = c_i;
      }
    });
    for (index_t i = 0; i < m; ++i) count[std::size_t(i) + 1] += count[std::size_t(i)];
    const index_t nnz = count[std::size_t(m)];
    if (sizeof(I) < sizeof(index_t) && nnz > index_t(std::numeric_limits<I>::max()))
      lz::detail::throw_index_overflow(D ? "lz::csr_matrix = A * B + D" : "lz::csr_matrix = A * B",
                                       "nnz", nnz, int(sizeof(I) * 8));
    row_ptr.resize(std::size_t(m) + 1);
    for (index_t i = 0; i <= m; ++i) row_ptr[std::size_t(i)] = I(count[std::size_t(i)]);
    col_idx.resize(std::size_t(nnz));
    V* const values = out_values.get(out_values.ctx, nnz);
    // Pass 2: each row's products accumulated densely (A's entries in storage order, each B row
    // in storage order: one fixed sum per entry), their columns sorted, then written — merged
    // with beta·D's row when there is one (from the back, in place: the products' columns sit at
    // the front of the row's slots).
    over_row_parts(flops.data(), m, work, parts, nt > 1, [&](index_t r0, index_t r1) {
      std::vector<index_t> mark(std::size_t(n), -1);
      std::vector<V> acc(static_cast<std::size_t>(n));
      for (index_t i = r0; i < r1; ++i) {
        I* cols = col_idx.data() + count[std::size_t(i)];
        V* out = values + count[std::size_t(i)];
        index_t c_i = 0;
        for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
          const index_t k = A.col_idx[p];
          const V a = mul(alpha, A.values[p]);
          for (index_t q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q) {
            const index_t j = B.col_idx[q];
            if (mark[std::size_t(j)] != i) {
              mark[std::size_t(j)] = i;
              acc[std::size_t(j)] = mul(a, B.values[q]);
              cols[c_i++] = I(j);
            } else {
              acc[std::size_t(j)] += mul(a, B.values[q]);
            }
          }
        }
        std::sort(cols, cols + c_i);
        if (!D) {
          for (index_t e = 0; e < c_i; ++e) out[e] = acc[std::size_t(cols[e])];
          continue;
        }
        const auto d = [&](index_t q) {
          return beta == V(1) ? D->values[q] : mul(beta, D->values[q]);
        };
        index_t pp = c_i, qq = D->row_ptr[i + 1];
        const index_t q0 = D->row_ptr[i];
        for (index_t e = count[std::size_t(i) + 1] - count[std::size_t(i)]; e-- > 0;) {
          const index_t jp = pp > 0 ? index_t(cols[pp - 1]) : -1;
          const index_t jd = qq > q0 ? index_t(D->col_idx[qq - 1]) : -1;
          if (jp > jd) {
            out[e] = acc[std::size_t(jp)];
            cols[e] = I(jp);
            --pp;
          } else if (jd > jp) {
            out[e] = d(--qq);
            cols[e] = I(jd);
          } else {
            out[e] = acc[std::size_t(jp)] + d(--qq);
            cols[e] = I(jp);
            --pp;
          }
        }
      }
    });
  });
}

// (csr.hpp) A counting sort by column.
template <class V, class I>
csr<V, I> transpose(const csr<V, I>& M, bool conj, std::vector<I>& rp, std::vector<I>& ci,
                    std::vector<V>& v) {
  const index_t base = index_t(M.row_ptr[0]);
  rp.assign(std::size_t(M.cols) + 1, I(0));
  ci.resize(std::size_t(M.nnz));
  v.resize(std::size_t(M.nnz));
  for (index_t p = base; p < base + M.nnz; ++p) ++rp[std::size_t(M.col_idx[p]) + 1];
  for (index_t j = 0; j < M.cols; ++j) rp[std::size_t(j) + 1] += rp[std::size_t(j)];
  std::vector<I> next(rp.begin(), rp.end() - 1);
  for (index_t i = 0; i < M.rows; ++i)
    for (index_t p = M.row_ptr[i]; p < M.row_ptr[i + 1]; ++p) {
      const I at = next[std::size_t(M.col_idx[p])]++;
      ci[std::size_t(at)] = I(i);
      V x = M.values[p];
      if constexpr (is_complex_v<V>)
        if (conj) x = std::conj(x);
      v[std::size_t(at)] = x;
    }
  return {M.cols, M.rows, M.nnz, rp.data(), ci.data(), v.data()};
}

template <class V, class I>
void spgemm_dense(blas::trans ta, const csr<V, I>& A, blas::trans tb, const csr<V, I>& B, V alpha,
                  V beta, V* C, index_t rsc, index_t csc, bool threads) {
  const index_t m = ta == blas::trans::none ? A.rows : A.cols;
  const index_t n = tb == blas::trans::none ? B.cols : B.rows;
  const index_t k = ta == blas::trans::none ? A.cols : A.rows;
  const blas::call c{names<V>::multd,  blas::order::row_major, ta,    tb,    m,  n, k,
                     real_part(alpha), real_part(beta),        A.nnz, B.nnz, rsc};
  auto describe = [&] {
    return std::string(names<V>::multd) + "(" + char(ta) + ", " + char(tb) + ", " +
           blas::detail::arg("m", m) + ", " + blas::detail::arg("n", n) + ", " +
           blas::detail::arg("k", k) + ", " + value_arg("alpha", alpha) + ", " +
           blas::detail::arg("nnzA", A.nnz) + ", " + blas::detail::arg("nnzB", B.nnz) + ", " +
           value_arg("beta", beta) + ")";
  };
  // The multiply-adds, Σ over k of (entries in column k of op(A)) × (entries in row k of op(B)),
  // counted from the stored arrays before anything is transposed (the recorded flops).
  const auto counts = [k](const csr<V, I>& M, bool by_column) {
    std::vector<index_t> cnt(std::size_t(k), 0);
    if (by_column)
      for (index_t p = index_t(M.row_ptr[0]); p < index_t(M.row_ptr[0]) + M.nnz; ++p)
        ++cnt[std::size_t(M.col_idx[p])];
    else
      for (index_t r = 0; r < k; ++r)
        cnt[std::size_t(r)] = index_t(M.row_ptr[r + 1] - M.row_ptr[r]);
    return cnt;
  };
  const std::vector<index_t> ca = counts(A, ta == blas::trans::none);
  const std::vector<index_t> cb = counts(B, tb != blas::trans::none);
  double madds = 0;
  for (index_t r = 0; r < k; ++r) madds += double(ca[std::size_t(r)]) * double(cb[std::size_t(r)]);
  const double flops = madd_flops<V>() * madds;
  blas::detail::run(c, flops, false, describe, [&] {
    if (m == 0 || n == 0) return; // nothing to write (C may be null)
    std::vector<I> arp, aci, brp, bci;
    std::vector<V> av, bv;
    const csr<V, I> a =
        ta == blas::trans::none ? A : transpose(A, ta == blas::trans::conj_transpose, arp, aci, av);
    const csr<V, I> b =
        tb == blas::trans::none ? B : transpose(B, tb == blas::trans::conj_transpose, brp, bci, bv);
    // The split: each row's multiply-adds, plus its n stores when C is scaled.
    const index_t per_row = beta != V(1) ? n : 0;
    std::vector<index_t> work(std::size_t(m) + 1, 0);
    for (index_t i = 0; i < m; ++i) {
      index_t f = per_row;
      for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        const index_t kk = a.col_idx[p];
        f += index_t(b.row_ptr[kk + 1]) - index_t(b.row_ptr[kk]);
      }
      work[std::size_t(i) + 1] = work[std::size_t(i)] + f;
    }
    const index_t total = work[std::size_t(m)];
    const int nt = threads && total >= 32768 ? lz::num_threads() : 1;
    const index_t parts = std::max<index_t>(1, std::min<index_t>(m, nt));
    over_row_parts(work.data(), m, total, parts, nt > 1, [&](index_t r0, index_t r1) {
      for (index_t i = r0; i < r1; ++i) {
        V* const row = C + i * rsc;
        if (beta == V(0))
          for (index_t j = 0; j < n; ++j) row[j * csc] = V(0);
        else if (beta != V(1))
          for (index_t j = 0; j < n; ++j) row[j * csc] = mul(beta, row[j * csc]);
        // A's entries in storage order, each B row in storage order: one fixed sum per element.
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
          const index_t kk = a.col_idx[p];
          const V s = alpha == V(1) ? a.values[p] : mul(alpha, a.values[p]);
          const index_t q1 = b.row_ptr[kk + 1];
          if (csc == 1)
            for (index_t q = b.row_ptr[kk]; q < q1; ++q)
              row[b.col_idx[q]] = madd(row[b.col_idx[q]], s, b.values[q]);
          else
            for (index_t q = b.row_ptr[kk]; q < q1; ++q) {
              V& d = row[index_t(b.col_idx[q]) * csc];
              d = madd(d, s, b.values[q]);
            }
        }
      }
    });
  });
}

#define LZ_SPGEMM(V, I)                                                                            \
  template csr<V, I> transpose<V, I>(const csr<V, I>&, bool, std::vector<I>&, std::vector<I>&,     \
                                     std::vector<V>&);                                             \
  template void spgemm<V, I>(const csr<V, I>&, const csr<V, I>&, V, const csr<V, I>*, V,           \
                             std::vector<I>&, std::vector<I>&, value_buffer<V>, bool);             \
  template void spgemm_dense<V, I>(blas::trans, const csr<V, I>&, blas::trans, const csr<V, I>&,   \
                                   V, V, V*, index_t, index_t, bool);
#define LZ_SPGEMM_V(V)                                                                             \
  LZ_SPGEMM(V, std::int32_t)                                                                       \
  LZ_SPGEMM(V, std::int64_t)
LZ_SPGEMM_V(float)
LZ_SPGEMM_V(double)
LZ_SPGEMM_V(cf)
LZ_SPGEMM_V(cd)
#undef LZ_SPGEMM_V
#undef LZ_SPGEMM

} // namespace lz::kernels::sparse
