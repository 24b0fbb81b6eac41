// Aligned allocation + the counters behind lz::stats(). Compiled once into lazuli_kernels.
#include <lz/memory.hpp>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <unordered_set>

namespace lz {
namespace {
std::atomic<std::uint64_t> g_allocs{0}, g_frees{0}, g_bytes{0}, g_temps{0};

// Live tensor buffers while lifetime tracking is on: buffer -> serial, and the live serials.
// Serials count up from 1 and are never reused, so a buffer freed and another allocated at the
// same address still reads as dead through a view of the first. Leaked on purpose (a static
// tensor may be freed after this translation unit's statics are destroyed).
struct lifetime_registry {
  std::mutex m;
  std::uint64_t next = 1;
  std::unordered_map<const void*, std::uint64_t> serial_of;
  std::unordered_set<std::uint64_t> live;
};
std::atomic<bool> g_tracking{false};

// Large blocks kept for reuse. A fresh multi-megabyte block comes from mmap, and the kernel
// zero-fills each of its pages on first touch: ~1 ms per 8 MiB, 5-9% of an n = 1024 solve whose
// factor copy is a new 8 MiB temporary per assignment. Freed blocks of at least `min_block`
// bytes are kept (up to `max_blocks`, `max_bytes` in all) and handed to the next request they
// fit within a factor of two. lz::release_cached_memory() returns them to the system.
struct block_cache {
  static constexpr std::size_t min_block = std::size_t(1) << 20;
  static constexpr std::size_t max_bytes = std::size_t(256) << 20;
  static constexpr int max_blocks = 8;
  std::mutex m;
  void* p[max_blocks] = {};
  std::size_t n[max_blocks] = {};
  int count = 0;
  std::size_t bytes = 0;

  void* take(std::size_t want) {
    std::lock_guard lock(m);
    int best = -1;
    for (int i = 0; i < count; ++i)
      if (n[i] >= want && n[i] / 2 < want && (best < 0 || n[i] < n[best])) best = i;
    if (best < 0) return nullptr;
    void* q = p[best];
    bytes -= n[best];
    p[best] = p[count - 1], n[best] = n[count - 1];
    --count;
    return q;
  }
  bool keep(void* q, std::size_t size) {
    std::lock_guard lock(m);
    if (count == max_blocks || bytes + size > max_bytes) return false;
    p[count] = q, n[count] = size;
    ++count;
    bytes += size;
    return true;
  }
  void release() {
    std::lock_guard lock(m);
    for (int i = 0; i < count; ++i) std::free(p[i]);
    count = 0;
    bytes = 0;
  }
};
// Leaked on purpose, like the registry: tensors may be freed after this file's statics die.
block_cache& cache() {
  static block_cache* c = new block_cache;
  return *c;
}
lifetime_registry& registry() {
  static lifetime_registry* r = new lifetime_registry;
  return *r;
}
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
  void* p = rounded >= block_cache::min_block ? cache().take(rounded) : nullptr;
  if (!p) p = std::aligned_alloc(alignment, rounded);
  if (!p) throw std::bad_alloc();
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  g_bytes.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void* allocate_tensor_bytes(std::size_t bytes, std::uint64_t& serial) {
  void* p = allocate_bytes(bytes);
  serial = 0;
  if (p && g_tracking.load(std::memory_order_relaxed)) {
    auto& r = registry();
    std::lock_guard lock(r.m);
    try {
      r.serial_of.emplace(p, r.next);
      r.live.insert(r.next);
    } catch (...) { // out of memory for the bookkeeping: the buffer goes unchecked
      r.serial_of.erase(p);
      return p;
    }
    serial = r.next++;
  }
  return p;
}

void enable_lifetime_tracking() noexcept {
  registry(); // made before any buffer needs it
  g_tracking.store(true, std::memory_order_relaxed);
}

bool lifetime_tracking() noexcept { return g_tracking.load(std::memory_order_relaxed); }

bool lifetime_alive(std::uint64_t serial) noexcept {
  auto& r = registry();
  std::lock_guard lock(r.m);
  return r.live.count(serial) != 0;
}

void free_bytes(void* p) noexcept {
  if (!p) return;
  if (g_tracking.load(std::memory_order_relaxed)) {
    auto& r = registry();
    std::lock_guard lock(r.m);
    if (auto it = r.serial_of.find(p); it != r.serial_of.end()) {
      r.live.erase(it->second);
      r.serial_of.erase(it);
    }
  }
  g_frees.fetch_add(1, std::memory_order_relaxed);
  const std::size_t size = malloc_usable_size(p);
  if (size >= block_cache::min_block && size <= block_cache::max_bytes && cache().keep(p, size))
    return;
  std::free(p);
}

void free_all(void* const* p, int n) noexcept {
  for (int i = 0; i < n; ++i) free_bytes(p[i]);
}

void count_temporary() noexcept { g_temps.fetch_add(1, std::memory_order_relaxed); }
} // namespace detail

void release_cached_memory() noexcept { cache().release(); }
} // namespace lz
