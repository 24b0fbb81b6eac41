// 07 — the device example compiled by nvcc for the GPU (the body is 07_device.cpp).
#include "07_device.cpp"
