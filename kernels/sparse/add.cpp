// Sparse + dense (add_dense): C = alpha·op(A) + beta·C for a dense C, a scatter of A's stored
// entries after C is scaled, rows of A split over threads ("dcsradd").
// Sparse + sparse (kernels/include/lz/kernels/sparse/csr.hpp, add): C = alpha·A + beta·B over the
// union of the two patterns, in two passes over the rows. The first counts each row of C (a merge
// of the two sorted rows), a prefix sum gives row_ptr, the second merges again and writes the
// entries. Rows are split over lazuli's threads (kernels::cpu::parallel_for) by their entries;
// every entry is one fixed computation, so the result does not depend on the thread count.
// Recorded and traced like the other sparse calls ("dcsrgeam", cuSPARSE's name for it).
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

namespace {
// s·v, exact when s is 1 (no 0·Inf from a complex product's cross terms).
template <class V>
V scaled(V s, V v) {
  return s == V(1) ? v : mul(s, v);
}
} // namespace

template <class V, class I>
void add(const csr<V, I>& A, V alpha, const csr<V, I>& B, V beta, std::vector<I>& row_ptr,
         std::vector<I>& col_idx, value_buffer<V> out_values, bool threads) {
  const index_t m = A.rows, n = A.cols;
  // Entries of A and B up to each row (read like a row_ptr by over_row_parts): the split.
  std::vector<index_t> work(std::size_t(m) + 1, 0);
  for (index_t i = 0; i <= m; ++i)
    work[std::size_t(i)] = (index_t(A.row_ptr[i]) - index_t(A.row_ptr[0])) +
                           (index_t(B.row_ptr[i]) - index_t(B.row_ptr[0]));
  const index_t total = work[std::size_t(m)];
  const blas::call c{names<V>::geam,
                     blas::order::row_major,
                     blas::trans::none,
                     blas::trans::none,
                     m,
                     n,
                     0,
                     real_part(alpha),
                     real_part(beta),
                     A.nnz,
                     B.nnz,
                     0};
  auto describe = [&] {
    return std::string(names<V>::geam) + "(" + blas::detail::arg("m", m) + ", " +
           blas::detail::arg("n", n) + ", " + value_arg("alpha", alpha) + ", " +
           blas::detail::arg("nnzA", A.nnz) + ", " + value_arg("beta", beta) + ", " +
           blas::detail::arg("nnzB", B.nnz) + ")";
  };
  blas::detail::run(c, madd_flops<V>() * double(total), false, describe, [&] {
    const int nt = threads && total >= 65536 ? lz::num_threads() : 1;
    const index_t parts = std::max<index_t>(1, std::min<index_t>(m, nt));
    // Pass 1: the entry count of each row of C (the size of the union of two sorted rows).
    std::vector<index_t> count(std::size_t(m) + 1, 0);
    over_row_parts(work.data(), m, total, parts, nt > 1, [&](index_t r0, index_t r1) {
      for (index_t i = r0; i < r1; ++i) {
        index_t p = A.row_ptr[i], q = B.row_ptr[i], c_i = 0;
        const index_t pe = A.row_ptr[i + 1], qe = B.row_ptr[i + 1];
        while (p < pe && q < qe) {
          const I a = A.col_idx[p], b = B.col_idx[q];
          p += a <= b;
          q += b <= a;
          ++c_i;
        }
        count[std::size_t(i) + 1] = c_i + (pe - p) + (qe - q);
      }
    });
    for (index_t i = 0; i < m; ++i) count[std::size_t(i) + 1] += count[std::size_t(i)];
    const index_t nnz = count[std::size_t(m)];
    if (sizeof(I) < sizeof(index_t) && nnz > index_t(std::numeric_limits<I>::max()))
      lz::detail::throw_index_overflow("lz::csr_matrix = A + B", "nnz", nnz, int(sizeof(I) * 8));
    row_ptr.resize(std::size_t(m) + 1);
    for (index_t i = 0; i <= m; ++i) row_ptr[std::size_t(i)] = I(count[std::size_t(i)]);
    col_idx.resize(std::size_t(nnz));
    V* const values = out_values.get(out_values.ctx, nnz);
    // Pass 2: the same merge, writing alpha·a + beta·b where both rows hold the column.
    over_row_parts(work.data(), m, total, parts, nt > 1, [&](index_t r0, index_t r1) {
      for (index_t i = r0; i < r1; ++i) {
        index_t p = A.row_ptr[i], q = B.row_ptr[i], o = count[std::size_t(i)];
        const index_t pe = A.row_ptr[i + 1], qe = B.row_ptr[i + 1];
        for (; p < pe && q < qe; ++o) {
          const I a = A.col_idx[p], b = B.col_idx[q];
          if (a < b) {
            col_idx[std::size_t(o)] = a;
            values[o] = scaled(alpha, A.values[p++]);
          } else if (b < a) {
            col_idx[std::size_t(o)] = b;
            values[o] = scaled(beta, B.values[q++]);
          } else {
            col_idx[std::size_t(o)] = a;
            values[o] = scaled(alpha, A.values[p++]) + scaled(beta, B.values[q++]);
          }
        }
        for (; p < pe; ++p, ++o) {
          col_idx[std::size_t(o)] = A.col_idx[p];
          values[o] = scaled(alpha, A.values[p]);
        }
        for (; q < qe; ++q, ++o) {
          col_idx[std::size_t(o)] = B.col_idx[q];
          values[o] = scaled(beta, B.values[q]);
        }
      }
    });
  });
}

template <class V, class I>
void add_dense(blas::trans t, const csr<V, I>& A, V alpha, V beta, V* C, index_t rsc, index_t csc,
               bool threads) {
  const bool tr = t != blas::trans::none;
  const index_t m = tr ? A.cols : A.rows, n = tr ? A.rows : A.cols;
  const blas::call c{names<V>::add,
                     blas::order::row_major,
                     t,
                     blas::trans::none,
                     m,
                     n,
                     0,
                     real_part(alpha),
                     real_part(beta),
                     A.nnz,
                     0,
                     rsc};
  auto describe = [&] {
    return std::string(names<V>::add) + "(" + char(t) + ", " + blas::detail::arg("m", m) + ", " +
           blas::detail::arg("n", n) + ", " + value_arg("alpha", alpha) + ", " +
           blas::detail::arg("nnz", A.nnz) + ", " + value_arg("beta", beta) + ")";
  };
  // The work: scaling C touches all m·n entries, unless beta is 1; the scatter A's entries.
  const index_t touched = (beta != V(1) ? m * n : 0) + A.nnz;
  blas::detail::run(c, double(touched), false, describe, [&] {
    const int nt = threads && touched >= 65536 ? lz::num_threads() : 1;
    // C = beta·C, row by row.
    if (beta != V(1)) {
      const index_t parts = std::max<index_t>(1, std::min<index_t>(m, nt));
      const auto rows = [&](index_t p0, index_t p1) {
        for (index_t p = p0; p < p1; ++p)
          for (index_t i = m * p / parts; i < m * (p + 1) / parts; ++i) {
            V* r = C + i * rsc;
            if (beta == V(0))
              for (index_t j = 0; j < n; ++j) r[j * csc] = V(0);
            else
              for (index_t j = 0; j < n; ++j) r[j * csc] = mul(beta, r[j * csc]);
          }
      };
      if (parts > 1)
        cpu::parallel_for(parts, 1, rows);
      else
        rows(0, parts);
    }
    // The entries: row i of A lands in row i of C (or column i, transposed): rows of A are
    // disjoint in C, so row blocks run on any thread.
    const index_t parts = std::max<index_t>(1, std::min<index_t>(A.rows, nt));
    const bool conj = t == blas::trans::conj_transpose;
    over_row_parts(A.row_ptr, A.rows, A.nnz, parts, parts > 1, [&](index_t r0, index_t r1) {
      for (index_t i = r0; i < r1; ++i)
        for (index_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
          V v = A.values[p];
          if constexpr (is_complex_v<V>)
            if (conj) v = std::conj(v);
          const index_t j = A.col_idx[p];
          V& dst = tr ? C[j * rsc + i * csc] : C[i * rsc + j * csc];
          dst += alpha == V(1) ? v : mul(alpha, v);
        }
    });
  });
}

#define LZ_SPARSE_ADD(V, I)                                                                        \
  template void add<V, I>(const csr<V, I>&, V, const csr<V, I>&, V, std::vector<I>&,               \
                          std::vector<I>&, value_buffer<V>, bool);                                 \
  template void add_dense<V, I>(blas::trans, const csr<V, I>&, V, V, V*, index_t, index_t, bool);
#define LZ_SPARSE_ADD_V(V)                                                                         \
  LZ_SPARSE_ADD(V, std::int32_t)                                                                   \
  LZ_SPARSE_ADD(V, std::int64_t)
LZ_SPARSE_ADD_V(float)
LZ_SPARSE_ADD_V(double)
LZ_SPARSE_ADD_V(cf)
LZ_SPARSE_ADD_V(cd)
#undef LZ_SPARSE_ADD_V
#undef LZ_SPARSE_ADD

} // namespace lz::kernels::sparse
