// The device suites compiled by nvcc for the GPU (one TU: nvcc TUs are slow to build). Without a
// usable GPU the program exits 77 (CTest: skipped); LZ_REQUIRE_GPU=1 makes that a failure.
#define BOOST_TEST_MODULE device_gpu
#define BOOST_TEST_NO_MAIN
#include "elementwise.inl"
#include "memory.inl"
#include "reduce.inl"
#include "views.inl"

int main(int argc, char** argv) { return lz_dtest::gpu_main(argc, argv, &init_unit_test); }
