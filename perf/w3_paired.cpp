// W3 paired: s = sum((x - y)^2) on n doubles, one thread, lazuli (`lz::sum(lz::square(x - y))`,
// the default policy), Eigen's `(x - y).squaredNorm()` and the `omp simd` hand loop timed in
// turns inside one process, a few calls at a time, many rounds. Each round gives lazuli/Eigen and
// lazuli/hand from measurements taken milliseconds apart; the medians over rounds are the
// figures (separately timed Google Benchmark medians of W3 at n = 1e7 put lazuli at 1.01-1.16x
// Eigen on the same build within minutes on this shared machine).
//
//   build/perf/w3_paired                 # n = 1e7, 21 rounds
//   build/perf/w3_paired 100000 101      # n = 1e5 (in cache), 101 rounds
//   build/perf/w3_paired 10000000 21 cpu # in this thread's CPU time (a loaded machine)
//   LZ_CONFIG=c.cfg build/perf/w3_paired # with other tuning (reduce_block, reduce_prefetch)
//   build/perf/w3_paired 100000 101 cpu max  # s = max(abs(x - y)) instead: lz::max propagates
//                                            # NaN, Eigen's maxCoeff and the hand loop do not
#include <support/anchors.hpp>
#include <support/bench_support.hpp>
#include <support/w3.hpp>

#include <lz/lz.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using lz_perf::median;

bool cpu_time = false; // time blocks in this thread's CPU time, not wall time
bool max_form = false; // s = max(abs(x - y))

double hand_max(const double* x, const double* y, long n) {
  double m = 0;
#pragma omp simd reduction(max : m)
  for (long i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i] - y[i]));
  return m;
}

template <class F>
double ns_per_call(F&& f, long calls) {
  return cpu_time ? lz_perf::cpu_ns_per_call(f, calls) : lz_perf::ns_per_call(f, calls);
}

void line(const char* name, const std::vector<double>& r) {
  std::printf("  lazuli/%-6s %.3f  (min %.3f max %.3f)\n", name, median(r),
              *std::min_element(r.begin(), r.end()), *std::max_element(r.begin(), r.end()));
}

void run(long n, int rounds) {
  lz_perf::arrays<double> a(2, n);
  lz_perf::fill_uniform(a[0], n, 1), lz_perf::fill_uniform(a[1], n, 2);
  auto x = lz::adopt(a[0], {n}), y = lz::adopt(a[1], {n});
  lz::set_num_threads(1);
  const long calls = std::max(3L, 20'000'000L / (n + 100)); // a few ms to ~0.3 s per block
  volatile double sink = 0;
  double s_lz = 0, s_hand = 0;
  auto lazuli = [&] {
    sink = s_lz = max_form ? double(lz::max(lz::abs(x - y))) : double(lz::sum(lz::square(x - y)));
  };
  auto handf = [&] {
    sink = s_hand = max_form ? hand_max(a[0], a[1], n) : lz_perf::w3_simd(a[0], a[1], 0, n);
  };
#if LZ_HAVE_EIGEN
  using V = Eigen::Map<const Eigen::VectorXd, Eigen::Aligned64>;
  const V ex(a[0], n), ey(a[1], n);
  auto eigen = [&] { sink = max_form ? (ex - ey).cwiseAbs().maxCoeff() : (ex - ey).squaredNorm(); };
#endif
  std::vector<double> tl, th, te, rh, re;
  for (int r = 0; r < rounds; ++r) {
    // Three orders in turn, so that no variant always follows the same one.
    double l = 0, h = 0, e = 0;
    for (int k = 0; k < 3; ++k) {
      const int which = (k + r) % 3;
      if (which == 0) l = ns_per_call(lazuli, calls);
      if (which == 1) h = ns_per_call(handf, calls);
#if LZ_HAVE_EIGEN
      if (which == 2) e = ns_per_call(eigen, calls);
#endif
    }
    tl.push_back(l), th.push_back(h), rh.push_back(l / h);
    if (e > 0) te.push_back(e), re.push_back(l / e);
  }
  (void)sink;
  if (std::abs(s_lz - s_hand) > 1e-9 * std::abs(s_hand)) {
    std::printf("n=%ld: lazuli %.17g differs from the hand loop %.17g\n", n, s_lz, s_hand);
    std::exit(1);
  }
  std::printf("%s n=%ld, %d rounds of %ld calls: lazuli %.2f us, hand %.2f us",
              max_form ? "max(abs(x - y))" : "W3", n, rounds, calls, 1e-3 * median(tl),
              1e-3 * median(th));
  if (!te.empty()) std::printf(", Eigen %.2f us", 1e-3 * median(te));
  std::printf(" (medians, %s time)\n", cpu_time ? "thread CPU" : "wall");
  line("hand", rh);
  if (!re.empty()) line("Eigen", re);
}

} // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 10'000'000L;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  cpu_time = argc > 3 && std::string(argv[3]) == "cpu";
  max_form = argc > 4 && std::string(argv[4]) == "max";
  run(n, rounds);
}
