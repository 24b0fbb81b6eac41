// Aligned allocation + the counters behind lz::stats(). Compiled once into lazuli_kernels.
#include <lz/memory.hpp>

#include <atomic>
#include <cstdlib>
#include <new>

namespace lz {
namespace {
std::atomic<std::uint64_t> g_allocs{0}, g_frees{0}, g_bytes{0}, g_temps{0};
} // namespace

alloc_stats stats() noexcept {
  return {g_allocs.load(std::memory_order_relaxed), g_frees.load(std::memory_order_relaxed),
          g_bytes.load(std::memory_order_relaxed), g_temps.load(std::memory_order_relaxed)};
}

void reset_stats() noexcept {
  g_allocs = 0;
  g_frees = 0;
  g_bytes = 0;
  g_temps = 0;
}

namespace detail {
void* allocate_bytes(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  // aligned_alloc needs a size that is a multiple of the alignment.
  std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes) throw std::bad_alloc();
  void* p = std::aligned_alloc(alignment, rounded);
  if (!p) throw std::bad_alloc();
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void free_bytes(void* p) noexcept {
  if (!p) return;
  g_frees.fetch_add(1, std::memory_order_relaxed);
  std::free(p);
}

void free_all(void* const* p, int n) noexcept {
  for (int i = 0; i < n; ++i) free_bytes(p[i]);
}

void count_temporary() noexcept { g_temps.fetch_add(1, std::memory_order_relaxed); }
} // namespace detail
} // namespace lz
