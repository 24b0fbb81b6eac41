// The one door to threads: a type-erased parallel_for compiled once (kernels/cpu/parallel.cpp)
// over Intel TBB. User code never sees <tbb/...>; it passes a function pointer and a context.
#pragma once

#include <lz/config.hpp>

#include <string>
#include <type_traits>

namespace lz {

/// The most threads lazuli accepts (LZ_NUM_THREADS, set_num_threads).
inline constexpr int max_threads = 4096;
/// Threads lazuli uses for `lz::par` (initially LZ_NUM_THREADS, else the hardware concurrency).
/// An LZ_NUM_THREADS that is not an integer in [1, max_threads] is rejected with one line on
/// stderr (the hardware concurrency stays in force); lz::info() says so.
int num_threads() noexcept;
/// Caps the threads lazuli (and every TBB algorithm in the process) uses; n <= 0 restores the
/// default; n > max_threads throws std::invalid_argument.
void set_num_threads(int n);
namespace detail {
/// Where num_threads() came from: "hardware", "LZ_NUM_THREADS", "lz::set_num_threads", or the
/// rejected LZ_NUM_THREADS and why.
std::string num_threads_origin();
} // namespace detail

namespace kernels::cpu {

/// Body of a parallel loop: processes indices [begin, end).
using range_fn = void (*)(void* ctx, index_t begin, index_t end);

/// Runs fn over [0, n) split into chunks of at least `grain` indices, on the TBB pool; runs
/// inline when one chunk covers everything or only one thread is allowed.
void parallel_for(index_t n, index_t grain, range_fn fn, void* ctx);

/// Convenience wrapper for lambdas: `parallel_for(n, grain, [&](index_t b, index_t e) {...})`.
template <class F>
void parallel_for(index_t n, index_t grain, F&& f) {
  using Fn = std::remove_reference_t<F>;
  parallel_for(
      n, grain, [](void* c, index_t b, index_t e) { (*static_cast<Fn*>(c))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

} // namespace kernels::cpu
} // namespace lz
