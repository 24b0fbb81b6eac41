// W8 batched: n 4×4 transforms applied to n 4-vectors, y[i] = M[i] * v[i] (doubles). lazuli's
// lz::fixed_batch (`Q = M * P;`: items element-major, one item per SIMD lane, TBB threads over
// items) against Eigen's loop over std::vector<Matrix4d> / <Vector4d> and the same loop over
// lz::matrix4d / lz::vector4d, timed in turns inside one process, median of rounds. One thread:
// thread CPU time; two threads: wall time, lazuli on 2 threads against the single-thread loops.
// n = 1e6 streams 192 MB per pass (memory-bound: every variant moves the same bytes); n = 4096
// fits in L2 (compute-bound).
//
//   build/perf/w8_batch              # n = 1e6 and 4096, 11 rounds
//   build/perf/w8_batch 1000000 21   # one n, 21 rounds
#include <support/anchors.hpp>
#include <support/bench_support.hpp>

#include <lz/lz.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using lz_perf::cpu_ns_per_call;
using lz_perf::median;
using lz_perf::ns_per_call;

__attribute__((noinline)) void fixed_loop(lz::vector4d* y, const lz::matrix4d* m,
                                          const lz::vector4d* v, long n) {
  for (long i = 0; i < n; ++i) y[i] = m[i] * v[i];
}
#if LZ_HAVE_EIGEN
using em = Eigen::Matrix4d;
using ev = Eigen::Vector4d;
__attribute__((noinline)) void eigen_loop(ev* y, const em* m, const ev* v, long n) {
  for (long i = 0; i < n; ++i) y[i] = m[i] * v[i];
}
#endif

void run(long n, int rounds) {
  std::mt19937_64 g(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<lz::matrix4d> lm(static_cast<std::size_t>(n));
  const auto un = static_cast<std::size_t>(n);
  std::vector<lz::vector4d> lv(un), ly(un);
  for (long i = 0; i < n; ++i) {
    for (auto& x : lm[std::size_t(i)]) x = u(g);
    for (auto& x : lv[std::size_t(i)]) x = u(g);
  }
  lz::fixed_batch<double, 4, 4> M(std::span<const lz::matrix4d>(lm.data(), lm.size()));
  lz::fixed_batch<double, 4> P(std::span<const lz::vector4d>(lv.data(), lv.size())), Q(n);
#if LZ_HAVE_EIGEN
  std::vector<em, Eigen::aligned_allocator<em>> mm(un);
  std::vector<ev, Eigen::aligned_allocator<ev>> mv(un), my(un);
  for (long i = 0; i < n; ++i)
    for (int r = 0; r < 4; ++r) {
      mv[std::size_t(i)](r) = lv[std::size_t(i)](r);
      for (int c = 0; c < 4; ++c) mm[std::size_t(i)](r, c) = lm[std::size_t(i)](r, c);
    }
#endif
  const long calls = std::max(2L, 20'000'000L / n);
  auto batch = [&] { Q = M * P; };
  auto loop = [&] { fixed_loop(ly.data(), lm.data(), lv.data(), n); };
#if LZ_HAVE_EIGEN
  auto eigen = [&] { eigen_loop(my.data(), mm.data(), mv.data(), n); };
#endif
  std::vector<double> t1, t2, tl, te, r1e, r2e, r1l;
  for (int r = 0; r < rounds; ++r) {
    lz::set_num_threads(1);
    const double b1 = cpu_ns_per_call(batch, calls);
    const double l1 = cpu_ns_per_call(loop, calls);
    double e1 = l1;
#if LZ_HAVE_EIGEN
    e1 = cpu_ns_per_call(eigen, calls);
    const double e1w = ns_per_call(eigen, calls); // wall, for the two-thread ratio
#else
    const double e1w = ns_per_call(loop, calls);
#endif
    lz::set_num_threads(2);
    const double b2 = ns_per_call(batch, calls);
    t1.push_back(b1), t2.push_back(b2), tl.push_back(l1), te.push_back(e1);
    r1e.push_back(e1 / b1), r2e.push_back(e1w / b2), r1l.push_back(l1 / b1);
  }
  lz::set_num_threads(0);
  for (long i = 0; i < n; ++i) { // every variant computed the same vectors
    const lz::vector4d q = Q[i];
    for (int k = 0; k < 4; ++k) {
      bool ok = std::abs(q(k) - ly[std::size_t(i)](k)) <= 1e-13;
#if LZ_HAVE_EIGEN
      ok = ok && std::abs(q(k) - my[std::size_t(i)](k)) <= 1e-13;
#endif
      if (!ok) {
        std::printf("W8 batch n=%ld: the variants differ at item %ld\n", n, i);
        std::exit(1);
      }
    }
  }
  std::printf("W8 batch n=%-8ld ms per pass (median of %d rounds): lazuli batch %.3f (1 thread, "
              "cpu) %.3f (2 threads, wall)  lz::matrix4d loop %.3f",
              n, rounds, median(t1) / 1e6, median(t2) / 1e6, median(tl) / 1e6);
#if LZ_HAVE_EIGEN
  std::printf("  eigen loop %.3f", median(te) / 1e6);
#endif
  std::printf("\n    speed-up of the batch over the Eigen loop: 1 thread %.2fx, 2 threads %.2fx; "
              "over the lz::matrix4d loop (1 thread) %.2fx\n",
              median(r1e), median(r2e), median(r1l));
}

} // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 11;
  if (argc > 1) {
    run(std::atol(argv[1]), rounds);
  } else {
    run(1'000'000, rounds);
    run(4096, rounds);
  }
}
