// Shared helpers of the perf/ benchmarks: the arrays every variant computes on, seeded fills,
// thread control and the ulp distance. Every benchmark takes its sizes from run-time arguments
// (state.range), never from constants the optimiser could fold.
#pragma once

#include <lz/kernels/cpu/parallel.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <vector>

namespace lz_perf {

/// The arrays of one benchmark, in one page-aligned block: array k starts on a page boundary
/// plus (k mod 5) * 768 bytes. Every variant (lazuli through lz::adopt, Eigen::Map, xt::adapt,
/// Armadillo's auxiliary memory, the hand loops) computes on arrays placed this way, so
/// placement effects (4 KiB aliasing between loads and stores, alignment) are the same for all
/// and the comparison is between the libraries' loops, not between their allocators' luck.
template <class T>
class arrays {
  struct deleter {
    void operator()(unsigned char* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<unsigned char[], deleter> block_;
  std::vector<T*> ptr_;

 public:
  arrays(int count, std::int64_t n) {
    const std::size_t bytes = std::size_t(n) * sizeof(T);
    const std::size_t stride = (bytes + 4096 + 4095) / 4096 * 4096; // room for the offset
    const std::size_t total = stride * std::size_t(count);
    block_.reset(static_cast<unsigned char*>(std::aligned_alloc(4096, total)));
    if (!block_) throw std::bad_alloc();
    std::memset(block_.get(), 0, total); // first touch, outside the timing
    for (int k = 0; k < count; ++k)
      ptr_.push_back(
          reinterpret_cast<T*>(block_.get() + std::size_t(k) * stride + std::size_t(k % 5) * 768));
  }
  T* operator[](int k) const noexcept { return ptr_[std::size_t(k)]; }
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

/// Paired tools (w1_paired, w2_paired): nanoseconds per call of f over `calls` calls in a row.
template <class F>
double ns_per_call(F&& f, long calls) {
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) {
    f();
    benchmark::ClobberMemory();
  }
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(calls);
}

/// The same in this thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)): single-thread
/// work judged without the time other tenants of a shared machine take from it.
template <class F>
double cpu_ns_per_call(F&& f, long calls) {
  const auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
  };
  const double t0 = now();
  for (long i = 0; i < calls; ++i) {
    f();
    benchmark::ClobberMemory();
  }
  return (now() - t0) / double(calls);
}

/// The median (upper middle) of v.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace lz_perf
