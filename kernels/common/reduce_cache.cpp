// The full-reduction cache's functions (include/lz/ops/reductions.hpp), compiled once: every
// reduction node in every file shares this code instead of instantiating its own lock and
// reference count (docs/decisions/full-reductions-computed-once.md).
#include <lz/ops/reductions.hpp>

namespace lz::detail {

// reduce_expr::cache is a plain pointer member: an atomic_ref to it needs no more alignment.
static_assert(std::atomic_ref<reduce_cache*>::required_alignment == alignof(reduce_cache*));

reduce_cache* cache_in(reduce_cache*& p) {
  std::atomic_ref<reduce_cache*> slot(p);
  reduce_cache* c = slot.load(std::memory_order_acquire);
  if (c) return c;
  auto* fresh = new reduce_cache;
  if (slot.compare_exchange_strong(c, fresh, std::memory_order_acq_rel, std::memory_order_acquire))
    return fresh;
  delete fresh; // another thread made it first: c is theirs
  return c;
}

reduce_cache* share_cache(reduce_cache*& slot) {
  reduce_cache* c = cache_in(slot);
  c->refs.fetch_add(1, std::memory_order_relaxed);
  return c;
}

void release_cache(reduce_cache* c) noexcept {
  if (c && c->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete c;
}

bool cache_done(reduce_cache*& p) noexcept {
  const reduce_cache* c = std::atomic_ref(p).load(std::memory_order_acquire);
  return c && c->done.load(std::memory_order_acquire);
}

bool cache_read(const reduce_cache* c, void* out, std::size_t size) noexcept {
  if (!c->done.load(std::memory_order_acquire)) return false;
  std::memcpy(out, c->value, size);
  return true;
}

void cache_publish(reduce_cache* c, void* v, std::size_t size) {
  std::lock_guard lock(c->m);
  if (!c->done.load(std::memory_order_relaxed)) {
    std::memcpy(c->value, v, size);
    c->done.store(true, std::memory_order_release);
  } else {
    std::memcpy(v, c->value, size);
  }
}

void cached_value(reduce_cache* c, void* out, std::size_t size,
                  void (*compute)(const void* ctx, void* out), const void* ctx) {
  if (cache_read(c, out, size)) return;
  std::lock_guard lock(c->m);
  if (!c->done.load(std::memory_order_relaxed)) {
    compute(ctx, c->value);
    c->done.store(true, std::memory_order_release);
  }
  std::memcpy(out, c->value, size);
}

} // namespace lz::detail
