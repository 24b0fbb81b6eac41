// Helpers for product tests: operands in every layout BLAS can and cannot take, and an error
// bound derived from the operation (|computed - exact| <= gamma(k) * sum |a||b| elementwise).
#pragma once

#include <support/reference.hpp>

#include <deque>
#include <random>

namespace lz_test {

/// How a test matrix is laid out in memory.
enum class matrix_layout {
  row,        ///< row-major tensor
  col,        ///< column-major tensor (lz::layout_left)
  padded,     ///< row-major with padded leading dimension
  transposed, ///< transpose view of a row-major (n x m) tensor
  submatrix,  ///< interior slice of a larger row-major tensor (ld > cols)
  strided2    ///< every second column of a wider tensor: no unit stride (not a BLAS layout)
};
inline constexpr matrix_layout all_layouts[] = {matrix_layout::row,       matrix_layout::col,
                                                matrix_layout::padded,    matrix_layout::transposed,
                                                matrix_layout::submatrix, matrix_layout::strided2};
inline const char* name(matrix_layout k) {
  static const char* n[] = {"row", "col", "padded", "transposed", "submatrix", "strided2"};
  return n[int(k)];
}

/// Owns the storage behind the views it hands out.
template <class T>
struct matrix_factory {
  std::deque<lz::matrix<T>> store;
  std::uint64_t seed;
  explicit matrix_factory(std::uint64_t s) : seed(s) {}

  lz::tensor_view<T, 2> make(index_t m, index_t n, matrix_layout k) {
    auto fill = [&](lz::matrix<T>& t) {
      auto r = lz::random<T>(t.shape(), seed++, lz::uniform{-1.0, 1.0});
      if constexpr (std::is_integral_v<T>)
        r = lz::random<T>(t.shape(), seed++, lz::integers{-9, 10});
      lz::assign(t, r);
    };
    switch (k) {
    case matrix_layout::row:
      store.emplace_back(m, n);
      break;
    case matrix_layout::col:
      store.emplace_back(m, n, lz::layout_left);
      break;
    case matrix_layout::padded:
      store.emplace_back(m, n, lz::padded{});
      break;
    case matrix_layout::transposed: {
      store.emplace_back(n, m);
      fill(store.back());
      return lz::transpose(store.back());
    }
    case matrix_layout::submatrix: {
      store.emplace_back(m + 3, n + 5);
      fill(store.back());
      return store.back()(lz::range(1, m + 1), lz::range(2, n + 2));
    }
    case matrix_layout::strided2: {
      store.emplace_back(m, 2 * n + 1);
      fill(store.back());
      return store.back()(lz::all, lz::range(0, 2 * n, 2));
    }
    }
    fill(store.back());
    return store.back().view();
  }
};

/// max over elements of |got - want| / bound, where bound = gamma * scale (elementwise).
template <class G, class W, class S>
double worst_ratio(const G& got, const W& want, const S& scale, double gamma) {
  double worst = 0;
  detail::for_each_index(want, [&](const auto& i) {
    const double g = double(ref_at(got, i)), w = double(ref_at(want, i));
    const double b = gamma * double(ref_at(scale, i)) + 1e-300;
    worst = std::max(worst, std::fabs(g - w) / b);
  });
  return worst;
}

/// gamma(k) for a k-term dot product in type T, with slack for blocked summation orders.
template <class T>
double gamma_k(index_t k) {
  return 2.0 * double(k + 2) * double(std::numeric_limits<T>::epsilon());
}

} // namespace lz_test
