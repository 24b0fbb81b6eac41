// lazuli's device backend, umbrella header: device tensors and views, the lz::device policy and
// streams, evaluation (Thrust), transfers and explain. In a CUDA build this header is for nvcc
// (.cu) files; g++ files use <lz/device/tensor.hpp>. Link lazuli::device.
#pragma once

#include <lz/device/batch.hpp>
#include <lz/device/copy.hpp>
#include <lz/device/explain.hpp>
#include <lz/device/kernel_view.hpp>
#include <lz/device/plan.hpp>
#include <lz/device/policy.hpp>
#include <lz/device/sparse.hpp>
#include <lz/device/tensor.hpp>
