// Device backend configuration: which system runs "device" code in this build. Two builds, one
// source: lazuli::device_host (Thrust's TBB host system, every machine, every CI run) defines
// LZ_DEVICE_HOST_SYSTEM; lazuli::device_cuda (nvcc + CUDA runtime + cuBLAS) defines
// LZ_DEVICE_CUDA. The compiled runtime of each sits in its own inline namespace, so a program that
// links one build's objects against the other's library fails to link instead of mixing them.
#pragma once

#include <lz/config.hpp>

#if defined(LZ_DEVICE_CUDA) && defined(LZ_DEVICE_HOST_SYSTEM)
#error                                                                                             \
    "lz/device: LZ_DEVICE_CUDA and LZ_DEVICE_HOST_SYSTEM exclude each other: link exactly one of lazuli::device_cuda and lazuli::device_host"
#endif
#if !defined(LZ_DEVICE_CUDA) && !defined(LZ_DEVICE_HOST_SYSTEM)
#error                                                                                             \
    "lz/device: link lazuli::device (or lazuli::device_host / lazuli::device_cuda), which selects the device system"
#endif

#if defined(LZ_DEVICE_CUDA)
#define LZ_DEVICE_ABI cuda_v1
/// True when device code runs on an NVIDIA GPU (false: on Thrust's host system).
#define LZ_DEVICE_IS_GPU 1
#else
#define LZ_DEVICE_ABI host_v1
#define LZ_DEVICE_IS_GPU 0
#endif
