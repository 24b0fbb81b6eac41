// TBB behind lz::kernels::cpu::parallel_for: the only translation unit that includes <tbb/...>.
#include <lz/kernels/cpu/parallel.hpp>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

// ThreadSanitizer builds (scripts/sanitize.sh tsan): Debian's libtbb.so is not instrumented, so
// the happens-before edges it creates (the caller's writes are visible to the worker that runs a
// chunk; every chunk's writes are visible to the caller once parallel_for returns) are invisible
// to TSan, which would report lazuli's own loop bodies as racing with the caller. The
// annotations state exactly those two edges, nothing more: a real race between two chunks
// (overlapping writes) is still reported.
#if defined(__SANITIZE_THREAD__)
#define LZ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LZ_TSAN 1
#endif
#endif
#if defined(LZ_TSAN)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define LZ_TSAN_ACQUIRE(p) __tsan_acquire(p)
#define LZ_TSAN_RELEASE(p) __tsan_release(p)
#else
#define LZ_TSAN_ACQUIRE(p) ((void)(p))
#define LZ_TSAN_RELEASE(p) ((void)(p))
#endif

namespace lz {
namespace {

std::mutex g_mutex;
std::unique_ptr<tbb::global_control> g_control;
std::atomic<int> g_threads{0}; // 0 = not yet initialised
std::string& origin_text() {   // guarded by g_mutex (function-local: usable in static init)
  static std::string s = "hardware";
  return s;
}

int hardware_threads() { return tbb::info::default_concurrency(); }

// First use reads LZ_NUM_THREADS; afterwards set_num_threads wins. The fast path is one
// relaxed load: evaluate.hpp asks on every large assignment.
int current_threads() {
  if (int n = g_threads.load(std::memory_order_acquire)) return n;
  std::lock_guard lock(g_mutex);
  if (g_threads.load() == 0) {
    int n = hardware_threads();
    if (const char* env = std::getenv("LZ_NUM_THREADS"); env && *env) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(env, &end, 10);
      if (*end || errno == ERANGE || v < 1 || v > max_threads) {
        origin_text() = std::string("hardware (LZ_NUM_THREADS=") + env +
                        " rejected: not an integer in [1, " + std::to_string(max_threads) + "])";
        std::fprintf(stderr,
                     "lazuli: LZ_NUM_THREADS=%s rejected (not an integer in [1, %d]); "
                     "%d threads\n",
                     env, max_threads, n);
      } else {
        n = static_cast<int>(v);
        origin_text() = "LZ_NUM_THREADS";
      }
    }
    if (n != hardware_threads())
      g_control = std::make_unique<tbb::global_control>(
          tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(n));
    g_threads.store(n, std::memory_order_release);
  }
  return g_threads.load();
}

} // namespace

int num_threads() noexcept { return current_threads(); }

void set_num_threads(int n) {
  if (n > max_threads)
    throw std::invalid_argument("lz::set_num_threads: " + std::to_string(n) +
                                " threads is outside [1, " + std::to_string(max_threads) +
                                "] (n <= 0 restores the default)");
  current_threads();
  std::lock_guard lock(g_mutex);
  origin_text() = n <= 0 ? "hardware" : "lz::set_num_threads";
  if (n <= 0) n = hardware_threads();
  g_threads.store(n);
  g_control.reset();
  g_control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<std::size_t>(n));
}

std::string detail::num_threads_origin() {
  current_threads();
  std::lock_guard lock(g_mutex);
  return origin_text();
}

namespace kernels::cpu {

void parallel_for(index_t n, index_t grain, range_fn fn, void* ctx) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (n <= grain || num_threads() == 1) {
    fn(ctx, 0, n);
    return;
  }
  // simple_partitioner with the given grain gives equal, predictable chunks; the grain is chosen
  // by the caller from the work per index.
  [[maybe_unused]] char fork = 0, join = 0; // TSan sync addresses (see the top of this file)
  LZ_TSAN_RELEASE(&fork);
  tbb::parallel_for(
      tbb::blocked_range<index_t>(0, n, static_cast<std::size_t>(grain)),
      [&](const tbb::blocked_range<index_t>& r) {
        LZ_TSAN_ACQUIRE(&fork);
        fn(ctx, r.begin(), r.end());
        LZ_TSAN_RELEASE(&join);
      },
      tbb::simple_partitioner());
  LZ_TSAN_ACQUIRE(&join);
}

} // namespace kernels::cpu
} // namespace lz
