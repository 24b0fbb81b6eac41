// LAPACK backend (see lapack.hpp): the Fortran symbols, one table per element type, workspace
// queries, recording and tracing. Character arguments pass their hidden lengths (gfortran's
// convention since GCC 8; every argument is one character).
#include "../blas/trace.hpp"

#include <lz/errors.hpp>
#include <lz/kernels/lapack/lapack.hpp>
#include <lz/memory.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <string>

namespace {
using cf = std::complex<float>;
using cd = std::complex<double>;
using len = std::size_t; // a Fortran character argument's hidden length
} // namespace

extern "C" {
#define LZ_LAPACK_COMMON(p, T, R)                                                                  \
  void p##getrf_(const int*, const int*, T*, const int*, int*, int*);                              \
  void p##getrs_(const char*, const int*, const int*, const T*, const int*, const int*, T*,        \
                 const int*, int*, len);                                                           \
  void p##getri_(const int*, T*, const int*, const int*, T*, const int*, int*);                    \
  void p##potrf_(const char*, const int*, T*, const int*, int*, len);                              \
  void p##potrs_(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*,  \
                 len);                                                                             \
  void p##trtrs_(const char*, const char*, const char*, const int*, const int*, const T*,          \
                 const int*, T*, const int*, int*, len, len, len);                                 \
  void p##gels_(const char*, const int*, const int*, const int*, T*, const int*, T*, const int*,   \
                T*, const int*, int*, len);                                                        \
  void p##geqrf_(const int*, const int*, T*, const int*, T*, T*, const int*, int*);                \
  R p##lange_(const char*, const int*, const int*, const T*, const int*, R*, len);
LZ_LAPACK_COMMON(s, float, float)
LZ_LAPACK_COMMON(d, double, double)
LZ_LAPACK_COMMON(c, cf, float)
LZ_LAPACK_COMMON(z, cd, double)
#undef LZ_LAPACK_COMMON
#define LZ_LAPACK_REAL(p, T)                                                                       \
  void p##orgqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*,     \
                 int*);                                                                            \
  void p##ormqr_(const char*, const char*, const int*, const int*, const int*, const T*,           \
                 const int*, const T*, T*, const int*, T*, const int*, int*, len, len);            \
  void p##syevd_(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*,   \
                 const int*, int*, len, len);                                                      \
  void p##gesdd_(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*,      \
                 const int*, T*, const int*, int*, int*, len);                                     \
  void p##gecon_(const char*, const int*, const T*, const int*, const T*, T*, T*, int*, int*, len);
LZ_LAPACK_REAL(s, float)
LZ_LAPACK_REAL(d, double)
#undef LZ_LAPACK_REAL
#define LZ_LAPACK_COMPLEX(p, T, R)                                                                 \
  void p##ungqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*,     \
                 int*);                                                                            \
  void p##unmqr_(const char*, const char*, const int*, const int*, const int*, const T*,           \
                 const int*, const T*, T*, const int*, T*, const int*, int*, len, len);            \
  void p##heevd_(const char*, const char*, const int*, T*, const int*, R*, T*, const int*, R*,     \
                 const int*, int*, const int*, int*, len, len);                                    \
  void p##gesdd_(const char*, const int*, const int*, T*, const int*, R*, T*, const int*, T*,      \
                 const int*, T*, const int*, R*, int*, int*, len);                                 \
  void p##gecon_(const char*, const int*, const T*, const int*, const R*, R*, T*, R*, int*, len);
LZ_LAPACK_COMPLEX(c, cf, float)
LZ_LAPACK_COMPLEX(z, cd, double)
#undef LZ_LAPACK_COMPLEX
}

namespace lz::kernels::lapack {
namespace {

template <class T>
constexpr bool is_complex_v = !std::is_arithmetic_v<T>;

// The Fortran routines of one element type, and their names as recorded.
template <class T>
struct fortran;
#define LZ_LAPACK_TABLE(p, T, R, sy, or_, orm)                                                     \
  template <>                                                                                      \
  struct fortran<T> {                                                                              \
    static constexpr auto getrf = p##getrf_;                                                       \
    static constexpr auto getrs = p##getrs_;                                                       \
    static constexpr auto getri = p##getri_;                                                       \
    static constexpr auto potrf = p##potrf_;                                                       \
    static constexpr auto potrs = p##potrs_;                                                       \
    static constexpr auto trtrs = p##trtrs_;                                                       \
    static constexpr auto gels = p##gels_;                                                         \
    static constexpr auto geqrf = p##geqrf_;                                                       \
    static constexpr auto orgqr = p##or_##_;                                                       \
    static constexpr auto ormqr = p##orm##_;                                                       \
    static constexpr auto syevd = p##sy##_;                                                        \
    static constexpr auto gesdd = p##gesdd_;                                                       \
    static constexpr auto lange = p##lange_;                                                       \
    static constexpr auto gecon = p##gecon_;                                                       \
    static constexpr const char* name_getrf = #p "getrf";                                          \
    static constexpr const char* name_getrs = #p "getrs";                                          \
    static constexpr const char* name_getri = #p "getri";                                          \
    static constexpr const char* name_potrf = #p "potrf";                                          \
    static constexpr const char* name_potrs = #p "potrs";                                          \
    static constexpr const char* name_trtrs = #p "trtrs";                                          \
    static constexpr const char* name_gels = #p "gels";                                            \
    static constexpr const char* name_geqrf = #p "geqrf";                                          \
    static constexpr const char* name_orgqr = #p #or_;                                             \
    static constexpr const char* name_ormqr = #p #orm;                                             \
    static constexpr const char* name_syevd = #p #sy;                                              \
    static constexpr const char* name_gesdd = #p "gesdd";                                          \
    static constexpr const char* name_lange = #p "lange";                                          \
    static constexpr const char* name_gecon = #p "gecon";                                          \
  };
LZ_LAPACK_TABLE(s, float, float, syevd, orgqr, ormqr)
LZ_LAPACK_TABLE(d, double, double, syevd, orgqr, ormqr)
LZ_LAPACK_TABLE(c, cf, float, heevd, ungqr, unmqr)
LZ_LAPACK_TABLE(z, cd, double, heevd, ungqr, unmqr)
#undef LZ_LAPACK_TABLE

// LAPACK's integers: 32 bits (LP64 builds). Larger sizes and leading dimensions are refused.
int to_int(index_t v, const char* routine) {
  if (v < 0 || v > INT_MAX)
    throw layout_error(std::string("lz: ") + routine + ": size or leading dimension " +
                       std::to_string(v) + " is outside LAPACK's 32-bit integers");
  return static_cast<int>(v);
}
// A leading dimension LAPACK accepts: at least max(1, rows).
int to_ld(index_t ld, index_t rows, const char* routine) {
  return to_int(std::max<index_t>({ld, rows, 1}), routine);
}
// info < 0: an argument was rejected — a bug in the caller's layout, never a numerical outcome.
void check_args(int info, const char* routine) {
  if (info < 0)
    throw layout_error(std::string("lz: ") + routine + " rejected its argument " +
                       std::to_string(-info));
}

// Workspace from lz's allocator, freed at scope exit.
template <class T>
struct workspace {
  T* p = nullptr;
  explicit workspace(std::size_t n)
      : p(static_cast<T*>(lz::detail::allocate_bytes(std::max<std::size_t>(n, 1) * sizeof(T)))) {}
  ~workspace() { lz::detail::free_bytes(p); }
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
};
// The optimal size a workspace query returned in `w` (element 0; real part for complex).
template <class T>
int query_size(const T& w) {
  if constexpr (is_complex_v<T>)
    return std::max(1, static_cast<int>(w.real()));
  else
    return std::max(1, static_cast<int>(w));
}

// Runs a routine that takes a workspace twice: a query (lwork = -1), then with the optimal size.
// `call(work, lwork)` passes both on to the routine.
template <class T, class Call>
void with_workspace(Call&& call) {
  T q{};
  const int query = -1;
  call(&q, &query);
  const int lwork = query_size(q);
  workspace<T> w{std::size_t(lwork)};
  call(w.p, &lwork);
}

blas::call make_call(const char* routine, trans t, index_t m, index_t n, index_t k, index_t lda,
                     index_t ldb, uplo u = uplo::upper) {
  blas::call c;
  c.routine = routine;
  c.o = blas::order::col_major;
  c.ta = t;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lda = lda;
  c.ldb = ldb;
  c.u = u;
  return c;
}

// Reports c, runs body, traces "routine m= n= k= lda= ldb=" under LZ_LOG=blas.
template <class T, class Body>
void run(const blas::call& c, double flops, Body&& body) {
  blas::detail::run(
      c, flops * (is_complex_v<T> ? 4.0 : 1.0), false,
      [&] {
        std::string s = std::string(c.routine) + " trans=" + blas::detail::flag(c.ta) +
                        " uplo=" + blas::detail::flag(c.u) + " " + blas::detail::arg("m", c.m) +
                        " " + blas::detail::arg("n", c.n) + " " + blas::detail::arg("nrhs", c.k) +
                        " " + blas::detail::arg("lda", c.lda) + " " +
                        blas::detail::arg("ldb", c.ldb);
        return s;
      },
      body);
}

} // namespace

template <class T>
int getrf(index_t m, index_t n, T* a, index_t lda, int* ipiv) {
  using F = fortran<T>;
  const int M = to_int(m, F::name_getrf), N = to_int(n, F::name_getrf);
  const int LDA = to_ld(lda, m, F::name_getrf);
  int info = 0;
  const double k = double(std::min(m, n));
  run<T>(make_call(F::name_getrf, trans::none, m, n, 0, lda, 0),
         double(m) * double(n) * k - (double(m) + double(n)) * k * k / 2 + k * k * k / 3, [&] {
           if (M > 0 && N > 0) F::getrf(&M, &N, a, &LDA, ipiv, &info);
         });
  check_args(info, F::name_getrf);
  return info;
}

template <class T>
void getrs(trans t, index_t n, index_t nrhs, const T* a, index_t lda, const int* ipiv, T* b,
           index_t ldb) {
  using F = fortran<T>;
  const int N = to_int(n, F::name_getrs), NRHS = to_int(nrhs, F::name_getrs);
  const int LDA = to_ld(lda, n, F::name_getrs), LDB = to_ld(ldb, n, F::name_getrs);
  const char tr = static_cast<char>(t);
  int info = 0;
  run<T>(make_call(F::name_getrs, t, n, n, nrhs, lda, ldb), 2.0 * double(n) * double(n) * nrhs,
         [&] {
           if (N > 0 && NRHS > 0) F::getrs(&tr, &N, &NRHS, a, &LDA, ipiv, b, &LDB, &info, 1);
         });
  check_args(info, F::name_getrs);
}

template <class T>
int getri(index_t n, T* a, index_t lda, const int* ipiv) {
  using F = fortran<T>;
  const int N = to_int(n, F::name_getri), LDA = to_ld(lda, n, F::name_getri);
  int info = 0;
  run<T>(make_call(F::name_getri, trans::none, n, n, 0, lda, 0),
         4.0 / 3.0 * double(n) * double(n) * double(n), [&] {
           if (N == 0) return;
           with_workspace<T>(
               [&](T* w, const int* lw) { F::getri(&N, a, &LDA, ipiv, w, lw, &info); });
         });
  check_args(info, F::name_getri);
  return info;
}

template <class T>
int potrf(uplo u, index_t n, T* a, index_t lda) {
  using F = fortran<T>;
  const int N = to_int(n, F::name_potrf), LDA = to_ld(lda, n, F::name_potrf);
  const char ul = static_cast<char>(u);
  int info = 0;
  run<T>(make_call(F::name_potrf, trans::none, n, n, 0, lda, 0, u),
         double(n) * double(n) * double(n) / 3, [&] {
           if (N > 0) F::potrf(&ul, &N, a, &LDA, &info, 1);
         });
  check_args(info, F::name_potrf);
  return info;
}

template <class T>
void potrs(uplo u, index_t n, index_t nrhs, const T* a, index_t lda, T* b, index_t ldb) {
  using F = fortran<T>;
  const int N = to_int(n, F::name_potrs), NRHS = to_int(nrhs, F::name_potrs);
  const int LDA = to_ld(lda, n, F::name_potrs), LDB = to_ld(ldb, n, F::name_potrs);
  const char ul = static_cast<char>(u);
  int info = 0;
  run<T>(make_call(F::name_potrs, trans::none, n, n, nrhs, lda, ldb, u),
         2.0 * double(n) * double(n) * nrhs, [&] {
           if (N > 0 && NRHS > 0) F::potrs(&ul, &N, &NRHS, a, &LDA, b, &LDB, &info, 1);
         });
  check_args(info, F::name_potrs);
}

template <class T>
int trtrs(uplo u, trans t, diag d, index_t n, index_t nrhs, const T* a, index_t lda, T* b,
          index_t ldb) {
  using F = fortran<T>;
  const int N = to_int(n, F::name_trtrs), NRHS = to_int(nrhs, F::name_trtrs);
  const int LDA = to_ld(lda, n, F::name_trtrs), LDB = to_ld(ldb, n, F::name_trtrs);
  const char ul = static_cast<char>(u), tr = static_cast<char>(t), dg = static_cast<char>(d);
  int info = 0;
  run<T>(make_call(F::name_trtrs, t, n, n, nrhs, lda, ldb, u), double(n) * double(n) * nrhs, [&] {
    if (N > 0 && NRHS > 0) F::trtrs(&ul, &tr, &dg, &N, &NRHS, a, &LDA, b, &LDB, &info, 1, 1, 1);
  });
  check_args(info, F::name_trtrs);
  return info;
}

template <class T>
int gels(trans t, index_t m, index_t n, index_t nrhs, T* a, index_t lda, T* b, index_t ldb) {
  using F = fortran<T>;
  const int M = to_int(m, F::name_gels), N = to_int(n, F::name_gels);
  const int NRHS = to_int(nrhs, F::name_gels), LDA = to_ld(lda, m, F::name_gels);
  const int LDB = to_ld(ldb, std::max(m, n), F::name_gels);
  const char tr = static_cast<char>(t);
  int info = 0;
  const double mn = double(std::min(m, n)), mx = double(std::max(m, n));
  run<T>(make_call(F::name_gels, t, m, n, nrhs, lda, ldb),
         2.0 * mn * mn * (mx - mn / 3) + 4.0 * mx * mn * nrhs, [&] {
           if (M == 0 || N == 0 || NRHS == 0) return;
           with_workspace<T>([&](T* w, const int* lw) {
             F::gels(&tr, &M, &N, &NRHS, a, &LDA, b, &LDB, w, lw, &info, 1);
           });
         });
  check_args(info, F::name_gels);
  return info;
}

template <class T>
void geqrf(index_t m, index_t n, T* a, index_t lda, T* tau) {
  using F = fortran<T>;
  const int M = to_int(m, F::name_geqrf), N = to_int(n, F::name_geqrf);
  const int LDA = to_ld(lda, m, F::name_geqrf);
  int info = 0;
  const double mn = double(std::min(m, n)), mx = double(std::max(m, n));
  run<T>(make_call(F::name_geqrf, trans::none, m, n, 0, lda, 0), 2.0 * mn * mn * (mx - mn / 3),
         [&] {
           if (M == 0 || N == 0) return;
           with_workspace<T>(
               [&](T* w, const int* lw) { F::geqrf(&M, &N, a, &LDA, tau, w, lw, &info); });
         });
  check_args(info, F::name_geqrf);
}

template <class T>
void orgqr(index_t m, index_t n, index_t k, T* a, index_t lda, const T* tau) {
  using F = fortran<T>;
  const int M = to_int(m, F::name_orgqr), N = to_int(n, F::name_orgqr);
  const int K = to_int(k, F::name_orgqr), LDA = to_ld(lda, m, F::name_orgqr);
  int info = 0;
  run<T>(make_call(F::name_orgqr, trans::none, m, n, k, lda, 0),
         4.0 * double(m) * double(n) * double(k), [&] {
           if (M == 0 || N == 0) return;
           with_workspace<T>(
               [&](T* w, const int* lw) { F::orgqr(&M, &N, &K, a, &LDA, tau, w, lw, &info); });
         });
  check_args(info, F::name_orgqr);
}

template <class T>
void ormqr(side s, trans t, index_t m, index_t n, index_t k, const T* a, index_t lda, const T* tau,
           T* c, index_t ldc) {
  using F = fortran<T>;
  const int M = to_int(m, F::name_ormqr), N = to_int(n, F::name_ormqr);
  const int K = to_int(k, F::name_ormqr);
  const int LDA = to_ld(lda, s == side::left ? m : n, F::name_ormqr);
  const int LDC = to_ld(ldc, m, F::name_ormqr);
  const char sd = static_cast<char>(s);
  // Real Q: its adjoint is its transpose ('T'); complex: 'C'.
  const char tr = t == trans::none ? 'N' : is_complex_v<T> ? 'C' : 'T';
  int info = 0;
  run<T>(make_call(F::name_ormqr, t, m, n, k, lda, ldc), 4.0 * double(m) * double(n) * double(k),
         [&] {
           if (M == 0 || N == 0 || K == 0) return;
           with_workspace<T>([&](T* w, const int* lw) {
             F::ormqr(&sd, &tr, &M, &N, &K, a, &LDA, tau, c, &LDC, w, lw, &info, 1, 1);
           });
         });
  check_args(info, F::name_ormqr);
}

template <class T>
int syevd(bool vectors, uplo u, index_t n, T* a, index_t lda, real_t<T>* w) {
  using F = fortran<T>;
  using R = real_t<T>;
  const int N = to_int(n, F::name_syevd), LDA = to_ld(lda, n, F::name_syevd);
  const char jobz = vectors ? 'V' : 'N', ul = static_cast<char>(u);
  int info = 0;
  run<T>(make_call(F::name_syevd, trans::none, n, n, 0, lda, 0, u),
         (vectors ? 9.0 : 4.0 / 3.0) * double(n) * double(n) * double(n), [&] {
           if (N == 0) return;
           T q{};
           int iq = 0;
           const int query = -1;
           if constexpr (is_complex_v<T>) {
             R rq{};
             F::syevd(&jobz, &ul, &N, a, &LDA, w, &q, &query, &rq, &query, &iq, &query, &info, 1,
                      1);
             const int lwork = query_size(q), lrwork = query_size(rq), liwork = std::max(1, iq);
             workspace<T> work{std::size_t(lwork)};
             workspace<R> rwork{std::size_t(lrwork)};
             workspace<int> iwork{std::size_t(liwork)};
             F::syevd(&jobz, &ul, &N, a, &LDA, w, work.p, &lwork, rwork.p, &lrwork, iwork.p,
                      &liwork, &info, 1, 1);
           } else {
             F::syevd(&jobz, &ul, &N, a, &LDA, w, &q, &query, &iq, &query, &info, 1, 1);
             const int lwork = query_size(q), liwork = std::max(1, iq);
             workspace<T> work{std::size_t(lwork)};
             workspace<int> iwork{std::size_t(liwork)};
             F::syevd(&jobz, &ul, &N, a, &LDA, w, work.p, &lwork, iwork.p, &liwork, &info, 1, 1);
           }
         });
  check_args(info, F::name_syevd);
  return info;
}

template <class T>
int gesdd(char jobz, index_t m, index_t n, T* a, index_t lda, real_t<T>* s, T* u, index_t ldu,
          T* vt, index_t ldvt) {
  using F = fortran<T>;
  using R = real_t<T>;
  const index_t mn = std::min(m, n), mx = std::max(m, n);
  const int M = to_int(m, F::name_gesdd), N = to_int(n, F::name_gesdd);
  const int LDA = to_ld(lda, m, F::name_gesdd), LDU = to_ld(ldu, m, F::name_gesdd);
  const int LDVT = to_ld(ldvt, mn, F::name_gesdd);
  int info = 0;
  run<T>(make_call(F::name_gesdd, trans::none, m, n, 0, lda, ldu),
         (jobz == 'N' ? 4.0 : 12.0) * double(mx) * double(mn) * double(mn), [&] {
           if (M == 0 || N == 0) return;
           T q{};
           const int query = -1;
           workspace<int> iwork{std::size_t(8 * mn)};
           if constexpr (is_complex_v<T>) {
             // rwork: LAPACK 3.11's bound for jobz 'N' and for 'S'.
             const std::size_t lrwork =
                 jobz == 'N'
                     ? std::size_t(7 * mn)
                     : std::size_t(std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn));
             workspace<R> rwork{lrwork};
             F::gesdd(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, &q, &query, rwork.p, iwork.p,
                      &info, 1);
             const int lwork = query_size(q);
             workspace<T> work{std::size_t(lwork)};
             F::gesdd(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, work.p, &lwork, rwork.p,
                      iwork.p, &info, 1);
           } else {
             F::gesdd(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, &q, &query, iwork.p, &info, 1);
             const int lwork = query_size(q);
             workspace<T> work{std::size_t(lwork)};
             F::gesdd(&jobz, &M, &N, a, &LDA, s, u, &LDU, vt, &LDVT, work.p, &lwork, iwork.p, &info,
                      1);
           }
         });
  check_args(info, F::name_gesdd);
  return info;
}

template <class T>
real_t<T> lange(char norm, index_t m, index_t n, const T* a, index_t lda) {
  using F = fortran<T>;
  using R = real_t<T>;
  const int M = to_int(m, F::name_lange), N = to_int(n, F::name_lange);
  const int LDA = to_ld(lda, m, F::name_lange);
  R r = 0;
  if (M == 0 || N == 0) return r;
  workspace<R> work{std::size_t(m)};
  run<T>(make_call(F::name_lange, trans::none, m, n, 0, lda, 0), double(m) * double(n),
         [&] { r = F::lange(&norm, &M, &N, a, &LDA, work.p, 1); });
  return r;
}

template <class T>
real_t<T> gecon(char norm, index_t n, const T* a, index_t lda, real_t<T> anorm) {
  using F = fortran<T>;
  using R = real_t<T>;
  const int N = to_int(n, F::name_gecon), LDA = to_ld(lda, n, F::name_gecon);
  R rcond = 0;
  int info = 0;
  if (N == 0) return R(1);
  run<T>(make_call(F::name_gecon, trans::none, n, n, 0, lda, 0), 2.0 * double(n) * double(n), [&] {
    if constexpr (is_complex_v<T>) {
      workspace<T> work{std::size_t(2 * n)};
      workspace<R> rwork{std::size_t(2 * n)};
      F::gecon(&norm, &N, a, &LDA, &anorm, &rcond, work.p, rwork.p, &info, 1);
    } else {
      workspace<T> work{std::size_t(4 * n)};
      workspace<int> iwork{std::size_t(n)};
      F::gecon(&norm, &N, a, &LDA, &anorm, &rcond, work.p, iwork.p, &info, 1);
    }
  });
  check_args(info, F::name_gecon);
  return rcond;
}

#define LZ_LAPACK_INSTANTIATE(T)                                                                   \
  template int getrf<T>(index_t, index_t, T*, index_t, int*);                                      \
  template void getrs<T>(trans, index_t, index_t, const T*, index_t, const int*, T*, index_t);     \
  template int getri<T>(index_t, T*, index_t, const int*);                                         \
  template int potrf<T>(uplo, index_t, T*, index_t);                                               \
  template void potrs<T>(uplo, index_t, index_t, const T*, index_t, T*, index_t);                  \
  template int trtrs<T>(uplo, trans, diag, index_t, index_t, const T*, index_t, T*, index_t);      \
  template int gels<T>(trans, index_t, index_t, index_t, T*, index_t, T*, index_t);                \
  template void geqrf<T>(index_t, index_t, T*, index_t, T*);                                       \
  template void orgqr<T>(index_t, index_t, index_t, T*, index_t, const T*);                        \
  template void ormqr<T>(side, trans, index_t, index_t, index_t, const T*, index_t, const T*, T*,  \
                         index_t);                                                                 \
  template int syevd<T>(bool, uplo, index_t, T*, index_t, real_t<T>*);                             \
  template int gesdd<T>(char, index_t, index_t, T*, index_t, real_t<T>*, T*, index_t, T*,          \
                        index_t);                                                                  \
  template real_t<T> lange<T>(char, index_t, index_t, const T*, index_t);                          \
  template real_t<T> gecon<T>(char, index_t, const T*, index_t, real_t<T>);
LZ_LAPACK_INSTANTIATE(float)
LZ_LAPACK_INSTANTIATE(double)
LZ_LAPACK_INSTANTIATE(cf)
LZ_LAPACK_INSTANTIATE(cd)
#undef LZ_LAPACK_INSTANTIATE

} // namespace lz::kernels::lapack
