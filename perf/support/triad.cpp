// STREAM-like triad a[i] = b[i] + s*c[i] over 1e7 doubles (the bandwidth yardstick), linked into
// every benchmark executable so that "% of triad" is computed against the same run.
#include "support/bench_support.hpp"

namespace {

// The triad kernel over [lo, hi): a plain loop the compiler vectorises (as STREAM's is).
void triad_range(double* a, const double* b, const double* c, double s, std::int64_t lo,
                 std::int64_t hi) {
  for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

void triad(benchmark::State& state, int threads) {
  const std::int64_t n = state.range(0);
  lz_perf::arrays<double> m(3, n);
  double *a = m[0], *b = m[1], *c = m[2];
  lz_perf::fill_uniform(b, n, 1);
  lz_perf::fill_uniform(c, n, 2);
  const double s = 3.0;
  lz_perf::use_threads(threads);
  for (auto _ : state) {
    if (threads == 1) {
      triad_range(a, b, c, s, 0, n);
    } else { // a few equal chunks of whole cache lines per thread
      lz::kernels::cpu::parallel_for(
          n, (n / (4 * threads) + 7) / 8 * 8,
          [&](lz::index_t lo, lz::index_t hi) { triad_range(a, b, c, s, lo, hi); });
    }
    benchmark::DoNotOptimize(a);
    benchmark::ClobberMemory();
  }
  lz_perf::set_bytes(state, n, 3, sizeof(double));
}

const int reg = [] {
  lz_perf::common(benchmark::RegisterBenchmark("triad/hand_1T", triad, 1))->Arg(10'000'000);
  lz_perf::common(benchmark::RegisterBenchmark("triad/hand_2T", triad, 2))->Arg(10'000'000);
  return 0;
}();

} // namespace
