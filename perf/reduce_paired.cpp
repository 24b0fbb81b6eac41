// Axis sums of a row-major matrix and short full sums, lazuli next to Eigen, timed in turns
// inside one process (each round: lazuli's calls, then Eigen's), one thread, thread CPU time;
// the medians over rounds are the figures (docs/decisions/reduction-tail-in-lanes.md,
// axis-rows-one-slab-call.md, vertical-reduction-four-chains.md,
// narrow-outputs-folded-from-wide-rows.md).
//   sum(x), sum(square(x - y))   n = 3, 7, 13, 100, 1001
//   sum(A, 0), sum(A, 1)         A row-major 1000 x 3, 100000 x 3, 1000000 x 7, 20000 x 7,
//                                10000 x 16, 1000 x 37, 1000 x 40, 4000 x 64, 2000 x 100,
//                                300 x 300, 1000 x 200, 200 x 1000
//
//   build/perf/reduce_paired        # 15 rounds
//   build/perf/reduce_paired 31     # 31 rounds
#include <lz/lz.hpp>

#if LZ_HAVE_EIGEN
#include <Eigen/Dense>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <utility>
#include <vector>

namespace {

double thread_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

volatile double sink;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ns per call of f and of g, `calls` calls a turn, the two in turns for `rounds` rounds.
template <class F, class G>
void paired(const char* what, int rounds, long calls, F f, G g) {
  std::vector<double> a, b;
  for (int r = 0; r < rounds; ++r) {
    double t0 = thread_ns();
    for (long i = 0; i < calls; ++i) f();
    a.push_back((thread_ns() - t0) / double(calls));
    t0 = thread_ns();
    for (long i = 0; i < calls; ++i) g();
    b.push_back((thread_ns() - t0) / double(calls));
  }
  const double la = median(a), lb = median(b);
  std::printf("%-26s lazuli %11.1f ns  Eigen %11.1f ns  lazuli/Eigen %.2f\n", what, la, lb,
              lb > 0 ? la / lb : 0.0);
}

} // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  lz::set_num_threads(1);
#if LZ_HAVE_EIGEN
  using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  char what[64];
  for (long n : {3L, 7L, 13L, 100L, 1001L}) {
    lz::vector<double> x = lz::random<double>({n}, 1), y = lz::random<double>({n}, 2);
    const Eigen::Map<const Eigen::VectorXd> ex(x.data(), n), ey(y.data(), n);
    const long calls = std::max(200L, 4000000L / (n + 20));
    std::snprintf(what, sizeof what, "sum(x) n=%ld", n);
    paired(
        what, rounds, calls, [&] { sink = lz::sum(x).value(); }, [&] { sink = ex.sum(); });
    std::snprintf(what, sizeof what, "sum((x-y)^2) n=%ld", n);
    paired(
        what, rounds, calls, [&] { sink = lz::sum(lz::square(x - y)).value(); },
        [&] { sink = (ex - ey).squaredNorm(); });
  }
  const std::pair<long, long> shapes[] = {{1000, 3},   {100000, 3}, {1000000, 7}, {20000, 7},
                                          {10000, 16}, {1000, 37},  {1000, 40},   {4000, 64},
                                          {2000, 100}, {300, 300},  {1000, 200},  {200, 1000}};
  for (auto [m, k] : shapes) {
    lz::matrix<double> A = lz::random<double>({m, k}, 3);
    const Eigen::Map<const row_major> E(A.data(), m, k);
    lz::vector<double> r0(k), r1(m);
    Eigen::VectorXd e0(k), e1(m);
    for (int axis : {0, 1}) {
      std::snprintf(what, sizeof what, "sum(A,%d) %ldx%ld", axis, m, k);
      lz::vector<double>& r = axis ? r1 : r0;
      Eigen::VectorXd& e = axis ? e1 : e0;
      paired(
          what, rounds, 20,
          [&] {
            r = lz::sum(A, std::size_t(axis));
            sink = r(0);
          },
          [&] {
            if (axis)
              e = E.rowwise().sum();
            else
              e = E.colwise().sum().transpose();
            sink = e(0);
          });
    }
  }
#else
  (void)rounds;
  std::printf("reduce_paired: built without Eigen, nothing to pair\n");
#endif
}
