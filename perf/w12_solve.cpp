// W12: dense solves at n = 1024 (issue 26), each competitor timed in turns inside one process:
//
//   solve   x = lz::solve(A, b)            vs the direct LAPACK calls (dgetrf_ + dgetrs_ on
//                                          copies, as a LAPACKE_dgesv user does), Armadillo's
//                                          arma::solve(A, b), Eigen's A.partialPivLu().solve(b)
//   inv*B   X = lz::inv(A) * B (B n×k)     vs the same direct calls, Armadillo's solve(A, B),
//                                          Eigen's partialPivLu().solve(B), and forming the
//                                          inverse as users write it: Eigen's A.inverse() * B and
//                                          lazuli's own Ai = lz::inv(A); X = Ai * B
//
// Column-major operands (LAPACK's, Eigen's and Armadillo's order; lazuli's lz::layout_left),
// then lazuli's default row-major ones. Two settings: one thread (OpenBLAS and lazuli; the
// judged time is this thread's CPU time, robust to other tenants) and all threads (wall time;
// Eigen has no threads without OpenMP and is left out). Each round measures every variant once,
// in a rotating order; medians over rounds of the ratios to lazuli are the figures. Every
// result is checked against the direct LAPACK one before anything is printed.
//
//   build/perf/w12_solve               # n = 1024, k = 64 and k = n; 7 rounds
//   build/perf/w12_solve 512 32 9      # n, k, rounds
#include <support/anchors.hpp>
#include <support/bench_support.hpp>

#include <lz/kernels/blas/blas.hpp>
#include <lz/lz.hpp>

#if LZ_HAVE_EIGEN
#include <Eigen/Dense>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" {
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*,
             const int*, int*, std::size_t);
}

namespace {

using lz::index_t;
using lz_perf::median;

double wall_ns(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}
double cpu_ns(const std::function<void()>& f) { return lz_perf::cpu_ns_per_call(f, 1); }

struct variant {
  std::string name;
  std::function<void()> run;
  std::function<double()> check; // max |x - reference|
  std::vector<double> ratio;     // this / lazuli, per round
  std::vector<double> ns;
};

// Times every variant `rounds` times in a rotating order; variant 0 is lazuli.
void measure(std::vector<variant>& v, int rounds, bool cpu) {
  for (auto& x : v) x.run(); // warm up (pages, OpenBLAS threads)
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> t(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::size_t w = (i + std::size_t(r)) % v.size();
      t[w] = cpu ? cpu_ns(v[w].run) : wall_ns(v[w].run);
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i].ns.push_back(t[i]);
      v[i].ratio.push_back(t[i] / t[0]);
    }
  }
}

void report(const char* title, std::vector<variant>& v) {
  std::printf("  %s\n", title);
  for (auto& x : v) {
    const double err = x.check();
    std::printf("    %-34s %9.2f ms   %s %.3f   (max |x - LAPACK's| %.1e)\n", x.name.c_str(),
                median(x.ns) / 1e6, &x == &v[0] ? "       " : "/lazuli", median(x.ratio), err);
  }
}

double max_diff(const double* a, const double* b, std::size_t n) {
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

int default_threads = 1;

void run(index_t n, index_t k, int rounds, bool one_thread) {
  // One thread: OpenBLAS and lazuli's own loops (the copies) both on one thread, so that no
  // work hides on other threads from this thread's CPU time.
  lz::kernels::blas::set_num_threads(one_thread ? 1 : 0);
  lz_perf::use_threads(one_thread ? 1 : default_threads);
  // Column-major data: element (i, j) at [i + j*n]; a dominant diagonal keeps it conditioned.
  std::vector<double> a(std::size_t(n * n)), b(std::size_t(n * k));
  lz_perf::fill_uniform(a.data(), n * n, 1);
  lz_perf::fill_uniform(b.data(), n * k, 2);
  for (index_t i = 0; i < n; ++i) a[std::size_t(i + i * n)] += double(n) / 8;

  // direct LAPACK: copies (gesv destroys its operands), dgetrf_, dgetrs_
  std::vector<double> wa(a.size()), xd(b.size());
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  auto lapack = [&](index_t cols) {
    std::memcpy(wa.data(), a.data(), a.size() * sizeof(double));
    std::memcpy(xd.data(), b.data(), std::size_t(n * cols) * sizeof(double));
    const int N = int(n), NR = int(cols);
    int info = 0;
    dgetrf_(&N, &N, wa.data(), &N, ipiv.data(), &info);
    dgetrs_("N", &N, &NR, wa.data(), &N, ipiv.data(), xd.data(), &N, &info, 1);
  };
  lapack(k);
  const std::vector<double> ref = xd; // k columns

  // lazuli, column-major and row-major operands
  lz::matrix<double> Ac(n, n, lz::layout_left), Bc(n, k, lz::layout_left),
      Xc(n, k, lz::layout_left), Ar(n, n), Br(n, k), Xr(n, k), Ai(n, n);
  lz::vector<double> bv(n), xv(n);
  for (index_t j = 0; j < n; ++j)
    for (index_t i = 0; i < n; ++i) Ac(i, j) = Ar(i, j) = a[std::size_t(i + j * n)];
  for (index_t j = 0; j < k; ++j)
    for (index_t i = 0; i < n; ++i) Bc(i, j) = Br(i, j) = b[std::size_t(i + j * n)];
  for (index_t i = 0; i < n; ++i) bv(i) = b[std::size_t(i)];
  auto diff_m = [&](const lz::matrix<double>& X) {
    double m = 0;
    for (index_t j = 0; j < k; ++j)
      for (index_t i = 0; i < n; ++i)
        m = std::max(m, std::abs(X(i, j) - ref[std::size_t(i + j * n)]));
    return m;
  };
  auto diff_v = [&](const lz::vector<double>& x) {
    double m = 0;
    for (index_t i = 0; i < n; ++i) m = std::max(m, std::abs(x(i) - ref[std::size_t(i)]));
    return m;
  };

#if LZ_HAVE_ARMADILLO
  arma::mat aa(a.data(), arma::uword(n), arma::uword(n)),
      ab(b.data(), arma::uword(n), arma::uword(k));
  arma::vec av(b.data(), arma::uword(n));
  arma::mat ax;
  arma::vec axv;
#endif
#if LZ_HAVE_EIGEN
  const Eigen::Map<const Eigen::MatrixXd> ea(a.data(), n, n), eb(b.data(), n, k);
  const Eigen::Map<const Eigen::VectorXd> ev(b.data(), n);
  Eigen::MatrixXd ex;
  Eigen::VectorXd exv;
#endif

  // ---- x = solve(A, b) ----
  {
    std::vector<variant> v;
    v.push_back({"lazuli x = solve(A, b), col-major",
                 [&] { xv = lz::solve(Ac, bv); },
                 [&] { return diff_v(xv); },
                 {},
                 {}});
    v.push_back({"direct dgetrf_ + dgetrs_",
                 [&] { lapack(1); },
                 [&] { return max_diff(xd.data(), ref.data(), std::size_t(n)); },
                 {},
                 {}});
    v.push_back({"lazuli x = solve(A, b), row-major",
                 [&] { xv = lz::solve(Ar, bv); },
                 [&] { return diff_v(xv); },
                 {},
                 {}});
#if LZ_HAVE_ARMADILLO
    v.push_back({"Armadillo solve(A, b)",
                 [&] { axv = arma::solve(aa, av); },
                 [&] { return max_diff(axv.memptr(), ref.data(), std::size_t(n)); },
                 {},
                 {}});
#endif
#if LZ_HAVE_EIGEN
    if (one_thread)
      v.push_back({"Eigen partialPivLu().solve(b)",
                   [&] { exv = ea.partialPivLu().solve(ev); },
                   [&] { return max_diff(exv.data(), ref.data(), std::size_t(n)); },
                   {},
                   {}});
#endif
    measure(v, rounds, one_thread);
    char t[128];
    std::snprintf(t, sizeof t, "x = solve(A, b), n = %td", n);
    report(t, v);
  }
  // ---- X = inv(A) * B ----
  {
    std::vector<variant> v;
    v.push_back({"lazuli X = inv(A) * B, col-major",
                 [&] { Xc = lz::inv(Ac) * Bc; },
                 [&] { return diff_m(Xc); },
                 {},
                 {}});
    v.push_back({"direct dgetrf_ + dgetrs_",
                 [&] { lapack(k); },
                 [&] { return max_diff(xd.data(), ref.data(), ref.size()); },
                 {},
                 {}});
    v.push_back({"lazuli X = inv(A) * B, row-major",
                 [&] { Xr = lz::inv(Ar) * Br; },
                 [&] { return diff_m(Xr); },
                 {},
                 {}});
    v.push_back({"lazuli Ai = inv(A); X = Ai * B",
                 [&] {
                   Ai = lz::inv(Ar);
                   Xr = Ai * Br;
                 },
                 [&] { return diff_m(Xr); },
                 {},
                 {}});
#if LZ_HAVE_ARMADILLO
    v.push_back({"Armadillo solve(A, B)",
                 [&] { ax = arma::solve(aa, ab); },
                 [&] { return max_diff(ax.memptr(), ref.data(), ref.size()); },
                 {},
                 {}});
#endif
#if LZ_HAVE_EIGEN
    if (one_thread) {
      v.push_back({"Eigen partialPivLu().solve(B)",
                   [&] { ex = ea.partialPivLu().solve(eb); },
                   [&] { return max_diff(ex.data(), ref.data(), ref.size()); },
                   {},
                   {}});
      v.push_back({"Eigen A.inverse() * B",
                   [&] { ex = ea.inverse() * eb; },
                   [&] { return max_diff(ex.data(), ref.data(), ref.size()); },
                   {},
                   {}});
    }
#endif
    measure(v, rounds, one_thread);
    char t[128];
    std::snprintf(t, sizeof t, "X = inv(A) * B, n = %td, k = %td", n, k);
    report(t, v);
  }
}

} // namespace

int main(int argc, char** argv) {
  const index_t n = argc > 1 ? std::atol(argv[1]) : 1024;
  const index_t k = argc > 2 ? std::atol(argv[2]) : 64;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  default_threads = lz::num_threads();
  std::printf("W12 solve: %s, lazuli %d threads\n", lz::kernels::blas::info().c_str(),
              default_threads);
  for (index_t kk : {k, n}) {
    std::printf("one thread (OpenBLAS and lazuli 1 thread; this thread's CPU time), k = %td:\n",
                kk);
    run(n, kk, rounds, true);
    std::printf("all threads (wall time), k = %td:\n", kk);
    run(n, kk, rounds, false);
  }
}
