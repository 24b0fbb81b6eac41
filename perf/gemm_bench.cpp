// gemm benchmark: lazuli's own blocked gemm/gemv (kernels/blas/gemm_generic.cpp, gemv_generic.cpp)
// for int32, int64, float, double against OpenBLAS's sgemm/dgemm/dgemv in the same process.
// Square row-major n×n operands, C = A·B (beta = 0), y = A·x. Arguments: n, threads (lazuli's
// TBB threads and OpenBLAS's own pool are set to the same count).
//   build/perf/gemm_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Rates are operations per second, 2·n³ for gemm and 2·n² for gemv (GOP/s for integers).
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdint>
#include <random>
#include <type_traits>
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

void gemm_args(benchmark::internal::Benchmark* b) {
  for (int t : {1, 2})
    for (int n : {256, 512, 1024}) b->Args({n, t});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
void gemv_args(benchmark::internal::Benchmark* b) {
  for (int t : {1, 2})
    for (int n : {512, 2048}) b->Args({n, t});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

} // namespace

// Same n and threads next to each other, so the ratio is taken under the same machine load.
BENCHMARK(blas_gemm<double>)->Name("dgemm_cblas")->Apply(gemm_args);
BENCHMARK(own_gemm<std::int32_t>)->Name("gemm_own_i32")->Apply(gemm_args);
BENCHMARK(own_gemm<std::int64_t>)->Name("gemm_own_i64")->Apply(gemm_args);
BENCHMARK(own_gemm<double>)->Name("gemm_own_f64")->Apply(gemm_args);
BENCHMARK(blas_gemm<float>)->Name("sgemm_cblas")->Apply(gemm_args);
BENCHMARK(own_gemm<float>)->Name("gemm_own_f32")->Apply(gemm_args);
BENCHMARK(blas_dgemv)->Name("dgemv_cblas")->Apply(gemv_args);
BENCHMARK(own_gemv<double>)->Name("gemv_own_f64")->Apply(gemv_args);
BENCHMARK(own_gemv<std::int32_t>)->Name("gemv_own_i32")->Apply(gemv_args);
BENCHMARK(own_gemv<std::int64_t>)->Name("gemv_own_i64")->Apply(gemv_args);

BENCHMARK_MAIN();
