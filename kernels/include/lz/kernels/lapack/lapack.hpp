// LAPACK backend: template wrappers over the Fortran LAPACK the CBLAS library carries (OpenBLAS
// ships its own LAPACK; another LZ_BLAS links liblapack), instantiated for float, double,
// std::complex<float> and std::complex<double> in kernels/lapack/lapack.cpp, the only file that
// declares the Fortran symbols. Matrices are column-major with a leading dimension, as LAPACK
// takes them; the solver rules (fusion/rules/solve.hpp) hand over a row-major operand as its
// transpose and flip the trans flag. Workspaces are queried and allocated here (lz's allocator).
//
// Every call is reported to the BLAS recorder (routine "dgetrf", order col_major, ta = trans,
// m, n, k = nrhs, lda, ldb, u = uplo) and traced under LZ_LOG=blas, like the BLAS wrappers.
// Returns LAPACK's info when it is > 0 (a numerical outcome the caller names: a zero pivot, a
// non-positive minor, a rank-deficient matrix); an argument LAPACK rejects (info < 0) or a size
// beyond its 32-bit integers throws lz::layout_error.
#pragma once

#include <lz/config.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <complex>
#include <type_traits>

namespace lz::kernels::lapack {

using blas::trans;
using blas::uplo;
/// A triangular matrix's diagonal: stored, or all ones (not read).
enum class diag : char { non_unit = 'N', unit = 'U' };
/// Which side of B a matrix multiplies (Q·C or C·Q).
enum class side : char { left = 'L', right = 'R' };

/// The real type of T (float for std::complex<float>).
template <class T>
using real_t = decltype(std::abs(std::declval<T>()));

/// A = P·L·U of the m×n matrix A (in place); ipiv[min(m, n)] 1-based row interchanges.
/// Returns i > 0 when U(i, i) (1-based) is exactly zero (the factorization is complete).
template <class T>
int getrf(index_t m, index_t n, T* a, index_t lda, int* ipiv);
/// B = op(A)⁻¹·B with A's LU factors from getrf (n×n); B is n×nrhs.
template <class T>
void getrs(trans t, index_t n, index_t nrhs, const T* a, index_t lda, const int* ipiv, T* b,
           index_t ldb);
/// A = A⁻¹ from A's LU factors (in place). Returns i > 0 for a zero U(i, i).
template <class T>
int getri(index_t n, T* a, index_t lda, const int* ipiv);
/// Cholesky: A = L·Lᴴ (u = lower) or Uᴴ·U in place (the other triangle is not read).
/// Returns i > 0 when the leading minor of order i is not positive definite.
template <class T>
int potrf(uplo u, index_t n, T* a, index_t lda);
/// B = A⁻¹·B with A's Cholesky factor from potrf.
template <class T>
void potrs(uplo u, index_t n, index_t nrhs, const T* a, index_t lda, T* b, index_t ldb);
/// B = op(A)⁻¹·B for a triangular A (trsm after a check of the diagonal). Returns i > 0 when
/// A(i, i) is exactly zero (B is then untouched).
template <class T>
int trtrs(uplo u, trans t, diag d, index_t n, index_t nrhs, const T* a, index_t lda, T* b,
          index_t ldb);
/// Least squares (m ≥ n) or minimum norm (m < n) solution of op(A)·X = B by QR/LQ; A is
/// overwritten by its factors, B (max(m, n)×nrhs) by X in its first rows. Returns i > 0 when
/// the triangular factor's R(i, i) is zero (A has not full rank).
template <class T>
int gels(trans t, index_t m, index_t n, index_t nrhs, T* a, index_t lda, T* b, index_t ldb);
/// A = Q·R (Householder; R in the upper triangle, Q as reflectors below and in tau[min(m, n)]).
template <class T>
void geqrf(index_t m, index_t n, T* a, index_t lda, T* tau);
/// Forms the m×n matrix Q of geqrf's first k reflectors in place (orgqr / ungqr).
template <class T>
void orgqr(index_t m, index_t n, index_t k, T* a, index_t lda, const T* tau);
/// C = op(Q)·C or C·op(Q) with geqrf's Q (ormqr / unmqr; t = conj_transpose means Qᴴ).
template <class T>
void ormqr(side s, trans t, index_t m, index_t n, index_t k, const T* a, index_t lda, const T* tau,
           T* c, index_t ldc);
/// Eigenvalues (ascending, into w) and, when `vectors`, orthonormal eigenvectors (into A's
/// columns) of the Hermitian matrix in A's triangle u (syevd / heevd, divide and conquer).
/// Returns i > 0 when the algorithm failed to converge.
template <class T>
int syevd(bool vectors, uplo u, index_t n, T* a, index_t lda, real_t<T>* w);
/// Singular values (descending, into s) and, for jobz 'S', the thin U (m×k) and Vᴴ (k×n),
/// k = min(m, n) (gesdd; jobz 'N': values only). A is destroyed. Returns i > 0 when the
/// algorithm failed to converge.
template <class T>
int gesdd(char jobz, index_t m, index_t n, T* a, index_t lda, real_t<T>* s, T* u, index_t ldu,
          T* vt, index_t ldvt);
/// ‖A‖ ('1': largest column sum, 'I': largest row sum, 'M': largest |entry|, 'F': Frobenius).
template <class T>
real_t<T> lange(char norm, index_t m, index_t n, const T* a, index_t lda);
/// The reciprocal condition number in norm '1' or 'I' of A from its LU factors, given ‖A‖.
template <class T>
real_t<T> gecon(char norm, index_t n, const T* a, index_t lda, real_t<T> anorm);

} // namespace lz::kernels::lapack
