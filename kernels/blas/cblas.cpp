// BLAS backend over CBLAS (OpenBLAS, or the CBLAS that LZ_BLAS names: BLIS, FlexiBLAS, ...):
// gemm, syrk, gemv, axpy, scal, dot for the types BLAS has. The only translation unit of the
// kernels library that includes <cblas.h>. Plan steps reach it through blas.hpp; each
// wrapper reports to the recorder, traces under LZ_LOG=blas, and turns every call a valid
// lazuli layout can produce into one OpenBLAS accepts (see the contract in blas.hpp).
#include "trace.hpp"

#include <lz/errors.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <cblas.h>
#if !defined(LZ_BLAS_OPENBLAS)
#include <dlfcn.h>
#endif

#include <algorithm>
#include <cctype>
#include <climits>
#include <complex>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace lz::kernels::blas {
namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;

template <class T>
constexpr bool is_complex_v = !std::is_arithmetic_v<T>;

// Routine names: the BLAS letter for the type (type_letter, blas.hpp), then the operation.
template <class T>
struct names {
  static constexpr char gemm[] = {type_letter<T>(), 'g', 'e', 'm', 'm', 0};
  static constexpr char gemv[] = {type_letter<T>(), 'g', 'e', 'm', 'v', 0};
  static constexpr char syrk[] = {type_letter<T>(), 's', 'y', 'r', 'k', 0};
  static constexpr char axpy[] = {type_letter<T>(), 'a', 'x', 'p', 'y', 0};
  static constexpr char scal[] = {type_letter<T>(), 's', 'c', 'a', 'l', 0};
  static constexpr char dot[] = {type_letter<T>(), 'd', 'o', 't', 0};
};

double real_part(float v) { return v; }
double real_part(double v) { return v; }
double real_part(cf v) { return v.real(); }
double real_part(cd v) { return v.real(); }
template <class T>
std::string value_arg(const char* name, T v) {
  if constexpr (is_complex_v<T>)
    return detail::arg(name, cd(v.real(), v.imag()));
  else
    return detail::arg(name, static_cast<double>(v));
}
// Flops of one multiply-add: 2 for real types, 8 for complex (4 mul + 4 add).
template <class T>
constexpr double madd_flops() {
  return is_complex_v<T> ? 8.0 : 2.0;
}

CBLAS_ORDER to_cblas(order o) { return o == order::row_major ? CblasRowMajor : CblasColMajor; }
CBLAS_UPLO to_cblas(uplo u) { return u == uplo::upper ? CblasUpper : CblasLower; }
// For real types a conjugate transpose is a transpose; CBLAS accepts both, we send the plain one.
template <class T>
CBLAS_TRANSPOSE to_cblas(trans t) {
  if (t == trans::none) return CblasNoTrans;
  if (t == trans::transpose || !is_complex_v<T>) return CblasTrans;
  return CblasConjTrans;
}

// The integer type this CBLAS takes for sizes (OpenBLAS's blasint, BLIS's f77_int, int): read off
// cblas_sdot's first parameter, so any CBLAS header works.
template <class R, class I, class... A>
I first_parameter(R (*)(I, A...));
using blas_int = decltype(first_parameter(&cblas_sdot));

// Every size, leading dimension and increment must fit in that type (32 bits for LP64 builds).
// The tests inline, the messages out of line: a call's checks are a few compares (a 100-element
// dot spent ~150 instructions in them when each check was a call with its string code).
[[noreturn]] LZ_NOINLINE void throw_too_wide(index_t v, const char* routine, const char* what) {
  throw layout_error(std::string(routine) + ": " + what + " = " + std::to_string(v) +
                     " exceeds the " + std::to_string(8 * sizeof(blas_int)) +
                     "-bit integers the CBLAS takes");
}
LZ_INLINE blas_int to_int(index_t v, const char* routine, const char* what) {
  constexpr index_t most = index_t(std::numeric_limits<blas_int>::max());
  if (LZ_UNLIKELY(v > most || v < -most)) throw_too_wide(v, routine, what);
  return static_cast<blas_int>(v);
}

[[noreturn]] LZ_NOINLINE void throw_negative_size(const char* routine, index_t s) {
  throw shape_error(std::string(routine) + ": negative size " + std::to_string(s));
}
LZ_INLINE void check_sizes(const char* routine, std::initializer_list<index_t> sizes) {
  for (index_t s : sizes)
    if (LZ_UNLIKELY(s < 0)) throw_negative_size(routine, s);
}

// Leading dimension of a matrix stored as `outer` lines of `inner` elements. BLAS demands
// ld >= max(1, inner) even when it never uses ld (outer <= 1, or an empty matrix); lazuli's
// layouts may carry any stride there, so an unused ld is replaced. A used ld that is too small
// would make lines overlap: that layout is not a BLAS layout.
blas_int fix_ld(index_t ld, index_t outer, index_t inner, const char* routine, const char* what) {
  const index_t need = std::max<index_t>(1, inner);
  if (outer <= 1 || inner == 0) return to_int(std::max(ld, need), routine, what);
  if (ld < need)
    throw layout_error(std::string(routine) + ": " + what + " = " + std::to_string(ld) +
                       " is smaller than the " + std::to_string(inner) +
                       " elements of a stored line");
  return to_int(ld, routine, what);
}

// A strided input vector in BLAS's convention: pointer at the lowest address, non-zero inc.
// A broadcast (inc == 0) of more than one element is copied into `tmp` (O(n), next to the
// O(n) or O(mn) work of the call).
template <class T>
struct vec_arg {
  const T* p;
  blas_int inc;
};
template <class T>
LZ_NOINLINE vec_arg<T> broadcast_vec(const T* x, index_t n, std::vector<T>& tmp) {
  tmp.assign(static_cast<std::size_t>(n), x[0]);
  return {tmp.data(), 1};
}
template <class T>
LZ_INLINE vec_arg<T> input_vec(const T* x, index_t n, index_t inc, std::vector<T>& tmp,
                               const char* routine, const char* what) {
  if (n <= 1) return {x, 1};
  if (LZ_UNLIKELY(inc == 0)) return broadcast_vec(x, n, tmp);
  const blas_int i = to_int(inc, routine, what);
  return {inc < 0 ? x + (n - 1) * inc : x, i};
}
template <class T>
T* output_vec(T* y, index_t n, index_t& inc, const char* routine, const char* what) {
  if (n <= 1) {
    inc = 1;
    return y;
  }
  if (inc == 0)
    throw layout_error(std::string(routine) + ": " + what +
                       " = 0 on an output of several elements (they would overlap)");
  to_int(inc, routine, what);
  return inc < 0 ? y + (n - 1) * inc : y;
}

// y = beta·y over a strided vector (lazuli's pointer convention), beta == 0 writes zeros.
template <class T>
void scale_vec(index_t n, T beta, T* y, index_t inc) {
  if (beta == T(1)) return;
  for (index_t i = 0; i < n; ++i) y[i * inc] = beta == T(0) ? T(0) : beta * y[i * inc];
}

// C = beta·C for an m×n matrix in order o with leading dimension ldc; beta == 0 writes zeros.
template <class T>
void scale_mat(order o, index_t m, index_t n, T beta, T* C, index_t ldc) {
  if (beta == T(1)) return;
  const index_t outer = o == order::row_major ? m : n, inner = o == order::row_major ? n : m;
  for (index_t r = 0; r < outer; ++r) {
    T* line = C + r * ldc;
    if (beta == T(0))
      std::fill(line, line + inner, T(0));
    else
      for (index_t i = 0; i < inner; ++i) line[i] *= beta;
  }
}

// ---- CBLAS entry points per type ----------------------------------------------------------
void cblas_gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE a, CBLAS_TRANSPOSE b, blas_int m, blas_int n,
                blas_int k, float alpha, const float* A, blas_int lda, const float* B, blas_int ldb,
                float beta, float* C, blas_int ldc) {
  cblas_sgemm(o, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void cblas_gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE a, CBLAS_TRANSPOSE b, blas_int m, blas_int n,
                blas_int k, double alpha, const double* A, blas_int lda, const double* B,
                blas_int ldb, double beta, double* C, blas_int ldc) {
  cblas_dgemm(o, a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void cblas_gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE a, CBLAS_TRANSPOSE b, blas_int m, blas_int n,
                blas_int k, cf alpha, const cf* A, blas_int lda, const cf* B, blas_int ldb, cf beta,
                cf* C, blas_int ldc) {
  cblas_cgemm(o, a, b, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
void cblas_gemm(CBLAS_ORDER o, CBLAS_TRANSPOSE a, CBLAS_TRANSPOSE b, blas_int m, blas_int n,
                blas_int k, cd alpha, const cd* A, blas_int lda, const cd* B, blas_int ldb, cd beta,
                cd* C, blas_int ldc) {
  cblas_zgemm(o, a, b, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

void cblas_gemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blas_int m, blas_int n, float alpha,
                const float* A, blas_int lda, const float* x, blas_int incx, float beta, float* y,
                blas_int incy) {
  cblas_sgemv(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void cblas_gemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blas_int m, blas_int n, double alpha,
                const double* A, blas_int lda, const double* x, blas_int incx, double beta,
                double* y, blas_int incy) {
  cblas_dgemv(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void cblas_gemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blas_int m, blas_int n, cf alpha, const cf* A,
                blas_int lda, const cf* x, blas_int incx, cf beta, cf* y, blas_int incy) {
  cblas_cgemv(o, t, m, n, &alpha, A, lda, x, incx, &beta, y, incy);
}
void cblas_gemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blas_int m, blas_int n, cd alpha, const cd* A,
                blas_int lda, const cd* x, blas_int incx, cd beta, cd* y, blas_int incy) {
  cblas_zgemv(o, t, m, n, &alpha, A, lda, x, incx, &beta, y, incy);
}

void cblas_syrk(CBLAS_ORDER o, CBLAS_UPLO u, CBLAS_TRANSPOSE t, blas_int n, blas_int k, float alpha,
                const float* A, blas_int lda, float beta, float* C, blas_int ldc) {
  cblas_ssyrk(o, u, t, n, k, alpha, A, lda, beta, C, ldc);
}
void cblas_syrk(CBLAS_ORDER o, CBLAS_UPLO u, CBLAS_TRANSPOSE t, blas_int n, blas_int k,
                double alpha, const double* A, blas_int lda, double beta, double* C, blas_int ldc) {
  cblas_dsyrk(o, u, t, n, k, alpha, A, lda, beta, C, ldc);
}

// ---- generic bodies ---------------------------------------------------------------------
template <class T>
void gemm_impl(order o, trans ta, trans tb, index_t m, index_t n, index_t k, T alpha, const T* A,
               index_t lda, const T* B, index_t ldb, T beta, T* C, index_t ldc) {
  const char* name = names<T>::gemm;
  const call c{name, o, ta, tb, m, n, k, real_part(alpha), real_part(beta), lda, ldb, ldc};
  auto describe = [&] {
    return std::string(name) + "(" + detail::flag(o) + ", " + detail::flag(ta) + ", " +
           detail::flag(tb) + ", " + detail::arg("m", m) + ", " + detail::arg("n", n) + ", " +
           detail::arg("k", k) + ", " + value_arg("alpha", alpha) + ", " + detail::arg("lda", lda) +
           ", " + detail::arg("ldb", ldb) + ", " + value_arg("beta", beta) + ", " +
           detail::arg("ldc", ldc) + ")";
  };
  const double ops = madd_flops<T>() * double(m) * double(n) * double(k);
  detail::run(c, ops, false, describe, [&] {
    check_sizes(name, {m, n, k});
    if (m == 0 || n == 0) return;
    const bool row = o == order::row_major;
    const blas_int ldc_ = fix_ld(ldc, row ? m : n, row ? n : m, name, "ldc");
    if (k == 0 || alpha == T(0)) { // BLAS's own quick path, done here so beta == 0 never reads
      scale_mat(o, m, n, beta, C, ldc_);
      return;
    }
    // op(A) is m×k: stored m×k (N) or k×m (T, C); op(B) is k×n: stored k×n or n×k.
    const index_t ar = ta == trans::none ? m : k, ac = ta == trans::none ? k : m;
    const index_t br = tb == trans::none ? k : n, bc = tb == trans::none ? n : k;
    const blas_int lda_ = fix_ld(lda, row ? ar : ac, row ? ac : ar, name, "lda");
    const blas_int ldb_ = fix_ld(ldb, row ? br : bc, row ? bc : br, name, "ldb");
    cblas_gemm(to_cblas(o), to_cblas<T>(ta), to_cblas<T>(tb), to_int(m, name, "m"),
               to_int(n, name, "n"), to_int(k, name, "k"), alpha, A, lda_, B, ldb_, beta, C, ldc_);
  });
}

// Copies the written triangle of the n×n matrix C onto the other one, in 32×32 tiles so the
// transposed reads stay in L1.
template <class T>
void mirror(order o, uplo u, index_t n, T* C, index_t ldc) {
  // (i, j) with i < j lies in the upper triangle; in column-major storage it is (j, i) of the
  // row-major view, so storage order just swaps which triangle is the source.
  const bool src_upper = (u == uplo::upper) == (o == order::row_major);
  constexpr index_t tile = 32;
  for (index_t i0 = 0; i0 < n; i0 += tile)
    for (index_t j0 = i0; j0 < n; j0 += tile) {
      const index_t i1 = std::min(n, i0 + tile), j1 = std::min(n, j0 + tile);
      for (index_t i = i0; i < i1; ++i)
        for (index_t j = std::max(j0, i + 1); j < j1; ++j) {
          // Row-major view: element (r, s) at C[r*ldc + s].
          if (src_upper)
            C[j * ldc + i] = C[i * ldc + j];
          else
            C[i * ldc + j] = C[j * ldc + i];
        }
    }
}

template <class T>
void syrk_impl(order o, uplo u, trans t, index_t n, index_t k, T alpha, const T* A, index_t lda,
               T beta, T* C, index_t ldc) {
  const char* name = names<T>::syrk;
  call c{name, o, t, trans::none, n, n, k, real_part(alpha), real_part(beta), lda, 0, ldc};
  c.u = u;
  auto describe = [&] {
    return std::string(name) + "(" + detail::flag(o) + ", " + detail::flag(u) + ", " +
           detail::flag(t) + ", " + detail::arg("n", n) + ", " + detail::arg("k", k) + ", " +
           value_arg("alpha", alpha) + ", " + detail::arg("lda", lda) + ", " +
           value_arg("beta", beta) + ", " + detail::arg("ldc", ldc) + ")";
  };
  const double ops = double(n) * double(n + 1) * double(k); // the triangle BLAS computes
  detail::run(c, ops, false, describe, [&] {
    check_sizes(name, {n, k});
    if (n == 0) return;
    const blas_int ldc_ = fix_ld(ldc, n, n, name, "ldc");
    if (k == 0 || alpha == T(0)) {
      scale_mat(o, n, n, beta, C, ldc_); // the whole matrix: it is symmetric afterwards anyway
      return;
    }
    const bool row = o == order::row_major;
    // op(A) is n×k: stored n×k (N) or k×n (T).
    const index_t ar = t == trans::none ? n : k, ac = t == trans::none ? k : n;
    const blas_int lda_ = fix_ld(lda, row ? ar : ac, row ? ac : ar, name, "lda");
    cblas_syrk(to_cblas(o), to_cblas(u), to_cblas<T>(t), to_int(n, name, "n"), to_int(k, name, "k"),
               alpha, A, lda_, beta, C, ldc_);
    mirror(o, u, n, C, ldc_);
  });
}

template <class T>
void gemv_impl(order o, trans t, index_t m, index_t n, T alpha, const T* A, index_t lda, const T* x,
               index_t incx, T beta, T* y, index_t incy) {
  const char* name = names<T>::gemv;
  const call c{name, o,    t,   trans::none, m, n, 0, real_part(alpha), real_part(beta),
               lda,  incx, incy};
  auto describe = [&] {
    return std::string(name) + "(" + detail::flag(o) + ", " + detail::flag(t) + ", " +
           detail::arg("m", m) + ", " + detail::arg("n", n) + ", " + value_arg("alpha", alpha) +
           ", " + detail::arg("lda", lda) + ", " + detail::arg("incx", incx) + ", " +
           value_arg("beta", beta) + ", " + detail::arg("incy", incy) + ")";
  };
  const double ops = madd_flops<T>() * double(m) * double(n);
  detail::run(c, ops, false, describe, [&] {
    check_sizes(name, {m, n});
    const index_t ylen = t == trans::none ? m : n, xlen = t == trans::none ? n : m;
    if (ylen == 0) return;
    index_t incy_ = incy;
    T* yb = output_vec(y, ylen, incy_, name, "incy");
    if (xlen == 0 || alpha == T(0)) {
      scale_vec(ylen, beta, y, incy_);
      return;
    }
    // beta == 0: zero y here (O(len y)) so no BLAS version can let a NaN in y through.
    if (beta == T(0)) scale_vec(ylen, T(0), y, incy_);
    std::vector<T> tmp;
    const vec_arg<T> xv = input_vec(x, xlen, incx, tmp, name, "incx");
    const bool row = o == order::row_major;
    const blas_int lda_ = fix_ld(lda, row ? m : n, row ? n : m, name, "lda");
    cblas_gemv(to_cblas(o), to_cblas<T>(t), to_int(m, name, "m"), to_int(n, name, "n"), alpha, A,
               lda_, xv.p, xv.inc, beta, yb, static_cast<blas_int>(incy_));
  });
}

template <class T>
std::string vec_describe(const char* name, index_t n, const T* alpha, index_t incx,
                         const index_t* incy) {
  std::string s = std::string(name) + "(" + detail::arg("n", n);
  if (alpha) s += ", " + value_arg("alpha", *alpha);
  s += ", " + detail::arg("incx", incx);
  if (incy) s += ", " + detail::arg("incy", *incy);
  return s + ")";
}

template <class T>
void axpy_impl(index_t n, T alpha, const T* x, index_t incx, T* y, index_t incy) {
  const char* name = names<T>::axpy;
  const call c{name, order::row_major, trans::none, trans::none, 0,    n,
               0,    real_part(alpha), 0,           incx,        incy, 0};
  detail::run(
      c, 2.0 * double(n), false, [&] { return vec_describe(name, n, &alpha, incx, &incy); },
      [&] {
        check_sizes(name, {n});
        if (n == 0 || alpha == T(0)) return;
        index_t incy_ = incy;
        T* yb = output_vec(y, n, incy_, name, "incy");
        std::vector<T> tmp;
        const vec_arg<T> xv = input_vec(x, n, incx, tmp, name, "incx");
        if constexpr (std::is_same_v<T, float>)
          cblas_saxpy(to_int(n, name, "n"), alpha, xv.p, xv.inc, yb, blas_int(incy_));
        else
          cblas_daxpy(to_int(n, name, "n"), alpha, xv.p, xv.inc, yb, blas_int(incy_));
      });
}

template <class T>
void scal_impl(index_t n, T alpha, T* x, index_t incx) {
  const char* name = names<T>::scal;
  const call c{name, order::row_major, trans::none, trans::none, 0, n,
               0,    real_part(alpha), 0,           incx,        0, 0};
  detail::run(
      c, double(n), false, [&] { return vec_describe<T>(name, n, &alpha, incx, nullptr); },
      [&] {
        check_sizes(name, {n});
        if (n == 0) return;
        index_t inc = incx;
        T* xb = output_vec(x, n, inc, name, "incx");
        // BLAS scal ignores a negative increment (quick return); the order of a scaling does
        // not matter, so walk up from the lowest address instead.
        if constexpr (std::is_same_v<T, float>)
          cblas_sscal(to_int(n, name, "n"), alpha, xb, blas_int(inc < 0 ? -inc : inc));
        else
          cblas_dscal(to_int(n, name, "n"), alpha, xb, blas_int(inc < 0 ? -inc : inc));
      });
}

template <class T>
T dot_impl(index_t n, const T* x, index_t incx, const T* y, index_t incy) {
  const char* name = names<T>::dot;
  const call c{name, order::row_major, trans::none, trans::none, 0, n, 0, 0, 0, incx, incy, 0};
  T r = 0;
  detail::run(
      c, 2.0 * double(n), false, [&] { return vec_describe<T>(name, n, nullptr, incx, &incy); },
      [&] {
        check_sizes(name, {n});
        if (n == 0) return;
        std::vector<T> tx, ty;
        const vec_arg<T> xv = input_vec(x, n, incx, tx, name, "incx");
        const vec_arg<T> yv = input_vec(y, n, incy, ty, name, "incy");
        if constexpr (std::is_same_v<T, float>)
          r = cblas_sdot(to_int(n, name, "n"), xv.p, xv.inc, yv.p, yv.inc);
        else
          r = cblas_ddot(to_int(n, name, "n"), xv.p, xv.inc, yv.p, yv.inc);
      });
  return r;
}

} // namespace

// ---- public wrappers ------------------------------------------------------------------------
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha, const float* A,
          index_t lda, const float* B, index_t ldb, float beta, float* C, index_t ldc) {
  gemm_impl(o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  gemm_impl(o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, cf alpha, const cf* A,
          index_t lda, const cf* B, index_t ldb, cf beta, cf* C, index_t ldc) {
  gemm_impl(o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, cd alpha, const cd* A,
          index_t lda, const cd* B, index_t ldb, cd beta, cd* C, index_t ldc) {
  gemm_impl(o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void syrk(order o, uplo u, trans t, index_t n, index_t k, float alpha, const float* A, index_t lda,
          float beta, float* C, index_t ldc) {
  syrk_impl(o, u, t, n, k, alpha, A, lda, beta, C, ldc);
}
void syrk(order o, uplo u, trans t, index_t n, index_t k, double alpha, const double* A,
          index_t lda, double beta, double* C, index_t ldc) {
  syrk_impl(o, u, t, n, k, alpha, A, lda, beta, C, ldc);
}

void gemv(order o, trans t, index_t m, index_t n, float alpha, const float* A, index_t lda,
          const float* x, index_t incx, float beta, float* y, index_t incy) {
  gemv_impl(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void gemv(order o, trans t, index_t m, index_t n, double alpha, const double* A, index_t lda,
          const double* x, index_t incx, double beta, double* y, index_t incy) {
  gemv_impl(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void gemv(order o, trans t, index_t m, index_t n, cf alpha, const cf* A, index_t lda, const cf* x,
          index_t incx, cf beta, cf* y, index_t incy) {
  gemv_impl(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void gemv(order o, trans t, index_t m, index_t n, cd alpha, const cd* A, index_t lda, const cd* x,
          index_t incx, cd beta, cd* y, index_t incy) {
  gemv_impl(o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

void axpy(index_t n, float alpha, const float* x, index_t incx, float* y, index_t incy) {
  axpy_impl(n, alpha, x, incx, y, incy);
}
void axpy(index_t n, double alpha, const double* x, index_t incx, double* y, index_t incy) {
  axpy_impl(n, alpha, x, incx, y, incy);
}
void scal(index_t n, float alpha, float* x, index_t incx) { scal_impl(n, alpha, x, incx); }
void scal(index_t n, double alpha, double* x, index_t incx) { scal_impl(n, alpha, x, incx); }
float dot(index_t n, const float* x, index_t incx, const float* y, index_t incy) {
  return dot_impl(n, x, incx, y, incy);
}
double dot(index_t n, const double* x, index_t incx, const double* y, index_t incy) {
  return dot_impl(n, x, incx, y, incy);
}

// ---- information -----------------------------------------------------------------------------
int integer_bits() noexcept { return int(8 * sizeof(blas_int)); }

isa cpu_isa() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // AVX-512 as OpenBLAS's SkylakeX kernels use it: F, BW, VL and DQ (not Knights Landing's).
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return isa::avx2;
  if (__builtin_cpu_supports("avx")) return isa::avx;
#endif
  return isa::sse;
}

isa core_isa(const std::string& core) noexcept {
  for (const char* c : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    if (core == c) return isa::avx512;
  for (const char* c : {"Haswell", "Zen"})
    if (core == c) return isa::avx2;
  for (const char* c : {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller", "Excavator"})
    if (core == c) return isa::avx;
  return isa::sse;
}

std::string narrower_core_warning(const std::string& core, isa cpu) {
  static const char* const width[] = {"SSE", "AVX", "AVX2", "AVX-512"};
  static const char* const coretype[] = {"", "Sandybridge", "Haswell", "SkylakeX"};
  const isa k = core_isa(core);
  if (k >= cpu) return "";
  return std::string("warning: OpenBLAS runs its ") + core + " kernels (" + width[int(k)] +
         ") on a CPU with " + width[int(cpu)] + ": products may run up to 4x slower; set " +
         "OPENBLAS_CORETYPE=" + coretype[int(cpu)] +
         " before the program starts (docs/performance.md, section 4)";
}

std::string better_core(const std::string& detected, isa cpu, const char* user_choice) {
  static const char* const coretype[] = {"", "Sandybridge", "Haswell", "SkylakeX"};
  if (user_choice || core_isa(detected) >= cpu) return "";
  return coretype[int(cpu)];
}

#if defined(LZ_BLAS_OPENBLAS)
// OpenBLAS built with DYNAMIC_ARCH (Debian's is) picks its kernels when it loads, from the CPUs
// it knows: a newer one (a 5th-generation Xeon for 0.3.21) gets its Prescott (SSE3) kernels, up
// to 4x slower. Its dispatch can be redone: gotoblas_dynamic_quit drops the choice and
// gotoblas_dynamic_init makes it again, reading OPENBLAS_CORETYPE. Weak: an OpenBLAS built for
// one core has neither, and nothing is switched.
extern "C" void gotoblas_dynamic_init(void) __attribute__((weak));
extern "C" void gotoblas_dynamic_quit(void) __attribute__((weak));

namespace {
std::string g_core_origin = "detected by OpenBLAS";
// At start-up (before any product runs): the CPU's width when OpenBLAS picked narrower kernels
// and the user set no OPENBLAS_CORETYPE (docs/performance.md, section 4).
const bool g_core_checked = [] {
  if (std::getenv("OPENBLAS_CORETYPE")) {
    g_core_origin = "OPENBLAS_CORETYPE";
    return true;
  }
  const std::string detected = openblas_get_corename();
  const std::string to = better_core(detected, cpu_isa(), nullptr);
  if (!to.empty() && select_core(to))
    g_core_origin = "chosen by lazuli: OpenBLAS detected " + detected +
                    ", narrower than this CPU (OPENBLAS_CORETYPE=" + detected + " keeps it)";
  return true;
}();
} // namespace

bool select_core(const std::string& core) {
  if (!gotoblas_dynamic_init || !gotoblas_dynamic_quit) return false;
  const char* prev = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = prev ? prev : "";
  ::setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  if (prev)
    ::setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
  else
    ::unsetenv("OPENBLAS_CORETYPE");
  const std::string now = openblas_get_corename();
  return std::equal(now.begin(), now.end(), core.begin(), core.end(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); });
}

std::string core_origin() { return g_core_origin; }

std::string core_warning() {
  (void)g_core_checked;
  return narrower_core_warning(openblas_get_corename(), cpu_isa());
}

std::string info() {
  // openblas_get_config() reads like "OpenBLAS 0.3.21 NO_AFFINITY Haswell MAX_THREADS=64": the
  // first two words are library and version.
  std::string config = openblas_get_config();
  std::size_t end = config.find(' ');
  if (end != std::string::npos) end = config.find(' ', end + 1);
  const std::string lib = config.substr(0, end);
  const int par = openblas_get_parallel(); // 0 sequential, 1 pthreads, 2 OpenMP
  const char* model = par == 0 ? "sequential" : par == 1 ? "pthread" : "openmp";
  const int threads = openblas_get_num_threads();
  return lib + " (core " + openblas_get_corename() + ", " + std::to_string(threads) +
         (threads == 1 ? " thread, " : " threads, ") + model + ")";
}

void set_num_threads(int n) {
  if (n <= 0) n = openblas_get_num_procs();
  openblas_set_num_threads(n);
}
#else
// Another CBLAS: its name (LZ_BLAS) and the file that provides cblas_dgemm in this process. Its
// threads are its own (BLIS_NUM_THREADS, FLEXIBLAS_NUM_THREADS, ...): no CBLAS call sets them.
std::string info() {
  std::string where = "?";
  Dl_info d{};
  if (dladdr(reinterpret_cast<void*>(&cblas_dgemm), &d) && d.dli_fname) where = d.dli_fname;
  return std::string("CBLAS ") + LZ_BLAS_NAME + " (" + where +
         "; threads set by the library's own environment variable)";
}

void set_num_threads(int) {}
std::string core_warning() { return ""; }
bool select_core(const std::string&) { return false; }
std::string core_origin() { return "not OpenBLAS"; }
#endif

} // namespace lz::kernels::blas
