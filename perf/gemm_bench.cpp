// gemm benchmark: lazuli's own blocked gemm/gemv (kernels/blas/gemm_generic.cpp, gemv_generic.cpp)
// for int32, int64, float, double against OpenBLAS's sgemm/dgemm/dgemv in the same process.
// Square row-major n×n operands, C = A·B (beta = 0), y = A·x. Arguments: n, threads (lazuli's
// TBB threads and OpenBLAS's own pool are set to the same count).
//   build/perf/gemm_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                         --benchmark_enable_random_interleaving=true
// (run once with OPENBLAS_CORETYPE=Haswell and once without: OpenBLAS picks other kernels).
// Rates are operations per second, 2·n³ for gemm and 2·n² for gemv (GOP/s for integers).
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using lz::index_t;

template <class T>
std::vector<T> random_data(std::size_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>)
      x = static_cast<T>(g() % 201) - 100;
    else
      x = std::uniform_real_distribution<T>(-1, 1)(g);
  }
  return v;
}

void set_threads(benchmark::State& st) {
  const int t = static_cast<int>(st.range(1));
  lz::set_num_threads(t);
  openblas_set_num_threads(t);
}

void set_rate(benchmark::State& st, double ops_per_iteration) {
  st.counters["OP/s"] =
      benchmark::Counter(ops_per_iteration, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void own_gemm(benchmark::State& st) {
  set_threads(st);
  const index_t n = st.range(0);
  auto A = random_data<T>(std::size_t(n * n), 1), B = random_data<T>(std::size_t(n * n), 2);
  std::vector<T> C(std::size_t(n * n));
  for (auto _ : st) {
    lz::kernels::blas::gemm_generic<T>(n, n, n, T(1), A.data(), n, 1, B.data(), n, 1, T(0),
                                       C.data(), n, 1);
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  set_rate(st, 2.0 * double(n) * double(n) * double(n));
}

template <class T>
void blas_gemm(benchmark::State& st) {
  set_threads(st);
  const int n = static_cast<int>(st.range(0));
  auto A = random_data<T>(std::size_t(n) * n, 1), B = random_data<T>(std::size_t(n) * n, 2);
  std::vector<T> C(std::size_t(n) * n);
  for (auto _ : st) {
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(),
                  n, 0.0f, C.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n,
                  0.0, C.data(), n);
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  set_rate(st, 2.0 * double(n) * double(n) * double(n));
}

template <class T>
void own_gemv(benchmark::State& st) {
  set_threads(st);
  const index_t n = st.range(0);
  auto A = random_data<T>(std::size_t(n * n), 1), x = random_data<T>(std::size_t(n), 2);
  std::vector<T> y(static_cast<std::size_t>(n));
  for (auto _ : st) {
    lz::kernels::blas::gemv_generic<T>(n, n, T(1), A.data(), n, 1, x.data(), 1, T(0), y.data(), 1);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_rate(st, 2.0 * double(n) * double(n));
}

void blas_dgemv(benchmark::State& st) {
  set_threads(st);
  const int n = static_cast<int>(st.range(0));
  auto A = random_data<double>(std::size_t(n) * n, 1), x = random_data<double>(std::size_t(n), 2);
  std::vector<double> y(static_cast<std::size_t>(n));
  for (auto _ : st) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, A.data(), n, x.data(), 1, 0.0, y.data(), 1);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  set_rate(st, 2.0 * double(n) * double(n));
}

} // namespace

// Registered so that every variant of one (n, threads) runs next to the others, under the same
// machine load; --benchmark_enable_random_interleaving=true interleaves their repetitions too.
int main(int argc, char** argv) {
  using fn = void (*)(benchmark::State&);
  const std::pair<const char*, fn> gemms[] = {
      {"dgemm_cblas", blas_gemm<double>},       {"gemm_own_i32", own_gemm<std::int32_t>},
      {"gemm_own_i64", own_gemm<std::int64_t>}, {"gemm_own_f64", own_gemm<double>},
      {"sgemm_cblas", blas_gemm<float>},        {"gemm_own_f32", own_gemm<float>}};
  const std::pair<const char*, fn> gemvs[] = {{"dgemv_cblas", blas_dgemv},
                                              {"gemv_own_f64", own_gemv<double>},
                                              {"gemv_own_i32", own_gemv<std::int32_t>},
                                              {"gemv_own_i64", own_gemv<std::int64_t>}};
  for (int t : {1, 2})
    for (int n : {256, 512, 1024})
      for (const auto& [name, f] : gemms)
        benchmark::RegisterBenchmark(name, f)
            ->Args({n, t})
            ->ArgNames({"n", "threads"})
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
  for (int t : {1, 2})
    for (int n : {512, 2048})
      for (const auto& [name, f] : gemvs)
        benchmark::RegisterBenchmark(name, f)
            ->Args({n, t})
            ->ArgNames({"n", "threads"})
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
