// Transposed-read workload W9: Z = transpose(X) + Y on n x n doubles (n = 2000, plus 500 in
// cache): lazuli next to the obvious hand loop, Eigen (row-major, like lazuli), xtensor (noalias
// and plain) and Armadillo; lazuli also on 2 threads. Run through perf/report.py. Every variant
// computes on the same arrays (lz_perf::arrays), wrapped by each library.
#include "support/anchors.hpp"
#include "support/bench_support.hpp"

#include <lz/lz.hpp>

#include <string>

namespace {

using lz_perf::arrays;
using lz_perf::fill_uniform;
using std::int64_t;

void w9_lazuli(benchmark::State& st, int mode) { // 0: lz::simd, 1: default, 2: lz::par on 2T
  const int64_t n = st.range(0);
  arrays<double> a(3, n * n);
  fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  auto X = lz::adopt(a[0], {n, n}), Y = lz::adopt(a[1], {n, n}), Z = lz::adopt(a[2], {n, n});
  lz_perf::use_threads(mode == 2 ? 2 : 1);
  for (auto _ : st) {
    if (mode == 0)
      lz::assign(lz::simd, Z, lz::transpose(X) + Y);
    else if (mode == 1)
      Z = lz::transpose(X) + Y;
    else
      lz::assign(lz::par, Z, lz::transpose(X) + Y);
    benchmark::DoNotOptimize(Z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n * n, 3, sizeof(double));
}

// The tile-edge sweep that sets lz::thresholds().tile: lz::simd with the given tile edge.
void w9_tile(benchmark::State& st, lz::index_t tile) {
  const lz::index_t saved = lz::thresholds().tile;
  lz::thresholds().tile = tile;
  w9_lazuli(st, 0);
  lz::thresholds().tile = saved;
}

// The obvious loop, rows [lo, hi) of Z: Z is written and Y read along rows, X down columns.
void w9_hand_rows(double* z, const double* x, const double* y, int64_t n, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i)
    for (int64_t j = 0; j < n; ++j) z[i * n + j] = x[j * n + i] + y[i * n + j];
}

void w9_hand(benchmark::State& st, int threads) {
  const int64_t n = st.range(0);
  arrays<double> a(3, n * n);
  fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  lz_perf::use_threads(threads);
  for (auto _ : st) {
    if (threads == 1)
      w9_hand_rows(a[2], a[0], a[1], n, 0, n);
    else
      lz::kernels::cpu::parallel_for(n, 16, [&](lz::index_t lo, lz::index_t hi) {
        w9_hand_rows(a[2], a[0], a[1], n, lo, hi);
      });
    benchmark::DoNotOptimize(a[2]);
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n * n, 3, sizeof(double));
}

#if LZ_HAVE_EIGEN
void w9_eigen(benchmark::State& st) {
  using M = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                       Eigen::Aligned64>;
  const int64_t n = st.range(0);
  arrays<double> a(3, n * n);
  fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  M X(a[0], n, n), Y(a[1], n, n), Z(a[2], n, n);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    Z.noalias() = X.transpose() + Y;
    benchmark::DoNotOptimize(Z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n * n, 3, sizeof(double));
}
#endif

#if LZ_HAVE_XTENSOR
void w9_xtensor(benchmark::State& st, bool noalias) {
  const int64_t n = st.range(0);
  const std::array<std::size_t, 2> sh{std::size_t(n), std::size_t(n)};
  arrays<double> a(3, n * n);
  fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  auto X = xt::adapt(a[0], sh), Y = xt::adapt(a[1], sh), Z = xt::adapt(a[2], sh);
  // The plain form writes into an owning container (as users write it): its cost is the
  // temporary xtensor evaluates into before moving it in.
  xt::xtensor<double, 2> Zc = xt::zeros<double>(sh);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    if (noalias)
      xt::noalias(Z) = xt::transpose(X) + Y;
    else
      Zc = xt::transpose(X) + Y;
    benchmark::DoNotOptimize(Z.data());
    benchmark::DoNotOptimize(Zc.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n * n, 3, sizeof(double));
}
#endif

#if LZ_HAVE_ARMADILLO
void w9_armadillo(benchmark::State& st) {
  const int64_t n = st.range(0);
  arrays<double> a(3, n * n);
  fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  const arma::uword un = arma::uword(n);
  arma::mat X(a[0], un, un, false, true), Y(a[1], un, un, false, true),
      Z(a[2], un, un, false, true);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    Z = X.t() + Y;
    benchmark::DoNotOptimize(Z.memptr());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n * n, 3, sizeof(double));
}
#endif

// lazuli must produce exactly the hand loop's values (one add per element), on odd shapes too.
void correctness_context() {
  for (int64_t n : {2000, 37, 333}) {
    lz::matrix<double> X(n, n), Y(n, n), Z(n, n), Z2(n, n);
    fill_uniform(X.data(), n * n, 1), fill_uniform(Y.data(), n * n, 2);
    lz::assign(lz::simd, Z, lz::transpose(X) + Y);
    lz_perf::use_threads(2);
    lz::assign(lz::par, Z2, lz::transpose(X) + Y);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double ref = X(j, i) + Y(i, j);
        bad += (Z(i, j) != ref) + (Z2(i, j) != ref);
      }
    benchmark::AddCustomContext("W9 n=" + std::to_string(n) +
                                    " elements differing from the hand loop",
                                std::to_string(bad));
  }
}

} // namespace

int main(int argc, char** argv) {
  auto reg = [](const std::string& v, auto fn, auto arg) {
    lz_perf::common(benchmark::RegisterBenchmark(("W9/" + v).c_str(), fn, arg))
        ->Arg(500)
        ->Arg(2000);
  };
  reg("lazuli", w9_lazuli, 0);
  reg("lazuli_default", w9_lazuli, 1);
  reg("lazuli_par_2T", w9_lazuli, 2);
  reg("hand", w9_hand, 1);
  reg("hand_2T", w9_hand, 2);
#if LZ_HAVE_EIGEN
  reg(
      "eigen", [](benchmark::State& s, int) { w9_eigen(s); }, 0);
#endif
#if LZ_HAVE_XTENSOR
  reg("xtensor_noalias", w9_xtensor, true);
  reg("xtensor", w9_xtensor, false);
#endif
#if LZ_HAVE_ARMADILLO
  reg(
      "armadillo", [](benchmark::State& s, int) { w9_armadillo(s); }, 0);
#endif
  for (lz::index_t tile : {8, 16, 32, 48, 64})
    lz_perf::common(benchmark::RegisterBenchmark(("W9/lazuli_tile" + std::to_string(tile)).c_str(),
                                                 w9_tile, tile))
        ->Arg(2000);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  correctness_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
