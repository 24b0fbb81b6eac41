// W13: g = transpose(X) * r for a tall row-major X (m = 100,000 rows, n = 100 columns: the
// gradient of a logistic regression), issue 30. lazuli on all its threads (the own gemv kernel
// splitting each long sum over threads), the cblas_dgemv(RowMajor, Trans) call lazuli made
// before (OpenBLAS on all its threads), and Eigen's X.transpose() * r on a column-major copy of X
// (one thread: Eigen has no threads without OpenMP; its columns are the contiguous dots), timed
// in turns in one process, wall time, medians over rounds of each round's ratios.
//
//   build/perf/w13_tall_gemv                  # m = 100000, n = 100, 41 rounds
//   build/perf/w13_tall_gemv 1000000 50 21    # m, n, rounds
#include <support/anchors.hpp>
#include <support/bench_support.hpp>

#include <lz/kernels/blas/blas.hpp>
#include <lz/lz.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

using lz::index_t;
using lz_perf::median;

double wall_ms(const std::function<void()>& f, int calls) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         calls;
}

} // namespace

int main(int argc, char** argv) {
  const index_t m = argc > 1 ? std::atol(argv[1]) : 100000;
  const index_t n = argc > 2 ? std::atol(argv[2]) : 100;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 41;
  const lz::matrix<double> X = lz::random<double>({m, n}, 1, lz::uniform{-1, 1});
  const lz::vector<double> r = lz::random<double>({m}, 2, lz::uniform{-1, 1});
  lz::vector<double> g(n), gb(n);
  std::printf("W13 g = transpose(X) * r, X %td x %td row-major; lazuli %d threads; %s\n", m, n,
              lz::num_threads(), lz::kernels::blas::info().c_str());
  std::printf("%s", lz::explain(g, lz::transpose(X) * r).c_str());
  auto lazuli = [&] { g = lz::transpose(X) * r; };
  auto blas = [&] {
    lz::kernels::blas::gemv(lz::kernels::blas::order::row_major,
                            lz::kernels::blas::trans::transpose, m, n, 1.0, X.data(), n, r.data(),
                            1, 0.0, gb.data(), 1);
  };
  std::vector<std::function<void()>> v = {lazuli, blas};
#if LZ_HAVE_EIGEN
  Eigen::MatrixXd Xe(m, n);
  Eigen::VectorXd re(m), ge(n);
  for (index_t i = 0; i < m; ++i) {
    re(i) = r(i);
    for (index_t j = 0; j < n; ++j) Xe(i, j) = X(i, j);
  }
  v.push_back([&] { ge.noalias() = Xe.transpose() * re; });
#endif
  const int calls = std::max(1, int(2e8 / double(m * n)));
  for (auto& f : v) f(); // warm up
  std::vector<std::vector<double>> t(v.size()), ratio(v.size());
  for (int k = 0; k < rounds; ++k) {
    std::vector<double> tk(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::size_t w = (i + std::size_t(k)) % v.size();
      tk[w] = wall_ms(v[w], calls);
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      t[i].push_back(tk[i]);
      ratio[i].push_back(tk[0] / tk[i]);
    }
  }
  double err = 0, scale = 0;
  for (index_t j = 0; j < n; ++j) {
    err = std::max(err, std::abs(g(j) - gb(j)));
    scale = std::max(scale, std::abs(gb(j)));
  }
  const char* names[] = {"lazuli transpose(X) * r", "cblas_dgemv(RowMajor, Trans)",
                         "Eigen X.transpose() * r, col-major X"};
  for (std::size_t i = 0; i < v.size(); ++i)
    std::printf("  %-38s %8.3f ms   lazuli / this %.3f\n", names[i], median(t[i]),
                median(ratio[i]));
  std::printf("  max |lazuli - dgemv| = %.1e (|g| up to %.1e)\n", err, scale);
}
