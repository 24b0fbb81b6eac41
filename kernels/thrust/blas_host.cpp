// Device BLAS on the host system: the interface of kernels/include/lz/kernels/cuda/blas.hpp over
// CBLAS, because the host system's "device" memory is host memory. Lets the device plan steps the
// fusion pass emits run (and be tested) on every machine; kernels/cuda/blas.cpp is the GPU one.
#include <lz/errors.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/log.hpp>

#include <cblas.h>

#include <climits>
#include <string>
#include <type_traits>

namespace lz::kernels::dev::blas {
inline namespace LZ_DEVICE_ABI {
namespace {

int to_int(index_t v, const char* what) {
  if (v > INT_MAX || v < INT_MIN)
    throw device_error(std::string("lz: ") + what + " = " + std::to_string(v) +
                           " exceeds CBLAS's int on the host system",
                       0, "");
  return int(v);
}
CBLAS_ORDER order_of(order o) { return o == order::row_major ? CblasRowMajor : CblasColMajor; }
CBLAS_TRANSPOSE trans_of(trans t) { return t == trans::none ? CblasNoTrans : CblasTrans; }
template <class T>
T* first_in_memory(T* p, index_t n, index_t inc) {
  return inc < 0 && n > 0 ? p + (n - 1) * inc : p;
}
template <class T>
std::string name(const char* op) {
  return (std::is_same_v<T, float> ? "s" : "d") + std::string(op);
}
template <class T>
void note(const char* op, order o, trans ta, trans tb, index_t m, index_t n, index_t k, index_t lda,
          index_t ldb, index_t ldc, T alpha, T beta) {
  record({name<T>(op), o, ta, tb, m, n, k, lda, ldb, ldc, double(alpha), double(beta)});
}

} // namespace

void gemm(void*, order o, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
          const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
          index_t ldc) {
  note("gemm", o, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta);
  cblas_sgemm(order_of(o), trans_of(ta), trans_of(tb), to_int(m, "m"), to_int(n, "n"),
              to_int(k, "k"), alpha, A, to_int(lda, "lda"), B, to_int(ldb, "ldb"), beta, C,
              to_int(ldc, "ldc"));
}
void gemm(void*, order o, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  note("gemm", o, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta);
  cblas_dgemm(order_of(o), trans_of(ta), trans_of(tb), to_int(m, "m"), to_int(n, "n"),
              to_int(k, "k"), alpha, A, to_int(lda, "lda"), B, to_int(ldb, "ldb"), beta, C,
              to_int(ldc, "ldc"));
}
void gemv(void*, order o, trans t, index_t m, index_t n, float alpha, const float* A, index_t lda,
          const float* x, index_t incx, float beta, float* y, index_t incy) {
  note("gemv", o, t, trans::none, m, n, 0, lda, incx, incy, alpha, beta);
  const index_t nx = t == trans::none ? n : m, ny = t == trans::none ? m : n;
  cblas_sgemv(order_of(o), trans_of(t), to_int(m, "m"), to_int(n, "n"), alpha, A,
              to_int(lda, "lda"), first_in_memory(x, nx, incx), to_int(incx, "incx"), beta,
              first_in_memory(y, ny, incy), to_int(incy, "incy"));
}
void gemv(void*, order o, trans t, index_t m, index_t n, double alpha, const double* A, index_t lda,
          const double* x, index_t incx, double beta, double* y, index_t incy) {
  note("gemv", o, t, trans::none, m, n, 0, lda, incx, incy, alpha, beta);
  const index_t nx = t == trans::none ? n : m, ny = t == trans::none ? m : n;
  cblas_dgemv(order_of(o), trans_of(t), to_int(m, "m"), to_int(n, "n"), alpha, A,
              to_int(lda, "lda"), first_in_memory(x, nx, incx), to_int(incx, "incx"), beta,
              first_in_memory(y, ny, incy), to_int(incy, "incy"));
}
void scal(void*, index_t n, float alpha, float* x, index_t incx) {
  note("scal", order::row_major, trans::none, trans::none, 0, n, 0, incx, 0, 0, alpha, 0.0f);
  cblas_sscal(to_int(n, "n"), alpha, first_in_memory(x, n, incx), to_int(incx, "incx"));
}
void scal(void*, index_t n, double alpha, double* x, index_t incx) {
  note("scal", order::row_major, trans::none, trans::none, 0, n, 0, incx, 0, 0, alpha, 0.0);
  cblas_dscal(to_int(n, "n"), alpha, first_in_memory(x, n, incx), to_int(incx, "incx"));
}
void axpy(void*, index_t n, float alpha, const float* x, index_t incx, float* y, index_t incy) {
  note("axpy", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, alpha, 1.0f);
  cblas_saxpy(to_int(n, "n"), alpha, first_in_memory(x, n, incx), to_int(incx, "incx"),
              first_in_memory(y, n, incy), to_int(incy, "incy"));
}
void axpy(void*, index_t n, double alpha, const double* x, index_t incx, double* y, index_t incy) {
  note("axpy", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, alpha, 1.0);
  cblas_daxpy(to_int(n, "n"), alpha, first_in_memory(x, n, incx), to_int(incx, "incx"),
              first_in_memory(y, n, incy), to_int(incy, "incy"));
}
void dot(void*, index_t n, const float* x, index_t incx, const float* y, index_t incy,
         float* result) {
  note("dot", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, 1.0f, 0.0f);
  *result = cblas_sdot(to_int(n, "n"), first_in_memory(x, n, incx), to_int(incx, "incx"),
                       first_in_memory(y, n, incy), to_int(incy, "incy"));
}
void dot(void*, index_t n, const double* x, index_t incx, const double* y, index_t incy,
         double* result) {
  note("dot", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, 1.0, 0.0);
  *result = cblas_ddot(to_int(n, "n"), first_in_memory(x, n, incx), to_int(incx, "incx"),
                       first_in_memory(y, n, incy), to_int(incy, "incy"));
}

static void cblas_call_gemm(trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
                            const float* A, index_t lda, const float* B, index_t ldb, float* C,
                            index_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_of(ta), trans_of(tb), to_int(m, "m"), to_int(n, "n"),
              to_int(k, "k"), alpha, A, to_int(lda, "lda"), B, to_int(ldb, "ldb"), 0.0f, C,
              to_int(ldc, "ldc"));
}
static void cblas_call_gemm(trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
                            const double* A, index_t lda, const double* B, index_t ldb, double* C,
                            index_t ldc) {
  cblas_dgemm(CblasRowMajor, trans_of(ta), trans_of(tb), to_int(m, "m"), to_int(n, "n"),
              to_int(k, "k"), alpha, A, to_int(lda, "lda"), B, to_int(ldb, "ldb"), 0.0, C,
              to_int(ldc, "ldc"));
}

template <class T>
bool bias_relu(void*, trans ta, trans tb, index_t m, index_t n, index_t k, T alpha, const T* A,
               index_t lda, const T* B, index_t ldb, const T* bias, T* C, index_t ldc) {
  if (!epilogue_used(sizeof(T))) return false;
  // One recorded call, as on the GPU (the CBLAS gemm inside is not recorded separately).
  note("gemm_bias_relu", order::row_major, ta, tb, m, n, k, lda, ldb, ldc, alpha, T(0));
  cblas_call_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, C, ldc);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      T& c = C[i * ldc + j];
      const T v = c + bias[j];
      c = (v > T(0) || v != v) ? v : T(0); // NaN propagates, as lz::maximum does
    }
  return true;
}
bool gemm_bias_relu(void* s, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
                    const float* A, index_t lda, const float* B, index_t ldb, const float* bias,
                    float* C, index_t ldc) {
  return bias_relu(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, bias, C, ldc);
}
bool gemm_bias_relu(void* s, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
                    const double* A, index_t lda, const double* B, index_t ldb, const double* bias,
                    double* C, index_t ldc) {
  return bias_relu(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, bias, C, ldc);
}

void trsm(void*, uplo u, trans t, index_t n, index_t nrhs, float alpha, const float* A, index_t lda,
          float* B, index_t ldb) {
  note("trsm", order::col_major, t, trans::none, n, nrhs, 0, lda, ldb, 0, alpha, 0.0f);
  cblas_strsm(CblasColMajor, CblasLeft, u == uplo::lower ? CblasLower : CblasUpper, trans_of(t),
              CblasNonUnit, to_int(n, "n"), to_int(nrhs, "nrhs"), alpha, A, to_int(lda, "lda"), B,
              to_int(ldb, "ldb"));
}
void trsm(void*, uplo u, trans t, index_t n, index_t nrhs, double alpha, const double* A,
          index_t lda, double* B, index_t ldb) {
  note("trsm", order::col_major, t, trans::none, n, nrhs, 0, lda, ldb, 0, alpha, 0.0);
  cblas_dtrsm(CblasColMajor, CblasLeft, u == uplo::lower ? CblasLower : CblasUpper, trans_of(t),
              CblasNonUnit, to_int(n, "n"), to_int(nrhs, "nrhs"), alpha, A, to_int(lda, "lda"), B,
              to_int(ldb, "ldb"));
}
namespace {
template <class T>
void transpose_impl(index_t m, index_t n, const T* A, index_t lda, T* C, index_t ldc) {
  note("geam", order::col_major, trans::transpose, trans::none, n, m, 0, lda, 0, ldc, T(1), T(0));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) C[j + i * ldc] = A[i + j * lda];
}
} // namespace
void transpose(void*, index_t m, index_t n, const float* A, index_t lda, float* C, index_t ldc) {
  transpose_impl(m, n, A, lda, C, ldc);
}
void transpose(void*, index_t m, index_t n, const double* A, index_t lda, double* C, index_t ldc) {
  transpose_impl(m, n, A, lda, C, ldc);
}

const char* info() noexcept { return "CBLAS on the host system"; }

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::blas
