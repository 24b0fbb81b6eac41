// W3 s = sum((x - y)^2): the vectorised hand loop, shared by reduce_bench and w3_paired.
#pragma once

#include <cstdint>

namespace lz_perf {

/// The `omp simd` loop over [lo, hi): the compiler may keep several partial sums (build with
/// -fopenmp-simd; without it the loop is one serial add chain).
inline double w3_simd(const double* x, const double* y, std::int64_t lo, std::int64_t hi) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (std::int64_t i = lo; i < hi; ++i) {
    const double d = x[i] - y[i];
    s += d * d;
  }
  return s;
}

} // namespace lz_perf
