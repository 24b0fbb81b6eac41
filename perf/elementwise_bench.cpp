// Elementwise workloads, lazuli next to a hand loop, Eigen, xtensor (noalias and plain) and
// Armadillo: W1 z = 2.5*x + 1.5*y (double, n = 1e3 / 1e5 / 1e7), W11 the same in float (1e7),
// W2 z = x*y + sin(w)*exp(-v) (n = 1e5 / 1e7), each also on 2 threads. Run through
// perf/report.py (interleaved repetitions, medians); the ulp checks go into the JSON context.
// Every variant computes on the same arrays (lz_perf::arrays), wrapped by each library.
#include "support/anchors.hpp"
#include "support/bench_support.hpp"
#include "support/w2.hpp"

#include <lz/lz.hpp>

#include <algorithm>
#include <string>

namespace {

using lz_perf::arrays;
using lz_perf::fill_uniform;
using lz_perf::w2_fill;
using std::int64_t;

// How a lazuli variant is run: lz::simd (1 thread), the default `z = e` (automatic policy, one
// thread allowed), lz::par on 2 threads.
enum class lz_run { simd, default_1t, par_2t };

template <class D, class E>
void lz_run_mode(lz_run m, D& dst, const E& e) {
  switch (m) {
  case lz_run::simd:
    lz::assign(lz::simd, dst, e);
    break;
  case lz_run::default_1t:
    dst = e;
    break;
  case lz_run::par_2t:
    lz::assign(lz::par, dst, e);
    break;
  }
}

int threads_of(lz_run m) { return m == lz_run::par_2t ? 2 : 1; }

// ---------------------------------------------------------------- W1 / W11: z = 2.5*x + 1.5*y

template <class T>
void w1_lazuli(benchmark::State& st, lz_run m) {
  const int64_t n = st.range(0);
  arrays<T> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n}), z = lz::adopt(a[2], {n});
  lz_perf::use_threads(threads_of(m));
  for (auto _ : st) {
    lz_run_mode(m, z, T(2.5) * x + T(1.5) * y);
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(T));
}

template <class T>
void w1_hand_range(T* z, const T* x, const T* y, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) z[i] = T(2.5) * x[i] + T(1.5) * y[i];
}

template <class T>
void w1_hand(benchmark::State& st, int threads) {
  const int64_t n = st.range(0);
  arrays<T> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  const T *x = a[0], *y = a[1];
  T* z = a[2];
  lz_perf::use_threads(threads);
  for (auto _ : st) {
    if (threads == 1)
      w1_hand_range(z, x, y, 0, n);
    else
      lz::kernels::cpu::parallel_for(
          n, (n / (4 * threads) + 15) / 16 * 16,
          [&](lz::index_t lo, lz::index_t hi) { w1_hand_range(z, x, y, lo, hi); });
    benchmark::DoNotOptimize(z);
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(T));
}

#if LZ_HAVE_EIGEN
template <class T>
void w1_eigen(benchmark::State& st) {
  using V = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Aligned64>;
  const int64_t n = st.range(0);
  arrays<T> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  V x(a[0], n), y(a[1], n), z(a[2], n);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    z = T(2.5) * x + T(1.5) * y;
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(T));
}
#endif

#if LZ_HAVE_XTENSOR
template <class T>
void w1_xtensor(benchmark::State& st, bool noalias) {
  const int64_t n = st.range(0);
  const std::array<std::size_t, 1> sh{std::size_t(n)};
  arrays<T> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = xt::adapt(a[0], sh), y = xt::adapt(a[1], sh), z = xt::adapt(a[2], sh);
  // The plain form writes into an owning container (as users write it): its cost is the
  // temporary xtensor evaluates into before moving it in.
  xt::xtensor<T, 1> zc = xt::zeros<T>(sh);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    if (noalias)
      xt::noalias(z) = T(2.5) * x + T(1.5) * y;
    else
      zc = T(2.5) * x + T(1.5) * y;
    benchmark::DoNotOptimize(z.data());
    benchmark::DoNotOptimize(zc.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(T));
}
#endif

#if LZ_HAVE_ARMADILLO
template <class T>
void w1_armadillo(benchmark::State& st) {
  using V = arma::Col<T>;
  const int64_t n = st.range(0);
  arrays<T> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  const arma::uword un = arma::uword(n);
  V x(a[0], un, false, true), y(a[1], un, false, true), z(a[2], un, false, true);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    z = T(2.5) * x + T(1.5) * y;
    benchmark::DoNotOptimize(z.memptr());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(T));
}
#endif

// W1stream: the streaming-store crossover that sets lz::thresholds().stream_bytes. The same
// assignment with streaming forced on (threshold 1 byte) and off (0), over sizes around the
// cache capacity.
void w1_stream(benchmark::State& st, bool stream) {
  const int64_t n = st.range(0);
  arrays<double> a(3, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n}), z = lz::adopt(a[2], {n});
  lz_perf::use_threads(1);
  const lz::index_t saved = lz::thresholds().stream_bytes;
  lz::thresholds().stream_bytes = stream ? 1 : 0;
  for (auto _ : st) {
    lz::assign(lz::simd, z, 2.5 * x + 1.5 * y);
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  lz::thresholds().stream_bytes = saved;
  lz_perf::set_bytes(st, n, 3, sizeof(double));
}

// ------------------------------------------------------- W2: z = x*y + sin(w)*exp(-v), double

void w2_lazuli(benchmark::State& st, lz_run m) {
  const int64_t n = st.range(0);
  arrays<double> a(5, n);
  w2_fill(a[0], a[1], a[2], a[3], n);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n}), w = lz::adopt(a[2], {n}),
       v = lz::adopt(a[3], {n}), z = lz::adopt(a[4], {n});
  lz_perf::use_threads(threads_of(m));
  for (auto _ : st) {
    lz_run_mode(m, z, x * y + lz::sin(w) * lz::exp(-v));
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 5, sizeof(double));
}

void w2_hand(benchmark::State& st, int threads) {
  const int64_t n = st.range(0);
  arrays<double> a(5, n);
  w2_fill(a[0], a[1], a[2], a[3], n);
  lz_perf::use_threads(threads);
  for (auto _ : st) {
    lz_perf::w2_hand(a, n, threads);
    benchmark::DoNotOptimize(a[4]);
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 5, sizeof(double));
}

#if LZ_HAVE_EIGEN
void w2_eigen(benchmark::State& st) {
  using V = Eigen::Map<Eigen::ArrayXd, Eigen::Aligned64>;
  const int64_t n = st.range(0);
  arrays<double> a(5, n);
  w2_fill(a[0], a[1], a[2], a[3], n);
  V x(a[0], n), y(a[1], n), w(a[2], n), v(a[3], n), z(a[4], n);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    z = x * y + w.sin() * (-v).exp();
    benchmark::DoNotOptimize(z.data());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 5, sizeof(double));
}
#endif

#if LZ_HAVE_ARMADILLO
void w2_armadillo(benchmark::State& st) {
  const int64_t n = st.range(0);
  arrays<double> a(5, n);
  w2_fill(a[0], a[1], a[2], a[3], n);
  const arma::uword un = arma::uword(n);
  arma::vec x(a[0], un, false, true), y(a[1], un, false, true), w(a[2], un, false, true),
      v(a[3], un, false, true), z(a[4], un, false, true);
  lz_perf::use_threads(1);
  for (auto _ : st) {
    z = x % y + arma::sin(w) % arma::exp(-v);
    benchmark::DoNotOptimize(z.memptr());
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 5, sizeof(double));
}
#endif

// ------------------------------------------------------------------------------ registration

template <class T>
void register_w1(const std::string& fam, std::initializer_list<int64_t> sizes) {
  auto reg = [&](const std::string& v, auto fn, auto arg) {
    auto* b = lz_perf::common(benchmark::RegisterBenchmark((fam + "/" + v).c_str(), fn, arg));
    for (int64_t n : sizes) b->Arg(n);
  };
  reg("lazuli", w1_lazuli<T>, lz_run::simd);
  reg("lazuli_default", w1_lazuli<T>, lz_run::default_1t);
  reg("lazuli_par_2T", w1_lazuli<T>, lz_run::par_2t);
  reg("hand", w1_hand<T>, 1);
  reg("hand_2T", w1_hand<T>, 2);
#if LZ_HAVE_EIGEN
  reg(
      "eigen", [](benchmark::State& s, int) { w1_eigen<T>(s); }, 0);
#endif
#if LZ_HAVE_XTENSOR
  reg("xtensor_noalias", w1_xtensor<T>, true);
  reg("xtensor", w1_xtensor<T>, false);
#endif
#if LZ_HAVE_ARMADILLO
  reg(
      "armadillo", [](benchmark::State& s, int) { w1_armadillo<T>(s); }, 0);
#endif
}

void register_w2(std::initializer_list<int64_t> sizes) {
  auto reg = [&](const std::string& v, auto fn, auto arg) {
    auto* b = lz_perf::common(benchmark::RegisterBenchmark(("W2/" + v).c_str(), fn, arg));
    for (int64_t n : sizes) b->Arg(n);
  };
  reg("lazuli", w2_lazuli, lz_run::simd);
  reg("lazuli_default", w2_lazuli, lz_run::default_1t);
  reg("lazuli_par_2T", w2_lazuli, lz_run::par_2t);
  reg("hand", w2_hand, 1);
  reg("hand_2T", w2_hand, 2);
#if LZ_HAVE_EIGEN
  reg(
      "eigen", [](benchmark::State& s, int) { w2_eigen(s); }, 0);
#endif
#if LZ_HAVE_XTENSOR
  reg("xtensor_noalias", lz_perf::w2_xtensor, true);
  reg("xtensor", lz_perf::w2_xtensor, false);
#endif
#if LZ_HAVE_ARMADILLO
  reg(
      "armadillo", [](benchmark::State& s, int) { w2_armadillo(s); }, 0);
#endif
}

// ------------------------------------------------------------------------------ accuracy

// Max ulp of lazuli's W2 (1 and 2 threads) and of its sin / exp against std::sin / std::exp,
// over the benchmark's data (n = 1e6) and over wider argument ranges.
void accuracy_context() {
  const int64_t n = 1'000'000;
  lz::vector<double> x(n), y(n), w(n), v(n), z(n), z2(n);
  w2_fill(x.data(), y.data(), w.data(), v.data(), n);
  lz::assign(lz::simd, z, x * y + lz::sin(w) * lz::exp(-v));
  lz_perf::use_threads(2);
  lz::assign(lz::par, z2, x * y + lz::sin(w) * lz::exp(-v));
  int64_t u1 = 0, u2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double ref = x(i) * y(i) + std::sin(w(i)) * std::exp(-v(i));
    u1 = std::max(u1, lz_perf::ulp_distance(z(i), ref));
    u2 = std::max(u2, lz_perf::ulp_distance(z2(i), ref));
  }
  benchmark::AddCustomContext("W2 max ulp vs libm (lazuli simd)", std::to_string(u1));
  benchmark::AddCustomContext("W2 max ulp vs libm (lazuli par 2T)", std::to_string(u2));

  lz::vector<double> a(n), r(n);
  fill_uniform(a.data(), n, 21, -100.0, 100.0);
  lz::assign(lz::simd, r, lz::sin(a));
  int64_t us = 0, ue = 0;
  for (int64_t i = 0; i < n; ++i) us = std::max(us, lz_perf::ulp_distance(r(i), std::sin(a(i))));
  fill_uniform(a.data(), n, 22, -700.0, 700.0);
  lz::assign(lz::simd, r, lz::exp(a));
  for (int64_t i = 0; i < n; ++i) ue = std::max(ue, lz_perf::ulp_distance(r(i), std::exp(a(i))));
  benchmark::AddCustomContext("max ulp lz::sin vs std::sin on [-100,100]", std::to_string(us));
  benchmark::AddCustomContext("max ulp lz::exp vs std::exp on [-700,700]", std::to_string(ue));

  // W1 is exact arithmetic of the same operations: lazuli must agree with the hand loop.
  lz::assign(lz::simd, z, 2.5 * x + 1.5 * y);
  int64_t u0 = 0;
  for (int64_t i = 0; i < n; ++i)
    u0 = std::max(u0, lz_perf::ulp_distance(z(i), 2.5 * x(i) + 1.5 * y(i)));
  benchmark::AddCustomContext("W1 max ulp vs the scalar expression", std::to_string(u0));
}

} // namespace

int main(int argc, char** argv) {
  register_w1<double>("W1", {1'000, 100'000, 10'000'000});
  register_w1<float>("W11", {10'000'000});
  register_w2({100'000, 10'000'000});
  for (bool stream : {true, false}) {
    auto* b = lz_perf::common(benchmark::RegisterBenchmark(
        stream ? "W1stream/lazuli_stream" : "W1stream/lazuli_cached", w1_stream, stream));
    for (int64_t n = int64_t(1) << 16; n <= int64_t(1) << 24; n *= 2) b->Arg(n);
  }
  // W1par / W2par: the 1-thread vs 2-thread crossover behind lz::thresholds().parallel_work.
  for (auto m : {lz_run::simd, lz_run::par_2t}) {
    const char* v = m == lz_run::simd ? "lazuli" : "lazuli_par_2T";
    lz_perf::common(
        benchmark::RegisterBenchmark((std::string("W1par/") + v).c_str(), w1_lazuli<double>, m))
        ->Arg(10'000)
        ->Arg(30'000)
        ->Arg(100'000)
        ->Arg(300'000);
    lz_perf::common(benchmark::RegisterBenchmark((std::string("W2par/") + v).c_str(), w2_lazuli, m))
        ->Arg(1'000)
        ->Arg(3'000)
        ->Arg(10'000)
        ->Arg(30'000);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  accuracy_context();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
