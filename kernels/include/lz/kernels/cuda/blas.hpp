// Device BLAS: the interface a fusion plan's device steps call, mirroring
// kernels/include/lz/kernels/blas/blas.hpp (same order/trans enums, same argument order) with a
// stream first. Raw device pointers, leading dims and trans flags only, so a plan step needs
// nothing but its operands' layouts. Implementations:
//   kernels/cuda/blas.cpp        cuBLAS (64-bit API) and cuBLASLt, one cuBLAS handle per stream
//   kernels/thrust/blas_host.cpp CBLAS on the host system's "device" memory (CI runs device plans)
// Row-major calls are mapped onto column-major BLAS without copies (C = op(A)op(B) is computed as
// Cᵀ = op(B)ᵀop(A)ᵀ). Failures throw lz::device_error with the cuBLAS status name.
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <complex>
#include <string>
#include <vector>

namespace lz::kernels::dev::blas {
inline namespace LZ_DEVICE_ABI {

using lz::kernels::blas::order;
using lz::kernels::blas::trans;
using lz::kernels::blas::uplo;

/// C = alpha·op(A)·op(B) + beta·C on `stream` (C m×n, op(A) m×k, op(B) k×n).
void gemm(void* stream, order o, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
          const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
          index_t ldc);
void gemm(void* stream, order o, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc);

/// y = alpha·op(A)·x + beta·y (A m×n). Row-major conj_transpose is not expressible in cuBLAS
/// without a copy: device_error.
void gemv(void* stream, order o, trans t, index_t m, index_t n, float alpha, const float* A,
          index_t lda, const float* x, index_t incx, float beta, float* y, index_t incy);
void gemv(void* stream, order o, trans t, index_t m, index_t n, double alpha, const double* A,
          index_t lda, const double* x, index_t incx, double beta, double* y, index_t incy);

/// x = alpha·x.
void scal(void* stream, index_t n, float alpha, float* x, index_t incx);
void scal(void* stream, index_t n, double alpha, double* x, index_t incx);

/// y = alpha·x + y.
void axpy(void* stream, index_t n, float alpha, const float* x, index_t incx, float* y,
          index_t incy);
void axpy(void* stream, index_t n, double alpha, const double* x, index_t incx, double* y,
          index_t incy);

/// Σ x·y into device memory `result` (asynchronous: read it after the stream's sync).
void dot(void* stream, index_t n, const float* x, index_t incx, const float* y, index_t incy,
         float* result);
void dot(void* stream, index_t n, const double* x, index_t incx, const double* y, index_t incy,
         double* result);

/// C = max(alpha·op(A)·op(B) + bias, 0), bias[j] added to column j of the row-major m×n result
/// (lz::maximum(A*B + lz::broadcast_to(bias, {m, n}), 0) with bias of shape (n,)): one cuBLASLt
/// matmul with the CUBLASLT_EPILOGUE_RELU_BIAS epilogue. Row-major only. Returns false, having
/// done nothing, when cuBLASLt has no algorithm for the case (the caller then runs gemm plus an
/// elementwise pass).
bool gemm_bias_relu(void* stream, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
                    const float* A, index_t lda, const float* B, index_t ldb, const float* bias,
                    float* C, index_t ldc);
bool gemm_bias_relu(void* stream, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
                    const double* A, index_t lda, const double* B, index_t ldb, const double* bias,
                    double* C, index_t ldc);

/// B = alpha·op(A)⁻¹·B for a triangular A (n×n, non-unit diagonal), B n×nrhs, column-major
/// (the triangular steps of device solves; recorded as "dtrsm").
void trsm(void* stream, uplo u, trans t, index_t n, index_t nrhs, float alpha, const float* A,
          index_t lda, float* B, index_t ldb);
void trsm(void* stream, uplo u, trans t, index_t n, index_t nrhs, double alpha, const double* A,
          index_t lda, double* B, index_t ldb);
/// C = Aᵀ (A m×n, C n×m, column-major; recorded as "dgeam").
void transpose(void* stream, index_t m, index_t n, const float* A, index_t lda, float* C,
               index_t ldc);
void transpose(void* stream, index_t m, index_t n, const double* A, index_t lda, double* C,
               index_t ldc);

/// "cuBLAS 13.1" or "CBLAS on the host system (OpenBLAS ...)".
const char* info() noexcept;

/// When the bias+ReLU rule runs the cuBLASLt epilogue (gemm_bias_relu returns false at once where
/// it does not, and the plan runs gemm + one elementwise pass instead).
enum class epilogue_policy : int {
  /// float: the epilogue; double: gemm + one pass. Measured on an H200 (perf/RESULTS.md, "Device
  /// backend on a GPU"): cuBLASLt's fp64 RELU_BIAS kernels run at 30 TFLOP/s at best against
  /// 61 for its plain fp64 ones, so the epilogue took 1.93x the time of cuBLAS dgemm + one
  /// hand-written pass, while lazuli's gemm + one fused pass took 0.95x; in float the epilogue
  /// is the faster (0.98x).
  automatic,
  always, ///< the epilogue whenever cuBLASLt has an algorithm (the epilogue's own tests)
  never   ///< gemm + one elementwise pass (perf/device_bench's A/B switch, the fallback's tests)
};
void set_epilogue(epilogue_policy p) noexcept;
epilogue_policy epilogue() noexcept;
/// Whether the policy runs the epilogue for elements of `element_bytes` (4: float, 8: double).
bool epilogue_used(std::size_t element_bytes) noexcept;

/// One device product call as issued (both implementations, and the own Thrust kernels of
/// kernels/thrust/gemm_generic.hpp): what tests assert plans against. Flags are the interface's
/// (before the row-major → column-major mapping); vectors have m (and n for gemv), k = 0.
struct call {
  std::string routine; ///< "dgemm", "sgemv", "daxpy", "dscal", "ddot", "dgemm_bias_relu",
                       ///< "gemm_generic", "gemv_generic"
  order o = order::row_major;
  trans ta = trans::none, tb = trans::none;
  index_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  double alpha = 0, beta = 0;
};
/// Starts (clearing the list) or stops recording calls; off by default (no cost beyond a flag).
void record_calls(bool on);
/// The calls recorded since recording started.
std::vector<call> recorded_calls();
/// Records one call (implementations; a no-op unless recording).
void record(const call& c);

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::blas
