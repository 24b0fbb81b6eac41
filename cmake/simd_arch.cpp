// Configure-time probe (kernels/CMakeLists.txt): prints xsimd's number for the SIMD target this
// compiler and these flags select, i.e. the one lazuli_kernels is compiled for.
#include <xsimd/xsimd.hpp>

#include <cstdio>

int main() {
  std::printf("%u", xsimd::default_arch::version());
  return 0;
}
