// W1 in cache, paired: z = 2.5*x + 1.5*y on n doubles, lazuli (`z = ...`, the default policy)
// and the hand loop alternating inside one process, blocks of calls at a time, many rounds.
// Each round gives a lazuli/hand ratio of two measurements taken a few milliseconds apart; the
// median of those ratios is the figure. On this shared 2-core machine the speed of a loop in
// cache moves between processes and between Google Benchmark's repetitions (the hand loop of
// elementwise_bench's W1 n=1e3 took 0.12 µs in some runs, 0.27 µs in others), so the ratio of two
// separately timed medians can land anywhere in between; pairing inside a round cancels that.
//
//   build/perf/w1_paired                 # n = 8 and 1000, 41 rounds
//   build/perf/w1_paired 1000 101        # n = 1000, 101 rounds
//   build/perf/w1_paired 1000 101 cpu    # the same in this thread's CPU time (a loaded machine)
#include <support/bench_support.hpp>

#include <lz/lz.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using lz_perf::median;

bool cpu_time = false; // time blocks in this thread's CPU time, not wall time

template <class F>
double ns_per_call(F&& f, long calls) {
  return cpu_time ? lz_perf::cpu_ns_per_call(f, calls) : lz_perf::ns_per_call(f, calls);
}

__attribute__((noinline)) void hand(double* z, const double* x, const double* y, long n) {
  for (long i = 0; i < n; ++i) z[i] = 2.5 * x[i] + 1.5 * y[i];
}

void run(long n, int rounds) {
  lz_perf::arrays<double> a(3, n);
  lz_perf::fill_uniform(a[0], n, 1), lz_perf::fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n}), z = lz::adopt(a[2], {n});
  const long calls = std::max(1000L, 20'000'000L / (n + 100)); // a few ms per block
  std::vector<double> th, tl, ratio;
  lz::set_num_threads(1);
  for (int r = 0; r < rounds; ++r) {
    const double h = ns_per_call([&] { hand(a[2], a[0], a[1], n); }, calls);
    const double l = ns_per_call([&] { z = 2.5 * x + 1.5 * y; }, calls);
    th.push_back(h), tl.push_back(l), ratio.push_back(l / h);
  }
  for (long i = 0; i < n; ++i) // the two loops computed the same values
    if (std::abs(z(i) - (2.5 * x(i) + 1.5 * y(i))) > 1e-12) {
      std::printf("W1 n=%ld: lazuli differs from the hand loop at %ld\n", n, i);
      std::exit(1);
    }
  std::printf("W1 n=%-6ld hand %8.1f ns  lazuli %8.1f ns  lazuli/hand %.3f  (median of %d "
              "paired rounds, %s time; ratio min %.3f max %.3f)\n",
              n, median(th), median(tl), median(ratio), rounds, cpu_time ? "thread CPU" : "wall",
              *std::min_element(ratio.begin(), ratio.end()),
              *std::max_element(ratio.begin(), ratio.end()));
}

} // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 41;
  cpu_time = argc > 3 && std::string(argv[3]) == "cpu";
  if (argc > 1) {
    run(std::atol(argv[1]), rounds);
  } else {
    run(8, rounds);
    run(1000, rounds);
  }
}
