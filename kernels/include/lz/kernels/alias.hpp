// Overlap analysis between a destination and the operands a step reads (compiled once in
// kernels/common/alias.cpp). Exact for the cases that matter: identical views (same position:
// harmless for elementwise steps), disjoint byte ranges, and interleaved lattices that can
// never meet (gcd test: x(range(0,n,2)) = x(range(1,n,2)) needs no temporary).
#pragma once

#include <lz/expr/traverse.hpp>

namespace lz::kernels {

enum class overlap {
  none,          ///< no element of the source lies in the destination
  same_position, ///< the source is the destination, element for element
  elsewhere      ///< the source (may) read destination memory at other positions
};

/// How `src` overlaps `dst` over a loop of `rank` dims with `extents` (strides in elements).
overlap classify_overlap(const detail::operand& dst, const detail::operand& src, int rank,
                         const index_t* extents) noexcept;

/// True when any of `srcs` reads the destination at another position (an elementwise step
/// then needs a temporary).
bool reads_destination_elsewhere(const detail::operand& dst, const detail::operand* srcs, int count,
                                 int rank, const index_t* extents) noexcept;

/// True when `src` touches the destination's memory at all (a product step then needs a
/// temporary: it reads every input element many times while writing).
bool touches(const detail::operand& dst, const detail::operand& src, int rank,
             const index_t* extents) noexcept;

} // namespace lz::kernels
