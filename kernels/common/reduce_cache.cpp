// The full-reduction cache's functions (include/lz/ops/reductions.hpp), compiled once: every
// reduction node in every file shares this code instead of instantiating its own lock and
// reference count (docs/decisions/full-reductions-computed-once.md).
#include <lz/ops/reductions.hpp>

namespace lz::detail {

reduce_cache* cache_in(std::atomic<reduce_cache*>& slot) {
  reduce_cache* c = slot.load(std::memory_order_acquire);
  if (c) return c;
  auto* fresh = new reduce_cache;
  if (slot.compare_exchange_strong(c, fresh, std::memory_order_acq_rel, std::memory_order_acquire))
    return fresh;
  delete fresh; // another thread made it first: c is theirs
  return c;
}

reduce_cache* share_cache(std::atomic<reduce_cache*>& slot) {
  reduce_cache* c = cache_in(slot);
  c->refs.fetch_add(1, std::memory_order_relaxed);
  return c;
}

void release_cache(reduce_cache* c) noexcept {
  if (c && c->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete c;
}

void cached_value(reduce_cache* c, void* out, std::size_t size,
                  void (*compute)(const void* ctx, void* out), const void* ctx) {
  if (!c->done.load(std::memory_order_acquire)) {
    std::lock_guard lock(c->m);
    if (!c->done.load(std::memory_order_relaxed)) {
      compute(ctx, c->value);
      c->done.store(true, std::memory_order_release);
    }
  }
  std::memcpy(out, c->value, size);
}

} // namespace lz::detail
