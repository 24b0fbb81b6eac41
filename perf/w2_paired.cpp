// W2 on two threads, paired: z = x*y + sin(w)*exp(-v) on n doubles, each variant timed in turns
// inside one process, a few calls at a time, many rounds:
//   lazuli 1T (`lz::assign(lz::simd, ...)`), lazuli 2T (`lz::assign(lz::par, ...)`),
//   hand 1T (the scalar loop with std::sin / std::exp), hand 2T (the same loop split by
//   lz::kernels::cpu::parallel_for, as elementwise_bench's W2/hand_2T).
// The thread count stays 2 throughout (lz::simd runs on the calling thread alone), so no variant
// pays for a change of TBB arena. Each round gives each variant's 2-thread speed-up from
// measurements taken a few hundred milliseconds apart; the median over rounds is the figure
// (separately timed medians of Google Benchmark runs swing by 1.4-1.9x on this shared machine).
//
//   build/perf/w2_paired                 # n = 1e7, 15 rounds
//   build/perf/w2_paired 1000000 31      # n = 1e6, 31 rounds
#include <support/bench_support.hpp>
#include <support/w2.hpp>

#include <lz/kernels/cpu/parallel.hpp>
#include <lz/lz.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using lz_perf::median;
using lz_perf::ns_per_call;

// Times f and g (ms per call), g first when `flip`.
template <class F, class G>
void in_turn(F& f, G& g, int calls, bool flip, double& tf, double& tg) {
  if (flip) {
    tg = 1e-6 * ns_per_call(g, calls);
    tf = 1e-6 * ns_per_call(f, calls);
  } else {
    tf = 1e-6 * ns_per_call(f, calls);
    tg = 1e-6 * ns_per_call(g, calls);
  }
}

void report(const char* name, const std::vector<double>& t1, const std::vector<double>& t2,
            const std::vector<double>& s) {
  std::printf("%-7s 1T %8.2f ms  2T %8.2f ms  speed-up %.3f (median of paired rounds; min %.3f "
              "max %.3f)\n",
              name, median(t1), median(t2), median(s), *std::min_element(s.begin(), s.end()),
              *std::max_element(s.begin(), s.end()));
}

void run(long n, int rounds) {
  lz_perf::arrays<double> a(5, n);
  lz_perf::w2_fill(a[0], a[1], a[2], a[3], n);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n}), w = lz::adopt(a[2], {n}),
       v = lz::adopt(a[3], {n}), z = lz::adopt(a[4], {n});
  lz::set_num_threads(2);
  const int calls = int(std::max(3L, 30'000'000L / (n + 1000))); // ~0.1-0.3 s per block
  std::vector<double> l1, l2, h1, h2, sl, sh;
  auto lazuli1 = [&] { lz::assign(lz::simd, z, x * y + lz::sin(w) * lz::exp(-v)); };
  auto lazuli2 = [&] { lz::assign(lz::par, z, x * y + lz::sin(w) * lz::exp(-v)); };
  auto hand1 = [&] { lz_perf::w2_hand(a, n, 1); };
  auto hand2 = [&] { lz_perf::w2_hand(a, n, 2); };
  lazuli2(), hand2(); // threads started, pages touched
  for (int r = 0; r < rounds; ++r) {
    // The order alternates so that neither variant always follows the same one.
    double t_l1, t_l2, t_h1, t_h2;
    in_turn(lazuli1, lazuli2, calls, r % 2, t_l1, t_l2);
    in_turn(hand1, hand2, calls, r % 2, t_h1, t_h2);
    l1.push_back(t_l1), l2.push_back(t_l2), h1.push_back(t_h1), h2.push_back(t_h2);
    sl.push_back(t_l1 / t_l2), sh.push_back(t_h1 / t_h2);
  }
  lazuli2();
  for (long i = 0; i < n; ++i) { // 2-thread lazuli against libm
    const double ref = a[0][i] * a[1][i] + std::sin(a[2][i]) * std::exp(-a[3][i]);
    if (lz_perf::ulp_distance(z(i), ref) > 4) {
      std::printf("W2 n=%ld: lazuli (2 threads) is more than 4 ulp from libm at %ld\n", n, i);
      std::exit(1);
    }
  }
  std::printf("W2 n=%ld, %d rounds of %d calls per variant\n", n, rounds, calls);
  report("lazuli", l1, l2, sl);
  report("hand", h1, h2, sh);
}

} // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10'000'000L;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  run(n, rounds);
}
