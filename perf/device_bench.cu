// The device benchmark compiled by nvcc for the GPU (the body is device_bench.cpp).
#include "device_bench.cpp"
