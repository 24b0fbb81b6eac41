// Compile-fail checks (CTest builds one target per case and expects the build to FAIL with the
// quoted message): lazuli never moves data between host and device behind the user's back.
#include <lz/device.hpp>

int main() {
  lz::vector<double> h(4);
  lz::device_tensor<double, 1> d(lz::shape_t<1>{4});
#if defined(LZ_FAIL_MIXED_EXPRESSION) // "mixes host and device operands"
  auto e = h + d;
  (void)e;
#elif defined(LZ_FAIL_HOST_EVAL_OF_DEVICE) // "reads device memory"
  lz::vector<double> r = d * 2.0;
  (void)r;
#elif defined(LZ_FAIL_DEVICE_EVAL_OF_HOST) // "reads host memory"
  lz::assign(lz::device, d, h * 2.0);
#elif defined(LZ_FAIL_IMPLICIT_SCALAR)     // "returns its value explicitly"
  double s = lz::sum(d);
  (void)s;
#elif defined(LZ_FAIL_ELEMENT_ACCESS)      // "no host element access"
  d(1);
#endif
  return 0;
}
