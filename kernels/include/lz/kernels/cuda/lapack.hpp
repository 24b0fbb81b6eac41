// Device LAPACK: the solver steps of a device plan (fusion/solvers.hpp: getrf, getrs, getri,
// potrf, potrs, trtrs, gels), mirroring kernels/include/lz/kernels/lapack/lapack.hpp with a
// stream first. Matrices are device memory, column-major with a leading dimension; pivots are
// device memory too (LAPACK's 1-based int). Implementations:
//   kernels/cuda/lapack.cpp          cuSOLVER's dense API (one handle per stream, workspaces and
//                                    the info word from the stream-ordered pool); trtrs is
//                                    cuBLAS's trsm after a check of the diagonal; getri solves
//                                    against the identity (cuSOLVER has no getri); gels is
//                                    geqrf + ormqr + trsm (a wide or transposed system is
//                                    transposed first)
//   kernels/thrust/lapack_host.cpp   lazuli's LAPACK door (kernels/lapack) on the host system's
//                                    "device" memory
// Each returns LAPACK's info when it is > 0 (a zero pivot, a non-positive minor, a zero on a
// triangular diagonal, a rank-deficient R); the device sink names it in lz::linalg_error. Every
// call is recorded like a device BLAS call (blas.hpp's `call`: routine "dgetrf", m, n, k = nrhs,
// lda, ldb).
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/blas/blas.hpp>

namespace lz::kernels::dev::lapack {
inline namespace LZ_DEVICE_ABI {

using lz::kernels::blas::trans;
using lz::kernels::blas::uplo;

/// A = P·L·U in place (m×n); ipiv[min(m, n)]. Returns i > 0 for a zero U(i, i).
template <class V>
int getrf(void* stream, index_t m, index_t n, V* a, index_t lda, int* ipiv);
/// B = op(A)⁻¹·B with getrf's factors (A n×n, B n×nrhs).
template <class V>
void getrs(void* stream, trans t, index_t n, index_t nrhs, const V* a, index_t lda, const int* ipiv,
           V* b, index_t ldb);
/// A = A⁻¹ from getrf's factors, in place. Returns i > 0 for a zero U(i, i).
template <class V>
int getri(void* stream, index_t n, V* a, index_t lda, const int* ipiv);
/// A = L·Lᵀ (u = lower) or Uᵀ·U in place. Returns i > 0: the minor of order i is not positive
/// definite.
template <class V>
int potrf(void* stream, uplo u, index_t n, V* a, index_t lda);
/// B = A⁻¹·B with potrf's factor.
template <class V>
void potrs(void* stream, uplo u, index_t n, index_t nrhs, const V* a, index_t lda, V* b,
           index_t ldb);
/// B = op(A)⁻¹·B, A triangular (non-unit diagonal). Returns i > 0 when A(i, i) is zero (B is
/// then untouched).
template <class V>
int trtrs(void* stream, uplo u, trans t, index_t n, index_t nrhs, const V* a, index_t lda, V* b,
          index_t ldb);
/// 1-based index of the first zero on the diagonal of the n×n a (0: none), the singularity test
/// trtrs makes, on its own (not recorded).
template <class V>
int trcheck(void* stream, index_t n, const V* a, index_t lda);
/// Least squares (op(A) tall) or minimum norm (wide) solution of op(A)·X = B; A (m×n) is
/// overwritten, B (max(m, n)×nrhs) holds X in its first rows. Returns i > 0 for a zero R(i, i).
template <class V>
int gels(void* stream, trans t, index_t m, index_t n, index_t nrhs, V* a, index_t lda, V* b,
         index_t ldb);

/// Who runs them: "cuSOLVER" or "LAPACK (host system)".
const char* name() noexcept;

/// The instantiations each implementation compiles (for V = float and double).
#define LZ_DEV_LAPACK_INSTANCES(V)                                                                 \
  template int getrf<V>(void*, index_t, index_t, V*, index_t, int*);                               \
  template void getrs<V>(void*, trans, index_t, index_t, const V*, index_t, const int*, V*,        \
                         index_t);                                                                 \
  template int getri<V>(void*, index_t, V*, index_t, const int*);                                  \
  template int potrf<V>(void*, uplo, index_t, V*, index_t);                                        \
  template void potrs<V>(void*, uplo, index_t, index_t, const V*, index_t, V*, index_t);           \
  template int trtrs<V>(void*, uplo, trans, index_t, index_t, const V*, index_t, V*, index_t);     \
  template int trcheck<V>(void*, index_t, const V*, index_t);                                      \
  template int gels<V>(void*, trans, index_t, index_t, index_t, V*, index_t, V*, index_t);

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::lapack
