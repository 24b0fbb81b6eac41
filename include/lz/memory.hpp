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

/// Returns the freed large buffers lazuli keeps for reuse to the system. Buffers of 1 MiB or
/// more (up to 8 of them, 256 MiB in all) are kept when freed and reused by the next allocation
/// they fit, so that a repeated assignment with a large temporary (a solve's factor copy) does
/// not pay the kernel's zero-filling of fresh pages each time.
void release_cached_memory() noexcept;

namespace detail {
/// 64-byte aligned allocation of `bytes` (0 gives nullptr); throws std::bad_alloc.
void* allocate_bytes(std::size_t bytes);
/// allocate_bytes for a tensor's storage: also sets `serial` to the buffer's lifetime number
/// while lifetime tracking is on (else 0), which views of the tensor carry so that checked
/// builds can tell at evaluation whether the buffer still exists (lifetime_alive).
void* allocate_tensor_bytes(std::size_t bytes, std::uint64_t& serial);
/// Frees what allocate_bytes returned (nullptr is fine).
void free_bytes(void* p) noexcept;
/// Frees p[0..n) (a plan's temporaries, in the order they were made).
void free_all(void* const* p, int n) noexcept;
/// Marks the last allocation as a plan temporary (for stats only).
void count_temporary() noexcept;

/// Lifetime tracking (checked builds, docs/errors.md "Lifetimes"): from the first call on,
/// every tensor buffer gets a serial number that stays live until the buffer is freed. Each
/// translation unit compiled with LZ_CHECKED turns it on before its own static objects are made.
/// Unchecked programs never call it and pay one relaxed load per allocation.
void enable_lifetime_tracking() noexcept;
/// True once enable_lifetime_tracking() has run.
bool lifetime_tracking() noexcept;
/// True when the buffer numbered `serial` (non-zero) has not been freed.
bool lifetime_alive(std::uint64_t serial) noexcept;

#if LZ_CHECKED
// Turns tracking on before the static objects this file defines after its includes are made.
inline const bool lifetime_tracking_on = (enable_lifetime_tracking(), true);
#endif
} // namespace detail

} // namespace lz
