// Out-of-tree consumer (tests/packaging): one fused loop, one reduction, one threaded random
// fill, checked against plain loops, so headers, xsimd, lazuli_kernels and TBB all link.
#include <lz/lz.hpp>

#include <cmath>
#include <cstdio>

int main() {
  const lz::index_t n = 1000;
  lz::vector<double> x = lz::random<double>({n}, 42);
  lz::vector<double> y = 2.0 * x + lz::sin(x); // one fused SIMD loop
  const double s = lz::sum(y);                 // one reduction pass
  double expect = 0.0, worst = 0.0;
  for (lz::index_t i = 0; i < n; ++i) {
    const double v = 2.0 * x(i) + std::sin(x(i));
    worst = std::fmax(worst, std::fabs(y(i) - v));
    expect += v;
  }
  const bool ok = worst <= 1e-12 && std::fabs(s - expect) <= 1e-9 * std::fabs(expect);
  std::printf("lazuli %d.%d.%d consumer: sum = %.6f (%s)\n", LZ_VERSION_MAJOR, LZ_VERSION_MINOR,
              LZ_VERSION_PATCH, s, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
