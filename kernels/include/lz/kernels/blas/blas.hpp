// BLAS backend: non-template wrappers over CBLAS (OpenBLAS) for float, double and complex, plus
// lazuli's own cache-blocked, xsimd-vectorized, TBB-parallel gemm/gemv for element types BLAS
// lacks (int32, int64) and strides it cannot take. Plan steps of kind gemm/gemv/axpy/scal/dot/
// syrk run here (kernels/blas/*.cpp); <cblas.h> is included only there.
//
// Every call is reported to the installed recorder (tests assert the exact calls a rule makes)
// and traced under LZ_LOG=blas, before it runs.
#pragma once

#include <lz/config.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace lz::kernels::blas {

/// Operand op as in BLAS: identity, transpose, conjugate transpose.
enum class trans : char { none = 'N', transpose = 'T', conj_transpose = 'C' };
/// Storage order of every matrix argument of one call (CBLAS's Order).
enum class order : char { row_major = 'R', col_major = 'C' };
/// Which triangle syrk writes.
enum class uplo : char { upper = 'U', lower = 'L' };
/// The BLAS letter of an element type in routine names: 's', 'd', 'c', 'z' ("dgemm", "zcsrmv").
template <class T>
constexpr char type_letter() {
  if constexpr (std::is_same_v<T, float>)
    return 's';
  else if constexpr (std::is_same_v<T, double>)
    return 'd';
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return 'c';
  else
    return 'z';
}

// ---- Level 3 -------------------------------------------------------------------------------
/// C = alpha·op(A)·op(B) + beta·C, C is m×n, op(A) m×k, op(B) k×n (cblas_?gemm semantics).
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha, const float* A,
          index_t lda, const float* B, index_t ldb, float beta, float* C, index_t ldc);
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc);
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, std::complex<float> alpha,
          const std::complex<float>* A, index_t lda, const std::complex<float>* B, index_t ldb,
          std::complex<float> beta, std::complex<float>* C, index_t ldc);
void gemm(order o, trans ta, trans tb, index_t m, index_t n, index_t k, std::complex<double> alpha,
          const std::complex<double>* A, index_t lda, const std::complex<double>* B, index_t ldb,
          std::complex<double> beta, std::complex<double>* C, index_t ldc);

/// C = alpha·op(A)·op(A)ᵀ + beta·C on triangle `u` of the n×n matrix C (op(A) is n×k), then
/// the other triangle is mirrored so C is the full symmetric result.
void syrk(order o, uplo u, trans t, index_t n, index_t k, float alpha, const float* A, index_t lda,
          float beta, float* C, index_t ldc);
void syrk(order o, uplo u, trans t, index_t n, index_t k, double alpha, const double* A,
          index_t lda, double beta, double* C, index_t ldc);

// ---- Level 2 -------------------------------------------------------------------------------
// Vectors, here and in level 1, are lazuli views: the pointer is element 0 and element i is at
// x[i·incx] for any sign of incx (a negative stride walks down from x). The wrappers convert to
// BLAS's convention (pointer at the lowest address) themselves. incx == 0 (a broadcast read) is
// allowed for inputs; an output needs a non-zero stride unless it has one element.
//
// Every wrapper also accepts what BLAS itself rejects but a valid lazuli layout may produce:
// any size may be 0; a leading dimension or increment that is never used (one row, one element)
// may be anything. A leading dimension too small for a used layout throws lz::layout_error, as do
// sizes beyond the 32-bit integers OpenBLAS takes. k == 0 or alpha == 0 gives C = beta·C (y =
// beta·y), and beta == 0 never reads C (y): NaN there does not propagate.

/// y = alpha·op(A)·x + beta·y, A is m×n (cblas_?gemv semantics; incx/incy may be negative).
void gemv(order o, trans t, index_t m, index_t n, float alpha, const float* A, index_t lda,
          const float* x, index_t incx, float beta, float* y, index_t incy);
void gemv(order o, trans t, index_t m, index_t n, double alpha, const double* A, index_t lda,
          const double* x, index_t incx, double beta, double* y, index_t incy);
void gemv(order o, trans t, index_t m, index_t n, std::complex<float> alpha,
          const std::complex<float>* A, index_t lda, const std::complex<float>* x, index_t incx,
          std::complex<float> beta, std::complex<float>* y, index_t incy);
void gemv(order o, trans t, index_t m, index_t n, std::complex<double> alpha,
          const std::complex<double>* A, index_t lda, const std::complex<double>* x, index_t incx,
          std::complex<double> beta, std::complex<double>* y, index_t incy);

// ---- Level 1 -------------------------------------------------------------------------------
/// y = alpha·x + y.
void axpy(index_t n, float alpha, const float* x, index_t incx, float* y, index_t incy);
void axpy(index_t n, double alpha, const double* x, index_t incx, double* y, index_t incy);
/// x = alpha·x.
void scal(index_t n, float alpha, float* x, index_t incx);
void scal(index_t n, double alpha, double* x, index_t incx);
/// Σ x·y.
float dot(index_t n, const float* x, index_t incx, const float* y, index_t incy);
double dot(index_t n, const double* x, index_t incx, const double* y, index_t incy);

// ---- lazuli's own kernels (any stride, integer types) -----------------------------------------
/// C = alpha·A·B + beta·C with arbitrary (signed, non-zero for C) row/column strides in
/// elements: A m×k at (rsa, csa), B k×n at (rsb, csb), C m×n at (rsc, csc). Cache-blocked with
/// packing, xsimd micro-kernel, TBB over blocks of C. Integer results are exact (wrapping as
/// the type does). beta == 0 never reads C (NaN in C does not propagate).
/// Instantiated for std::int32_t, std::int64_t, float, double.
template <class T>
void gemm_generic(index_t m, index_t n, index_t k, T alpha, const T* A, index_t rsa, index_t csa,
                  const T* B, index_t rsb, index_t csb, T beta, T* C, index_t rsc, index_t csc);
/// y = alpha·A·x + beta·y, A m×n at (rsa, csa), x with stride incx, y with stride incy. Threads
/// take blocks of rows; with columns contiguous (rsa == 1), at most `split_sum_max_rows` rows
/// and n ≥ 16384, they take chunks of the sum instead (transpose(X)*r for a tall row-major X).
template <class T>
void gemv_generic(index_t m, index_t n, T alpha, const T* A, index_t rsa, index_t csa, const T* x,
                  index_t incx, T beta, T* y, index_t incy);

/// The most outputs (rows of A) for which gemv_generic splits each sum over threads.
inline constexpr index_t split_sum_max_rows = 1024;

// ---- recording and information ---------------------------------------------------------------
/// One BLAS-level call as the plan issued it.
/// Arguments are recorded as passed (before the wrappers' own normalisation). Matrices map by
/// name (A → lda, B → ldb, C → ldc); vectors take the next free slots in argument order: gemv
/// (A, x, y) → (lda, ldb=incx, ldc=incy), axpy/dot (x, y) → (lda=incx, ldb=incy), scal → lda.
/// Sizes: gemv m, n; level 1 n; syrk n, k (and m = n). gemm_generic/gemv_generic have no leading
/// dimensions: gemm_generic records the row strides rsa, rsb, rsc in lda, ldb, ldc, gemv_generic
/// rsa, incx, incy (column strides are not recorded), both with order::row_major.
struct call {
  const char* routine = ""; ///< "dgemm", "sgemv", "daxpy", "gemm_generic<i32>", ...
  order o = order::row_major;
  trans ta = trans::none, tb = trans::none;
  index_t m = 0, n = 0, k = 0;
  double alpha = 0, beta = 0;        ///< real parts
  index_t lda = 0, ldb = 0, ldc = 0; ///< leading dims (or incx/incy for level 1/2)
  uplo u = uplo::upper;              ///< syrk's triangle (unused elsewhere)
};

/// Receives every call before it runs (tests install one; nullptr uninstalls).
struct recorder {
  virtual ~recorder() = default;
  virtual void record(const call& c) = 0;
};
/// Installs `r` (process-wide) and returns the previous recorder.
recorder* set_recorder(recorder* r) noexcept;

/// "OpenBLAS 0.3.21 (core Haswell, 2 threads, pthread)" — library, version, core, threads; for
/// another CBLAS (LZ_BLAS), "CBLAS blis (/usr/lib/.../libblis.so.4; threads set by ...)".
std::string info();
/// Bits of the integers this CBLAS takes for sizes, leading dimensions and increments (32 for
/// LP64 builds such as Debian's OpenBLAS): a wider value is refused with lz::layout_error before
/// the call, nothing read or written.
int integer_bits() noexcept;
/// Sets OpenBLAS's own thread count (it keeps its own pool); n <= 0 = default. Another CBLAS's
/// threads are set by its own environment variable (no CBLAS call exists): nothing here.
void set_num_threads(int n);

/// Vector instruction sets, narrowest first (for comparing a BLAS core with the CPU).
enum class isa { sse, avx, avx2, avx512 };
/// The widest set this CPU runs (cpuid; AVX-512 means F, BW, VL and DQ, as BLAS kernels use it).
isa cpu_isa() noexcept;
/// The set an OpenBLAS core's kernels use ("Prescott" sse, "Sandybridge" avx, "Haswell" and
/// "Zen" avx2, "SkylakeX", "Cooperlake", "SapphireRapids" avx512; unknown names: sse).
isa core_isa(const std::string& core) noexcept;
/// A warning when `core`'s kernels are narrower than `cpu`, naming the OPENBLAS_CORETYPE that
/// uses the CPU's width; empty otherwise.
std::string narrower_core_warning(const std::string& core, isa cpu);
/// narrower_core_warning for the OpenBLAS core in use and this CPU ("" for another CBLAS, whose
/// kernels lazuli cannot see). lz::info() prints it.
std::string core_warning();
/// The OpenBLAS core to switch to when `detected` is narrower than `cpu` and the user chose none
/// (`user_choice`: OPENBLAS_CORETYPE, null when unset): "SkylakeX" (AVX-512), "Haswell" (AVX2),
/// "Sandybridge" (AVX); "" keeps `detected`. lazuli makes this switch at start-up.
std::string better_core(const std::string& detected, isa cpu, const char* user_choice);
/// Switches OpenBLAS (built with DYNAMIC_ARCH, as Debian's) to `core`'s kernels (an
/// OPENBLAS_CORETYPE name); true when it then runs them (false for another CBLAS). No BLAS call
/// may run meanwhile, and the environment is read and restored (not thread-safe).
bool select_core(const std::string& core);
/// How the core in use was chosen: "detected by OpenBLAS", "OPENBLAS_CORETYPE", or "chosen by
/// lazuli: OpenBLAS detected Prescott, narrower than this CPU (...)". lz::info() prints it.
std::string core_origin();

} // namespace lz::kernels::blas
