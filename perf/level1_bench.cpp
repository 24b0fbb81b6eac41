// Level-1 workloads: the fused xsimd loop / reduction against BLAS 1, the measurement behind
// lz::thresholds().level1_blas and .dot_blas (include/lz/policy.hpp). One thread everywhere.
//   axpy  y = a*x + y   lazuli_fused (level1_blas off), lazuli_blas (level1_blas = 0: the
//                       axpy rule), lazuli (the defaults in policy.hpp), cblas (cblas_daxpy)
//   dot   lz::dot(x, y) lazuli_fused (dot_blas = 0), lazuli_blas (dot_blas = 1), lazuli
//                       (defaults), cblas (cblas_ddot)
// n = 1e2 .. 1e7 doubles. Run by `perf/report.py --products` (both OpenBLAS core types).
#include "support/bench_support.hpp"

#include <lz/lz.hpp>

#include <cblas.h>

#include <cstdlib>
#include <string>

namespace {

using lz_perf::arrays;
using lz_perf::fill_uniform;
using std::int64_t;

enum class mode { fused, blas, defaults, cblas };

// Thresholds for one variant, restored when the benchmark ends.
struct scoped_mode {
  lz::tuning saved = lz::thresholds();
  explicit scoped_mode(mode m) {
    if (m == mode::fused) {
      lz::thresholds().level1_blas = lz::index_t(1) << 62;
      lz::thresholds().dot_blas = 0;
    } else if (m == mode::blas) {
      lz::thresholds().level1_blas = 0;
      lz::thresholds().dot_blas = 1;
    }
  }
  ~scoped_mode() { lz::thresholds() = saved; }
};

void one_thread() {
  lz_perf::use_threads(1);
  openblas_set_num_threads(1);
}

void axpy(benchmark::State& st, mode m) {
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n});
  one_thread();
  scoped_mode sm(m);
  const double alpha = 1e-9; // y stays bounded over many iterations
  for (auto _ : st) {
    if (m == mode::cblas)
      cblas_daxpy(int(n), alpha, a[0], 1, a[1], 1);
    else
      y = alpha * x + y;
    benchmark::DoNotOptimize(a[1]);
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(st, n, 3, sizeof(double)); // reads x, y; writes y
}

void dot(benchmark::State& st, mode m) {
  const int64_t n = st.range(0);
  arrays<double> a(2, n);
  fill_uniform(a[0], n, 1), fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n});
  one_thread();
  scoped_mode sm(m);
  double r = 0;
  for (auto _ : st) {
    if (m == mode::cblas)
      r = cblas_ddot(int(n), a[0], 1, a[1], 1);
    else
      r = double(lz::dot(x, y));
    benchmark::DoNotOptimize(r);
  }
  lz_perf::set_bytes(st, n, 2, sizeof(double));
}

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  one_thread();
  benchmark::AddCustomContext("openblas core", openblas_get_corename());
  const char* ct = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", ct ? ct : "(unset)");
  benchmark::AddCustomContext("level1_blas default", std::to_string(lz::tuning{}.level1_blas));
  benchmark::AddCustomContext("dot_blas default", std::to_string(lz::tuning{}.dot_blas));
  const std::pair<const char*, mode> modes[] = {{"lazuli_fused", mode::fused},
                                                {"lazuli_blas", mode::blas},
                                                {"lazuli", mode::defaults},
                                                {"cblas", mode::cblas}};
  using fn_t = void (*)(benchmark::State&, mode);
  const std::pair<const char*, fn_t> fams[] = {{"axpy", axpy}, {"dot", dot}};
  for (const auto& [fam, fn] : fams)
    for (const auto& [name, m] : modes) {
      auto* b = lz_perf::common(
          benchmark::RegisterBenchmark((std::string(fam) + "/" + name).c_str(), fn, m));
      for (int64_t n = 100; n <= 10'000'000; n *= 10) {
        b->Arg(n);
        if (n < 10'000'000) b->Arg(3 * n);
      }
    }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
