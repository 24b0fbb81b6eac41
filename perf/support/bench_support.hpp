// Shared helpers of the perf/ benchmarks: aligned buffers for the hand loops, seeded fills,
// thread control and the ulp distance. Every benchmark takes its sizes from run-time arguments
// (state.range), never from constants the optimiser could fold.
#pragma once

#include <lz/kernels/cpu/parallel.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <random>

namespace lz_perf {

/// 64-byte aligned array for the hand-written loops (the same alignment lazuli uses).
template <class T>
struct buffer {
  struct deleter {
    void operator()(T* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<T[], deleter> p;
  std::int64_t n = 0;
  explicit buffer(std::int64_t count) : n(count) {
    const std::size_t bytes = (std::size_t(count) * sizeof(T) + 63) / 64 * 64;
    p.reset(static_cast<T*>(std::aligned_alloc(64, bytes ? bytes : 64)));
    if (!p) throw std::bad_alloc();
    std::memset(static_cast<void*>(p.get()), 0, std::size_t(count) * sizeof(T)); // first touch
  }
  T* data() noexcept { return p.get(); }
  const T* data() const noexcept { return p.get(); }
  T& operator[](std::int64_t i) noexcept { return p[i]; }
  const T& operator[](std::int64_t i) const noexcept { return p[i]; }
};

/// Fills p[0..n) with uniform values in [lo, hi) from a fixed seed (same data for every library).
template <class T>
void fill_uniform(T* p, std::int64_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(d(g));
}

/// Sets lazuli's (and TBB's) thread count for the benchmark that follows (outside its timing).
inline void use_threads(int n) {
  if (lz::num_threads() != n) lz::set_num_threads(n);
}

/// Distance in units in the last place between two finite doubles of any sign.
inline std::int64_t ulp_distance(double a, double b) {
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<std::int64_t>::max();
  auto ordered = [](double x) {
    std::int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t ia = ordered(a), ib = ordered(b);
  return ia > ib ? ia - ib : ib - ia;
}

/// Common settings: wall-clock time (threads), microseconds.
inline benchmark::internal::Benchmark* common(benchmark::internal::Benchmark* b) {
  return b->UseRealTime()->Unit(benchmark::kMicrosecond);
}

/// Bytes an elementwise pass moves nominally (each array once, no write-allocate), as STREAM
/// counts them: the "% of triad" figures compare these rates.
inline void set_bytes(benchmark::State& s, std::int64_t n, int arrays, std::size_t esize) {
  s.SetBytesProcessed(std::int64_t(s.iterations()) * n * arrays * std::int64_t(esize));
}

} // namespace lz_perf
