// Solver rules (fusion/rules/solve.hpp, triangular.hpp, inverse.hpp, normal_equations.hpp):
// the plan chosen (compile time), the LAPACK calls and temporaries (recording backend,
// lz::stats), and the numbers against a long-double Gaussian elimination on random
// well-conditioned matrices with fixed seeds, all layouts; singular, indefinite and
// rank-deficient inputs leave the destination untouched.
#include <boost/test/unit_test.hpp>

#include <support/recording.hpp>

#include <lz/lz.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

using lz::index_t;
using lz::fusion::rule_id;
using lz::fusion::rule_v;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

template <class T>
using real_of = decltype(std::abs(T{}));

// A random n×n matrix with a dominant diagonal (well conditioned), entries in [-1, 1].
template <class T>
lz::matrix<T> well_conditioned(index_t n, std::uint64_t seed) {
  lz::matrix<T> A(n, n);
  const lz::matrix<double> re = lz::random<double>({n, n}, seed, lz::uniform{-1, 1});
  const lz::matrix<double> im = lz::random<double>({n, n}, seed + 1000, lz::uniform{-1, 1});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if constexpr (lz::detail::is_complex_v<T>)
        A(i, j) = T(typename T::value_type(re(i, j)), typename T::value_type(im(i, j)));
      else
        A(i, j) = T(re(i, j));
      if (i == j) A(i, j) += T(2 + n / 4);
    }
  return A;
}
template <class T, std::size_t R>
lz::tensor<T, R> rhs(const lz::shape_t<R>& s, std::uint64_t seed) {
  lz::tensor<T, R> b(s, lz::uninitialized);
  const lz::tensor<double, R> re = lz::random<double>(s, seed, lz::uniform{-1, 1});
  const lz::tensor<double, R> im = lz::random<double>(s, seed + 7, lz::uniform{-1, 1});
  auto bi = b.data();
  for (index_t i = 0; i < b.size(); ++i) {
    if constexpr (lz::detail::is_complex_v<T>)
      bi[i] = T(typename T::value_type(re.data()[i]), typename T::value_type(im.data()[i]));
    else
      bi[i] = T(re.data()[i]);
  }
  return b;
}

// op(A)⁻¹·B by Gaussian elimination with partial pivoting in long double (an independent
// reference: no LAPACK). B is n×k (row-major, k = 1 for a vector).
template <class T>
std::vector<std::complex<long double>> reference_solve(const lz::matrix<T>& A,
                                                       const std::vector<T>& B, index_t k) {
  using L = std::complex<long double>;
  const index_t n = A.shape()[0];
  std::vector<L> a(std::size_t(n * n)), b(std::size_t(n * k));
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) a[std::size_t(i * n + j)] = L(A(i, j));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = L(B[i]);
  for (index_t c = 0; c < n; ++c) {
    index_t p = c;
    for (index_t r = c + 1; r < n; ++r)
      if (std::abs(a[std::size_t(r * n + c)]) > std::abs(a[std::size_t(p * n + c)])) p = r;
    for (index_t j = 0; j < n; ++j) std::swap(a[std::size_t(c * n + j)], a[std::size_t(p * n + j)]);
    for (index_t j = 0; j < k; ++j) std::swap(b[std::size_t(c * k + j)], b[std::size_t(p * k + j)]);
    for (index_t r = c + 1; r < n; ++r) {
      const L f = a[std::size_t(r * n + c)] / a[std::size_t(c * n + c)];
      for (index_t j = c; j < n; ++j) a[std::size_t(r * n + j)] -= f * a[std::size_t(c * n + j)];
      for (index_t j = 0; j < k; ++j) b[std::size_t(r * k + j)] -= f * b[std::size_t(c * k + j)];
    }
  }
  for (index_t c = n - 1; c >= 0; --c)
    for (index_t j = 0; j < k; ++j) {
      L s = b[std::size_t(c * k + j)];
      for (index_t q = c + 1; q < n; ++q)
        s -= a[std::size_t(c * n + q)] * b[std::size_t(q * k + j)];
      b[std::size_t(c * k + j)] = s / a[std::size_t(c * n + c)];
    }
  return b;
}

// max |x - ref| ≤ tol·n·ε·(1 + max|ref|) for a well-conditioned system.
template <class T, std::size_t R>
bool close_to(const lz::tensor<T, R>& x, const std::vector<std::complex<long double>>& ref,
              index_t n, double tol = 64) {
  const double eps = std::numeric_limits<real_of<T>>::epsilon();
  double worst = 0, scale = 1;
  std::size_t i = 0;
  bool ok = true;
  auto visit = [&](T v) {
    const auto r = ref[i++];
    worst = std::max(worst, double(std::abs(std::complex<long double>(v) - r)));
    scale = std::max(scale, double(std::abs(r)));
  };
  if constexpr (R == 1)
    for (index_t a = 0; a < x.shape()[0]; ++a) visit(x(a));
  else
    for (index_t a = 0; a < x.shape()[0]; ++a)
      for (index_t b = 0; b < x.shape()[1]; ++b) visit(x(a, b));
  ok = worst <= tol * double(std::max<index_t>(n, 1)) * eps * scale;
  if (!ok) BOOST_TEST_MESSAGE("worst error " << worst << " scale " << scale);
  return ok;
}

template <class T, std::size_t R>
std::vector<T> flat(const lz::tensor<T, R>& b) {
  std::vector<T> v;
  if constexpr (R == 1)
    for (index_t a = 0; a < b.shape()[0]; ++a) v.push_back(b(a));
  else
    for (index_t a = 0; a < b.shape()[0]; ++a)
      for (index_t c = 0; c < b.shape()[1]; ++c) v.push_back(b(a, c));
  return v;
}

template <class T>
lz::matrix<T> transposed(const lz::matrix<T>& A) {
  lz::matrix<T> t = lz::transpose(A);
  return t;
}

} // namespace

// ---- plans (compile time) ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(solver_trees_select_the_solver_rules_at_compile_time) {
  lz::matrix<double> A(3, 3), B(3, 2), C(2, 3);
  lz::vector<double> b(3);
  static_assert(rule_v<double, decltype(lz::solve(A, b))> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::solve(A, B))> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::inv(A) * B)> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::inv(A) * b)> == rule_id::solve);
  static_assert(rule_v<double, decltype(2.0 * lz::inv(A) * B)> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::inv(lz::transpose(A)) * B)> == rule_id::solve);
  static_assert(rule_v<double, decltype(C * lz::inv(A))> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::solve(lz::sympd(A), b))> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::lstsq(C, lz::vector<double>(2)))> == rule_id::solve);
  static_assert(rule_v<double, decltype(lz::solve(lz::triangular<lz::lower>(A), b))> ==
                rule_id::triangular);
  static_assert(rule_v<double, decltype(lz::inv(A))> == rule_id::inverse);
  static_assert(rule_v<double, decltype(lz::inv(lz::transpose(A) * A) * lz::transpose(A) * b)> ==
                rule_id::normal_equations);
  static_assert(rule_v<double, decltype(lz::inv(lz::transpose(A) * A) * (lz::transpose(A) * b))> ==
                rule_id::normal_equations);
  static_assert(rule_v<double, decltype(2.0 * lz::inv(A) * B + 3.0 * B)> == rule_id::nested);
  static_assert(lz::is_solve_v<decltype(lz::inv(A) * B)>); // never a product with an inverse
  static_assert(lz::is_inv_v<decltype(-lz::inv(A) / 2.0)>);
  BOOST_TEST(true);
}

// ---- calls and temporaries (run time) ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(inv_of_a_times_b_is_one_getrf_and_one_getrs_and_no_inverse) {
  const auto A = well_conditioned<double>(40, 1);
  const auto B = rhs<double>(lz::shape_t<2>{40, 7}, 2);
  lz::matrix<double> X(40, 7, lz::layout_left);
  lz_test::recording rec;
  lz::reset_stats();
  X = lz::inv(A) * B;
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(rec.count("getri") == 0u);
  BOOST_TEST(lz::stats().temporaries == 2u); // the LU factors and the pivots
  BOOST_TEST(char(rec.calls[1].ta) == 'T');  // row-major A as Aᵀ
  BOOST_TEST(rec.calls[1].k == 7);
  BOOST_TEST(close_to(lz::tensor<double, 2>(X), reference_solve(A, flat(B), 7), 40));
}

BOOST_AUTO_TEST_CASE(a_row_major_right_hand_side_is_solved_in_one_column_major_temporary) {
  const auto A = well_conditioned<double>(30, 3);
  const auto B = rhs<double>(lz::shape_t<2>{30, 4}, 4);
  lz::matrix<double> X(30, 4);
  lz_test::recording rec;
  lz::reset_stats();
  X = lz::inv(A) * B;
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(lz::stats().temporaries == 3u);
  BOOST_TEST(close_to(lz::tensor<double, 2>(X), reference_solve(A, flat(B), 4), 30));
}

BOOST_AUTO_TEST_CASE(a_vector_is_solved_in_the_destination) {
  const auto A = well_conditioned<double>(50, 5);
  const auto b = rhs<double>(lz::shape_t<1>{50}, 6);
  lz::vector<double> x(50);
  lz_test::recording rec;
  lz::reset_stats();
  x = lz::solve(A, b);
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(lz::stats().temporaries == 2u);
  BOOST_TEST(close_to(x, reference_solve(A, flat(b), 1), 50));
}

BOOST_AUTO_TEST_CASE(b_times_inv_a_is_the_transposed_solve_into_a_row_major_destination) {
  const auto A = well_conditioned<double>(20, 7);
  const auto B = rhs<double>(lz::shape_t<2>{6, 20}, 8);
  lz::matrix<double> X(6, 20);
  lz_test::recording rec;
  lz::reset_stats();
  X = B * lz::inv(A);
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(lz::stats().temporaries == 2u); // X itself holds Xᵀ by columns
  // X = B·A⁻¹  ⇔  Xᵀ = A⁻ᵀ·Bᵀ
  const lz::matrix<double> Xt = lz::transpose(X);
  BOOST_TEST(close_to(Xt, reference_solve(transposed(A), flat(transposed(B)), 6), 20));
}

BOOST_AUTO_TEST_CASE(inv_of_a_transposed_view_solves_with_the_other_trans_flag_and_no_copy_of_at) {
  const auto A = well_conditioned<double>(25, 9);
  const auto b = rhs<double>(lz::shape_t<1>{25}, 10);
  lz::vector<double> x(25);
  lz_test::recording rec;
  x = lz::inv(lz::transpose(A)) * b;
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(char(rec.calls[1].ta) == 'N'); // Aᵀ's memory is A by columns
  BOOST_TEST(close_to(x, reference_solve(transposed(A), flat(b), 1), 25));
}

BOOST_AUTO_TEST_CASE(sympd_solves_by_cholesky_potrf_and_potrs) {
  const auto G = well_conditioned<double>(30, 11);
  const lz::matrix<double> S = lz::transpose(G) * G;
  const auto b = rhs<double>(lz::shape_t<1>{30}, 12);
  lz::vector<double> x(30);
  lz_test::recording rec;
  x = lz::solve(lz::sympd(S), b);
  BOOST_TEST(rec.summary() == "dpotrf dpotrs ");
  BOOST_TEST(close_to(x, reference_solve(S, flat(b), 1), 30, 512));
}

BOOST_AUTO_TEST_CASE(triangular_solves_read_the_matrix_in_place_with_one_trtrs) {
  auto L = well_conditioned<double>(33, 13);
  for (index_t i = 0; i < 33; ++i)
    for (index_t j = i + 1; j < 33; ++j) L(i, j) = 0;
  lz::matrix<double> Lfull = L;
  for (index_t i = 0; i < 33; ++i)
    for (index_t j = i + 1; j < 33; ++j) Lfull(i, j) = 1e30; // never read
  const auto b = rhs<double>(lz::shape_t<1>{33}, 14);
  lz::vector<double> x(33);
  lz_test::recording rec;
  lz::reset_stats();
  x = lz::solve(lz::triangular<lz::lower>(Lfull), b);
  BOOST_TEST(rec.summary() == "dtrtrs ");
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(char(rec.calls[0].u) == 'U'); // row-major L read as Lᵀ
  BOOST_TEST(close_to(x, reference_solve(L, flat(b), 1), 33));
  // upper, column-major, matrix right-hand side
  lz::matrix<double> U(33, 33, lz::layout_left);
  U = lz::transpose(L);
  const auto B = rhs<double>(lz::shape_t<2>{33, 3}, 15);
  lz::matrix<double> X(33, 3, lz::layout_left);
  X = lz::solve(lz::triangular<lz::upper>(U), B);
  BOOST_TEST(close_to(lz::tensor<double, 2>(X), reference_solve(transposed(L), flat(B), 3), 33));
}

BOOST_AUTO_TEST_CASE(normal_equations_become_one_least_squares_solve) {
  const auto M = rhs<double>(lz::shape_t<2>{60, 8}, 16);
  const auto y = rhs<double>(lz::shape_t<1>{60}, 17);
  lz::vector<double> x(8), x2(8), x3(8);
  lz_test::recording rec;
  x = lz::inv(lz::transpose(M) * M) * lz::transpose(M) * y;
  BOOST_TEST(rec.summary() == "dgels ");
  rec.calls.clear();
  x2 = lz::inv(lz::transpose(M) * M) * (lz::transpose(M) * y);
  BOOST_TEST(rec.summary() == "dgels ");
  // the reference: the normal equations solved in long double
  const lz::matrix<double> N = lz::transpose(M) * M;
  const lz::vector<double> r = lz::transpose(M) * y;
  const auto want = reference_solve(N, flat(r), 1);
  BOOST_TEST(close_to(x, want, 60, 4096));
  BOOST_TEST(close_to(x2, want, 60, 4096));
  // not one matrix: as written (a solve, then a product)
  const lz::matrix<double> M2 = M;
  rec.calls.clear();
  x3 = lz::inv(lz::transpose(M) * M) * lz::transpose(M2) * y;
  BOOST_TEST(rec.count("gels") == 0u);
  BOOST_TEST(rec.count("getrf") == 1u);
  BOOST_TEST(close_to(x3, want, 60, 4096));
}

BOOST_AUTO_TEST_CASE(inv_alone_is_getrf_and_getri_in_a_temporary) {
  const auto A = well_conditioned<double>(12, 18);
  lz::matrix<double> X(12, 12);
  lz_test::recording rec;
  X = lz::inv(A);
  BOOST_TEST(rec.summary() == "dgetrf dgetri ");
  lz::matrix<double> I = A * X;
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 12; ++j) BOOST_TEST(std::abs(I(i, j) - (i == j)) < 1e-13);
  lz::matrix<double> Y(12, 12, lz::layout_left);
  Y = -2.0 * lz::inv(A);
  lz::matrix<double> J = A * Y;
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 12; ++j) BOOST_TEST(std::abs(J(i, j) + 2.0 * (i == j)) < 1e-13);
}

BOOST_AUTO_TEST_CASE(a_factorization_solves_many_right_hand_sides_with_getrs_only) {
  const auto A = well_conditioned<double>(35, 19);
  const auto f = lz::lu(A);
  lz_test::recording rec;
  for (std::uint64_t s = 0; s < 3; ++s) {
    const auto b = rhs<double>(lz::shape_t<1>{35}, 100 + s);
    lz::vector<double> x = f.solve(b);
    BOOST_TEST(close_to(x, reference_solve(A, flat(b), 1), 35));
  }
  BOOST_TEST(rec.summary() == "dgetrs dgetrs dgetrs ");
  const auto G = well_conditioned<double>(20, 20);
  const lz::matrix<double> S = lz::transpose(G) * G;
  const auto c = lz::cholesky(S);
  const auto B = rhs<double>(lz::shape_t<2>{20, 2}, 21);
  rec.calls.clear();
  lz::matrix<double> X = c.solve(B);
  BOOST_TEST(rec.summary() == "dpotrs ");
  BOOST_TEST(close_to(lz::tensor<double, 2>(X), reference_solve(S, flat(B), 2), 20, 512));
}

BOOST_AUTO_TEST_CASE(alpha_and_beta_fold_into_the_copy_and_the_following_pass) {
  const auto A = well_conditioned<double>(16, 22);
  const auto B = rhs<double>(lz::shape_t<2>{16, 5}, 23);
  const auto C = rhs<double>(lz::shape_t<2>{16, 5}, 24);
  lz::matrix<double> X(16, 5, lz::layout_left);
  lz_test::recording rec;
  lz::reset_stats();
  X = 2.0 * lz::inv(A) * B + 3.0 * C;
  BOOST_TEST(rec.summary() == "dgetrf dgetrs ");
  BOOST_TEST(lz::stats().temporaries == 2u); // the solve lands in X; then X = X + 3·C
  const auto ref = reference_solve(A, flat(B), 5);
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 5; ++j)
      BOOST_TEST(std::abs(X(i, j) - (2.0 * double(ref[std::size_t(i * 5 + j)].real()) +
                                     3.0 * C(i, j))) < 1e-12);
  // += accumulates through a temporary
  lz::matrix<double> Y = C;
  Y += lz::inv(A) * B;
  for (index_t i = 0; i < 16; ++i)
    for (index_t j = 0; j < 5; ++j)
      BOOST_TEST(std::abs(Y(i, j) - (double(ref[std::size_t(i * 5 + j)].real()) + C(i, j))) <
                 1e-12);
}

// ---- numbers: random shapes, layouts, types ----------------------------------------------------

template <class T>
void solve_on_every_layout(std::uint64_t seed) {
  for (index_t n : {1, 2, 7, 33, 64}) {
    const auto A = well_conditioned<T>(n, seed + std::uint64_t(n));
    for (index_t k : {1, 3}) {
      const auto B = rhs<T>(lz::shape_t<2>{n, k}, seed + 50 + std::uint64_t(n));
      const auto want = reference_solve(A, flat(B), k);
      // A row-major, column-major, a strided view (copied once); X row- and column-major
      lz::matrix<T> Acol(n, n, lz::layout_left);
      Acol = A;
      lz::matrix<T> Abig(2 * n, 2 * n);
      auto Astrided = lz::slice(Abig, lz::range(0, 2 * n, 2), lz::range(0, 2 * n, 2));
      Astrided = A;
      lz::matrix<T> Xr(n, k), Xc(n, k, lz::layout_left);
      Xr = lz::solve(A, B);
      BOOST_TEST(close_to(lz::tensor<T, 2>(Xr), want, n));
      Xc = lz::inv(Acol) * B;
      BOOST_TEST(close_to(lz::tensor<T, 2>(Xc), want, n));
      Xr = lz::inv(Astrided) * B;
      BOOST_TEST(close_to(lz::tensor<T, 2>(Xr), want, n));
      // an expression as the matrix and as the right-hand side
      Xc = lz::solve(A + T(0), B * T(1));
      BOOST_TEST(close_to(lz::tensor<T, 2>(Xc), want, n));
      lz::vector<T> x(n);
      x = lz::solve(A, lz::slice(B, lz::all, 0));
      std::vector<std::complex<long double>> col;
      for (index_t i = 0; i < n; ++i) col.push_back(want[std::size_t(i * k)]);
      BOOST_TEST(close_to(x, col, n));
    }
  }
}

BOOST_AUTO_TEST_CASE(solves_match_the_reference_for_every_layout_and_element_type) {
  solve_on_every_layout<double>(100);
  solve_on_every_layout<float>(200);
  solve_on_every_layout<cd>(300);
  solve_on_every_layout<cf>(400);
}

BOOST_AUTO_TEST_CASE(complex_hermitian_and_least_squares_solves_are_correct) {
  const auto G = well_conditioned<cd>(18, 31);
  lz::matrix<cd> Gh(18, 18);
  for (index_t i = 0; i < 18; ++i)
    for (index_t j = 0; j < 18; ++j) Gh(i, j) = std::conj(G(j, i));
  const lz::matrix<cd> H = Gh * G;
  const auto b = rhs<cd>(lz::shape_t<1>{18}, 32);
  lz::vector<cd> x = lz::solve(lz::sympd(H), b);
  BOOST_TEST(close_to(x, reference_solve(H, flat(b), 1), 18, 512));
  // least squares, complex: the residual is orthogonal to the columns (Aᴴ·r = 0)
  const auto M = rhs<cd>(lz::shape_t<2>{30, 6}, 33);
  const auto y = rhs<cd>(lz::shape_t<1>{30}, 34);
  lz::vector<cd> z = lz::lstsq(M, y);
  const lz::vector<cd> r = M * z - y;
  for (index_t j = 0; j < 6; ++j) {
    cd s = 0;
    for (index_t i = 0; i < 30; ++i) s += std::conj(M(i, j)) * r(i);
    BOOST_TEST(std::abs(s) < 1e-12);
  }
}

// ---- aliasing ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(solves_that_read_their_destination_are_correct) {
  const auto A0 = well_conditioned<double>(10, 41);
  const auto b0 = rhs<double>(lz::shape_t<1>{10}, 42);
  const auto want = reference_solve(A0, flat(b0), 1);
  lz::vector<double> b = b0;
  b = lz::solve(A0, b); // in place
  BOOST_TEST(close_to(b, want, 10));
  lz::vector<double> c = b0;
  c = lz::inv(A0) * c;
  BOOST_TEST(close_to(c, want, 10));
  lz::matrix<double> A = A0;
  A = lz::inv(A) * A; // the identity
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 10; ++j) BOOST_TEST(std::abs(A(i, j) - (i == j)) < 1e-13);
  lz::matrix<double> D = A0;
  D = lz::inv(D);
  lz::matrix<double> I = A0 * D;
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 10; ++j) BOOST_TEST(std::abs(I(i, j) - (i == j)) < 1e-13);
}

// ---- bad inputs ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_singular_matrix_throws_linalg_error_and_leaves_the_destination_untouched) {
  lz::matrix<double> A = well_conditioned<double>(6, 51);
  for (index_t j = 0; j < 6; ++j) A(3, j) = A(1, j); // two equal rows
  for (index_t j = 0; j < 6; ++j) A(4, j) = 0;       // and a zero row
  lz::matrix<double> Z = lz::zeros<double>({6, 6});
  const auto B = rhs<double>(lz::shape_t<2>{6, 2}, 52);
  lz::matrix<double> X(6, 2, lz::layout_left);
  X = B;
  const lz::matrix<double> X0 = X;
  BOOST_CHECK_THROW(X = lz::solve(Z, B), lz::linalg_error);
  BOOST_CHECK_THROW(X = lz::inv(Z) * B, lz::linalg_error);
  BOOST_TEST(bool(lz::all(X == X0)));
  lz::matrix<double> Y = X0;
  BOOST_CHECK_THROW(Y = lz::inv(Z), lz::linalg_error);
  BOOST_TEST(bool(lz::all(Y == X0)));
  try {
    X = lz::solve(Z, B);
  } catch (const lz::linalg_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("lz::solve") != std::string::npos);
    BOOST_TEST(w.find("dgetrf") != std::string::npos);
    BOOST_TEST(w.find("singular") != std::string::npos);
    BOOST_TEST(w.find("info 1") != std::string::npos);
  }
  BOOST_CHECK_THROW(lz::lu(Z), lz::linalg_error);
  BOOST_TEST(lz::det(Z) == 0.0);
  BOOST_TEST(lz::rcond(Z) == 0.0);
  BOOST_TEST(std::isinf(lz::cond(Z)));
}

BOOST_AUTO_TEST_CASE(an_indefinite_matrix_names_its_leading_minor) {
  lz::matrix<double> S = lz::zeros<double>({4, 4});
  S(0, 0) = 4, S(1, 1) = 3, S(2, 2) = -1, S(3, 3) = 2; // the third minor is negative
  const auto b = rhs<double>(lz::shape_t<1>{4}, 53);
  lz::vector<double> x = b;
  try {
    x = lz::solve(lz::sympd(S), b);
    BOOST_TEST(false);
  } catch (const lz::linalg_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("not positive definite") != std::string::npos);
    BOOST_TEST(w.find("order 3") != std::string::npos);
  }
  BOOST_TEST(bool(lz::all(x == b)));
  BOOST_CHECK_THROW(lz::cholesky(S), lz::linalg_error);
  // a zero on a triangular diagonal
  lz::matrix<double> L = lz::zeros<double>({3, 3});
  L(0, 0) = 1, L(1, 1) = 0, L(2, 2) = 1;
  lz::vector<double> y = lz::slice(b, lz::range(0, 3));
  const lz::vector<double> y0 = y;
  BOOST_CHECK_THROW(y = lz::solve(lz::triangular<lz::lower>(L), y0), lz::linalg_error);
  BOOST_TEST(bool(lz::all(y == y0)));
  // a rank-deficient least-squares problem
  lz::matrix<double> M = lz::zeros<double>({5, 2});
  for (index_t i = 0; i < 5; ++i) M(i, 0) = double(i + 1); // and a zero column
  lz::vector<double> z(2);
  BOOST_CHECK_THROW(z = lz::lstsq(M, lz::vector<double>(lz::ones<double>({5}))), lz::linalg_error);
}

BOOST_AUTO_TEST_CASE(a_zero_on_a_triangular_diagonal_leaves_another_destination_untouched) {
  lz::matrix<double> L = lz::zeros<double>({3, 3});
  L(0, 0) = 1, L(1, 1) = 0, L(2, 2) = 1;
  const auto b = rhs<double>(lz::shape_t<1>{3}, 60);
  lz::vector<double> y = lz::zeros<double>({3}); // stride 1: solved in place, after the check
  lz_test::recording rec;
  BOOST_CHECK_THROW(y = lz::solve(lz::triangular<lz::lower>(L), b), lz::linalg_error);
  BOOST_TEST(bool(lz::all(y == 0.0)));
  BOOST_TEST(rec.summary() == ""); // the check reads the diagonal: no LAPACK call ran
  const std::string plan = lz::explain(y, lz::solve(lz::triangular<lz::lower>(L), b));
  BOOST_TEST(plan.find("check the diagonal") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(shape_mismatches_are_shape_errors_naming_both_shapes) {
  lz::matrix<double> A(3, 4), S(3, 3);
  lz::vector<double> b(3), c(4);
  BOOST_CHECK_THROW((void)lz::solve(A, b), lz::shape_error);
  BOOST_CHECK_THROW((void)lz::solve(S, c), lz::shape_error);
  BOOST_CHECK_THROW((void)lz::inv(A), lz::shape_error);
  BOOST_CHECK_THROW((void)(lz::inv(S) * c), lz::shape_error);
  BOOST_CHECK_THROW((void)(lz::matrix<double>(2, 4) * lz::inv(S)), lz::shape_error);
  BOOST_CHECK_THROW((void)lz::lstsq(A, c), lz::shape_error);
  BOOST_CHECK_THROW((void)lz::det(A), lz::shape_error);
  try {
    (void)lz::solve(S, c);
  } catch (const lz::shape_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("(3,3)") != std::string::npos);
    BOOST_TEST(w.find("(4,)") != std::string::npos);
  }
  lz::vector<double> x(4);
  auto xv = x.view();                                       // a view is not resized
  BOOST_CHECK_THROW(xv = lz::solve(S, b), lz::shape_error); // 3 unknowns into 4
}

// ---- factorizations as values ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(factorizations_reconstruct_their_matrix) {
  const auto A = well_conditioned<double>(9, 61);
  const auto f = lz::lu(A);
  // det against the reference elimination: det = Π pivots (sign from the swaps)
  BOOST_TEST(std::abs(f.det() - lz::det(A)) <= 1e-12 * std::abs(f.det()));
  BOOST_TEST(f.rcond() > 0.0);
  BOOST_TEST(f.rcond() <= 1.0);
  BOOST_TEST(std::abs(f.rcond() - lz::rcond(A)) < 1e-15);
  const lz::matrix<double> I = lz::zeros<double>({5, 5}) + 0.0;
  lz::matrix<double> E = lz::zeros<double>({5, 5});
  for (index_t i = 0; i < 5; ++i) E(i, i) = 2.0;
  BOOST_TEST(std::abs(lz::det(E) - 32.0) < 1e-12);
  BOOST_TEST(std::abs(lz::rcond(E) - 1.0) < 1e-15);
  BOOST_TEST(std::abs(lz::cond(E) - 1.0) < 1e-14);
  (void)I;

  const lz::matrix<double> S = lz::transpose(A) * A;
  const auto c = lz::cholesky(S);
  const lz::matrix<double> L = c.L();
  const lz::matrix<double> LLt = L * lz::transpose(L);
  BOOST_TEST(double(lz::max(lz::abs(LLt - S))) < 1e-12 * double(lz::max(lz::abs(S))));
  BOOST_TEST(std::abs(c.det() - lz::det(S)) <= 1e-10 * std::abs(c.det()));

  const auto M = rhs<double>(lz::shape_t<2>{11, 4}, 62);
  const auto q = lz::qr(M);
  const lz::matrix<double> Q = q.Q(), R = q.R();
  const lz::matrix<double> QR = Q * R;
  const lz::matrix<double> QtQ = lz::transpose(Q) * Q;
  BOOST_TEST(double(lz::max(lz::abs(QR - M))) < 1e-14);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 4; ++j) BOOST_TEST(std::abs(QtQ(i, j) - (i == j)) < 1e-14);
  for (index_t i = 1; i < 4; ++i) BOOST_TEST(R(i, 0) == 0.0);
  const auto y = rhs<double>(lz::shape_t<1>{11}, 63);
  const lz::vector<double> z1 = q.solve(y);
  const lz::vector<double> z2 = lz::lstsq(M, y);
  BOOST_TEST(double(lz::max(lz::abs(z1 - z2))) < 1e-13);

  const auto e = lz::eigh(S);
  for (index_t j = 1; j < 9; ++j) BOOST_TEST(e.values(j - 1) <= e.values(j));
  const lz::matrix<double> SV = S * e.vectors;
  for (index_t i = 0; i < 9; ++i)
    for (index_t j = 0; j < 9; ++j)
      BOOST_TEST(std::abs(SV(i, j) - e.values(j) * e.vectors(i, j)) < 1e-11 * e.values(8));

  const auto s = lz::svd(M);
  lz::matrix<double> US = s.U;
  for (index_t i = 0; i < 11; ++i)
    for (index_t j = 0; j < 4; ++j) US(i, j) *= s.s(j);
  const lz::matrix<double> USV = US * s.Vt;
  BOOST_TEST(double(lz::max(lz::abs(USV - M))) < 1e-14);
  const lz::vector<double> sv = lz::singular_values(M);
  for (index_t j = 0; j < 4; ++j) BOOST_TEST(std::abs(sv(j) - s.s(j)) < 1e-14);
  BOOST_TEST(std::abs(lz::cond(M) - s.s(0) / s.s(3)) < 1e-10 * lz::cond(M));
}

BOOST_AUTO_TEST_CASE(explain_names_the_solver_rules_and_the_lapack_calls) {
  const auto A = well_conditioned<double>(8, 71);
  const auto M = rhs<double>(lz::shape_t<2>{20, 8}, 72);
  lz::vector<double> b(8), y(20), x(8);
  const std::string s = lz::explain(x, lz::inv(A) * b);
  BOOST_TEST(s.find("dgetrf(n=8") != std::string::npos);
  BOOST_TEST(s.find("dgetrs(T, n=8, nrhs=1") != std::string::npos);
  BOOST_TEST(s.find("[rule solve]") != std::string::npos);
  BOOST_TEST(s.find("getri") == std::string::npos);
  const std::string ne = lz::explain(x, lz::inv(lz::transpose(M) * M) * lz::transpose(M) * y);
  BOOST_TEST(ne.find("dgels") != std::string::npos);
  BOOST_TEST(ne.find("[rule normal equations]") != std::string::npos);
  BOOST_TEST(ne.find("least-squares solution") != std::string::npos);
}
