// Device BLAS interface on cuBLAS/cuBLASLt (host-compiled: no nvcc needed). Skips (77) without a
// usable GPU; LZ_REQUIRE_GPU=1 makes that a failure.
#define BOOST_TEST_MODULE device_cublas
#define BOOST_TEST_NO_MAIN
#include "blas.inl"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (!lz::device_available()) {
    try {
      lz::kernels::dev::require_device();
    } catch (const lz::device_error& e) {
      std::printf("no usable GPU (%s): %s\n", e.error_name().c_str(), e.what());
    }
    const char* req = std::getenv("LZ_REQUIRE_GPU");
    return req && std::string(req) == "1" ? 1 : 77;
  }
  std::printf("%s, %s\n", lz::device_info().c_str(), lz::kernels::dev::blas::info());
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
