// The device solve suite compiled by nvcc for the GPU (cuSOLVER). Without a usable GPU the program
// exits 77 (CTest: skipped); LZ_REQUIRE_GPU=1 makes that a failure.
#define BOOST_TEST_MODULE device_gpu_solve
#define BOOST_TEST_NO_MAIN
#include "solve.inl"

int main(int argc, char** argv) { return lz_dtest::gpu_main(argc, argv, &init_unit_test); }
