// The transcendental batch bodies (lz/ops/functors.hpp: exp_b, sin_b, ...) compiled once for
// float and double batches of this library's SIMD target. User kernels of the same target call
// them instead of inlining xsimd's bodies where math_outlined says so (512-bit targets, or
// LZ_OUTLINE_MATH: lz/simd.hpp); that target is what CMake detected with the same flags
// (LZ_KERNELS_SIMD_ARCH), checked below.
#include <lz/simd.hpp>

#if defined(LZ_KERNELS_SIMD_ARCH)
static_assert(xsimd::default_arch::version() == unsigned(LZ_KERNELS_SIMD_ARCH),
              "lz: LZ_KERNELS_SIMD_ARCH differs from the target lazuli_kernels is compiled for");
#endif

namespace lz::fn::detail {

template <class F, class A>
A outlined(A a) {
  return F::run(a);
}
template <class F, class A>
A outlined(A a, A b) {
  return F::run(a, b);
}

#define LZ_OUTLINE_UNARY(NAME)                                                                     \
  template xsimd::batch<float> outlined<NAME##_b>(xsimd::batch<float>);                            \
  template xsimd::batch<double> outlined<NAME##_b>(xsimd::batch<double>);
LZ_OUTLINED_UNARY_MATH(LZ_OUTLINE_UNARY)
#undef LZ_OUTLINE_UNARY
template xsimd::batch<float> outlined<atan2_b>(xsimd::batch<float>, xsimd::batch<float>);
template xsimd::batch<double> outlined<atan2_b>(xsimd::batch<double>, xsimd::batch<double>);

} // namespace lz::fn::detail

// The trigonometric argument reduction, which files of this target declare extern (lz/simd.hpp).
#if defined(LZ_DETAIL_TRIG_REDUCER_IN_LIBRARY)
template struct xsimd::kernel::detail::trigo_reducer<xsimd::batch<float>,
                                                     xsimd::kernel::detail::trigo_radian_tag>;
template struct xsimd::kernel::detail::trigo_reducer<xsimd::batch<double>,
                                                     xsimd::kernel::detail::trigo_radian_tag>;
#endif
