// Aligned allocation and allocation statistics. Every owning tensor and every plan temporary
// allocates through here, so `lz::stats()` can prove that a fused assignment allocated nothing.
// Definitions live in kernels/common/memory.cpp (compiled once).
#pragma once

#include <lz/config.hpp>

#include <cstdint>

namespace lz {

/// Allocation counters since the last `reset_stats()` (process-wide, thread-safe).
struct alloc_stats {
  std::uint64_t allocations = 0;     ///< buffers allocated (tensors and plan temporaries)
  std::uint64_t deallocations = 0;   ///< buffers freed
  std::uint64_t bytes_allocated = 0; ///< total bytes requested by those allocations
  std::uint64_t temporaries = 0;     ///< of the allocations, how many were plan temporaries
};

/// Counters since the last reset.
alloc_stats stats() noexcept;
/// Zero the counters.
void reset_stats() noexcept;

namespace detail {
/// 64-byte aligned allocation of `bytes` (0 gives nullptr); throws std::bad_alloc.
void* allocate_bytes(std::size_t bytes);
/// Frees what allocate_bytes returned (nullptr is fine).
void free_bytes(void* p) noexcept;
/// Frees p[0..n) (a plan's temporaries, in the order they were made).
void free_all(void* const* p, int n) noexcept;
/// Marks the last allocation as a plan temporary (for stats only).
void count_temporary() noexcept;
} // namespace detail

} // namespace lz
