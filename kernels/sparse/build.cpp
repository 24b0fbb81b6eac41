// Sparse kernels (kernels/include/lz/kernels/sparse/csr.hpp): building and checking CSR patterns:
// from_triplets (two stable counting sorts, by column then by row, so that each row comes out
// with its columns sorted and duplicates adjacent in triplet order, then summed), check_pattern,
// sort_rows, and the column-strip copy of a matrix (cut_strips, strips_for). The products are in
// csr.cpp.
#include <lz/errors.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

namespace lz::kernels::sparse {
namespace {

template <class I>
void check_fits(index_t v, const char* what, index_t rows, index_t cols) {
  if (v > static_cast<index_t>(std::numeric_limits<I>::max()))
    throw layout_error("lz::csr_matrix::from_triplets: " + std::string(what) + " " +
                       std::to_string(v) + " of a " + std::to_string(rows) + " x " +
                       std::to_string(cols) + " matrix does not fit the " +
                       std::to_string(8 * sizeof(I)) + "-bit index type");
}

std::string shape_text(index_t rows, index_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

} // namespace

template <class V, class I>
void from_triplets(index_t rows, index_t cols, index_t count, const I* r, const I* c, const V* v,
                   std::vector<I>& row_ptr, std::vector<I>& col_idx, std::vector<V>& values) {
  if (rows < 0 || cols < 0 || count < 0)
    throw layout_error("lz::csr_matrix::from_triplets: negative size (" + shape_text(rows, cols) +
                       " matrix, " + std::to_string(count) + " triplets)");
  check_fits<I>(rows, "row count", rows, cols);
  check_fits<I>(cols, "column count", rows, cols);
  for (index_t t = 0; t < count; ++t) {
    const index_t ri = static_cast<index_t>(r[t]), cj = static_cast<index_t>(c[t]);
    if (ri < 0 || ri >= rows || cj < 0 || cj >= cols)
      throw std::out_of_range("lz::csr_matrix::from_triplets: triplet " + std::to_string(t) +
                              " at (" + std::to_string(ri) + ", " + std::to_string(cj) +
                              ") is outside the " + shape_text(rows, cols) + " matrix");
  }
  const std::size_t n = static_cast<std::size_t>(count);
  // Pass 1: triplet numbers in column order (stable).
  std::vector<index_t> start(static_cast<std::size_t>(std::max(rows, cols)) + 1);
  std::fill(start.begin(), start.begin() + cols + 1, 0);
  for (std::size_t t = 0; t < n; ++t) ++start[static_cast<std::size_t>(c[t]) + 1];
  for (index_t j = 0; j < cols; ++j) start[std::size_t(j + 1)] += start[std::size_t(j)];
  std::vector<index_t> by_col(n);
  for (std::size_t t = 0; t < n; ++t) by_col[std::size_t(start[std::size_t(c[t])]++)] = index_t(t);
  // Pass 2: those in row order (stable): rows with sorted columns, duplicates in triplet order.
  std::fill(start.begin(), start.begin() + rows + 1, 0);
  for (std::size_t t = 0; t < n; ++t) ++start[static_cast<std::size_t>(r[t]) + 1];
  for (index_t i = 0; i < rows; ++i) start[std::size_t(i + 1)] += start[std::size_t(i)];
  std::vector<index_t> order(n);
  for (std::size_t q = 0; q < n; ++q) {
    const index_t t = by_col[q];
    order[std::size_t(start[std::size_t(r[t])]++)] = t;
  }
  // Now start[i] is the end of row i. Compact duplicates.
  row_ptr.assign(static_cast<std::size_t>(rows) + 1, I(0));
  col_idx.clear();
  values.clear();
  col_idx.reserve(n);
  values.reserve(n);
  index_t q = 0;
  for (index_t i = 0; i < rows; ++i) {
    const index_t end = start[std::size_t(i)];
    while (q < end) {
      const index_t t = order[std::size_t(q)];
      const I cj = c[t];
      V sum = v[t];
      for (++q; q < end && c[order[std::size_t(q)]] == cj; ++q) sum += v[order[std::size_t(q)]];
      col_idx.push_back(cj);
      values.push_back(sum);
    }
    check_fits<I>(index_t(col_idx.size()), "entry count", rows, cols);
    row_ptr[std::size_t(i + 1)] = static_cast<I>(col_idx.size());
  }
}

template <class I>
const char* check_pattern(index_t rows, index_t cols, index_t nnz, const I* row_ptr,
                          const I* col_idx, bool sorted, index_t& where) {
  where = -1;
  if (rows < 0 || cols < 0 || nnz < 0) return "negative size";
  if (row_ptr == nullptr) return "row_ptr is null";
  if (row_ptr[0] != 0) {
    where = 0;
    return "row_ptr[0] is not 0";
  }
  for (index_t i = 0; i < rows; ++i)
    if (row_ptr[i + 1] < row_ptr[i]) {
      where = i;
      return "row_ptr decreases: a row ends before it starts";
    }
  if (static_cast<index_t>(row_ptr[rows]) != nnz) {
    where = rows;
    return "row_ptr[rows] is not nnz";
  }
  if (nnz > 0 && col_idx == nullptr) return "col_idx is null";
  for (index_t i = 0; i < rows; ++i) {
    const index_t b = row_ptr[i], e = row_ptr[i + 1];
    for (index_t k = b; k < e; ++k) {
      const index_t j = col_idx[k];
      if (j < 0 || j >= cols) {
        where = i;
        return "column index outside [0, cols)";
      }
      if (sorted && k > b && j <= static_cast<index_t>(col_idx[k - 1])) {
        where = i;
        return "columns not strictly increasing in a row (unsorted or duplicate)";
      }
    }
  }
  return nullptr;
}

template <class V, class I>
index_t sort_rows(index_t rows, I* row_ptr, I* col_idx, V* values) {
  if (rows <= 0) return 0;
  std::vector<std::pair<I, V>> row;
  index_t out = 0; // next write position
  index_t b = row_ptr[0];
  for (index_t i = 0; i < rows; ++i) {
    const index_t e = row_ptr[i + 1];
    bool ordered = true;
    for (index_t k = b + 1; k < e && ordered; ++k) ordered = col_idx[k - 1] < col_idx[k];
    if (ordered) {
      if (out != b)
        for (index_t k = b; k < e; ++k, ++out) {
          col_idx[out] = col_idx[k];
          values[out] = values[k];
        }
      else
        out = e;
    } else {
      row.clear();
      for (index_t k = b; k < e; ++k) row.emplace_back(col_idx[k], values[k]);
      // stable: duplicates are summed in their stored order
      std::stable_sort(row.begin(), row.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (std::size_t p = 0; p < row.size();) {
        const I cj = row[p].first;
        V sum = row[p].second;
        for (++p; p < row.size() && row[p].first == cj; ++p) sum += row[p].second;
        col_idx[out] = cj;
        values[out] = sum;
        ++out;
      }
    }
    b = e;
    row_ptr[i + 1] = static_cast<I>(out);
  }
  row_ptr[0] = 0;
  return out;
}

template <class V, class I>
index_t strips_for(const csr<V, I>& A, index_t l2_bytes) {
  if (l2_bytes <= 0) {
    long l2 = 0;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    l2_bytes = l2 > 0 ? index_t(l2) : index_t(1) << 20;
  }
  const index_t xb = A.cols * index_t(sizeof(V));
  if (A.rows == 0 || xb <= 2 * l2_bytes) return 1;
  // A band the L2 holds: each row gathers from a window of x the cache keeps already.
  if (A.lower >= 0 && A.upper >= 0 && (A.lower + A.upper + 1) * index_t(sizeof(V)) <= l2_bytes)
    return 1;
  index_t parts = std::min<index_t>(4, (xb + 2 * l2_bytes - 1) / (2 * l2_bytes));
  // Every strip passes over y and the row offsets once more: rows of fewer than about two
  // entries a strip would pay that for little (a guess, not measured).
  while (parts > 1 && A.nnz < 2 * parts * A.rows) --parts;
  return parts;
}

template <class V, class I>
void cut_strips(const csr<V, I>& A, index_t parts, csr_strips<V, I>& out) {
  parts = std::max<index_t>(parts, 1);
  csr_strips<V, I> s;
  s.width = strip_begin(A.cols, parts, 1); // (strip s: [s·width, (s+1)·width) within cols)
  s.source = A.values;
  const index_t w = std::max<index_t>(s.width, 1);
  const auto strip_of = [&](I c) { return std::min<index_t>(index_t(c) / w, parts - 1); };
  std::vector<index_t> count(std::size_t(parts), 0);
  const index_t base = A.row_ptr[0];
  for (index_t k = 0; k < A.nnz; ++k) ++count[std::size_t(strip_of(A.col_idx[base + k]))];
  s.row_ptr.resize(std::size_t(parts));
  s.col_idx.resize(std::size_t(parts));
  s.values.resize(std::size_t(parts));
  for (index_t p = 0; p < parts; ++p) {
    s.row_ptr[std::size_t(p)].assign(std::size_t(A.rows) + 1, I(0));
    s.col_idx[std::size_t(p)].resize(std::size_t(count[std::size_t(p)]));
    s.values[std::size_t(p)].resize(std::size_t(count[std::size_t(p)]));
  }
  std::fill(count.begin(), count.end(), 0);
  for (index_t i = 0; i < A.rows; ++i) {
    for (index_t k = A.row_ptr[i], e = A.row_ptr[i + 1]; k < e; ++k) {
      const auto p = std::size_t(strip_of(A.col_idx[k]));
      s.col_idx[p][std::size_t(count[p])] = A.col_idx[k];
      s.values[p][std::size_t(count[p])] = A.values[k];
      ++count[p];
    }
    for (index_t p = 0; p < parts; ++p)
      s.row_ptr[std::size_t(p)][std::size_t(i) + 1] = I(count[std::size_t(p)]);
  }
  s.parts.resize(std::size_t(parts));
  for (index_t p = 0; p < parts; ++p) {
    const auto q = std::size_t(p);
    // A strip's band is its parent's at most (a subset of its entries).
    s.parts[q] = {
        A.rows,  A.cols, count[q], s.row_ptr[q].data(), s.col_idx[q].data(), s.values[q].data(),
        A.lower, A.upper};
  }
  out = std::move(s);
}

#define LZ_SPARSE_BUILD(V, I)                                                                      \
  template index_t strips_for<V, I>(const csr<V, I>&, index_t);                                    \
  template void cut_strips<V, I>(const csr<V, I>&, index_t, csr_strips<V, I>&);                    \
  template void from_triplets<V, I>(index_t, index_t, index_t, const I*, const I*, const V*,       \
                                    std::vector<I>&, std::vector<I>&, std::vector<V>&);            \
  template index_t sort_rows<V, I>(index_t, I*, I*, V*);
#define LZ_SPARSE_BUILD_V(V)                                                                       \
  LZ_SPARSE_BUILD(V, std::int32_t)                                                                 \
  LZ_SPARSE_BUILD(V, std::int64_t)
LZ_SPARSE_BUILD_V(float)
LZ_SPARSE_BUILD_V(double)
LZ_SPARSE_BUILD_V(std::complex<float>)
LZ_SPARSE_BUILD_V(std::complex<double>)
#undef LZ_SPARSE_BUILD_V
#undef LZ_SPARSE_BUILD

template <class I>
void band_of(index_t rows, const I* row_ptr, const I* col_idx, index_t& lower, index_t& upper) {
  lower = 0, upper = 0;
  for (index_t i = 0; i < rows; ++i) {
    const index_t b = row_ptr[i], e = row_ptr[i + 1];
    if (b == e) continue;
    lower = std::max(lower, i - index_t(col_idx[b]));
    upper = std::max(upper, index_t(col_idx[e - 1]) - i);
  }
}

template void band_of<std::int32_t>(index_t, const std::int32_t*, const std::int32_t*, index_t&,
                                    index_t&);
template void band_of<std::int64_t>(index_t, const std::int64_t*, const std::int64_t*, index_t&,
                                    index_t&);
template const char* check_pattern<std::int32_t>(index_t, index_t, index_t, const std::int32_t*,
                                                 const std::int32_t*, bool, index_t&);
template const char* check_pattern<std::int64_t>(index_t, index_t, index_t, const std::int64_t*,
                                                 const std::int64_t*, bool, index_t&);

} // namespace lz::kernels::sparse
