// Loop-dimension planning, one implementation for every backend's loops (compiled once:
// kernels/common/dims.cpp): the CPU driver (kernels/cpu/loop.cpp) and the device loops
// (kernels/thrust/plan.cpp) both call it, then pick their own access paths.
#pragma once

#include <lz/config.hpp>

namespace lz::kernels {

/// Rewrites a loop over `rank` dims with extents `ext` (each >= 1) and `count` operands, whose
/// stride arrays (in elements) are strides[0..count): drops extent-1 dims; unless `keep_order`,
/// orders the rest by |strides[0]| (the guide operand: largest outside, stable, so ties keep the
/// logical order) and, when `flip` is not null, makes the guide's reversed dims run forward (every
/// operand's stride changes sign; flip[j] += the element offset operand j's base must move by);
/// then coalesces adjacent dims that every operand steps over contiguously (outer stride = inner
/// stride × inner extent). Extents and strides come back left-aligned; returns how many dims are
/// left (0: one element).
int plan_dims(int rank, index_t* ext, int count, index_t* const* strides, bool keep_order,
              index_t* flip);

} // namespace lz::kernels
