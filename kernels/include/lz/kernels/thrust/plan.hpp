// Device loop planning (compiled once: kernels/thrust/plan.cpp). Decides, before anything runs,
// how a device loop walks memory: drops extent-1 dims, orders dims by the guide operand's strides
// (the destination; the first leaf for reductions), coalesces dims that are contiguous for every
// operand, and picks the access path of tree.hpp (flat / linear / rows / general). Operands'
// stride arrays are rewritten in place, right-aligned in the tree's R slots.
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/thrust/tree.hpp>

#include <string>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {

enum class path : int {
  flat = 0,   ///< every operand contiguous, same order: p[i]
  linear = 1, ///< one dim: p[i * s]
  rows = 2,   ///< two dims: one fast divmod per element
  general = 3 ///< three or more dims: a fast divmod per dim
};

struct loop_plan {
  path p = path::flat;
  int rank = 0;               ///< coalesced dims (0 for an empty or rank-0 loop)
  int slots = 0;              ///< R, the tree's rank
  index_t size = 0;           ///< elements
  index_t ext[max_rank] = {}; ///< coalesced extents, right-aligned in `slots` (leading: 1)
};

/// Plans a loop over `R` dims with extents `ext`, rewriting the `count` stride arrays (each R
/// long) in place. strides[0] guides the dim order unless `keep_order` (arg-reductions count
/// logical indices, so they only coalesce).
loop_plan plan_loop(int R, const index_t* ext, int count, index_t* const* strides, bool keep_order);

/// "rows (1000,2000)", "flat 1000000", ... for explain and LZ_LOG=device.
std::string describe(const loop_plan& d);

/// The divmod table of a planned loop (host side, built once per launch).
template <std::size_t R>
loop_index<R> make_index(const loop_plan& d) {
  loop_index<R> ix;
  for (std::size_t k = 0; k < R; ++k) {
    ix.ext[k] = d.ext[k] > 0 ? d.ext[k] : 1;
    ix.div[k] = fast_divmod::make(ix.ext[k], d.size);
  }
  return ix;
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev
