// W2 z = x*y + sin(w)*exp(-v): the data every variant computes on, the hand loop, and the
// xtensor variant, which lives in a translation unit of its own (support/w2_xtensor.cpp; see there
// why).
#pragma once

#include "support/bench_support.hpp"

#include <cmath>
#include <cstdint>

namespace lz_perf {

// Value ranges keep every term positive (x, y > 0, 0 < w < pi), so the ulp check measures the
// accuracy of sin/exp and not the cancellation of x*y against sin(w)*exp(-v).
inline void w2_fill(double* x, double* y, double* w, double* v, std::int64_t n) {
  fill_uniform(x, n, 11, 0.5, 2.0), fill_uniform(y, n, 12, 0.5, 2.0);
  fill_uniform(w, n, 13, 0.1, 3.0), fill_uniform(v, n, 14, -2.0, 2.0);
}

/// The hand loop: z = x*y + std::sin(w)*std::exp(-v) over a[0..3] into a[4] (lz_perf::arrays
/// order), on the calling thread or split by lazuli's parallel_for into ~4 chunks per thread.
inline void w2_hand(const arrays<double>& a, std::int64_t n, int threads) {
  double* z = a[4];
  const double *x = a[0], *y = a[1], *w = a[2], *v = a[3];
  auto range = [=](lz::index_t lo, lz::index_t hi) {
    for (lz::index_t i = lo; i < hi; ++i) z[i] = x[i] * y[i] + std::sin(w[i]) * std::exp(-v[i]);
  };
  if (threads == 1)
    range(0, n);
  else
    lz::kernels::cpu::parallel_for(n, (n / (4 * threads) + 15) / 16 * 16, range);
}

#if LZ_HAVE_XTENSOR
/// xt::noalias(z) = x * y + xt::sin(w) * xt::exp(-v) (noalias) or the plain form into a
/// temporary-owning xtensor.
void w2_xtensor(benchmark::State& st, bool noalias);
#endif

} // namespace lz_perf
