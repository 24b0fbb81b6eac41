// Random sparse and dense operands for the sparse tests (tests/fusion/sparse_test.cpp,
// sparse_computed_test.cpp): fixed seeds, a few empty rows and duplicate triplets, and the
// tolerance and closeness test they compare with.
#pragma once

#include <lz/lz.hpp>
#include <lz/sparse.hpp>

#include <complex>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace lz_test::sparse {

using lz::index_t;

template <class T>
T random_value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (lz::detail::is_complex_v<T>)
    return T(typename T::value_type(u(g)), typename T::value_type(u(g)));
  else
    return T(u(g));
}

// A random m×n sparse matrix: each entry stored with probability `density` (some duplicates
// among the triplets, summed by from_triplets), a few empty rows.
template <class T, class I = std::int32_t>
lz::csr_matrix<T, I> random_sparse(index_t m, index_t n, double density, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<I> r, c;
  std::vector<T> v;
  for (index_t i = 0; i < m; ++i) {
    if (i % 7 == 3) continue; // an empty row
    for (index_t j = 0; j < n; ++j)
      if (u(g) < density) {
        r.push_back(I(i));
        c.push_back(I(j));
        v.push_back(random_value<T>(g));
        if (u(g) < 0.1) { // a duplicate: summed
          r.push_back(I(i));
          c.push_back(I(j));
          v.push_back(random_value<T>(g));
        }
      }
  }
  return lz::csr_matrix<T, I>::from_triplets(m, n, r, c, v);
}

// An m × n matrix (n ≥ 5) whose rows 0 and 5 hold n/2 and 4n/5 entries (longer than the sparse
// kernels' 2048-entry blocks when n = 5000: their sums carry over blocks), the rest random.
template <class T, class I = std::int32_t>
lz::csr_matrix<T, I> long_rows(index_t m, index_t n, double density, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<I> r, c;
  std::vector<T> v;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j)
      if ((i == 0 && j % 2 == 0) || (i == 5 && j % 5 != 0) || u(g) < density) {
        r.push_back(I(i)), c.push_back(I(j));
        v.push_back(random_value<T>(g));
      }
  return lz::csr_matrix<T, I>::from_triplets(m, n, r, c, v);
}

template <class T, std::size_t R>
lz::tensor<T, R> random_dense(const lz::shape_t<R>& s, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  lz::tensor<T, R> t(s, lz::uninitialized);
  for (index_t i = 0; i < t.size(); ++i) t.data()[i] = random_value<T>(g);
  return t;
}

template <class T>
double tol() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 2e-5 : 1e-13;
}

template <class A, class B>
bool close(const A& a, const B& b, double t) {
  return double(lz::max(lz::abs(lz::cast<lz::value_t<A>>(a) - b))) <= t;
}

// Calls check(M) with the dense m × n destinations the sparse tests write: a column-major tensor,
// then a strided view (every other row and column) of a larger row-major one.
template <class T, class F>
void for_each_destination(index_t m, index_t n, F&& check) {
  lz::tensor<T, 2> colmajor(m, n, lz::layout_left);
  check(colmajor);
  lz::tensor<T, 2> big(lz::shape_t<2>{2 * m + 1, 2 * n + 1});
  check(big(lz::range(0, 2 * m, 2), lz::range(1, 2 * n + 1, 2)));
}

} // namespace lz_test::sparse
