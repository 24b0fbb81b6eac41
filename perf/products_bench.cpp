// Product workloads (issue 3, fusion pass): lazuli's product rules next to the direct CBLAS call
// to the same OpenBLAS (the reference), hand-written alternatives, Eigen (its own kernels, no
// BLAS) and Armadillo (OpenBLAS through libblas.so.3). One thread everywhere (lazuli's TBB pool
// and OpenBLAS's own). Run by `perf/report.py --products` once with OPENBLAS_CORETYPE=Haswell and
// once without; the core OpenBLAS chose goes into the JSON context.
//   W4  C = transpose(A)*B            n = 256, 1024       (dgemm; W11: sgemm)
//   W6  C = 2*A*B + 3*C               n = 1024            (dgemm; W11: sgemm)
//   W5  y = A*x + y                   n = 2048            (dgemv, beta = 1)
//   W7  D = maximum(A*B + broadcast_to(b, {n, n}), 0)   n = 512 (vs hand dgemm + bias/ReLU loop)
//   W10 r = A*B*x                     n = 1000            (vs hand A*(B*x): two dgemv)
//   CH  R = A*B*C*D, A,C 1000x20, B,D 20x1000           (vs hand (A*(B*C))*D: three dgemm)
//   IG  own integer gemm C = A*B      n = 512, int32/int64 (vs cblas_dgemm, n = 512)
// lazuli variants report per iteration the BLAS calls they made (recorder) and the allocations
// (lz::stats) as counters; every variant is checked once against the reference before timing.
#include "support/anchors.hpp"
#include "support/bench_support.hpp"

#include <lz/kernels/blas/blas.hpp>
#include <lz/lz.hpp>

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

using lz_perf::arrays;
using lz_perf::fill_uniform;
using std::int64_t;

enum class var { lazuli, lazuli_paren, cblas, hand, hand_ltr, eigen, armadillo };

const char* var_name(var v) {
  switch (v) {
  case var::lazuli:
    return "lazuli";
  case var::lazuli_paren:
    return "lazuli_paren";
  case var::cblas:
    return "cblas";
  case var::hand:
    return "hand";
  case var::hand_ltr:
    return "hand_ltr";
  case var::eigen:
    return "eigen";
  case var::armadillo:
    return "armadillo";
  }
  return "?";
}

bool is_lazuli(var v) { return v == var::lazuli || v == var::lazuli_paren; }

// Counts the BLAS-level calls lazuli's plans make (kernels/blas reports each before it runs).
struct counting : lz::kernels::blas::recorder {
  int64_t calls = 0;
  void record(const lz::kernels::blas::call&) override { ++calls; }
};

#if LZ_HAVE_EIGEN
template <class T>
using emat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using evec = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>;
#endif

template <class T>
void gemm_rm(CBLAS_TRANSPOSE ta, int m, int n, int k, T alpha, const T* A, int lda, const T* B,
             int ldb, T beta, T* C, int ldc) {
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// ------------------------------------------------------------------------------- workloads
// Each workload owns its arrays (lz_perf::arrays placement), wraps them for every library once,
// and runs one variant per call; out() is the result compared in the check.

// W4 / W11: C = transpose(A)*B, all n x n row-major.
template <class T>
struct w4 {
  int64_t n;
  arrays<T> a;
  lz::tensor_view<T, 2> A, B, C;
  explicit w4(int64_t n_)
      : n(n_), a(3, n_ * n_), A(lz::adopt(a[0], {n, n})), B(lz::adopt(a[1], {n, n})),
        C(lz::adopt(a[2], {n, n})) {
    fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2);
  }
  static std::vector<var> variants() {
    return {var::lazuli, var::cblas, var::eigen, var::armadillo};
  }
  const T* out() const { return a[2]; }
  int64_t out_size() const { return n * n; }
  void run(var v) {
    const int m = int(n);
    switch (v) {
    case var::lazuli:
      C = lz::transpose(A) * B;
      break;
    case var::cblas:
      gemm_rm<T>(CblasTrans, m, m, m, T(1), a[0], m, a[1], m, T(0), a[2], m);
      break;
#if LZ_HAVE_EIGEN
    case var::eigen: {
      emat<T> Ae(a[0], n, n), Be(a[1], n, n), Ce(a[2], n, n);
      Ce.noalias() = Ae.transpose() * Be;
      break;
    }
#endif
#if LZ_HAVE_ARMADILLO
    case var::armadillo: { // column-major views of the row-major arrays are the transposes
      arma::Mat<T> Am(a[0], n, n, false, true), Bm(a[1], n, n, false, true),
          Cm(a[2], n, n, false, true);
      Cm = Bm * Am.t(); // (Aᵀ·B)ᵀ = Bᵀ·A
      break;
    }
#endif
    default:
      break;
    }
  }
};

// W6 / W11: C = 2*A*B + 3*C.
template <class T>
struct w6 {
  int64_t n;
  arrays<T> a;
  lz::tensor_view<T, 2> A, B, C;
  explicit w6(int64_t n_)
      : n(n_), a(3, n_ * n_), A(lz::adopt(a[0], {n, n})), B(lz::adopt(a[1], {n, n})),
        C(lz::adopt(a[2], {n, n})) {
    fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2), fill_uniform(a[2], n * n, 3);
  }
  static std::vector<var> variants() {
    return {var::lazuli, var::cblas, var::eigen, var::armadillo};
  }
  const T* out() const { return a[2]; }
  int64_t out_size() const { return n * n; }
  void run(var v) {
    const int m = int(n);
    switch (v) {
    case var::lazuli:
      C = T(2) * A * B + T(3) * C;
      break;
    case var::cblas:
      gemm_rm<T>(CblasNoTrans, m, m, m, T(2), a[0], m, a[1], m, T(3), a[2], m);
      break;
#if LZ_HAVE_EIGEN
    case var::eigen: { // Eigen's best form: scale in place, then accumulate the product
      emat<T> Ae(a[0], n, n), Be(a[1], n, n), Ce(a[2], n, n);
      Ce *= T(3);
      Ce.noalias() += T(2) * Ae * Be;
      break;
    }
#endif
#if LZ_HAVE_ARMADILLO
    case var::armadillo: {
      arma::Mat<T> Am(a[0], n, n, false, true), Bm(a[1], n, n, false, true),
          Cm(a[2], n, n, false, true);
      Cm = T(2) * Bm * Am + T(3) * Cm; // (A·B)ᵀ = Bᵀ·Aᵀ
      break;
    }
#endif
    default:
      break;
    }
  }
};

// W5: y = A*x + y.
struct w5 {
  int64_t n;
  arrays<double> a;
  lz::tensor_view<double, 2> A;
  lz::tensor_view<double, 1> x, y;
  explicit w5(int64_t n_)
      : n(n_), a(3, n_ * n_), A(lz::adopt(a[0], {n, n})), x(lz::adopt(a[1], {n})),
        y(lz::adopt(a[2], {n})) {
    fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n, 2), fill_uniform(a[2], n, 3);
  }
  static std::vector<var> variants() {
    return {var::lazuli, var::cblas, var::eigen, var::armadillo};
  }
  const double* out() const { return a[2]; }
  int64_t out_size() const { return n; }
  void run(var v) {
    const int m = int(n);
    switch (v) {
    case var::lazuli:
      y = A * x + y;
      break;
    case var::cblas:
      cblas_dgemv(CblasRowMajor, CblasNoTrans, m, m, 1.0, a[0], m, a[1], 1, 1.0, a[2], 1);
      break;
#if LZ_HAVE_EIGEN
    case var::eigen: {
      emat<double> Ae(a[0], n, n);
      evec<double> xe(a[1], n), ye(a[2], n);
      ye.noalias() += Ae * xe;
      break;
    }
#endif
#if LZ_HAVE_ARMADILLO
    case var::armadillo: {
      arma::Mat<double> Am(a[0], n, n, false, true);
      arma::Col<double> xm(a[1], n, false, true), ym(a[2], n, false, true);
      ym += Am.t() * xm;
      break;
    }
#endif
    default:
      break;
    }
  }
};

// W7: D = maximum(A*B + broadcast_to(b, {n, n}), 0): a dense layer with bias and ReLU.
struct w7 {
  int64_t n;
  arrays<double> a;
  lz::tensor_view<double, 2> A, B, D;
  lz::tensor_view<double, 1> b;
  explicit w7(int64_t n_)
      : n(n_), a(4, n_ * n_), A(lz::adopt(a[0], {n, n})), B(lz::adopt(a[1], {n, n})),
        D(lz::adopt(a[2], {n, n})), b(lz::adopt(a[3], {n})) {
    fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2), fill_uniform(a[3], n, 4);
  }
  static std::vector<var> variants() { return {var::lazuli, var::hand, var::eigen}; }
  const double* out() const { return a[2]; }
  int64_t out_size() const { return n * n; }
  void run(var v) {
    const int m = int(n);
    switch (v) {
    case var::lazuli:
      D = lz::maximum(A * B + lz::broadcast_to(b, {n, n}), 0.0);
      break;
    case var::hand: { // one dgemm, then one bias + ReLU pass over D
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, a[0], m, a[1], m, 0.0,
                  a[2], m);
      double* d = a[2];
      const double* bias = a[3];
      for (int64_t i = 0; i < n; ++i) {
        double* row = d + i * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) row[j] = std::max(row[j] + bias[j], 0.0);
      }
      break;
    }
#if LZ_HAVE_EIGEN
    case var::eigen: {
      emat<double> Ae(a[0], n, n), Be(a[1], n, n), De(a[2], n, n);
      Eigen::Map<Eigen::Matrix<double, 1, Eigen::Dynamic>> be(a[3], n);
      De.noalias() = Ae * Be;
      De = (De.rowwise() + be).cwiseMax(0.0);
      break;
    }
#endif
    default:
      break;
    }
  }
};

// W10: r = A*B*x (the chain rule must pick A*(B*x): two gemv, never a gemm).
struct w10 {
  int64_t n;
  arrays<double> a;
  lz::tensor_view<double, 2> A, B;
  lz::tensor_view<double, 1> x, r;
  explicit w10(int64_t n_)
      : n(n_), a(5, n_ * n_), A(lz::adopt(a[0], {n, n})), B(lz::adopt(a[1], {n, n})),
        x(lz::adopt(a[2], {n})), r(lz::adopt(a[3], {n})) {
    fill_uniform(a[0], n * n, 1), fill_uniform(a[1], n * n, 2), fill_uniform(a[2], n, 3);
  }
  static std::vector<var> variants() {
    return {var::lazuli, var::lazuli_paren, var::hand, var::eigen};
  }
  const double* out() const { return a[3]; }
  int64_t out_size() const { return n; }
  void run(var v) {
    const int m = int(n);
    switch (v) {
    case var::lazuli:
      r = A * B * x;
      break;
    case var::lazuli_paren:
      r = A * (B * x);
      break;
    case var::hand: // t = B·x into a buffer the caller keeps, r = A·t
      cblas_dgemv(CblasRowMajor, CblasNoTrans, m, m, 1.0, a[1], m, a[2], 1, 0.0, a[4], 1);
      cblas_dgemv(CblasRowMajor, CblasNoTrans, m, m, 1.0, a[0], m, a[4], 1, 0.0, a[3], 1);
      break;
#if LZ_HAVE_EIGEN
    case var::eigen: {
      emat<double> Ae(a[0], n, n), Be(a[1], n, n);
      evec<double> xe(a[2], n), re(a[3], n);
      re.noalias() = Ae * (Be * xe);
      break;
    }
#endif
    default:
      break;
    }
  }
};

// CH: R = A*B*C*D with skewed sizes: A, C are n x k, B, D are k x n (n = 1000, k = 20). The
// best order is (A*(B*C))*D (or A*((B*C)*D)): 2·k·n·k + 2·n·k·k + 2·n·k·n flops; left to right
// costs 2·n·k·n + 2·n·n·k + 2·n·k·n.
struct chain {
  static constexpr int64_t k = 20;
  int64_t n;
  arrays<double> a;
  lz::tensor_view<double, 2> A, B, C, D, R;
  explicit chain(int64_t n_)
      : n(n_), a(8, n_ * n_), A(lz::adopt(a[0], {n, k})), B(lz::adopt(a[1], {k, n})),
        C(lz::adopt(a[2], {n, k})), D(lz::adopt(a[3], {k, n})), R(lz::adopt(a[4], {n, n})) {
    for (int i = 0; i < 4; ++i) fill_uniform(a[i], n * k, std::uint64_t(i + 1));
  }
  static std::vector<var> variants() { return {var::lazuli, var::hand, var::hand_ltr}; }
  const double* out() const { return a[4]; }
  int64_t out_size() const { return n * n; }
  void run(var v) {
    const int m = int(n), q = int(k);
    double *t1 = a[5], *t2 = a[6];
    switch (v) {
    case var::lazuli:
      R = A * B * C * D;
      break;
    case var::hand: // t1 = B·C (k x k), t2 = A·t1 (n x k), R = t2·D
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, q, q, m, 1.0, a[1], m, a[2], q, 0.0,
                  t1, q);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, q, q, 1.0, a[0], q, t1, q, 0.0, t2,
                  q);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, q, 1.0, t2, q, a[3], m, 0.0,
                  a[4], m);
      break;
    case var::hand_ltr: // t1 = A·B (n x n), t2 = t1·C (n x k), R = t2·D
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, q, 1.0, a[0], q, a[1], m, 0.0,
                  t1, m);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, q, m, 1.0, t1, m, a[2], q, 0.0, t2,
                  q);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, q, 1.0, t2, q, a[3], m, 0.0,
                  a[4], m);
      break;
    default:
      break;
    }
  }
};

// IG: lazuli's own gemm for integers (C = A*B, the gemm rule with a non-BLAS type), and the
// double BLAS gemm of the same size as the yardstick. Values in [-100, 100]: exact results.
template <class T>
struct igemm {
  int64_t n;
  arrays<T> a;
  lz::tensor_view<T, 2> A, B, C;
  explicit igemm(int64_t n_)
      : n(n_), a(3, n_ * n_), A(lz::adopt(a[0], {n, n})), B(lz::adopt(a[1], {n, n})),
        C(lz::adopt(a[2], {n, n})) {
    std::mt19937_64 g(7);
    for (int64_t i = 0; i < n * n; ++i)
      a[0][i] = T(int64_t(g() % 201) - 100), a[1][i] = T(int64_t(g() % 201) - 100);
  }
  static std::vector<var> variants() { return {var::lazuli, var::cblas}; }
  const T* out() const { return a[2]; }
  int64_t out_size() const { return n * n; }
  void run(var v) {
    if constexpr (std::is_floating_point_v<T>) {
      if (v == var::cblas) {
        const int m = int(n);
        gemm_rm<T>(CblasNoTrans, m, m, m, T(1), a[0], m, a[1], m, T(0), a[2], m);
        return;
      }
    }
    C = A * B;
  }
};

// ------------------------------------------------------------------------------ benchmark

void one_thread() {
  lz_perf::use_threads(1);
  openblas_set_num_threads(1);
}

template <class W>
void bench(benchmark::State& st, var v) {
  W w(st.range(0));
  one_thread();
  counting rec;
  lz::kernels::blas::recorder* prev = nullptr;
  if (is_lazuli(v)) prev = lz::kernels::blas::set_recorder(&rec);
  lz::reset_stats();
  for (auto _ : st) {
    w.run(v);
    benchmark::DoNotOptimize(w.out());
    benchmark::ClobberMemory();
  }
  if (is_lazuli(v)) {
    const double its = double(st.iterations());
    st.counters["blas_calls"] = double(rec.calls) / its;
    st.counters["allocs"] = double(lz::stats().allocations) / its;
    lz::kernels::blas::set_recorder(prev);
  }
}

// Largest |difference| between a variant's result and the reference's, relative to the largest
// |reference| element (same inputs, computed once before any timing).
template <class W>
double check(int64_t n, var v, var ref) {
  W w1(n), w2(n);
  one_thread();
  w1.run(v);
  w2.run(ref);
  double num = 0, den = 0;
  for (int64_t i = 0; i < w1.out_size(); ++i) {
    num = std::max(num, std::abs(double(w1.out()[i]) - double(w2.out()[i])));
    den = std::max(den, std::abs(double(w2.out()[i])));
  }
  return den > 0 ? num / den : num;
}

std::map<std::string, std::string> g_checks; // family -> "variant/n: diff, ..."

template <class W>
void reg(const std::string& fam, std::initializer_list<int64_t> sizes, var ref, bool timed = true,
         std::vector<var> only = {}) {
  for (var v : only.empty() ? W::variants() : only) {
#if !LZ_HAVE_EIGEN
    if (v == var::eigen) continue;
#endif
#if !LZ_HAVE_ARMADILLO
    if (v == var::armadillo) continue;
#endif
    for (int64_t n : sizes) {
      if (v != ref) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s/%lld %.1e", g_checks[fam].empty() ? "" : ", ",
                      var_name(v), (long long)n, check<W>(n, v, ref));
        g_checks[fam] += buf;
      }
      if (!timed) continue;
      const std::string name = fam + "/" + var_name(v);
      lz_perf::common(benchmark::RegisterBenchmark(name.c_str(), bench<W>, v))
          ->Arg(n)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

// The integer family registers its element types under their own variant names.
template <class T>
void reg_igemm(const std::string& variant, var v, int64_t n) {
  lz_perf::common(benchmark::RegisterBenchmark(("IG/" + variant).c_str(), bench<igemm<T>>, v))
      ->Arg(n)
      ->Unit(benchmark::kMillisecond);
}

} // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  one_thread();
  benchmark::AddCustomContext("openblas core", openblas_get_corename());
  benchmark::AddCustomContext("blas", lz::kernels::blas::info());
  const char* ct = std::getenv("OPENBLAS_CORETYPE");
  benchmark::AddCustomContext("OPENBLAS_CORETYPE", ct ? ct : "(unset)");
#if LZ_HAVE_EIGEN
  benchmark::AddCustomContext("eigen", "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                                           std::to_string(EIGEN_MAJOR_VERSION) + "." +
                                           std::to_string(EIGEN_MINOR_VERSION) +
                                           " (own kernels, no BLAS)");
#endif
#if LZ_HAVE_ARMADILLO
  benchmark::AddCustomContext("armadillo", std::string("Armadillo ") +
                                               arma::arma_version::as_string() +
                                               " (BLAS: libblas.so.3 -> OpenBLAS)");
#endif

  reg<w4<double>>("W4", {256, 1024}, var::cblas);
  reg<w6<double>>("W6", {1024}, var::cblas);
  reg<w5>("W5", {2048}, var::cblas);
  reg<w7>("W7", {512}, var::hand);
  reg<w10>("W10", {1000}, var::hand);
  reg<chain>("CH", {1000}, var::hand);
  reg<w4<float>>("W11T", {256, 1024}, var::cblas); // W11: W4 in float
  reg<w6<float>>("W11S", {1024}, var::cblas);      // W11: W6 in float
  reg_igemm<double>("dgemm_cblas", var::cblas, 512);
  reg_igemm<std::int32_t>("lazuli_i32", var::lazuli, 512);
  reg_igemm<std::int64_t>("lazuli_i64", var::lazuli, 512);
  for (const auto& [fam, s] : g_checks)
    benchmark::AddCustomContext("check " + fam + " (max rel diff vs reference)", s);

  // The plans lazuli chose, for the record.
  {
    w7 w(64);
    benchmark::AddCustomContext(
        "plan W7", lz::explain(w.D, lz::maximum(w.A * w.B + lz::broadcast_to(w.b, {64, 64}), 0.0)));
    w10 u(64);
    benchmark::AddCustomContext("plan W10", lz::explain(u.r, u.A * u.B * u.x));
    chain c(100);
    benchmark::AddCustomContext("plan CH", lz::explain(c.R, c.A * c.B * c.C * c.D));
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
