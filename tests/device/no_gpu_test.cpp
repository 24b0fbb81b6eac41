// CUDA build on a machine WITHOUT a usable GPU (every CI runner): every device entry point must
// fail with lz::device_error naming the CUDA error, never crash or hang. Skips (77) where a GPU
// is present (the GPU suites cover that machine). Host-compiled against the CUDA runtime.
#define BOOST_TEST_MODULE device_no_gpu
#define BOOST_TEST_NO_MAIN
#include <boost/test/unit_test.hpp>

#include <lz/device/tensor.hpp>

#include <string>

namespace {
void expect_cuda_error(const lz::device_error& e) {
  BOOST_TEST(e.error_name().rfind("cudaError", 0) == 0, e.error_name());
  BOOST_TEST(e.code() != 0);
  BOOST_TEST(std::string(e.what()).find(e.error_name()) != std::string::npos, e.what());
}
} // namespace

BOOST_AUTO_TEST_CASE(without_a_gpu_device_calls_throw_device_error_with_the_cuda_name) {
  BOOST_TEST(!lz::device_available());
  try {
    lz::device_tensor<double, 1> x(lz::shape_t<1>{1000});
    BOOST_FAIL("allocated device memory without a GPU");
  } catch (const lz::device_error& e) {
    expect_cuda_error(e);
  }
  try {
    (void)lz::device_info();
    BOOST_FAIL("device_info without a GPU");
  } catch (const lz::device_error& e) {
    expect_cuda_error(e);
  }
  try {
    lz::device_stream s;
    BOOST_FAIL("created a stream without a GPU");
  } catch (const lz::device_error& e) {
    expect_cuda_error(e);
  }
  lz::device_tensor<double, 2> empty; // no storage: needs no device
  BOOST_TEST(empty.size() == 0);
}

int main(int argc, char** argv) {
  if (lz::device_available()) return 77; // this machine has a GPU: nothing to test here
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
