// 10 · the device example compiled by nvcc for the GPU (the body is 10_device.cpp).
#include "10_device.cpp"
