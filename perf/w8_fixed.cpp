// W8: D = A*B + C on fixed-size N×N doubles (N = 3, 4, 6): lazuli's lz::fixed_matrix, Eigen's
// Matrix<double, N, N> (as users write it, `D = A * B + C;`, and with `.noalias()`) and the
// hand loop, timed in turns inside one process, one thread, in this thread's CPU time. Each
// variant runs K = 64 independent assignments per block (operands in L1, as small-matrix code
// sees them) over blocks totalling 10^6 assignments; each round gives lazuli/Eigen and
// lazuli/hand from measurements taken milliseconds apart; the medians over rounds are the
// figures. The results are checked equal before anything is printed.
//
// Then y = A * x (3×3 and 4×4), the same way; then, lazuli against Eigen, elementwise trees and
// full reductions of 4×4 doubles (and normalising a 4-vector), as users write them in each
// library (Eigen's cwiseMax does not propagate NaN as lz::maximum does; on these values, none,
// the results agree).
//
//   build/perf/w8_fixed            # N = 3, 4, 6; 21 rounds
//   build/perf/w8_fixed 41         # 41 rounds
#include <support/anchors.hpp>
#include <support/bench_support.hpp>

#include <lz/lz.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using lz_perf::cpu_ns_per_call;
using lz_perf::median;

constexpr int K = 64;             // assignments per block
constexpr long total = 1'000'000; // assignments per measurement

template <int N>
using lzm = lz::fixed_matrix<double, N, N>;
template <int N>
using handm = double[N][N];

template <int N>
__attribute__((noinline)) void lazuli_block(lzm<N>* d, const lzm<N>* a, const lzm<N>* b,
                                            const lzm<N>* c) {
  for (int k = 0; k < K; ++k) d[k] = a[k] * b[k] + c[k];
}

// The hand loop as a C programmer writes it, told that the arrays do not overlap.
template <int N>
__attribute__((noinline)) void hand_block(handm<N>* __restrict d, const handm<N>* __restrict a,
                                          const handm<N>* __restrict b,
                                          const handm<N>* __restrict c) {
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0;
        for (int p = 0; p < N; ++p) s += a[k][i][p] * b[k][p][j];
        d[k][i][j] = s + c[k][i][j];
      }
}

#if LZ_HAVE_EIGEN
template <int N>
using eim = Eigen::Matrix<double, N, N>;
template <int N>
__attribute__((noinline)) void eigen_block(eim<N>* d, const eim<N>* a, const eim<N>* b,
                                           const eim<N>* c) {
  for (int k = 0; k < K; ++k) d[k] = a[k] * b[k] + c[k];
}
template <int N>
__attribute__((noinline)) void eigen_noalias_block(eim<N>* d, const eim<N>* a, const eim<N>* b,
                                                   const eim<N>* c) {
  for (int k = 0; k < K; ++k) d[k].noalias() = a[k] * b[k] + c[k];
}
#endif

// Matrix × vector, y = A * x (the transform of a point): the same three variants.
template <int N>
using lzv = lz::fixed_vector<double, N>;
template <int N>
__attribute__((noinline)) void lazuli_mv(lzv<N>* y, const lzm<N>* a, const lzv<N>* x) {
  for (int k = 0; k < K; ++k) y[k] = a[k] * x[k];
}
template <int N>
__attribute__((noinline)) void hand_mv(double (*__restrict y)[N], const handm<N>* __restrict a,
                                       const double (*__restrict x)[N]) {
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i) {
      double s = 0;
      for (int p = 0; p < N; ++p) s += a[k][i][p] * x[k][p];
      y[k][i] = s;
    }
}
#if LZ_HAVE_EIGEN
template <int N>
__attribute__((noinline)) void eigen_mv(Eigen::Matrix<double, N, 1>* y, const eim<N>* a,
                                        const Eigen::Matrix<double, N, 1>* x) {
  for (int k = 0; k < K; ++k) y[k] = a[k] * x[k];
}
#endif

void line(const char* name, const std::vector<double>& r) {
  std::printf("    lazuli/%-14s %.3f  (min %.3f max %.3f)\n", name, median(r),
              *std::min_element(r.begin(), r.end()), *std::max_element(r.begin(), r.end()));
}

template <int N>
void run(int rounds) {
  std::vector<lzm<N>> la(K), lb(K), lc(K), ld(K);
  std::vector<handm<N>> ha(K), hb(K), hc(K), hd(K);
  std::mt19937_64 g(8);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        ha[k][i][j] = la[k](i, j) = u(g);
        hb[k][i][j] = lb[k](i, j) = u(g);
        hc[k][i][j] = lc[k](i, j) = u(g);
      }
  const long calls = total / K;
  auto lazuli = [&] { lazuli_block<N>(ld.data(), la.data(), lb.data(), lc.data()); };
  auto hand = [&] { hand_block<N>(hd.data(), ha.data(), hb.data(), hc.data()); };
  constexpr int variants = 2 + 2 * LZ_HAVE_EIGEN;
#if LZ_HAVE_EIGEN
  std::vector<eim<N>> ea(K), eb(K), ec(K), ed(K), en(K);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        ea[k](i, j) = ha[k][i][j], eb[k](i, j) = hb[k][i][j], ec[k](i, j) = hc[k][i][j];
  auto eigen = [&] { eigen_block<N>(ed.data(), ea.data(), eb.data(), ec.data()); };
  auto eigen_na = [&] { eigen_noalias_block<N>(en.data(), ea.data(), eb.data(), ec.data()); };
#endif
  std::vector<double> tl, th, te, tn, rh, re, rn;
  for (int r = 0; r < rounds; ++r) {
    double t[4] = {};
    for (int v = 0; v < variants; ++v) { // each round starts with another variant
      const int which = (v + r) % variants;
      if (which == 0) t[0] = cpu_ns_per_call(lazuli, calls) / K;
      if (which == 1) t[1] = cpu_ns_per_call(hand, calls) / K;
#if LZ_HAVE_EIGEN
      if (which == 2) t[2] = cpu_ns_per_call(eigen, calls) / K;
      if (which == 3) t[3] = cpu_ns_per_call(eigen_na, calls) / K;
#endif
    }
    tl.push_back(t[0]), th.push_back(t[1]), rh.push_back(t[0] / t[1]);
#if LZ_HAVE_EIGEN
    te.push_back(t[2]), tn.push_back(t[3]), re.push_back(t[0] / t[2]), rn.push_back(t[0] / t[3]);
#endif
  }
  for (int k = 0; k < K; ++k) // every variant computed the same matrices
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        bool ok = std::abs(ld[k](i, j) - hd[k][i][j]) <= 1e-12;
#if LZ_HAVE_EIGEN
        ok = ok && std::abs(ed[k](i, j) - hd[k][i][j]) <= 1e-12 &&
             std::abs(en[k](i, j) - hd[k][i][j]) <= 1e-12;
#endif
        if (!ok) {
          std::printf("W8 %dx%d: the variants differ at matrix %d (%d, %d)\n", N, N, k, i, j);
          std::exit(1);
        }
      }
  std::printf("W8 %dx%d double, ns per assignment (thread CPU, median of %d rounds):"
              " lazuli %.2f  hand %.2f",
              N, N, rounds, median(tl), median(th));
#if LZ_HAVE_EIGEN
  std::printf("  eigen %.2f  eigen noalias %.2f", median(te), median(tn));
#endif
  std::printf("\n");
  line("hand", rh);
#if LZ_HAVE_EIGEN
  line("eigen", re);
  line("eigen noalias", rn);
#endif
}

template <int N>
void run_mv(int rounds) {
  std::vector<lzm<N>> la(K);
  std::vector<lzv<N>> lx(K), ly(K);
  std::vector<handm<N>> ha(K);
  std::vector<std::array<double, N>> hx(K), hy(K);
  std::mt19937_64 g(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i) {
      hx[k][i] = lx[k](i) = u(g);
      for (int j = 0; j < N; ++j) ha[k][i][j] = la[k](i, j) = u(g);
    }
  using harr = double(*)[N];
  auto lazuli = [&] { lazuli_mv<N>(ly.data(), la.data(), lx.data()); };
  auto hand = [&] {
    hand_mv<N>(reinterpret_cast<harr>(hy.data()), ha.data(),
               reinterpret_cast<const double(*)[N]>(hx.data()));
  };
  const long calls = total / K;
  std::vector<double> tl, th, te, rh, re;
#if LZ_HAVE_EIGEN
  std::vector<eim<N>> ea(K);
  std::vector<Eigen::Matrix<double, N, 1>> ex(K), ey(K);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i) {
      ex[k](i) = hx[k][i];
      for (int j = 0; j < N; ++j) ea[k](i, j) = ha[k][i][j];
    }
  auto eigen = [&] { eigen_mv<N>(ey.data(), ea.data(), ex.data()); };
#endif
  constexpr int variants = 2 + LZ_HAVE_EIGEN;
  for (int r = 0; r < rounds; ++r) {
    double t[3] = {};
    for (int v = 0; v < variants; ++v) {
      const int which = (v + r) % variants;
      if (which == 0) t[0] = cpu_ns_per_call(lazuli, calls) / K;
      if (which == 1) t[1] = cpu_ns_per_call(hand, calls) / K;
#if LZ_HAVE_EIGEN
      if (which == 2) t[2] = cpu_ns_per_call(eigen, calls) / K;
#endif
    }
    tl.push_back(t[0]), th.push_back(t[1]), rh.push_back(t[0] / t[1]);
#if LZ_HAVE_EIGEN
    te.push_back(t[2]), re.push_back(t[0] / t[2]);
#endif
  }
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < N; ++i)
      if (std::abs(ly[k](i) - hy[k][i]) > 1e-12
#if LZ_HAVE_EIGEN
          || std::abs(ey[k](i) - hy[k][i]) > 1e-12
#endif
      ) {
        std::printf("W8 y = A*x %d: the variants differ at %d (%d)\n", N, k, i);
        std::exit(1);
      }
  std::printf(
      "y = A*x %dx%d double, ns per product (thread CPU, median of %d rounds): lazuli %.2f  "
      "hand %.2f",
      N, N, rounds, median(tl), median(th));
#if LZ_HAVE_EIGEN
  std::printf("  eigen %.2f", median(te));
#endif
  std::printf("\n");
  line("hand", rh);
#if LZ_HAVE_EIGEN
  line("eigen", re);
#endif
}

#if LZ_HAVE_EIGEN
// Elementwise trees and full reductions of 4×4 doubles, K per block. (GCC 12 calls the
// _mm512_undefined_pd() inside Eigen's AVX-512 reductions and exp uninitialised.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
using m4 = lzm<4>;
using e4 = eim<4>;
using v4 = lzv<4>;
using ev4 = Eigen::Matrix<double, 4, 1>;
__attribute__((noinline)) void lz_abs_sqrt(m4* d, const m4* a, const m4* b) {
  for (int k = 0; k < K; ++k) d[k] = lz::abs(a[k]) + lz::sqrt(lz::abs(b[k]));
}
__attribute__((noinline)) void eigen_abs_sqrt(e4* d, const e4* a, const e4* b) {
  for (int k = 0; k < K; ++k) d[k] = a[k].cwiseAbs() + b[k].cwiseAbs().cwiseSqrt();
}
__attribute__((noinline)) void lz_relu(m4* d, const m4* a, const m4*) {
  for (int k = 0; k < K; ++k) d[k] = lz::maximum(a[k], 0.0);
}
__attribute__((noinline)) void eigen_relu(e4* d, const e4* a, const e4*) {
  for (int k = 0; k < K; ++k) d[k] = a[k].cwiseMax(0.0);
}
__attribute__((noinline)) void lz_exp(m4* d, const m4* a, const m4*) {
  for (int k = 0; k < K; ++k) d[k] = lz::exp(a[k]);
}
__attribute__((noinline)) void eigen_exp(e4* d, const e4* a, const e4*) {
  for (int k = 0; k < K; ++k) d[k] = a[k].array().exp().matrix();
}
__attribute__((noinline)) void lz_sum(double* s, const m4* a) {
  for (int k = 0; k < K; ++k) s[k] = lz::sum(a[k]);
}
__attribute__((noinline)) void eigen_sum(double* s, const e4* a) {
  for (int k = 0; k < K; ++k) s[k] = a[k].sum();
}
__attribute__((noinline)) void lz_max(double* s, const m4* a) {
  for (int k = 0; k < K; ++k) s[k] = lz::max(a[k]);
}
__attribute__((noinline)) void eigen_max(double* s, const e4* a) {
  for (int k = 0; k < K; ++k) s[k] = a[k].maxCoeff();
}
__attribute__((noinline)) void lz_normalize(v4* y, const v4* x) {
  for (int k = 0; k < K; ++k) y[k] = x[k] / lz::norm2(x[k]);
}
__attribute__((noinline)) void eigen_normalize(ev4* y, const ev4* x) {
  for (int k = 0; k < K; ++k) y[k] = x[k] / x[k].norm();
}
#pragma GCC diagnostic pop

// lazuli's and Eigen's blocks alternated, `rounds` times; `same` checks their results agree.
template <class L, class E, class Same>
void versus(const char* what, int rounds, L lazuli, E eigen, Same same) {
  const long calls = total / K;
  std::vector<double> tl, te, re;
  for (int r = 0; r < rounds; ++r) {
    double t[2] = {};
    for (int v = 0; v < 2; ++v) {
      if ((v + r) % 2 == 0)
        t[0] = cpu_ns_per_call(lazuli, calls) / K;
      else
        t[1] = cpu_ns_per_call(eigen, calls) / K;
    }
    tl.push_back(t[0]), te.push_back(t[1]), re.push_back(t[0] / t[1]);
  }
  if (!same()) {
    std::printf("%s: lazuli and Eigen differ\n", what);
    std::exit(1);
  }
  std::printf("%s, ns per item (thread CPU, median of %d rounds): lazuli %.2f  eigen %.2f\n", what,
              rounds, median(tl), median(te));
  line("eigen", re);
}

void run_4x4_trees(int rounds) {
  std::vector<m4> la(K), lb(K), ld(K);
  std::vector<e4> ea(K), eb(K), ed(K);
  std::vector<v4> lx(K), ly(K);
  std::vector<ev4> ex(K), ey(K);
  std::vector<double> ls(K), es(K);
  std::mt19937_64 g(10);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < 4; ++i) {
      ex[k](i) = lx[k](i) = u(g);
      for (int j = 0; j < 4; ++j)
        ea[k](i, j) = la[k](i, j) = u(g), eb[k](i, j) = lb[k](i, j) = u(g);
    }
  const auto close = [](double x, double y) {
    return std::abs(x - y) <= 1e-12 * (1 + std::abs(y));
  };
  const auto same_m = [&] {
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          if (!close(ld[k](i, j), ed[k](i, j))) return false;
    return true;
  };
  const auto same_s = [&] {
    for (int k = 0; k < K; ++k)
      if (!close(ls[k], es[k])) return false;
    return true;
  };
  using mfn = void (*)(m4*, const m4*, const m4*);
  using efn = void (*)(e4*, const e4*, const e4*);
  const struct {
    const char* what;
    mfn l;
    efn e;
  } trees[] = {{"D = abs(A) + sqrt(abs(B)) 4x4", lz_abs_sqrt, eigen_abs_sqrt},
               {"D = maximum(A, 0) 4x4", lz_relu, eigen_relu},
               {"D = exp(A) 4x4", lz_exp, eigen_exp}};
  for (const auto& t : trees)
    versus(
        t.what, rounds, [&] { t.l(ld.data(), la.data(), lb.data()); },
        [&] { t.e(ed.data(), ea.data(), eb.data()); }, same_m);
  versus(
      "s = sum(A) 4x4", rounds, [&] { lz_sum(ls.data(), la.data()); },
      [&] { eigen_sum(es.data(), ea.data()); }, same_s);
  versus(
      "s = max(A) 4x4", rounds, [&] { lz_max(ls.data(), la.data()); },
      [&] { eigen_max(es.data(), ea.data()); }, same_s);
  versus(
      "y = x / norm2(x) 4", rounds, [&] { lz_normalize(ly.data(), lx.data()); },
      [&] { eigen_normalize(ey.data(), ex.data()); },
      [&] {
        for (int k = 0; k < K; ++k)
          for (int i = 0; i < 4; ++i)
            if (!close(ly[k](i), ey[k](i))) return false;
        return true;
      });
}
#endif

} // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  lz::set_num_threads(1);
  run<3>(rounds);
  run<4>(rounds);
  run<6>(rounds);
  run_mv<3>(rounds);
  run_mv<4>(rounds);
#if LZ_HAVE_EIGEN
  run_4x4_trees(rounds);
#endif
}
