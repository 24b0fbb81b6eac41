// Factorizations as values and the numbers read off them: lz::lu, lz::cholesky, lz::qr,
// lz::eigh, lz::svd; lz::det, lz::rcond, lz::cond. Each evaluates its operand once (any
// expression), factors it with LAPACK (kernels/lapack) and keeps the factors, so that many
// right-hand sides are solved without refactoring: `auto f = lz::lu(A); x = f.solve(b);
// X = f.solve(B);` — `solve` is lazy like lz::solve (its rule runs getrs / potrs only).
// The lazy solvers themselves (lz::solve, inv, lstsq) are nodes: expr/solve.hpp.
#pragma once

#include <lz/errors.hpp>
#include <lz/expr/solve.hpp>
#include <lz/kernels/lapack/lapack.hpp>
#include <lz/tensor.hpp>
#include <lz/views.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lz {
namespace detail_linalg {

namespace lp = kernels::lapack;
template <class T>
using real_t = lp::real_t<T>;

template <class A>
using elem_t = std::remove_const_t<value_t<std::remove_cvref_t<A>>>;

template <class A>
constexpr void check_matrix() {
  static_assert(rank_v<std::remove_cvref_t<A>> == 2, "lz: a factorization needs a matrix");
  detail::check_lapack_type<elem_t<A>, A>();
  detail::check_host_operand<std::remove_cvref_t<A>>();
}

/// A's column-major copy: a row-major tensor of shape (n, m) holding A (m×n) by columns.
template <class T, class A>
tensor<T, 2> columns_of(const A& a) {
  tensor<T, 2> t(shape_t<2>{a.shape()[1], a.shape()[0]}, uninitialized);
  t = transpose(a);
  return t;
}

/// A row-major copy of the column-major m×n matrix stored in c (a (n, m) tensor).
template <class T>
tensor<T, 2> from_columns(const tensor<T, 2>& c, index_t m, index_t n) {
  tensor<T, 2> t(shape_t<2>{m, n}, uninitialized);
  if (m > 0 && n > 0) t = transpose(slice(c, range(0, n), range(0, m)));
  return t;
}

} // namespace detail_linalg

/// LU factorization with partial pivoting (getrf) of a square matrix: P·A = L·U.
template <class T>
class lu_factorization {
 public:
  /// The order of A.
  index_t size() const noexcept { return f_.shape()[0]; }
  /// X = A⁻¹·B (B a vector or a matrix) with the stored factors: one getrs at assignment, no
  /// refactoring. Lazy like lz::solve; the factorization must outlive the expression.
  template <expression B>
  auto solve(B&& b) const {
    auto s = detail::make_solve_node<solve_kind::factored_lu>("lz::lu(A).solve", f_.view(),
                                                              std::forward<B>(b));
    s.factors = {ipiv_.data(), true};
    return s;
  }
  /// det(A): the product of U's diagonal, signed by the row interchanges.
  T det() const {
    T d(1);
    const index_t n = size();
    for (index_t i = 0; i < n; ++i) {
      d *= f_(i, i);
      if (ipiv_[std::size_t(i)] != int(i + 1)) d = -d;
    }
    return d;
  }
  /// The reciprocal condition number of A in the 1-norm (gecon): near 0 means ill-conditioned
  /// (solutions lose about log10(1/rcond) digits); 1 for the identity.
  detail_linalg::real_t<T> rcond() const {
    // The factors are of Aᵀ (A's row-major copy): A's 1-norm is Aᵀ's ∞-norm.
    return detail_linalg::lp::gecon('I', size(), f_.data(), size(), anorm_);
  }
  /// The packed factors as LAPACK left them, of Aᵀ (a row-major tensor read by columns: L
  /// below the diagonal with unit diagonal, U on and above it), and the 1-based pivots.
  const tensor<T, 2>& packed() const noexcept { return f_; }
  const std::vector<int>& pivots() const noexcept { return ipiv_; }

  template <class A>
  friend lu_factorization<detail_linalg::elem_t<A>> lu(A&& a);

 private:
  tensor<T, 2> f_;
  std::vector<int> ipiv_;
  detail_linalg::real_t<T> anorm_ = 0;
};

/// The LU factorization of a square matrix (any expression, evaluated once): solve many
/// right-hand sides with `.solve(B)`, read `.det()` and `.rcond()`. A singular matrix throws
/// lz::linalg_error naming the zero pivot.
template <class A>
lu_factorization<detail_linalg::elem_t<A>> lu(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  detail::check_square("lz::lu", a);
  lu_factorization<T> f;
  f.f_ = tensor<T, 2>(a.shape(), uninitialized);
  f.f_ = a; // row-major: Aᵀ by columns
  const index_t n = a.shape()[0];
  f.ipiv_.assign(std::size_t(n), 0);
  f.anorm_ = detail_linalg::lp::lange('I', n, n, f.f_.data(), n);
  const int info = detail_linalg::lp::getrf(n, n, f.f_.data(), n, f.ipiv_.data());
  if (info > 0)
    fusion::detail_plan::throw_lapack_info("lz::lu", fusion::detail_plan::blas_name<T>("getrf"),
                                           info, n, n);
  return f;
}

/// Cholesky factorization (potrf) of a symmetric (Hermitian) positive definite matrix: A = L·Lᴴ.
template <class T>
class cholesky_factorization {
 public:
  index_t size() const noexcept { return f_.shape()[0]; }
  /// X = A⁻¹·B with the stored factor: one potrs at assignment. Lazy like lz::solve.
  template <expression B>
  auto solve(B&& b) const {
    return detail::make_solve_node<solve_kind::factored_cholesky>("lz::cholesky(A).solve",
                                                                  f_.view(), std::forward<B>(b));
  }
  /// The lower-triangular factor L (zeros above the diagonal).
  tensor<T, 2> L() const {
    const index_t n = size();
    tensor<T, 2> l = zeros<T>(shape_t<2>{n, n});
    for (index_t j = 0; j < n; ++j)
      for (index_t i = j; i < n; ++i) l(i, j) = f_(j, i);
    return l;
  }
  /// det(A) = Π L(i, i)².
  T det() const {
    T d(1);
    for (index_t i = 0; i < size(); ++i) d *= f_(i, i) * f_(i, i);
    return d;
  }

  template <class A>
  friend cholesky_factorization<detail_linalg::elem_t<A>> cholesky(A&& a);

 private:
  tensor<T, 2> f_; // A by columns (a row-major tensor of Aᵀ); L in its lower triangle
};

/// The Cholesky factorization of a symmetric (Hermitian) positive definite matrix; only its lower
/// triangle is read. A matrix that is not positive definite throws lz::linalg_error naming the
/// leading minor.
template <class A>
cholesky_factorization<detail_linalg::elem_t<A>> cholesky(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  detail::check_square("lz::cholesky", a);
  cholesky_factorization<T> f;
  f.f_ = detail_linalg::columns_of<T>(a);
  const index_t n = a.shape()[0];
  const int info = detail_linalg::lp::potrf(kernels::blas::uplo::lower, n, f.f_.data(), n);
  if (info > 0)
    fusion::detail_plan::throw_lapack_info("lz::cholesky",
                                           fusion::detail_plan::blas_name<T>("potrf"), info, n, n);
  return f;
}

/// Householder QR factorization (geqrf) of an m×n matrix: A = Q·R.
template <class T>
class qr_factorization {
 public:
  index_t rows() const noexcept { return f_.shape()[1]; }
  index_t cols() const noexcept { return f_.shape()[0]; }
  /// The thin Q (m×k, k = min(m, n)) with orthonormal columns (orgqr / ungqr).
  tensor<T, 2> Q() const {
    const index_t m = rows(), k = std::min(rows(), cols());
    tensor<T, 2> q(shape_t<2>{k, m}, uninitialized); // by columns
    if (k > 0) q = slice(f_, range(0, k), all);
    detail_linalg::lp::orgqr(m, k, k, q.data(), m, tau_.data());
    return detail_linalg::from_columns(q, m, k);
  }
  /// The upper-triangular R (k×n).
  tensor<T, 2> R() const {
    const index_t k = std::min(rows(), cols()), n = cols();
    tensor<T, 2> r = zeros<T>(shape_t<2>{k, n});
    for (index_t i = 0; i < k; ++i)
      for (index_t j = i; j < n; ++j) r(i, j) = f_(j, i);
    return r;
  }
  /// The least-squares solution of A·X ≈ B (m ≥ n, full rank) from the stored factors: Qᴴ·B
  /// (ormqr), then R·X = (Qᴴ·B)[:n] (trtrs). Evaluated now; returns X.
  template <expression B>
  tensor<T, rank_v<std::remove_cvref_t<B>>> solve(const B& b) const {
    constexpr std::size_t RB = rank_v<std::remove_cvref_t<B>>;
    const index_t m = rows(), n = cols();
    if (b.shape()[0] != m || m < n) {
      const shape_t<2> a{m, n};
      detail::throw_solve_shape("lz::qr(A).solve",
                                m < n ? "needs m >= n" : "the rows of A and of B must agree",
                                a.data(), b.shape().data(), RB);
    }
    const index_t k = RB == 2 ? b.shape()[1] : 1;
    tensor<T, 2> c(shape_t<2>{k, m}, uninitialized); // B by columns
    if constexpr (RB == 2) {
      c = transpose(b);
    } else {
      auto row = slice(c, 0, all);
      row = b;
    }
    namespace lp = detail_linalg::lp;
    lp::ormqr(lp::side::left, lp::trans::conj_transpose, m, k, n, f_.data(), m, tau_.data(),
              c.data(), m);
    const int info = lp::trtrs(lp::uplo::upper, lp::trans::none, lp::diag::non_unit, n, k,
                               f_.data(), m, c.data(), m);
    if (info > 0)
      fusion::detail_plan::throw_lapack_info(
          "lz::qr(A).solve", fusion::detail_plan::blas_name<T>("trtrs"), info, n, n);
    tensor<T, RB> x;
    if constexpr (RB == 2)
      x = detail_linalg::from_columns(c, n, k);
    else
      x = slice(c, 0, range(0, n));
    return x;
  }

  template <class A>
  friend qr_factorization<detail_linalg::elem_t<A>> qr(A&& a);

 private:
  tensor<T, 2> f_; // A by columns; R above the diagonal, the reflectors below
  std::vector<T> tau_;
};

/// The QR factorization of an m×n matrix (any expression, evaluated once).
template <class A>
qr_factorization<detail_linalg::elem_t<A>> qr(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  qr_factorization<T> f;
  f.f_ = detail_linalg::columns_of<T>(a);
  const index_t m = a.shape()[0], n = a.shape()[1];
  f.tau_.assign(std::size_t(std::min(m, n)), T(0));
  detail_linalg::lp::geqrf(m, n, f.f_.data(), m, f.tau_.data());
  return f;
}

/// Eigenvalues (ascending) and orthonormal eigenvectors (columns) of a symmetric / Hermitian
/// matrix.
template <class T>
struct eigh_result {
  tensor<detail_linalg::real_t<T>, 1> values;
  tensor<T, 2> vectors; ///< A·vectors(:, j) = values(j)·vectors(:, j)
};

/// The eigen-decomposition of a symmetric (Hermitian) matrix by divide and conquer (syevd /
/// heevd); only the lower triangle is read.
template <class A>
eigh_result<detail_linalg::elem_t<A>> eigh(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  detail::check_square("lz::eigh", a);
  const index_t n = a.shape()[0];
  tensor<T, 2> c = detail_linalg::columns_of<T>(a);
  eigh_result<T> r;
  r.values = tensor<detail_linalg::real_t<T>, 1>(shape_t<1>{n}, uninitialized);
  const int info =
      detail_linalg::lp::syevd(true, kernels::blas::uplo::lower, n, c.data(), n, r.values.data());
  if (info > 0)
    throw linalg_error("lz::eigh: syevd/heevd did not converge (LAPACK info " +
                       std::to_string(info) + ")");
  r.vectors = detail_linalg::from_columns(c, n, n);
  return r;
}

/// The thin singular value decomposition A = U·diag(s)·Vᴴ (k = min(m, n)).
template <class T>
struct svd_result {
  tensor<T, 2> U;                        ///< m×k, orthonormal columns
  tensor<detail_linalg::real_t<T>, 1> s; ///< k singular values, descending
  tensor<T, 2> Vt;                       ///< k×n, orthonormal rows (Vᴴ)
};

/// The thin SVD of an m×n matrix by divide and conquer (gesdd).
template <class A>
svd_result<detail_linalg::elem_t<A>> svd(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  const index_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  tensor<T, 2> c = detail_linalg::columns_of<T>(a);
  tensor<T, 2> u(shape_t<2>{k, m}, uninitialized), vt(shape_t<2>{n, k}, uninitialized);
  svd_result<T> r;
  r.s = tensor<detail_linalg::real_t<T>, 1>(shape_t<1>{k}, uninitialized);
  const int info =
      detail_linalg::lp::gesdd('S', m, n, c.data(), m, r.s.data(), u.data(), m, vt.data(), k);
  if (info > 0)
    throw linalg_error("lz::svd: gesdd did not converge (LAPACK info " + std::to_string(info) +
                       ")");
  r.U = detail_linalg::from_columns(u, m, k);
  r.Vt = detail_linalg::from_columns(vt, k, n);
  return r;
}

/// The singular values of A, descending (gesdd without vectors).
template <class A>
tensor<detail_linalg::real_t<detail_linalg::elem_t<A>>, 1> singular_values(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  const index_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
  tensor<T, 2> c = detail_linalg::columns_of<T>(a);
  tensor<detail_linalg::real_t<T>, 1> s(shape_t<1>{k}, uninitialized);
  const int info =
      detail_linalg::lp::gesdd<T>('N', m, n, c.data(), m, s.data(), nullptr, 1, nullptr, 1);
  if (info > 0)
    throw linalg_error("lz::singular_values: gesdd did not converge (LAPACK info " +
                       std::to_string(info) + ")");
  return s;
}

/// det(A) of a square matrix by LU (getrf); 0 for an exactly singular matrix.
template <class A>
detail_linalg::elem_t<A> det(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  detail::check_square("lz::det", a);
  const index_t n = a.shape()[0];
  tensor<T, 2> f(a.shape(), uninitialized);
  f = a;
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  if (detail_linalg::lp::getrf(n, n, f.data(), n, ipiv.data()) > 0) return T(0);
  T d(1);
  for (index_t i = 0; i < n; ++i) {
    d *= f(i, i);
    if (ipiv[std::size_t(i)] != int(i + 1)) d = -d;
  }
  return d;
}

/// The reciprocal condition number of a square A in the 1-norm, estimated from its LU factors
/// (getrf + gecon, as LAPACK's and Armadillo's rcond): 0 for a singular matrix.
template <class A>
detail_linalg::real_t<detail_linalg::elem_t<A>> rcond(A&& a) {
  using T = detail_linalg::elem_t<A>;
  detail_linalg::check_matrix<A>();
  detail::check_square("lz::rcond", a);
  const index_t n = a.shape()[0];
  tensor<T, 2> f(a.shape(), uninitialized);
  f = a; // Aᵀ by columns: A's 1-norm is its ∞-norm
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  const auto anorm = detail_linalg::lp::lange('I', n, n, f.data(), n);
  if (detail_linalg::lp::getrf(n, n, f.data(), n, ipiv.data()) > 0) return 0;
  return detail_linalg::lp::gecon('I', n, f.data(), n, anorm);
}

/// The 2-norm condition number σmax / σmin of A (∞ when A is rank-deficient).
template <class A>
detail_linalg::real_t<detail_linalg::elem_t<A>> cond(A&& a) {
  using R = detail_linalg::real_t<detail_linalg::elem_t<A>>;
  const auto s = singular_values(std::forward<A>(a));
  const index_t k = s.shape()[0];
  if (k == 0) return R(0);
  if (s(k - 1) == R(0)) return std::numeric_limits<R>::infinity();
  return s(0) / s(k - 1);
}

} // namespace lz
