// Reduction workload W3: s = sum((x - y)^2), n = 1e5 / 1e7: lazuli next to the obvious hand loop,
// an `omp simd` hand loop, Eigen's squaredNorm, xtensor's sum and Armadillo's accu; lazuli also on
// 2 threads. Run through perf/report.py (interleaved repetitions, medians). Every variant
// computes on the same arrays (lz_perf::arrays), wrapped by each library.
#include "support/anchors.hpp"
#include "support/bench_support.hpp"
#include "support/w3.hpp"

#include <lz/lz.hpp>

#include <string>

namespace {

using lz_perf::arrays;
using lz_perf::fill_uniform;
using lz_perf::w3_simd;
using std::int64_t;

void w3_lazuli(benchmark::State& st, int mode) { // 0: lz::simd, 1: default, 2: lz::par on 2T
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n});
  lz_perf::use_threads(mode == 2 ? 2 : 1);
  for (auto _ : st) {
    double s;
    if (mode == 0)
      s = lz::eval(lz::simd, lz::sum(lz::square(x - y)));
    else if (mode == 1)
      s = lz::sum(lz::square(x - y));
    else
      s = lz::eval(lz::par, lz::sum(lz::square(x - y)));
    benchmark::DoNotOptimize(s);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}

// The obvious loop: one serial add chain (the compiler may not reassociate it).
double w3_plain(const double* x, const double* y, int64_t lo, int64_t hi) {
  double s = 0;
  for (int64_t i = lo; i < hi; ++i) {
    const double d = x[i] - y[i];
    s += d * d;
  }
  return s;
}

void w3_hand(benchmark::State& st, bool simd) {
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    double s = simd ? w3_simd(a[0], a[1], 0, n) : w3_plain(a[0], a[1], 0, n);
    benchmark::DoNotOptimize(s);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}

#if LZ_HAVE_EIGEN
void w3_eigen(benchmark::State& st) {
  using V = Eigen::Map<const Eigen::VectorXd, Eigen::Aligned64>;
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  V x(a[0], n), y(a[1], n);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    double s = (x - y).squaredNorm();
    benchmark::DoNotOptimize(s);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}
#endif

#if LZ_HAVE_XTENSOR
void w3_xtensor(benchmark::State& st) {
  const int64_t n = st.range(0);
  const std::array<std::size_t, 1> sh{std::size_t(n)};
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = xt::adapt(a[0], sh), y = xt::adapt(a[1], sh);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    double s = xt::sum(xt::square(x - y))();
    benchmark::DoNotOptimize(s);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}
#endif

#if LZ_HAVE_ARMADILLO
void w3_armadillo(benchmark::State& st) {
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  const arma::vec x(a[0], arma::uword(n), false, true), y(a[1], arma::uword(n), false, true);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    double s = arma::accu(arma::square(x - y));
    benchmark::DoNotOptimize(s);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}
#endif

// Relative error of each variant's sum against a long double reference (JSON context).
void accuracy_context() {
  const int64_t n = 10'000'000;
  lz::vector<double> x(n), y(n);
  fill_uniform(x.data(), n, 1), fill_uniform(y.data(), n, 2);
  long double ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    const long double d = (long double)x(i) - (long double)y(i);
    ref += d * d;
  }
  auto rel = [&](double s) { return std::to_string(double((s - ref) / ref)); };
  lz_perf::use_threads(2);
  benchmark::AddCustomContext("W3 rel. error lazuli simd",
                              rel(lz::eval(lz::simd, lz::sum(lz::square(x - y)))));
  benchmark::AddCustomContext("W3 rel. error lazuli par 2T",
                              rel(lz::eval(lz::par, lz::sum(lz::square(x - y)))));
  benchmark::AddCustomContext("W3 rel. error plain loop", rel(w3_plain(x.data(), y.data(), 0, n)));
  benchmark::AddCustomContext("W3 rel. error omp simd loop",
                              rel(w3_simd(x.data(), y.data(), 0, n)));
}

} // namespace

int main(int argc, char** argv) {
  auto reg = [](const std::string& v, auto fn, auto arg) {
    lz_perf::common(benchmark::RegisterBenchmark(("W3/" + v).c_str(), fn, arg))
        ->Arg(100'000)
        ->Arg(10'000'000);
  };
  reg("lazuli", w3_lazuli, 0);
  reg("lazuli_default", w3_lazuli, 1);
  reg("lazuli_par_2T", w3_lazuli, 2);
  reg("hand", w3_hand, false);
  reg("hand_omp_simd", w3_hand, true);
#if LZ_HAVE_EIGEN
  reg(
      "eigen", [](benchmark::State& s, int) { w3_eigen(s); }, 0);
#endif
#if LZ_HAVE_XTENSOR
  reg(
      "xtensor", [](benchmark::State& s, int) { w3_xtensor(s); }, 0);
#endif
#if LZ_HAVE_ARMADILLO
  reg(
      "armadillo", [](benchmark::State& s, int) { w3_armadillo(s); }, 0);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  accuracy_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
