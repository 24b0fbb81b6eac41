// W14: sparse products (CSR, double values, int32 indices), issue "sparse matrices":
//
//   SpMV  y = A * x   A the 5-point Laplacian of an s × s grid (s² rows, 5 entries a row)
//   SpMV  y = A * x   A random, s² rows and columns, 10 distinct columns a row (fixed seed);
//                     also as an lz::csr_matrix kept in column strips (optimize_products) when
//                     this CPU's L2 makes it choose more than one, then w = Aᵀ x both ways
//   SpMM  C = A * B   A the Laplacian, B s² × 16 and C s² × 16 row-major
//   SpGEMM C = A * A  both matrices above (a sparse result)
//   sums   C = A + B, C = A * A + B   A the Laplacian, B the random matrix (different patterns)
//   sparse + dense  M = D - 2 * A     A random 3000 × 3000, 10 a row; D, M dense
//   product + dense M = D + A * B, M = M + A * B   A, B random 3000 × 3000, 10 a row; D, M dense
//   computed term   y = abs(A + B) * x, Y = abs(A + B) * X (16 columns): A the Laplacian, B random
//   values term     y = abs(A) * x, Y = abs(A) * X (16 columns): the Laplacian, the random matrix
//
// against Eigen's SparseMatrix<double, RowMajor, int> (y.noalias() = A * x, over the same arrays
// through Eigen::Map), librsb (rsb_spmv / rsb_spmm on its own copy, made from the same CSR
// arrays; LZ_HAVE_RSB) and a plain hand-written CSR loop. Every variant is timed in turns inside
// one process, each round in a random order, each turn after one untimed call; the figures are
// medians over rounds of the round's times and of its ratios (this / lazuli). One thread: lazuli,
// librsb and OpenBLAS on one thread, judged on this thread's CPU time (robust to other tenants of a
// shared machine). Two threads (wall time): lazuli with lz::set_num_threads(2) against lazuli on
// the calling thread only (lz::seq: the speed-up) and librsb on 2 threads; Eigen has no
// threads without OpenMP (not built with it here) and is left out. Every result is checked against
// the hand loop's before anything is printed.
//
//   build/perf/w14_spmv            # s = 1000 (10^6 rows), 21 rounds
//   build/perf/w14_spmv 500 11     # s, rounds
//   build/perf/w14_spmv 1000 21 mm # one case only: lap (SpMV Laplacian), rnd (SpMV random), mm,
//                                  # gemm (SpGEMM C = A * A, both matrices, against Eigen),
//                                  # sum (C = A + B, C = A * A + B, against Eigen),
//                                  # dense (M = D - 2 * A, 3000 x 3000, against Eigen),
//                                  # multd (M = D + A * B and M = M + A * B, 3000 x 3000),
//                                  # computed (y = abs(A + B) * x: Laplacian, random),
//                                  # values (y = abs(A) * x, Y = abs(A) * X: Laplacian, random)
#include <support/anchors.hpp>
#include <support/bench_support.hpp>

#include <lz/interop/std.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/lz.hpp>

#if LZ_HAVE_EIGEN
#include <Eigen/SparseCore>
#endif
#if LZ_HAVE_RSB
#include <rsb.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using lz::index_t;
using lz_perf::median;
namespace blas = lz::kernels::blas;

struct csr_arrays {
  index_t rows = 0, cols = 0;
  std::vector<int> row_ptr, col_idx;
  std::vector<double> values;
  index_t nnz() const { return index_t(values.size()); }
  /// The same arrays as a lazuli sparse operand (adopted: zero-copy).
  lz::csr_view<double, int> operand() {
    return lz::adopt_csr(rows, cols, nnz(), row_ptr.data(), col_idx.data(), values.data());
  }
};

// The 5-point Laplacian of an s × s grid, columns sorted in each row.
csr_arrays laplacian(index_t s) {
  csr_arrays a;
  a.rows = a.cols = s * s;
  a.row_ptr.reserve(std::size_t(a.rows + 1));
  a.row_ptr.push_back(0);
  for (index_t gy = 0; gy < s; ++gy)
    for (index_t gx = 0; gx < s; ++gx) {
      const index_t i = gy * s + gx;
      auto put = [&](index_t j, double v) {
        a.col_idx.push_back(int(j));
        a.values.push_back(v);
      };
      if (gy > 0) put(i - s, -1);
      if (gx > 0) put(i - 1, -1);
      put(i, 4);
      if (gx + 1 < s) put(i + 1, -1);
      if (gy + 1 < s) put(i + s, -1);
      a.row_ptr.push_back(int(a.values.size()));
    }
  return a;
}

// n × n, `per_row` distinct uniformly random columns a row (sorted), values in [-1, 1).
csr_arrays random_matrix(index_t n, int per_row, std::uint64_t seed) {
  csr_arrays a;
  a.rows = a.cols = n;
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> col(0, int(n - 1));
  std::uniform_real_distribution<double> val(-1, 1);
  a.row_ptr.push_back(0);
  std::vector<int> r;
  for (index_t i = 0; i < n; ++i) {
    r.clear();
    while (int(r.size()) < per_row) {
      const int j = col(g);
      if (std::find(r.begin(), r.end(), j) == r.end()) r.push_back(j);
    }
    std::sort(r.begin(), r.end());
    for (int j : r) {
      a.col_idx.push_back(j);
      a.values.push_back(val(g));
    }
    a.row_ptr.push_back(int(a.values.size()));
  }
  return a;
}

struct variant {
  std::string name;
  std::function<void()> run;
  const double* out; // the result, compared with the hand loop's
  std::vector<double> ns, ratio;
};

// Times every variant `rounds` times; variant 0 is lazuli. Each round runs the variants in a
// fresh random order (fixed seed), and each turn starts with one untimed call: with a fixed
// cyclic order the variant after librsb (whose own copy of the matrix evicts ours from the
// caches) always started cold and the one after it always warm, a 5-13% bias between identical
// loops.
void measure(std::vector<variant>& v, int rounds, bool cpu, long calls) {
  std::mt19937 g(17);
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), g);
    std::vector<double> t(v.size());
    for (std::size_t w : order) {
      v[w].run();
      t[w] =
          cpu ? lz_perf::cpu_ns_per_call(v[w].run, calls) : lz_perf::ns_per_call(v[w].run, calls);
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i].ns.push_back(t[i]);
      v[i].ratio.push_back(t[i] / t[0]);
    }
  }
}

// One line per variant: its median time and its median ratio to variant 0 (lazuli).
void print_rows(const std::vector<variant>& v) {
  for (const auto& x : v)
    std::printf("    %-40s %9.3f ms   %s %.3f\n", x.name.c_str(), median(x.ns) / 1e6,
                &x == &v[0] ? "       " : "/lazuli", median(x.ratio));
}

void report(const char* title, std::vector<variant>& v, const double* reference, std::size_t n) {
  std::printf("  %s\n", title);
  for (auto& x : v) {
    x.run();
    double err = 0;
    for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::abs(x.out[i] - reference[i]));
    std::printf("    %-40s %9.3f ms   %s %.3f   (max |this - hand| %.1e)\n", x.name.c_str(),
                median(x.ns) / 1e6, &x == &v[0] ? "       " : "/lazuli", median(x.ratio), err);
  }
}

#if LZ_HAVE_RSB
struct rsb_matrix {
  rsb_mtx_t* m = nullptr;
  explicit rsb_matrix(const csr_arrays& a) {
    rsb_err_t err = RSB_ERR_NO_ERROR;
    m = rsb_mtx_alloc_from_csr_const(a.values.data(), a.row_ptr.data(), a.col_idx.data(),
                                     rsb_nnz_idx_t(a.nnz()), RSB_NUMERICAL_TYPE_DOUBLE,
                                     rsb_coo_idx_t(a.rows), rsb_coo_idx_t(a.cols), 1, 1,
                                     RSB_FLAG_NOFLAGS, &err);
    if (m == nullptr || err != RSB_ERR_NO_ERROR) {
      std::fprintf(stderr, "librsb: rsb_mtx_alloc_from_csr_const failed\n");
      std::exit(1);
    }
  }
  ~rsb_matrix() { rsb_mtx_free(m); }
  rsb_matrix(const rsb_matrix&) = delete;
  rsb_matrix& operator=(const rsb_matrix&) = delete;
};
void rsb_threads(int n) {
  rsb_int_t t = n;
  rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &t);
}
#endif

// The hand loops.
void hand_spmv(const csr_arrays& a, const double* x, double* y) {
  const int* rp = a.row_ptr.data();
  const int* ci = a.col_idx.data();
  const double* v = a.values.data();
  for (index_t i = 0; i < a.rows; ++i) {
    double s = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) s += v[k] * x[ci[k]];
    y[i] = s;
  }
}
void hand_spmm16(const csr_arrays& a, const double* B, double* C) {
  const int* rp = a.row_ptr.data();
  const int* ci = a.col_idx.data();
  const double* v = a.values.data();
  for (index_t i = 0; i < a.rows; ++i) {
    double acc[16] = {};
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      const double* b = B + std::ptrdiff_t(ci[k]) * 16;
      for (int j = 0; j < 16; ++j) acc[j] += v[k] * b[j];
    }
    for (int j = 0; j < 16; ++j) C[i * 16 + j] = acc[j];
  }
}

// One SpMV case: the one-thread table, then the two-thread one.
// w = Aᵀ x (A square) from A itself and from its column strips (each scattering into its own
// range of w; threads take whole strips), one thread against Eigen, then two threads.
void transposed_strips_case(const char* what, const csr_arrays& a, const lz::csr_matrix<double>& Am,
                            index_t strips, const std::vector<double>& x, int rounds, long calls) {
  const auto nx = std::size_t(a.cols);
  std::vector<double> tl(nx), tstr(nx), te(nx), t1(nx);
  const auto As = const_cast<csr_arrays&>(a).operand();
  const auto xv = lz::adopt(x);
  auto tlv = lz::adopt(tl);
  auto tsv = lz::adopt(tstr);
  auto plain = [&] { tlv = lz::transpose(As) * xv; };
  auto cut = [&] { tsv = lz::transpose(Am) * xv; };
  char name[80], title[200];
  std::snprintf(name, sizeof name, "lazuli, %td strips, w = transpose(A) * x", strips);
  {
    lz_perf::use_threads(1);
    std::vector<variant> v;
    v.push_back({"lazuli w = transpose(A) * x", plain, tl.data(), {}, {}});
    v.push_back({name, cut, tstr.data(), {}, {}});
#if LZ_HAVE_EIGEN
    Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> Ae(
        a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data());
    Eigen::Map<const Eigen::VectorXd> xe(x.data(), a.cols);
    Eigen::Map<Eigen::VectorXd> tee(te.data(), a.cols);
    v.push_back({"Eigen w.noalias() = A.transpose() * x",
                 [&] { tee.noalias() = Ae.transpose() * xe; },
                 te.data(),
                 {},
                 {}});
#endif
    measure(v, rounds, true, calls);
    plain();
    std::vector<double> ref = tl;
    std::snprintf(title, sizeof title, "%s, transposed, 1 thread (thread CPU time):", what);
    report(title, v, ref.data(), nx);
  }
  {
    lz_perf::use_threads(2);
    std::vector<variant> v;
    v.push_back({"lazuli w = transpose(A) * x, 2 threads", plain, tl.data(), {}, {}});
    v.push_back({name, cut, tstr.data(), {}, {}});
    v.push_back({"lazuli, strips, lz::seq (calling thread only)",
                 [&] { lz::assign(lz::seq, lz::adopt(t1), lz::transpose(Am) * xv); },
                 t1.data(),
                 {},
                 {}});
    measure(v, rounds, false, calls);
    plain();
    std::vector<double> ref = tl;
    std::snprintf(title, sizeof title, "%s, transposed, 2 threads (wall time):", what);
    report(title, v, ref.data(), nx);
    std::printf("    strips, 2 threads over 1: %.2fx\n", median(v[2].ratio) / median(v[1].ratio));
  }
}

void spmv_case(const char* what, const csr_arrays& a, int rounds) {
  const index_t n = a.rows;
  const auto nx = std::size_t(a.cols), ny = std::size_t(n);
  std::vector<double> x(nx), yl(ny), yh(ny), ye(ny), yr(ny), y1(ny);
  lz_perf::fill_uniform(x.data(), a.cols, 3);
  hand_spmv(a, x.data(), yh.data());
  // The expression, as a user writes it: one dcsrmv through the spmv rule.
  const auto As = const_cast<csr_arrays&>(a).operand();
  const auto xv = lz::adopt(x);
  auto yv = lz::adopt(yl);
  auto lazuli = [&] { yv = As * xv; };
  // The same matrix owned by an lz::csr_matrix with a column-strip copy (optimize_products,
  // chosen for this CPU's L2): measured only when it keeps one (not for a band matrix).
  lz::csr_matrix<double> Am(a.rows, a.cols, a.row_ptr, a.col_idx, a.values);
  const index_t strips = Am.optimize_products();
  std::vector<double> ys(ny);
  auto ysv = lz::adopt(ys);
  auto lazuli_strips = [&] { ysv = Am * xv; };
  char strips_name[80];
  std::snprintf(strips_name, sizeof strips_name, "lazuli, A.optimize_products() (%td strips)",
                strips);
  const long calls = std::max<long>(1, long(3e7 / double(a.nnz())));
  char title[160];
  // one thread
  {
    lz_perf::use_threads(1);
    blas::set_num_threads(1);
    std::vector<variant> v;
    v.push_back({"lazuli y = A * x", lazuli, yl.data(), {}, {}});
    v.push_back({"hand CSR loop", [&] { hand_spmv(a, x.data(), yh.data()); }, yh.data(), {}, {}});
    if (strips > 1) v.push_back({strips_name, lazuli_strips, ys.data(), {}, {}});
#if LZ_HAVE_EIGEN
    Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> Ae(
        a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data());
    Eigen::Map<const Eigen::VectorXd> xe(x.data(), a.cols);
    Eigen::Map<Eigen::VectorXd> yee(ye.data(), n);
    v.push_back({"Eigen y.noalias() = A * x", [&] { yee.noalias() = Ae * xe; }, ye.data(), {}, {}});
#endif
#if LZ_HAVE_RSB
    rsb_matrix R(a);
    rsb_threads(1);
    const double one = 1, zero = 0;
    v.push_back(
        {"librsb rsb_spmv",
         [&] { rsb_spmv(RSB_TRANSPOSITION_N, &one, R.m, x.data(), 1, &zero, yr.data(), 1); },
         yr.data(),
         {},
         {}});
#endif
    measure(v, rounds, true, calls);
    std::snprintf(title, sizeof title, "%s, 1 thread (thread CPU time, %ld calls a turn):", what,
                  calls);
    report(title, v, yh.data(), std::size_t(n));
  }
  // two threads
  {
    lz_perf::use_threads(2);
    std::vector<variant> v;
    v.push_back({"lazuli y = A * x, 2 threads", lazuli, yl.data(), {}, {}});
    v.push_back({"lazuli, lz::seq (calling thread only)",
                 [&] { lz::assign(lz::seq, lz::adopt(y1), As * xv); },
                 y1.data(),
                 {},
                 {}});
    if (strips > 1) v.push_back({strips_name, lazuli_strips, ys.data(), {}, {}});
#if LZ_HAVE_RSB
    rsb_matrix R(a);
    rsb_threads(2);
    const double one = 1, zero = 0;
    v.push_back(
        {"librsb rsb_spmv, 2 threads",
         [&] { rsb_spmv(RSB_TRANSPOSITION_N, &one, R.m, x.data(), 1, &zero, yr.data(), 1); },
         yr.data(),
         {},
         {}});
#endif
    measure(v, rounds, false, calls);
    std::snprintf(title, sizeof title,
                  "%s, 2 threads (wall time; Eigen has no threads without OpenMP):", what);
    report(title, v, yh.data(), std::size_t(n));
    std::printf("    lazuli speed-up, 2 threads over 1: %.2fx\n", median(v[1].ratio));
  }
  if (strips > 1) transposed_strips_case(what, a, Am, strips, x, rounds, calls);
}

void spmm_case(const char* what, const csr_arrays& a, int rounds) {
  constexpr index_t k = 16;
  const index_t n = a.rows;
  const std::size_t len = std::size_t(n * k);
  const auto nb = std::size_t(a.cols * k);
  std::vector<double> B(nb), Cl(len), Ch(len), Ce(len), Cr(len), C1(len);
  lz_perf::fill_uniform(B.data(), a.cols * k, 4);
  hand_spmm16(a, B.data(), Ch.data());
  // The expression, as a user writes it: one dcsrmm through the spmm rule.
  const auto As = const_cast<csr_arrays&>(a).operand();
  const auto Bv = lz::adopt(B, {a.cols, k});
  auto Cv = lz::adopt(Cl, {n, k});
  auto lazuli = [&] { Cv = As * Bv; };
  const long calls = std::max<long>(1, long(3e7 / double(a.nnz() * k)));
  char title[160];
  {
    lz_perf::use_threads(1);
    blas::set_num_threads(1);
    std::vector<variant> v;
    v.push_back({"lazuli C = A * B", lazuli, Cl.data(), {}, {}});
    v.push_back({"hand CSR loop (16 accumulators)",
                 [&] { hand_spmm16(a, B.data(), Ch.data()); },
                 Ch.data(),
                 {},
                 {}});
#if LZ_HAVE_EIGEN
    using rowmat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> Ae(
        a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data());
    Eigen::Map<const rowmat> Be(B.data(), a.cols, k);
    Eigen::Map<rowmat> Cee(Ce.data(), n, k);
    v.push_back({"Eigen C.noalias() = A * B (row-major)",
                 [&] { Cee.noalias() = Ae * Be; },
                 Ce.data(),
                 {},
                 {}});
#endif
#if LZ_HAVE_RSB
    rsb_matrix R(a);
    rsb_threads(1);
    const double one = 1, zero = 0;
    v.push_back({"librsb rsb_spmm (row-major)",
                 [&] {
                   rsb_spmm(RSB_TRANSPOSITION_N, &one, R.m, rsb_coo_idx_t(k),
                            RSB_FLAG_WANT_ROW_MAJOR_ORDER, B.data(), rsb_nnz_idx_t(k), &zero,
                            Cr.data(), rsb_nnz_idx_t(k));
                 },
                 Cr.data(),
                 {},
                 {}});
#endif
    measure(v, rounds, true, calls);
    std::snprintf(title, sizeof title, "%s, 1 thread (thread CPU time, %ld calls a turn):", what,
                  calls);
    report(title, v, Ch.data(), len);
  }
  {
    lz_perf::use_threads(2);
    std::vector<variant> v;
    v.push_back({"lazuli C = A * B, 2 threads", lazuli, Cl.data(), {}, {}});
    v.push_back({"lazuli, lz::seq (calling thread only)",
                 [&] {
                   lz::assign(lz::seq, lz::adopt(C1, {n, k}), As * Bv);
                 },
                 C1.data(),
                 {},
                 {}});
#if LZ_HAVE_RSB
    rsb_matrix R(a);
    rsb_threads(2);
    const double one = 1, zero = 0;
    v.push_back({"librsb rsb_spmm, 2 threads",
                 [&] {
                   rsb_spmm(RSB_TRANSPOSITION_N, &one, R.m, rsb_coo_idx_t(k),
                            RSB_FLAG_WANT_ROW_MAJOR_ORDER, B.data(), rsb_nnz_idx_t(k), &zero,
                            Cr.data(), rsb_nnz_idx_t(k));
                 },
                 Cr.data(),
                 {},
                 {}});
#endif
    measure(v, rounds, false, calls);
    std::snprintf(title, sizeof title,
                  "%s, 2 threads (wall time; Eigen has no threads without OpenMP):", what);
    report(title, v, Ch.data(), len);
    std::printf("    lazuli speed-up, 2 threads over 1: %.2fx\n", median(v[1].ratio));
  }
}

// A case with a sparse result (SpGEMM, sparse sums): lazuli's one call against Eigen's
// expression, and any further lazuli variants, one thread, thread CPU time; then lazuli on 2
// threads against 1 (wall time). Eigen's result is checked against lazuli's (the same entry
// count, the same sum of |values|) before anything is printed.
struct sparse_result {
  const char* what = "";
  std::string name;
  std::function<void()> lazuli;
  const lz::csr_matrix<double, int>* C = nullptr;
#if LZ_HAVE_EIGEN
  std::string eigen_name;
  std::function<void()> eigen;
  const Eigen::SparseMatrix<double, Eigen::RowMajor, int>* Ce = nullptr;
#endif
  std::vector<variant> more;
};

void sparse_result_case(sparse_result c, int rounds) {
  c.lazuli();
  const long calls = std::max<long>(1, long(2e6 / double(c.C->nnz() + 1)));
  std::vector<variant> v;
  v.push_back({c.name, c.lazuli, nullptr, {}, {}});
#if LZ_HAVE_EIGEN
  v.push_back({c.eigen_name, c.eigen, nullptr, {}, {}});
  c.eigen();
  double sl = 0, se = 0;
  for (double x : c.C->values()) sl += std::abs(x);
  for (index_t k = 0; k < c.Ce->nonZeros(); ++k) se += std::abs(c.Ce->valuePtr()[k]);
  if (c.Ce->nonZeros() != c.C->nnz() || std::abs(sl - se) > 1e-9 * se) {
    std::fprintf(stderr, "%s: lazuli and Eigen differ (nnz %td vs %td)\n", c.what, c.C->nnz(),
                 index_t(c.Ce->nonZeros()));
    std::exit(1);
  }
#endif
  for (auto& m : c.more) v.push_back(std::move(m));
  lz_perf::use_threads(1);
  measure(v, rounds, true, calls);
  std::printf("  %s, C has %td entries; 1 thread (thread CPU time, %ld calls a turn):\n", c.what,
              c.C->nnz(), calls);
  print_rows(v);
  std::vector<variant> t;
  t.push_back({"lazuli, 2 threads",
               [&] {
                 lz_perf::use_threads(2);
                 c.lazuli();
               },
               nullptr,
               {},
               {}});
  t.push_back({"lazuli, 1 thread",
               [&] {
                 lz_perf::use_threads(1);
                 c.lazuli();
               },
               nullptr,
               {},
               {}});
  measure(t, rounds, false, calls);
  std::printf("    lazuli speed-up, 2 threads over 1 (wall time): %.2fx\n", median(t[1].ratio));
}

#if LZ_HAVE_EIGEN
using eigen_csr = Eigen::SparseMatrix<double, Eigen::RowMajor, int>;
Eigen::Map<const eigen_csr> eigen_map(const csr_arrays& a) {
  return {a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}
#endif

// SpGEMM C = A * A: one dcsrgemm against Eigen's sparse product (conservative: every
// structural entry kept, as lazuli does).
void spgemm_case(const char* what, csr_arrays& a, int rounds) {
  const auto As = a.operand();
  lz::csr_matrix<double, int> C;
  sparse_result c;
  c.what = what;
  c.name = "lazuli C = A * A";
  c.lazuli = [&] { C = As * As; };
  c.C = &C;
#if LZ_HAVE_EIGEN
  const auto Ae = eigen_map(a);
  eigen_csr Ce;
  c.eigen_name = "Eigen C = A * A";
  c.eigen = [&] { Ce = Ae * Ae; };
  c.Ce = &Ce;
#endif
  sparse_result_case(std::move(c), rounds);
}

// Sparse sums over two different patterns: C = A + B (one dcsrgeam merge) against Eigen's sum,
// and C = A * A + B (ONE dcsrgemm seeded with B's rows) against Eigen's (the product into a
// temporary, then the sum) and against lazuli in two steps (T = A * A; C = T + B).
void sum_case(csr_arrays& a, csr_arrays& b, int rounds) {
  const auto As = a.operand();
  const auto Bs = b.operand();
  lz::csr_matrix<double, int> C, T;
  sparse_result add, fused;
  add.what = "Sum C = A + B (Laplacian + random 10 a row)";
  add.name = "lazuli C = A + B";
  add.lazuli = [&] { C = As + Bs; };
  add.C = &C;
  fused.what = "SpGEMM + sum C = A * A + B (Laplacian, random)";
  fused.name = "lazuli C = A * A + B";
  fused.lazuli = [&] { C = As * As + Bs; };
  fused.C = &C;
  fused.more.push_back({"lazuli T = A * A; C = T + B",
                        [&] {
                          T = As * As;
                          C = T + Bs;
                        },
                        nullptr,
                        {},
                        {}});
#if LZ_HAVE_EIGEN
  const auto Ae = eigen_map(a);
  const auto Be = eigen_map(b);
  eigen_csr Ce;
  add.eigen_name = "Eigen C = A + B";
  add.eigen = [&] { Ce = Ae + Be; };
  add.Ce = &Ce;
  fused.eigen_name = "Eigen C = A * A + B";
  fused.eigen = [&] { Ce = eigen_csr(Ae * Ae) + Be; }; // (the product into a temporary)
  fused.Ce = &Ce;
#endif
  sparse_result_case(std::move(add), rounds);
  sparse_result_case(std::move(fused), rounds);
}

// Sparse + dense M = D - 2 * A (A random, n × n, 10 a row; D and M dense row-major): lazuli's
// one loop (M = D) and one dcsradd scatter against Eigen's `Me = De - 2 * Ae` and a hand loop
// (copy, then scatter); one thread, thread CPU time. Results checked equal first.
void sparse_dense_case(index_t n, int rounds) {
  csr_arrays a = random_matrix(n, 10, 11);
  const auto As = a.operand();
  lz::matrix<double> D(n, n), M(n, n), H(n, n);
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t k = 0; k < D.size(); ++k) D.data()[k] = u(g);
  std::vector<variant> v;
  v.push_back({"lazuli M = D - 2 * A", [&] { M = D - 2 * As; }, nullptr, {}, {}});
  v.push_back({"hand loop (copy, then scatter)",
               [&] {
                 std::copy(D.data(), D.data() + D.size(), H.data());
                 for (index_t i = 0; i < n; ++i)
                   for (int p = a.row_ptr[std::size_t(i)]; p < a.row_ptr[std::size_t(i) + 1]; ++p)
                     H.data()[i * n + a.col_idx[std::size_t(p)]] -= 2 * a.values[std::size_t(p)];
               },
               nullptr,
               {},
               {}});
  for (auto& x : v) x.run();
  double worst = double(lz::max(lz::abs(M - H)));
#if LZ_HAVE_EIGEN
  using dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto Ae = eigen_map(a);
  const Eigen::Map<const dense> De(D.data(), n, n);
  dense Me(n, n);
  v.push_back({"Eigen Me = De - 2 * Ae", [&] { Me = De - 2.0 * Ae; }, nullptr, {}, {}});
  v.back().run();
  worst = std::max(worst, (Me - Eigen::Map<const dense>(M.data(), n, n)).cwiseAbs().maxCoeff());
#endif
  if (worst > 1e-12) {
    std::fprintf(stderr, "sparse + dense: results differ by %g\n", worst);
    std::exit(1);
  }
  lz_perf::use_threads(1);
  measure(v, rounds, true, 1);
  std::printf("  Sparse + dense M = D - 2 * A, %td x %td, A %td entries; 1 thread (thread CPU "
              "time):\n",
              n, n, a.nnz());
  print_rows(v);
}

// A sparse × sparse product added to a dense matrix (A, B random n × n, 10 a row; D and M dense
// row-major): lazuli's ONE dcsrmultd (the product accumulated into M's rows, no pattern formed;
// M = D + A * B writes D first) against lazuli in two steps (C = A * B, a sparse result, then
// M = D + C) and Eigen (the product into a sparse temporary, then added); one thread, thread CPU
// time. Results checked equal first.
void multd_case(index_t n, int rounds) {
  csr_arrays a = random_matrix(n, 10, 21), b = random_matrix(n, 10, 22);
  const auto As = a.operand(), Bs = b.operand();
  lz::matrix<double> D(n, n), M(n, n), M2(n, n);
  std::mt19937_64 g(6);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t k = 0; k < D.size(); ++k) D.data()[k] = u(g);
  lz::csr_matrix<double, int> C;
  for (const bool in_place : {false, true}) {
    std::vector<variant> v;
    if (in_place) {
      v.push_back({"lazuli M = M + A * B", [&] { M = M + As * Bs; }, nullptr, {}, {}});
      v.push_back(
          {"lazuli C = A * B; M = M + C", [&] { C = As * Bs, M2 = M2 + C; }, nullptr, {}, {}});
    } else {
      v.push_back({"lazuli M = D + A * B", [&] { M = D + As * Bs; }, nullptr, {}, {}});
      v.push_back(
          {"lazuli C = A * B; M = D + C", [&] { C = As * Bs, M2 = D + C; }, nullptr, {}, {}});
    }
    // Equal starting points (the in-place forms accumulate: compared after one call each).
    M = D, M2 = D;
    v[0].run(), v[1].run();
    double worst = double(lz::max(lz::abs(M - M2)));
#if LZ_HAVE_EIGEN
    using dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto Ae = eigen_map(a), Be = eigen_map(b);
    const Eigen::Map<const dense> De(D.data(), n, n);
    dense Me = De;
    if (in_place)
      v.push_back({"Eigen Me += Ae * Be", [&] { Me += Ae * Be; }, nullptr, {}, {}});
    else
      v.push_back({"Eigen Me = De + Ae * Be", [&] { Me = De + Ae * Be; }, nullptr, {}, {}});
    v.back().run();
    worst = std::max(worst, (Me - Eigen::Map<const dense>(M.data(), n, n)).cwiseAbs().maxCoeff());
#endif
    if (worst > 1e-12) {
      std::fprintf(stderr, "product + dense: results differ by %g\n", worst);
      std::exit(1);
    }
    lz_perf::use_threads(1);
    measure(v, rounds, true, 1);
    std::printf("  Sparse product + dense %s, %td x %td, A %td and B %td entries; 1 thread "
                "(thread CPU time):\n",
                in_place ? "M = M + A * B" : "M = D + A * B", n, n, a.nnz(), b.nnz());
    print_rows(v);
  }
}

// A computed sparse term inside a dense expression: y = abs(A + B) * x (A the Laplacian, B random
// 10 a row, different patterns) — lazuli runs one SpMV over the merge (dcsrsummv: the rows merged
// a block at a time, abs applied to the block, then summed against x) — against lazuli in two
// steps with a named matrix (C = abs(A + B); y = C * x: the sum formed first) and Eigen
// (`ye = (Ae + Be).cwiseAbs() * xe`: the product reads the sum's iterator, no matrix formed); one
// thread, thread CPU time. Results checked equal first.
void computed_case(csr_arrays& a, csr_arrays& b, int rounds) {
  const auto As = a.operand(), Bs = b.operand();
  const index_t n = a.rows;
  lz::vector<double> x(n), y(n), y2(n);
  std::mt19937_64 g(8);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t k = 0; k < n; ++k) x(k) = u(g);
  lz::csr_matrix<double, int> C;
  std::vector<variant> v;
  v.push_back({"lazuli y = abs(A + B) * x", [&] { y = lz::abs(As + Bs) * x; }, nullptr, {}, {}});
  v.push_back({"lazuli C = abs(A + B); y = C * x",
               [&] { C = lz::abs(As + Bs), y2 = C * x; },
               nullptr,
               {},
               {}});
  for (auto& w : v) w.run();
  double worst = double(lz::max(lz::abs(y - y2)));
#if LZ_HAVE_EIGEN
  const auto Ae = eigen_map(a), Be = eigen_map(b);
  const Eigen::Map<const Eigen::VectorXd> xe(x.data(), n);
  Eigen::VectorXd ye(n);
  v.push_back({"Eigen ye = (Ae + Be).cwiseAbs() * xe",
               [&] { ye.noalias() = (Ae + Be).cwiseAbs() * xe; },
               nullptr,
               {},
               {}});
  v.back().run();
  worst =
      std::max(worst, (ye - Eigen::Map<const Eigen::VectorXd>(y.data(), n)).cwiseAbs().maxCoeff());
#endif
  if (worst > 1e-12) {
    std::fprintf(stderr, "computed term: results differ by %g\n", worst);
    std::exit(1);
  }
  lz_perf::use_threads(1);
  measure(v, rounds, true, 1);
  std::printf("  Computed term y = abs(A + B) * x, %td rows, A %td and B %td entries; 1 thread "
              "(thread CPU time):\n",
              n, a.nnz(), b.nnz());
  print_rows(v);
  // Two threads (wall time) against the calling thread only.
  lz_perf::use_threads(2);
  std::vector<variant> t;
  t.push_back({"lazuli y = abs(A + B) * x, 2 threads", v[0].run, nullptr, {}, {}});
  t.push_back({"lazuli, lz::seq (calling thread only)",
               [&] { lz::assign(lz::seq, y, lz::abs(As + Bs) * x); },
               nullptr,
               {},
               {}});
  measure(t, rounds, false, 1);
  std::printf("  Computed term, 2 threads (wall time):\n");
  print_rows(t);
  std::printf("    lazuli speed-up, 2 threads over 1: %.2fx\n", median(t[1].ratio));
  // Times 16 columns (row-major): Y = abs(A + B) * X, one SpMM over the merge.
  constexpr index_t k = 16;
  lz::matrix<double> X(n, k), Y(n, k), Y2(n, k);
  for (index_t i = 0; i < n * k; ++i) X.data()[i] = u(g);
  std::vector<variant> w;
  w.push_back({"lazuli Y = abs(A + B) * X", [&] { Y = lz::abs(As + Bs) * X; }, nullptr, {}, {}});
  w.push_back({"lazuli C = abs(A + B); Y = C * X",
               [&] { C = lz::abs(As + Bs), Y2 = C * X; },
               nullptr,
               {},
               {}});
  for (auto& z : w) z.run();
  worst = double(lz::max(lz::abs(Y - Y2)));
#if LZ_HAVE_EIGEN
  using dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const dense> Xe(X.data(), n, k);
  dense Ye(n, k);
  w.push_back({"Eigen Ye = (Ae + Be).cwiseAbs() * Xe",
               [&] { Ye.noalias() = (Ae + Be).cwiseAbs() * Xe; },
               nullptr,
               {},
               {}});
  w.back().run();
  worst = std::max(worst, (Ye - Eigen::Map<const dense>(Y.data(), n, k)).cwiseAbs().maxCoeff());
#endif
  if (worst > 1e-12) {
    std::fprintf(stderr, "computed term times a matrix: results differ by %g\n", worst);
    std::exit(1);
  }
  lz_perf::use_threads(1);
  measure(w, rounds, true, 1);
  std::printf(
      "  Computed term times %td columns, Y = abs(A + B) * X; 1 thread (thread CPU time):\n", k);
  print_rows(w);
}

// A function of one operand's values: y = abs(A) * x and Y = abs(A) * X (16 columns) — lazuli's
// SpMV applies abs to each value as its row loop reads it, its SpMM computes abs of the values a
// block of 2048 at a time (spmv_fill: A read once, no temporary) — against the plan before them
// (ONE loop writing the nnz values into a temporary, then the product over the pattern in place:
// here t = abs(values), y = (A's pattern with t) * x) and Eigen (`ye = Ae.cwiseAbs() * xe`: the
// product reads the expression's iterator); transposed too (`abs(A)ᵀ x`: a scatter; Eigen's
// `Ae.cwiseAbs().transpose() * xe`); one thread, thread CPU time; then lazuli on 2 threads
// against lz::seq, straight and transposed, computed and stored values (wall time). Results
// checked equal first.
void values_case(const char* title, csr_arrays& a, int rounds) {
  const auto As = a.operand();
  const index_t n = a.rows;
  lz::vector<double> x(n), y(n), y2(n);
  std::mt19937_64 g(9);
  std::uniform_real_distribution<double> u(-1, 1);
  for (index_t k = 0; k < n; ++k) x(k) = u(g);
  lz::vector<double> t(a.nnz());
  const auto Ts =
      lz::adopt_csr(a.rows, a.cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(), t.data());
  constexpr index_t k = 16;
  lz::matrix<double> X(n, k), Y(n, k), Y2(n, k);
  for (index_t i = 0; i < n * k; ++i) X.data()[i] = u(g);
  std::vector<variant> v, w;
  v.push_back({"lazuli y = abs(A) * x", [&] { y = lz::abs(As) * x; }, nullptr, {}, {}});
  v.push_back({"lazuli t = abs(values); y = T * x",
               [&] { t = lz::abs(As.values()), y2 = Ts * x; },
               nullptr,
               {},
               {}});
  w.push_back({"lazuli Y = abs(A) * X", [&] { Y = lz::abs(As) * X; }, nullptr, {}, {}});
  w.push_back({"lazuli t = abs(values); Y = T * X",
               [&] { t = lz::abs(As.values()), Y2 = Ts * X; },
               nullptr,
               {},
               {}});
  // Transposed: the blocks scattered (y = abs(A)ᵀ x).
  lz::vector<double> yt(a.cols), yt2(a.cols);
  std::vector<variant> tv;
  tv.push_back(
      {"lazuli y = abs(A)ᵀ * x", [&] { yt = lz::abs(lz::transpose(As)) * x; }, nullptr, {}, {}});
  lz::vector<double> yt3(a.cols);
  tv.push_back({"lazuli y = Aᵀ * x (A's own values)",
                [&] { yt3 = lz::transpose(As) * x; },
                nullptr,
                {},
                {}});
  tv.push_back({"lazuli t = abs(values); y = Tᵀ * x",
                [&] { t = lz::abs(As.values()), yt2 = lz::transpose(Ts) * x; },
                nullptr,
                {},
                {}});
  for (auto* s : {&v, &w, &tv})
    for (auto& z : *s) z.run();
  double worst = std::max(double(lz::max(lz::abs(y - y2))), double(lz::max(lz::abs(Y - Y2))));
  worst = std::max(worst, double(lz::max(lz::abs(yt - yt2))));
#if LZ_HAVE_EIGEN
  using dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto Ae = eigen_map(a);
  const Eigen::Map<const Eigen::VectorXd> xe(x.data(), n);
  Eigen::VectorXd ye(n);
  const Eigen::Map<const dense> Xe(X.data(), n, k);
  dense Ye(n, k);
  v.push_back({"Eigen ye = Ae.cwiseAbs() * xe",
               [&] { ye.noalias() = Ae.cwiseAbs() * xe; },
               nullptr,
               {},
               {}});
  w.push_back({"Eigen Ye = Ae.cwiseAbs() * Xe",
               [&] { Ye.noalias() = Ae.cwiseAbs() * Xe; },
               nullptr,
               {},
               {}});
  Eigen::VectorXd yte(a.cols), yte2(a.cols);
  tv.push_back({"Eigen ye = Ae.transpose() * xe",
                [&] { yte2.noalias() = Ae.transpose() * xe; },
                nullptr,
                {},
                {}});
  tv.back().run();
  tv.push_back({"Eigen ye = Ae.cwiseAbs().transpose() * xe",
                [&] { yte.noalias() = Ae.cwiseAbs().transpose() * xe; },
                nullptr,
                {},
                {}});
  v.back().run(), w.back().run(), tv.back().run();
  worst = std::max(
      worst, (yte2 - Eigen::Map<const Eigen::VectorXd>(yt3.data(), a.cols)).cwiseAbs().maxCoeff());
  worst = std::max(
      worst, (yte - Eigen::Map<const Eigen::VectorXd>(yt.data(), a.cols)).cwiseAbs().maxCoeff());
  worst =
      std::max(worst, (ye - Eigen::Map<const Eigen::VectorXd>(y.data(), n)).cwiseAbs().maxCoeff());
  worst = std::max(worst, (Ye - Eigen::Map<const dense>(Y.data(), n, k)).cwiseAbs().maxCoeff());
#endif
  if (worst > 1e-12) {
    std::fprintf(stderr, "values term: results differ by %g\n", worst);
    std::exit(1);
  }
  lz_perf::use_threads(1);
  measure(v, rounds, true, 1);
  std::printf("  %s: y = abs(A) * x, %td rows, %td entries; 1 thread (thread CPU time):\n", title,
              n, a.nnz());
  print_rows(v);
  measure(w, rounds, true, 1);
  std::printf("  %s: Y = abs(A) * X, %td columns; 1 thread (thread CPU time):\n", title, k);
  print_rows(w);
  measure(tv, rounds, true, 1);
  std::printf("  %s: y = abs(A)ᵀ * x; 1 thread (thread CPU time):\n", title);
  print_rows(tv);
  // Two threads (wall time) against the calling thread only: straight, transposed (each thread
  // scatters into its range of y), transposed with the stored values.
  lz_perf::use_threads(2);
  const auto versus_seq = [&](const char* what, std::function<void()> par,
                              std::function<void()> seq) {
    std::vector<variant> two;
    two.push_back({std::string("lazuli ") + what + ", 2 threads", std::move(par), nullptr, {}, {}});
    two.push_back({"lazuli, lz::seq (calling thread only)", std::move(seq), nullptr, {}, {}});
    measure(two, rounds, false, 1);
    std::printf("  %s: %s, 2 threads (wall time):\n", title, what);
    print_rows(two);
    std::printf("    lazuli speed-up, 2 threads over 1: %.2fx\n", median(two[1].ratio));
  };
  versus_seq("y = abs(A) * x", v[0].run, [&] { lz::assign(lz::seq, y, lz::abs(As) * x); });
  versus_seq("y = abs(A)ᵀ * x", tv[0].run,
             [&] { lz::assign(lz::seq, yt, lz::abs(lz::transpose(As)) * x); });
  versus_seq("y = Aᵀ * x (A's own values)", tv[1].run,
             [&] { lz::assign(lz::seq, yt3, lz::transpose(As) * x); });
}

} // namespace

int main(int argc, char** argv) {
  const index_t s = argc > 1 ? std::atol(argv[1]) : 1000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  const int default_threads = lz::num_threads();
#if LZ_HAVE_RSB
  if (rsb_lib_init(RSB_NULL_INIT_OPTIONS) != RSB_ERR_NO_ERROR) {
    std::fprintf(stderr, "librsb: rsb_lib_init failed\n");
    return 1;
  }
  const char* rsb = "librsb";
#else
  const char* rsb = "no librsb";
#endif
  std::printf("W14 sparse products, %td rows; %s; %s; lazuli %d threads by default\n", s * s,
              lz::kernels::blas::info().c_str(), rsb, default_threads);
  const std::string only = argc > 3 ? argv[3] : "";
  const csr_arrays lap = laplacian(s);
  if (only.empty() || only == "lap") spmv_case("SpMV, 5-point Laplacian", lap, rounds);
  if (only.empty() || only == "rnd")
    spmv_case("SpMV, random, 10 a row", random_matrix(s * s, 10, 7), rounds);
  if (only.empty() || only == "mm") spmm_case("SpMM, 5-point Laplacian, 16 columns", lap, rounds);
  if (only.empty() || only == "gemm") {
    csr_arrays l = lap, r = random_matrix(s * s, 10, 7);
    spgemm_case("SpGEMM, 5-point Laplacian squared", l, rounds);
    spgemm_case("SpGEMM, random 10 a row, squared", r, rounds);
  }
  if (only.empty() || only == "dense") sparse_dense_case(3000, rounds);
  if (only.empty() || only == "multd") multd_case(3000, rounds);
  if (only.empty() || only == "sum") {
    csr_arrays l = lap, r = random_matrix(s * s, 10, 7);
    sum_case(l, r, rounds);
  }
  if (only.empty() || only == "computed") {
    csr_arrays l = lap, r = random_matrix(s * s, 10, 7);
    computed_case(l, r, rounds);
  }
  if (only.empty() || only == "values") {
    csr_arrays l = lap, r = random_matrix(s * s, 10, 7);
    values_case("Laplacian", l, rounds);
    values_case("random, 10 a row", r, rounds);
  }
#if LZ_HAVE_RSB
  rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
#endif
}
