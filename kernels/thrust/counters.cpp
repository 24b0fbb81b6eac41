// Counters behind lz::device_stats(), shared by both device runtimes (runtime_host.cpp and
// cuda/runtime.cpp) and the launch code: allocations, pool use, transfers, launches; and the
// device BLAS call recorder and epilogue switch shared by blas_host.cpp and cuda/blas.cpp.
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/runtime.hpp>

#include <atomic>
#include <mutex>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {
namespace {
std::atomic<std::uint64_t> c_allocs{0}, c_bytes{0}, c_pool_req{0}, c_pool_sys{0}, c_h2d{0},
    c_d2h{0}, c_d2d{0}, c_h2d_b{0}, c_d2h_b{0}, c_d2d_b{0}, c_launch{0};
void bump(std::atomic<std::uint64_t>& a, std::uint64_t v = 1) noexcept {
  a.fetch_add(v, std::memory_order_relaxed);
}
} // namespace

void count_launch() noexcept { bump(c_launch); }
void count_allocation(std::size_t bytes) noexcept {
  bump(c_allocs);
  bump(c_bytes, bytes);
}
void count_pool_request(bool system_allocation) noexcept {
  bump(c_pool_req);
  if (system_allocation) bump(c_pool_sys);
}
void count_copy(copy_kind kind, std::size_t bytes) noexcept {
  switch (kind) {
  case copy_kind::host_to_device:
    bump(c_h2d), bump(c_h2d_b, bytes);
    break;
  case copy_kind::device_to_host:
    bump(c_d2h), bump(c_d2h_b, bytes);
    break;
  default:
    bump(c_d2d), bump(c_d2d_b, bytes);
  }
}

counters get_counters() noexcept {
  auto l = [](const std::atomic<std::uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  counters c;
  c.allocations = l(c_allocs);
  c.bytes_allocated = l(c_bytes);
  c.pool_requests = l(c_pool_req);
  c.pool_system_allocs = l(c_pool_sys);
  c.h2d = l(c_h2d);
  c.d2h = l(c_d2h);
  c.d2d = l(c_d2d);
  c.h2d_bytes = l(c_h2d_b);
  c.d2h_bytes = l(c_d2h_b);
  c.d2d_bytes = l(c_d2d_b);
  c.launches = l(c_launch);
  return c;
}
void reset_counters() noexcept {
  for (auto* a : {&c_allocs, &c_bytes, &c_pool_req, &c_pool_sys, &c_h2d, &c_d2h, &c_d2d, &c_h2d_b,
                  &c_d2h_b, &c_d2d_b, &c_launch})
    a->store(0, std::memory_order_relaxed);
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev

namespace lz::kernels::dev::blas {
inline namespace LZ_DEVICE_ABI {
namespace {
std::atomic<epilogue_policy> g_epilogue{epilogue_policy::automatic};
std::atomic<bool> g_recording{false};
std::mutex g_calls_mutex;
std::vector<call>& calls() {
  static auto* v = new std::vector<call>; // outlives static destructors
  return *v;
}
} // namespace

void set_epilogue(epilogue_policy p) noexcept { g_epilogue.store(p, std::memory_order_relaxed); }
epilogue_policy epilogue() noexcept { return g_epilogue.load(std::memory_order_relaxed); }
bool epilogue_used(std::size_t element_bytes) noexcept {
  switch (epilogue()) {
  case epilogue_policy::always:
    return true;
  case epilogue_policy::never:
    return false;
  case epilogue_policy::automatic:
    break;
  }
  return element_bytes < 8; // the same rule on the host system, so both builds plan alike
}

void record_calls(bool on) {
  std::lock_guard lock(g_calls_mutex);
  if (on) calls().clear();
  g_recording.store(on, std::memory_order_relaxed);
}
std::vector<call> recorded_calls() {
  std::lock_guard lock(g_calls_mutex);
  return calls();
}
void record(const call& c) {
  if (!g_recording.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(g_calls_mutex);
  calls().push_back(c);
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::blas
