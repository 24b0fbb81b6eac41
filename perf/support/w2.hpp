// W2 z = x*y + sin(w)*exp(-v): the data every variant computes on, and the xtensor variant,
// which lives in a translation unit of its own (support/w2_xtensor.cpp; see there why).
#pragma once

#include "support/bench_support.hpp"

#include <cstdint>

namespace lz_perf {

// Value ranges keep every term positive (x, y > 0, 0 < w < pi), so the ulp check measures the
// accuracy of sin/exp and not the cancellation of x*y against sin(w)*exp(-v).
inline void w2_fill(double* x, double* y, double* w, double* v, std::int64_t n) {
  fill_uniform(x, n, 11, 0.5, 2.0), fill_uniform(y, n, 12, 0.5, 2.0);
  fill_uniform(w, n, 13, 0.1, 3.0), fill_uniform(v, n, 14, -2.0, 2.0);
}

#if LZ_HAVE_XTENSOR
/// xt::noalias(z) = x * y + xt::sin(w) * xt::exp(-v) (noalias) or the plain form into a
/// temporary-owning xtensor.
void w2_xtensor(benchmark::State& st, bool noalias);
#endif

} // namespace lz_perf
