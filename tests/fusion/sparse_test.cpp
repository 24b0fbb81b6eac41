// Sparse rules (fusion/rules/spmv.hpp, spmm.hpp, spgemm.hpp, sparse_sum.hpp, fusion/sparse.hpp) and
// lz::csr_matrix (include/lz/sparse.hpp): the plan chosen (compile time), the sparse calls and
// temporaries (recording backend, lz::stats), and the numbers against the dense engine on random
// patterns, shapes, layouts and values with fixed seeds; bad inputs throw and leave the destination
// as it was.
#include <boost/test/unit_test.hpp>

#include <support/recording.hpp>
#include <support/sparse.hpp>

#include <lz/lz.hpp>
#include <lz/sparse.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

using lz::index_t;
using lz::fusion::rule_id;
using lz::fusion::rule_v;
using cf = std::complex<float>;
using cd = std::complex<double>;

using namespace lz;
using namespace lz_test::sparse;

// ---- plans (compile time) ----------------------------------------------------------------------

namespace plan_checks {
using S = lz::csr_matrix<double>;
using lz::fusion::term_counts_v;
using A = const S&;
using x = const lz::vector<double>&;
using B = const lz::matrix<double>&;
template <class E>
constexpr rule_id rule = rule_v<double, E>;
static_assert(rule<decltype(std::declval<A>() * std::declval<x>())> == rule_id::spmv);
static_assert(rule<decltype(2 * std::declval<A>() * std::declval<x>() - 3 * std::declval<x>())> ==
              rule_id::spmv);
static_assert(
    rule<decltype(lz::transpose(std::declval<A>()) * std::declval<x>() + std::declval<x>())> ==
    rule_id::spmv);
static_assert(rule<decltype(std::declval<A>() * std::declval<B>())> == rule_id::spmm);
static_assert(rule<decltype(2 * std::declval<A>() * std::declval<B>() + 3 * std::declval<B>())> ==
              rule_id::spmm);
static_assert(
    rule<decltype(lz::maximum(std::declval<A>() * std::declval<x>() + std::declval<x>(), 0.0))> ==
    rule_id::nested);
static_assert(
    rule<decltype(std::declval<A>() * std::declval<x>() + std::declval<B>() * std::declval<x>())> ==
    rule_id::sum_of_products);
// A values expression operand of lazuli's own functions is computed inside the SpMV / SpMM a
// block at a time (transposed or not); a user function's is not.
using lz::fusion::detail_sparse::fills_by_block;
struct cube {
  double operator()(double v) const { return v * v * v; }
};
template <class S>
using values_of = std::remove_cvref_t<decltype(std::declval<S>().values_expr())>;
static_assert(fills_by_block<values_of<decltype(lz::abs(std::declval<A>()))>>());
static_assert(fills_by_block<values_of<decltype(lz::square(0.5 * std::declval<A>()))>>());
static_assert(!fills_by_block<values_of<decltype(lz::map(cube{}, std::declval<A>()))>>());
// abs and square of the stored values: an SpMV applies the function as it reads each value.
using lz::fusion::detail_sparse::read_fn_v;
using lz::kernels::sparse::value_fn;
static_assert(read_fn_v<values_of<decltype(lz::abs(std::declval<A>()))>> == value_fn::abs);
static_assert(read_fn_v<values_of<decltype(lz::square(std::declval<A>()))>> == value_fn::square);
static_assert(read_fn_v<values_of<decltype(lz::square(0.5 * std::declval<A>()))>> ==
              value_fn::none);
static_assert(read_fn_v<values_of<decltype(lz::tanh(std::declval<A>()))>> == value_fn::none);
static_assert(term_counts_v<decltype(2 * std::declval<A>() * std::declval<x>())>.sparse == 1);
static_assert(term_counts_v<decltype(std::declval<A>() * std::declval<x>())>.products == 1);
} // namespace plan_checks

// ---- calls and temporaries (run time) ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(two_a_x_minus_three_y_is_one_spmv_with_alpha_and_beta_and_no_temporary) {
  const auto A = random_sparse<double>(60, 40, 0.1, 1);
  const auto x = random_dense<double>(lz::shape_t<1>{40}, 2);
  lz::vector<double> y = random_dense<double>(lz::shape_t<1>{60}, 3);
  const lz::vector<double> y0 = y;
  lz_test::recording rec;
  lz::reset_stats();
  y = 2 * A * x - 3 * y;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(rec.only().beta == -3.0);
  BOOST_TEST(char(rec.only().ta) == 'N');
  BOOST_TEST(rec.only().k == A.nnz());
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto D = lz::to_dense(A);
  BOOST_TEST(close(y, lz::eval(2 * D * x - 3 * y0), 1e-13));
}

BOOST_AUTO_TEST_CASE(transpose_a_times_w_plus_z_is_one_copy_and_one_spmv_with_beta_one) {
  const auto A = random_sparse<double>(50, 30, 0.1, 4);
  const auto w = random_dense<double>(lz::shape_t<1>{50}, 5);
  const auto z = random_dense<double>(lz::shape_t<1>{30}, 6);
  lz::vector<double> y(30);
  lz_test::recording rec;
  lz::reset_stats();
  y = lz::transpose(A) * w + z;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(char(rec.only().ta) == 'T');
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(y, lz::eval(lz::transpose(lz::to_dense(A)) * w + z), 1e-13));
}

BOOST_AUTO_TEST_CASE(spmm_folds_alpha_beta_and_reads_any_layout_in_place) {
  const auto A = random_sparse<double>(45, 35, 0.15, 7);
  const lz::matrix<double> Br = random_dense<double>(lz::shape_t<2>{35, 6}, 8);
  lz::matrix<double> Bc(35, 6, lz::layout_left);
  Bc = Br;
  for (const bool col : {false, true}) {
    lz::matrix<double> C = random_dense<double>(lz::shape_t<2>{45, 6}, 9);
    const lz::matrix<double> C0 = C;
    lz_test::recording rec;
    lz::reset_stats();
    if (col)
      C = 2 * A * Bc + 3 * C;
    else
      C = 2 * A * Br + 3 * C;
    BOOST_TEST(rec.summary() == "dcsrmm ");
    BOOST_TEST(rec.only().alpha == 2.0);
    BOOST_TEST(rec.only().beta == 3.0);
    BOOST_TEST(rec.only().k == 6);
    BOOST_TEST(lz::stats().allocations == 0u);
    BOOST_TEST(close(C, lz::eval(2 * lz::to_dense(A) * Br + 3 * C0), 1e-13));
  }
}

BOOST_AUTO_TEST_CASE(a_sparse_product_under_a_function_lands_in_the_destination_then_one_pass) {
  const auto A = random_sparse<double>(80, 80, 0.05, 10);
  const auto x = random_dense<double>(lz::shape_t<1>{80}, 11);
  const auto b = random_dense<double>(lz::shape_t<1>{80}, 12);
  lz::vector<double> y(80);
  lz_test::recording rec;
  lz::reset_stats();
  y = lz::maximum(A * x + b, 0.0);
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(rec.only().beta == 0.0);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(y, lz::eval(lz::maximum(lz::to_dense(A) * x + b, 0.0)), 1e-13));
  const std::string plan = lz::explain(y, lz::maximum(A * x + b, 0.0));
  BOOST_TEST(plan.find("dcsrmv(N") != std::string::npos);
  BOOST_TEST(plan.find("[rule spmv]") != std::string::npos);
  BOOST_TEST(plan.find("loop dst") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_product_reading_its_destination_goes_through_one_temporary) {
  const auto A = random_sparse<double>(30, 30, 0.2, 13);
  lz::vector<double> y = random_dense<double>(lz::shape_t<1>{30}, 14);
  const lz::vector<double> y0 = y;
  lz_test::recording rec;
  lz::reset_stats();
  y = A * y;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(close(y, lz::eval(lz::to_dense(A) * y0), 1e-13));
}

BOOST_AUTO_TEST_CASE(a_values_expression_operand_is_computed_inside_the_product_no_temporary) {
  const auto A = random_sparse<double>(40, 40, 0.1, 15);
  const auto D = lz::to_dense(A);
  const auto x = random_dense<double>(lz::shape_t<1>{40}, 16);
  lz::vector<double> y(40);
  lz_test::recording rec;
  lz::reset_stats();
  y = lz::abs(A) * x; // f(A)'s values made a block at a time inside the SpMV
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(y, lz::eval(lz::abs(D) * x), 1e-13));
  const std::string plan = lz::explain(y, lz::abs(A) * x);
  BOOST_TEST(plan.find("values f(A)") != std::string::npos, plan);
  BOOST_TEST(plan.find("a block of 2048 entries at a time") != std::string::npos, plan);
  // Times a matrix, a scalar outside folded into α, one inside computed with the values.
  const auto X = random_dense<double>(lz::shape_t<2>{40, 3}, 17);
  lz::matrix<double> Y(40, 3);
  rec.calls.clear();
  lz::reset_stats();
  Y = 2 * lz::square(0.5 * A) * X;
  BOOST_TEST(rec.summary() == "dcsrmm ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(Y, lz::eval(2 * lz::square(0.5 * D) * X), 1e-13));
  // A transposed operand (a CSC view): the kernel scatters the blocks whose values it computes.
  rec.calls.clear();
  lz::reset_stats();
  y = lz::abs(lz::transpose(A)) * x;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(char(rec.only().ta) == 'T');
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(y, lz::eval(lz::abs(lz::transpose(D)) * x), 1e-13));
  const std::string tplan = lz::explain(y, lz::abs(lz::transpose(A)) * x);
  BOOST_TEST(tplan.find("dcsrmv(T") != std::string::npos, tplan);
  BOOST_TEST(tplan.find("values f(A)") != std::string::npos, tplan);
  // A user function (it may throw once y is partly written): one loop into a temporary of nnz
  // values, then the product.
  rec.calls.clear();
  lz::reset_stats();
  y = lz::map([](double v) { return v * v * v; }, A) * x;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(close(y, lz::eval(lz::map([](double v) { return v * v * v; }, D) * x), 1e-13));
}

template <class T, class I>
void values_products_match_the_dense_engine(std::uint64_t seed) {
  const index_t m = 40, n = 5000;
  const auto A = long_rows<T, I>(m, n, 0.02, seed);
  const auto D = lz::to_dense(A);
  std::mt19937_64 g(seed + 1);
  const T a = random_value<T>(g);
  // Strided x and y, β = a.
  const lz::vector<T> xl = random_dense<T>(lz::shape_t<1>{2 * n}, seed + 2);
  const auto x = lz::slice(xl, lz::range(0, 2 * n, 2));
  lz::matrix<T> Yv = random_dense<T>(lz::shape_t<2>{m, 3}, seed + 3);
  auto y = lz::col(Yv, 1);
  const lz::vector<T> y0 = y;
  lz_test::recording rec;
  y = lz::square(lz::tanh(A)) * x + a * y;
  BOOST_TEST(rec.summary() == std::string(1, lz::kernels::blas::type_letter<T>()) + "csrmv ");
  BOOST_TEST(close(y, lz::eval(lz::square(lz::tanh(D)) * x + a * y0), 100 * tol<T>()));
  // Times a matrix: row-major, column-major and strided X; a column-major Y.
  const lz::matrix<T> X = random_dense<T>(lz::shape_t<2>{n, 5}, seed + 4);
  lz::tensor<T, 2> Xc(lz::shape_t<2>{n, 5}, lz::layout_left);
  Xc = X;
  const lz::tensor<T, 2> Xbig = random_dense<T>(lz::shape_t<2>{n, 9}, seed + 5);
  const auto Xs = Xbig(lz::all, lz::range(1, 9, 2));
  lz::tensor<T, 2> Y(lz::shape_t<2>{m, 5}, lz::layout_left);
  Y = random_dense<T>(lz::shape_t<2>{m, 5}, seed + 6);
  const lz::tensor<T, 2> Y0 = Y;
  Y = -lz::sin(A) * X - Y;
  BOOST_TEST(close(Y, lz::eval(-lz::sin(D) * X - Y0), 100 * tol<T>()));
  lz::matrix<T> Z(m, 5);
  Z = lz::sin(A) * Xc;
  BOOST_TEST(close(Z, lz::eval(lz::sin(D) * X), 100 * tol<T>()));
  lz::matrix<T> Zs(m, 4);
  Zs = lz::sin(A) * Xs;
  BOOST_TEST(close(Zs, lz::eval(lz::sin(D) * Xs), 100 * tol<T>()));
  // Transposed (the blocks scattered; rows of thousands of entries cut into pieces): strided x
  // and y, β = a; times a matrix, Y column-major.
  const lz::vector<T> xt = random_dense<T>(lz::shape_t<1>{m}, seed + 7);
  lz::vector<T> ytl = random_dense<T>(lz::shape_t<1>{2 * n}, seed + 8);
  auto yt = lz::slice(ytl, lz::range(0, 2 * n, 2));
  const lz::vector<T> yt0 = yt;
  yt = lz::square(lz::tanh(lz::transpose(A))) * xt + a * yt;
  BOOST_TEST(char(rec.calls.back().ta) == 'T');
  BOOST_TEST(
      close(yt, lz::eval(lz::square(lz::tanh(lz::transpose(D))) * xt + a * yt0), 100 * tol<T>()));
  const lz::matrix<T> Xt = random_dense<T>(lz::shape_t<2>{m, 3}, seed + 9);
  lz::tensor<T, 2> Yt(lz::shape_t<2>{n, 3}, lz::layout_left);
  Yt = lz::sin(lz::transpose(A)) * Xt;
  BOOST_TEST(close(Yt, lz::eval(lz::sin(lz::transpose(D)) * Xt), 100 * tol<T>()));
}

BOOST_AUTO_TEST_CASE(values_products_match_the_dense_engine_over_long_rows_types_and_layouts) {
  values_products_match_the_dense_engine<double, std::int32_t>(600);
  values_products_match_the_dense_engine<double, std::int64_t>(610);
  values_products_match_the_dense_engine<float, std::int32_t>(620);
  values_products_match_the_dense_engine<cd, std::int64_t>(630);
  values_products_match_the_dense_engine<cf, std::int32_t>(640);
  // Empty: y = β·y (NaN in y not read for β = 0).
  const lz::csr_matrix<double> Z(3, 0);
  lz::vector<double> w{1.0, std::nan(""), 3.0};
  w = lz::abs(Z) * lz::vector<double>(0);
  BOOST_TEST((w(0) == 0.0 && w(1) == 0.0 && w(2) == 0.0));
}

// abs(A) * x, square(A) * x: the SpMV reads A's values and applies the function in its row loop
// (no blocks): the bits of the product over the function's values stored, rows longer than a
// block included (filled blocks would sum those in pieces), on one thread or two, transposed too.
template <class T>
void read_functions_give_the_stored_values_bits(const lz::csr_matrix<T>& A, std::uint64_t seed) {
  const lz::csr_matrix<T> Ta = lz::abs(A), Tq = lz::square(A);
  const auto x = random_dense<T>(lz::shape_t<1>{A.cols()}, seed);
  const auto xt = random_dense<T>(lz::shape_t<1>{A.rows()}, seed + 1);
  const lz::vector<T> y0 = random_dense<T>(lz::shape_t<1>{A.rows()}, seed + 2);
  lz::vector<T> y(A.rows()), want(A.rows()), yt(A.cols()), wantt(A.cols());
  lz_test::recording rec;
  const int before = lz::num_threads();
  for (int threads : {1, 2}) {
    lz::set_num_threads(threads);
    rec.calls.clear();
    lz::reset_stats();
    y = lz::abs(A) * x;
    BOOST_TEST(rec.summary() == std::string(1, lz::kernels::blas::type_letter<T>()) + "csrmv ");
    BOOST_TEST(lz::stats().temporaries == 0u);
    BOOST_TEST(lz::stats().allocations == 0u);
    want = Ta * x;
    BOOST_TEST(close(y, want, 0));
    y = y0;
    y = 2 * lz::square(A) * x - 3 * y;
    want = y0;
    want = 2 * Tq * x - 3 * want;
    BOOST_TEST(close(y, want, 0));
    yt = lz::abs(lz::transpose(A)) * xt;
    wantt = lz::transpose(Ta) * xt;
    BOOST_TEST(close(yt, wantt, 0));
    yt = lz::square(lz::transpose(A)) * xt;
    wantt = lz::transpose(Tq) * xt;
    BOOST_TEST(close(yt, wantt, 0));
  }
  lz::set_num_threads(before);
  BOOST_TEST(close(want, lz::eval(2 * lz::square(lz::to_dense(A)) * x - 3 * y0), 100 * tol<T>()));
}

BOOST_AUTO_TEST_CASE(abs_or_square_of_a_matrix_times_a_vector_reads_its_values_in_the_row_loop) {
  read_functions_give_the_stored_values_bits(long_rows<double>(40, 5000, 0.02, 660), 661);
  read_functions_give_the_stored_values_bits(random_sparse<double>(3000, 3000, 0.02, 662), 663);
  read_functions_give_the_stored_values_bits(long_rows<float>(40, 5000, 0.02, 664), 665);
  const auto A = random_sparse<double>(40, 40, 0.1, 666);
  const lz::vector<double> x = random_dense<double>(lz::shape_t<1>{40}, 667);
  lz::vector<double> y(40);
  const std::string plan = lz::explain(y, lz::abs(A) * x);
  BOOST_TEST(plan.find("an SpMV applies it as it reads each one") != std::string::npos, plan);
  // Any other values expression (a scalar inside, another function): blocks.
  const std::string other = lz::explain(y, lz::abs(2.0 * A) * x);
  BOOST_TEST(other.find("a block of 2048 entries at a time") != std::string::npos, other);
  BOOST_TEST(other.find("applies it as it reads") == std::string::npos, other);
}

BOOST_AUTO_TEST_CASE(a_values_product_gives_the_same_bits_on_one_thread_or_two) {
  const auto A = random_sparse<double>(3000, 3000, 0.02, 650);
  BOOST_TEST(A.nnz() > 150000); // (well past the kernel's threading threshold)
  const auto x = random_dense<double>(lz::shape_t<1>{3000}, 651);
  const auto X = random_dense<double>(lz::shape_t<2>{3000, 3}, 652);
  lz::vector<double> y1(3000), y2(3000);
  lz::matrix<double> Y1(3000, 3), Y2(3000, 3);
  const int before = lz::num_threads();
  lz::set_num_threads(1);
  y1 = lz::tanh(A) * x;
  Y1 = lz::tanh(A) * X;
  lz::set_num_threads(2);
  y2 = lz::tanh(A) * x;
  Y2 = lz::tanh(A) * X;
  lz::set_num_threads(before);
  BOOST_TEST(close(y1, y2, 0));
  BOOST_TEST(close(Y1, Y2, 0));
  const auto D = lz::to_dense(A);
  BOOST_TEST(close(y1, lz::eval(lz::tanh(D) * x), 1e-12));
  BOOST_TEST(close(Y1, lz::eval(lz::tanh(D) * X), 1e-12));
  // Transposed: the scatter's blocks in the same order on any thread count, and the same bits
  // as the stored matrix's scatter.
  const lz::csr_matrix<double> T = lz::tanh(A);
  lz::vector<double> t1(3000), t2(3000), ts(3000);
  lz::matrix<double> T1(3000, 3), T2(3000, 3), Ts(3000, 3);
  lz::set_num_threads(1);
  t1 = lz::tanh(lz::transpose(A)) * x;
  T1 = lz::tanh(lz::transpose(A)) * X;
  lz::set_num_threads(2);
  t2 = lz::tanh(lz::transpose(A)) * x;
  T2 = lz::tanh(lz::transpose(A)) * X;
  ts = lz::transpose(T) * x;
  Ts = lz::transpose(T) * X;
  lz::set_num_threads(before);
  BOOST_TEST(close(t1, t2, 0));
  BOOST_TEST(close(T1, T2, 0));
  BOOST_TEST(close(t1, ts, 0));
  BOOST_TEST(close(T1, Ts, 0));
  BOOST_TEST(close(t1, lz::eval(lz::tanh(lz::transpose(D)) * x), 1e-12));
  // A banded matrix (the scatter's blocks each touch a band of the output: buffers over it).
  const index_t nb = 40000;
  std::vector<std::int32_t> r, c;
  std::vector<double> v;
  std::mt19937_64 g(653);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (index_t i = 0; i < nb; ++i)
    for (index_t j = std::max<index_t>(0, i - 3); j <= std::min<index_t>(nb - 1, i + 5); ++j)
      r.push_back(std::int32_t(i)), c.push_back(std::int32_t(j)), v.push_back(u(g));
  const auto Bd = lz::csr_matrix<double>::from_triplets(nb, nb, r, c, v);
  const auto xb = random_dense<double>(lz::shape_t<1>{nb}, 654);
  const auto Xb = random_dense<double>(lz::shape_t<2>{nb, 2}, 655);
  lz::vector<double> b1(nb), b2(nb), bref(nb);
  lz::matrix<double> B1(nb, 2), B2(nb, 2), Bref(nb, 2);
  lz::set_num_threads(1);
  b1 = lz::abs(lz::transpose(Bd)) * xb;
  B1 = lz::transpose(Bd) * Xb;
  lz::set_num_threads(2);
  b2 = lz::abs(lz::transpose(Bd)) * xb;
  B2 = lz::transpose(Bd) * Xb;
  lz::set_num_threads(before);
  BOOST_TEST(close(b1, b2, 0));
  BOOST_TEST(close(B1, B2, 0));
  // against the product of the explicit transpose (a CSR matrix: no scatter)
  const lz::csr_matrix<double> Bt = lz::transpose(Bd);
  bref = lz::abs(Bt) * xb;
  Bref = Bt * Xb;
  BOOST_TEST(close(b1, bref, 1e-12));
  BOOST_TEST(close(B1, Bref, 1e-12));
  // Rows of 2 000 to 10 000 entries (each cut into pieces) over ranges of the output: 6 blocks
  // of 20 000 columns, 10 rows each (every row within one range of 2 or 3), the same bits on 1
  // to 3 threads, and as the stored matrix's scatter.
  std::vector<std::int32_t> lr, lc;
  std::vector<double> lv;
  for (index_t i = 0; i < 60; ++i)
    for (index_t j = (i / 10) * 20000; j < (i / 10 + 1) * 20000; ++j)
      if (u(g) < (i % 10 == 0 ? 0.0 : -0.7)) // densities 0.5, 0.15
        lr.push_back(std::int32_t(i)), lc.push_back(std::int32_t(j)), lv.push_back(u(g));
  const auto L = lz::csr_matrix<double>::from_triplets(60, 120000, lr, lc, lv);
  BOOST_TEST(L.nnz() > 150000);
  const lz::csr_matrix<double> Lf = lz::sin(L);
  const auto xl = random_dense<double>(lz::shape_t<1>{60}, 657);
  const auto Xl = random_dense<double>(lz::shape_t<2>{60, 2}, 658);
  lz::vector<double> l1(120000), ln(120000), lref(120000);
  lz::matrix<double> L1(120000, 2), Ln(120000, 2), Lref(120000, 2);
  lz::set_num_threads(1);
  l1 = lz::sin(lz::transpose(L)) * xl;
  L1 = lz::sin(lz::transpose(L)) * Xl;
  lref = lz::transpose(Lf) * xl;
  Lref = lz::transpose(Lf) * Xl;
  BOOST_TEST(close(l1, lref, 0));
  BOOST_TEST(close(L1, Lref, 0));
  for (int threads : {2, 3}) {
    lz::set_num_threads(threads);
    ln = lz::sin(lz::transpose(L)) * xl;
    Ln = lz::sin(lz::transpose(L)) * Xl;
    lref = lz::transpose(Lf) * xl;
    Lref = lz::transpose(Lf) * Xl;
    BOOST_TEST_INFO(threads << " threads");
    BOOST_TEST(close(ln, l1, 0));
    BOOST_TEST(close(Ln, L1, 0));
    BOOST_TEST(close(lref, l1, 0));
    BOOST_TEST(close(Lref, L1, 0));
  }
  lz::set_num_threads(before);
  BOOST_TEST(close(l1, lz::eval(lz::sin(lz::transpose(lz::to_dense(L))) * xl), 1e-12));
}

BOOST_AUTO_TEST_CASE(
    elementwise_on_a_sparse_matrix_is_one_loop_over_its_values_sharing_the_pattern) {
  const auto A = random_sparse<double>(50, 60, 0.1, 17);
  lz::reset_stats();
  lz::csr_matrix<double> B = 2 * lz::abs(A) + A;
  BOOST_TEST(B.shares_pattern_with(A));
  BOOST_TEST(lz::stats().allocations == 1u); // the values only
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(lz::to_dense(B), lz::eval(2 * lz::abs(lz::to_dense(A)) + lz::to_dense(A)), 0));
  lz::reset_stats();
  B = -B / 4; // the same pattern: in place
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(B.shares_pattern_with(A));
  BOOST_TEST(close(lz::to_dense(B), lz::eval(-(2 * lz::abs(lz::to_dense(A)) + lz::to_dense(A)) / 4),
                   1e-15));
  const double s = lz::sum(A);
  const double n = lz::norm2(A);
  BOOST_TEST(std::abs(s - double(lz::sum(lz::to_dense(A)))) < 1e-12);
  BOOST_TEST(std::abs(n - double(lz::norm2(lz::to_dense(A)))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(a_transposed_operand_assigned_to_a_matrix_is_its_csr_transpose) {
  const auto A = random_sparse<double, std::int64_t>(23, 31, 0.2, 18);
  lz::csr_matrix<double, std::int64_t> T = lz::transpose(A);
  BOOST_TEST(T.rows() == 31);
  BOOST_TEST(T.cols() == 23);
  BOOST_TEST(close(lz::to_dense(T), lz::eval(lz::transpose(lz::to_dense(A))), 0));
  for (index_t i = 0; i < T.rows(); ++i)
    for (auto k = T.row_ptr()[i] + 1; k < T.row_ptr()[i + 1]; ++k)
      BOOST_TEST(T.col_idx()[k - 1] < T.col_idx()[k]);
}

// ---- numbers against the dense engine ----------------------------------------------------------

template <class T, class I>
void products_match_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 6; ++trial) {
    const index_t m = index_t(1 + g() % 70), n = index_t(1 + g() % 70), k = index_t(1 + g() % 9);
    const auto A = random_sparse<T, I>(m, n, 0.02 + 0.3 * double(g() % 10) / 10, seed + trial);
    const auto D = lz::to_dense(A);
    const bool trans = trial % 2 == 1;
    const index_t rin = trans ? m : n, rout = trans ? n : m;
    // x strided (every other element of a longer vector), y a column of a matrix.
    const lz::vector<T> xl = random_dense<T>(lz::shape_t<1>{2 * rin}, seed + 100 + trial);
    const auto x = lz::slice(xl, lz::range(0, 2 * rin, 2));
    lz::matrix<T> Y = random_dense<T>(lz::shape_t<2>{rout, 3}, seed + 200 + trial);
    auto y = lz::col(Y, 1);
    const lz::vector<T> y0 = y;
    const T a = random_value<T>(g), b = random_value<T>(g);
    if (trans)
      y = a * lz::transpose(A) * x + b * y;
    else
      y = a * A * x + b * y;
    const lz::vector<T> ref =
        trans ? lz::eval(a * lz::transpose(D) * x + b * y0) : lz::eval(a * D * x + b * y0);
    BOOST_TEST(close(y, ref, tol<T>()), "spmv trial " << trial << " m=" << m << " n=" << n);
    // SpMM: B row-major, column-major or a transposed view; C += product.
    const lz::matrix<T> Br = random_dense<T>(lz::shape_t<2>{rin, k}, seed + 300 + trial);
    const lz::matrix<T> Bt = random_dense<T>(lz::shape_t<2>{k, rin}, seed + 400 + trial);
    lz::matrix<T> C = random_dense<T>(lz::shape_t<2>{rout, k}, seed + 500 + trial);
    lz::matrix<T> Cc(rout, k, lz::layout_left);
    Cc = C;
    const lz::matrix<T> C0 = C;
    if (trans) {
      C += lz::transpose(A) * Br;
      Cc = a * lz::transpose(A) * lz::transpose(Bt) - Cc;
    } else {
      C += A * Br;
      Cc = a * A * lz::transpose(Bt) - Cc;
    }
    const auto Dop = lz::eval(trans ? lz::eval(lz::transpose(D)) : D);
    BOOST_TEST(close(C, lz::eval(C0 + Dop * Br), tol<T>()), "spmm trial " << trial);
    BOOST_TEST(close(Cc, lz::eval(a * Dop * lz::transpose(Bt) - C0), tol<T>()),
               "spmm (col-major C) trial " << trial);
  }
}

BOOST_AUTO_TEST_CASE(products_match_the_dense_engine_for_every_type_index_and_layout) {
  products_match_the_dense_engine<double, std::int32_t>(100);
  products_match_the_dense_engine<double, std::int64_t>(200);
  products_match_the_dense_engine<float, std::int32_t>(300);
  products_match_the_dense_engine<cd, std::int32_t>(400);
  products_match_the_dense_engine<cf, std::int64_t>(500);
}

// The bandwidths a pattern carries (a transposed product's threads walk only the rows reaching
// their range of the output when they are known): found by every construction, never narrower
// than the entries.
BOOST_AUTO_TEST_CASE(every_construction_records_the_patterns_bandwidths) {
  const auto band = [](const auto& p) { return std::pair<index_t, index_t>{p.lower, p.upper}; };
  using bw = std::pair<index_t, index_t>;
  // 6 × 7: entries (0, 2), (1, 0), (3, 1), (3, 5), (5, 6): lower 2 (3 - 1), upper 2 (0 → 2, 3 → 5)
  std::vector<std::int32_t> r{0, 1, 3, 3, 5}, c{2, 0, 1, 5, 6};
  std::vector<double> v{1, 2, 3, 4, 5};
  const auto A = lz::csr_matrix<double>::from_triplets(6, 7, r, c, v);
  BOOST_TEST((band(A.pattern()) == bw{2, 2}));
  BOOST_TEST((band(lz::csr_matrix<double>(4, 9).pattern()) == bw{0, 0}));
  const auto D = lz::csr_matrix<double>::from_dense(lz::to_dense(A));
  BOOST_TEST((band(D.pattern()) == bw{2, 2}));
  const lz::csr_matrix<double> T = lz::transpose(A); // 7 × 6: the bands swap
  BOOST_TEST((band(T.pattern()) == bw{2, 2}));
  const auto L = lz::csr_matrix<double>::from_triplets(
      6, 7, std::vector<std::int32_t>{4}, std::vector<std::int32_t>{0}, std::vector<double>{1.0});
  BOOST_TEST((band(L.pattern()) == bw{4, 0}));
  const lz::csr_matrix<double> Lt = lz::transpose(L);
  BOOST_TEST((band(Lt.pattern()) == bw{0, 4}));
  const lz::csr_matrix<double> P = T * A; // 7 × 7: (1, 5) and (5, 1) from row 3 of A
  index_t lower = 0, upper = 0;
  for (index_t i = 0; i < P.rows(); ++i)
    for (auto k = P.row_ptr()[std::size_t(i)]; k < P.row_ptr()[std::size_t(i + 1)]; ++k) {
      lower = std::max(lower, i - index_t(P.col_idx()[std::size_t(k)]));
      upper = std::max(upper, index_t(P.col_idx()[std::size_t(k)]) - i);
    }
  BOOST_TEST((band(P.pattern()) == bw{lower, upper}));
  BOOST_TEST(lower > 0);
  std::vector<std::int32_t> rp{0, 1, 1, 3}, ci{3, 0, 1};
  std::vector<double> av{1, 2, 3};
  const auto V = lz::adopt_csr(3, 4, 3, rp.data(), ci.data(), av.data());
  BOOST_TEST((band(V.pattern()) == bw{2, 3}));
  const lz::csr_matrix<double> C(V); // (a copied pattern)
  BOOST_TEST((band(C.pattern()) == bw{2, 3}));
}

BOOST_AUTO_TEST_CASE(a_large_product_is_the_same_on_one_thread_and_on_several) {
  const auto A = random_sparse<double>(3000, 3000, 0.01, 21);
  const auto x = random_dense<double>(lz::shape_t<1>{3000}, 22);
  lz::vector<double> y1(3000), yp(3000), t1(3000), tp(3000);
  y1 = lz::eval(lz::seq, A * x);
  t1 = lz::eval(lz::seq, lz::transpose(A) * x);
  const int before = lz::num_threads();
  lz::set_num_threads(4);
  lz::assign(lz::par, yp, A * x);
  lz::assign(lz::par, tp, lz::transpose(A) * x);
  lz::set_num_threads(before);
  BOOST_TEST(double(lz::max(lz::abs(y1 - yp))) == 0.0);
  BOOST_TEST(double(lz::max(lz::abs(t1 - tp))) == 0.0);
}

// ---- column strips (csr_matrix::optimize_products) --------------------------------------------

BOOST_AUTO_TEST_CASE(a_matrix_kept_in_column_strips_is_still_one_spmv_call_and_no_temporary) {
  auto A = random_sparse<double>(60, 400, 0.05, 31);
  BOOST_TEST(A.product_strips() == 1);
  BOOST_TEST(A.optimize_products(3) == 3);
  BOOST_TEST(A.product_strips() == 3);
  const auto x = random_dense<double>(lz::shape_t<1>{400}, 32);
  lz::vector<double> y = random_dense<double>(lz::shape_t<1>{60}, 33);
  const lz::vector<double> y0 = y;
  const std::string plan = lz::explain(y, 2 * A * x - 3 * y);
  BOOST_TEST(plan.find("3 column strips") != std::string::npos, plan);
  // abs(A)·x reads A's values through abs: not the strips' values, so not the strips.
  BOOST_TEST(lz::explain(y, lz::abs(A) * x).find("column strips") == std::string::npos);
  lz_test::recording rec;
  lz::reset_stats();
  y = 2 * A * x - 3 * y;
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(rec.only().beta == -3.0);
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto D = lz::to_dense(A);
  BOOST_TEST(close(y, lz::eval(2 * D * x - 3 * y0), 1e-13));
  // y·0 + A·x: beta = 0 never reads y (NaN there does not leak) though later strips add into it.
  y = std::numeric_limits<double>::quiet_NaN();
  y = A * x;
  BOOST_TEST(close(y, lz::eval(D * x), 1e-13));
}

template <class T, class I>
void strip_products_match_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 8; ++trial) {
    // Some matrices narrower than their strip count (empty strips), some with empty rows.
    const index_t m = index_t(1 + g() % 60), n = index_t(1 + g() % 90);
    auto A = random_sparse<T, I>(m, n, 0.03 + 0.3 * double(g() % 10) / 10, seed + trial);
    const index_t strips = index_t(2 + trial % 4);
    BOOST_TEST(A.optimize_products(strips) == (A.nnz() > 0 ? strips : 1));
    const auto D = lz::to_dense(A);
    const lz::vector<T> xl = random_dense<T>(lz::shape_t<1>{2 * n}, seed + 100 + trial);
    const auto x = lz::slice(xl, lz::range(0, 2 * n, 2));
    lz::matrix<T> Y = random_dense<T>(lz::shape_t<2>{m, 3}, seed + 200 + trial);
    auto y = lz::col(Y, 1);
    const lz::vector<T> y0 = y;
    const T a = random_value<T>(g), b = random_value<T>(g);
    y = a * A * x + b * y;
    BOOST_TEST(close(y, lz::eval(a * D * x + b * y0), tol<T>()),
               "strips " << strips << " m=" << m << " n=" << n);
    // A transposed product and an SpMM read A itself.
    const lz::vector<T> w = random_dense<T>(lz::shape_t<1>{m}, seed + 300 + trial);
    lz::vector<T> t = random_dense<T>(lz::shape_t<1>{n}, seed + 400 + trial);
    const lz::vector<T> t0 = t;
    t = lz::transpose(A) * w - t;
    BOOST_TEST(close(t, lz::eval(lz::transpose(D) * w - t0), tol<T>()));
    const lz::matrix<T> B = random_dense<T>(lz::shape_t<2>{n, 3}, seed + 500 + trial);
    const lz::matrix<T> C = a * A * B;
    BOOST_TEST(close(C, lz::eval(a * D * B), tol<T>()));
  }
}

BOOST_AUTO_TEST_CASE(strip_products_match_the_dense_engine_for_every_type_index_and_count) {
  strip_products_match_the_dense_engine<double, std::int32_t>(600);
  strip_products_match_the_dense_engine<double, std::int64_t>(700);
  strip_products_match_the_dense_engine<float, std::int32_t>(800);
  strip_products_match_the_dense_engine<cd, std::int64_t>(900);
  strip_products_match_the_dense_engine<cf, std::int32_t>(1000);
}

BOOST_AUTO_TEST_CASE(a_strip_product_is_the_same_on_one_thread_and_on_several) {
  auto A = random_sparse<double>(3000, 3000, 0.01, 41);
  const lz::csr_matrix<double> plain = A;
  BOOST_TEST(A.optimize_products(3) == 3);
  const auto x = random_dense<double>(lz::shape_t<1>{3000}, 42);
  lz::vector<double> y1(3000), yp(3000), t1(3000), tp(3000), tq(3000);
  y1 = lz::eval(lz::seq, A * x);
  t1 = lz::eval(lz::seq, lz::transpose(A) * x);
  tq = lz::eval(lz::seq, lz::transpose(plain) * x);
  const int before = lz::num_threads();
  lz::set_num_threads(4);
  lz::assign(lz::par, yp, A * x);
  lz::assign(lz::par, tp, lz::transpose(A) * x);
  lz::set_num_threads(before);
  BOOST_TEST(double(lz::max(lz::abs(y1 - yp))) == 0.0);
  BOOST_TEST(close(y1, lz::eval(lz::to_dense(A) * x), 1e-12));
  // The transposed product: each strip scatters into its own range, the matrix's own bits.
  BOOST_TEST(double(lz::max(lz::abs(t1 - tp))) == 0.0);
  BOOST_TEST(double(lz::max(lz::abs(t1 - tq))) == 0.0);
}

BOOST_AUTO_TEST_CASE(writing_the_values_drops_the_strips_so_products_see_the_new_values) {
  const auto x = random_dense<double>(lz::shape_t<1>{300}, 51);
  lz::vector<double> y(50);
  const auto check = [&](lz::csr_matrix<double>& A) {
    y = A * x;
    return close(y, lz::eval(lz::to_dense(A) * x), 1e-13);
  };
  auto A = random_sparse<double>(50, 300, 0.05, 52);
  A.optimize_products(2);
  A.values()[0] += 10;
  BOOST_TEST(A.product_strips() == 1);
  BOOST_TEST(check(A));
  A.optimize_products(2);
  A.values_view() = 2 * A.values_view();
  BOOST_TEST(A.product_strips() == 1);
  BOOST_TEST(check(A));
  A.optimize_products(2);
  A = 3 * A; // (the values in place: the same pattern object)
  BOOST_TEST(A.product_strips() == 1);
  BOOST_TEST(check(A));
  A.optimize_products(2);
  A.view().values()(1) = -4;
  BOOST_TEST(A.product_strips() == 1);
  BOOST_TEST(check(A));
  // An expression built before the strips were made or dropped sees the matrix as it is when
  // it is assigned (the strips are looked up then).
  const auto later = A * x;
  A.optimize_products(3);
  y = later;
  BOOST_TEST(close(y, lz::eval(lz::to_dense(A) * x), 1e-13));
  BOOST_TEST(lz::explain(y, later).find("3 column strips") != std::string::npos);
  A.values()[2] = 7;
  y = later;
  BOOST_TEST(close(y, lz::eval(lz::to_dense(A) * x), 1e-13));
  BOOST_TEST(lz::explain(y, later).find("column strips") == std::string::npos);
  // A copy has values of its own (no strips); a moved matrix keeps them; 1 drops them.
  A.optimize_products(2);
  lz::csr_matrix<double> B = A;
  BOOST_TEST(B.product_strips() == 1);
  lz::csr_matrix<double> M = std::move(A);
  BOOST_TEST(M.product_strips() == 2);
  BOOST_TEST(check(M));
  BOOST_TEST(M.optimize_products(1) == 1);
  BOOST_TEST(M.product_strips() == 1);
}

BOOST_AUTO_TEST_CASE(strips_are_chosen_only_for_a_long_x_gathered_all_over) {
  using lz::kernels::sparse::strips_for;
  const auto kernel_view = [](const lz::csr_matrix<double>& A) {
    return lz::kernels::sparse::csr<double, std::int32_t>{
        A.rows(),           A.cols(),          A.nnz(),           A.row_ptr().data(),
        A.col_idx().data(), A.values().data(), A.pattern().lower, A.pattern().upper};
  };
  const auto R = random_sparse<double>(400, 4000, 0.01, 61); // ~40 a row, all over x
  constexpr index_t kib = 1024;
  BOOST_TEST(strips_for(kernel_view(R), 16 * kib) == 1); // x (32 KiB) within twice the L2
  BOOST_TEST(strips_for(kernel_view(R), 8 * kib) == 2);  // 4 KiB / 16 KiB ...
  BOOST_TEST(strips_for(kernel_view(R), 4 * kib) == 4);  // ... at most 4
  BOOST_TEST(strips_for(kernel_view(R), kib) == 4);
  const auto S = random_sparse<double>(4000, 4000, 0.0006, 62); // ~2.4 a row
  BOOST_TEST(strips_for(kernel_view(S), kib) == 1);             // under 2 a row a strip
  // A band matrix (tridiagonal): its rows gather from a window the cache holds.
  std::vector<std::int32_t> r, c;
  std::vector<double> v;
  for (std::int32_t i = 0; i < 4000; ++i)
    for (std::int32_t j = std::max(0, i - 1); j <= std::min(3999, i + 1); ++j)
      r.push_back(i), c.push_back(j), v.push_back(1.0);
  const auto T = lz::csr_matrix<double>::from_triplets(4000, 4000, r, c, v);
  BOOST_TEST(strips_for(kernel_view(T), kib) == 1);
}

// ---- sparse × sparse (SpGEMM) ------------------------------------------------------------------

namespace spgemm_plan_checks {
using S = lz::csr_matrix<double>;
using A = const S&;
using lz::fusion::spgemm_read;
using lz::fusion::spgemm_read_v;
static_assert(lz::spgemm_expression<decltype(std::declval<A>() * std::declval<A>())>);
static_assert(lz::spgemm_expression<decltype(2.0 * (std::declval<A>() * std::declval<A>()))>);
static_assert(!lz::sparse_expression<decltype(std::declval<A>() * std::declval<A>())>);
static_assert(spgemm_read_v<decltype(std::declval<A>().view())> == spgemm_read::leaf);
static_assert(spgemm_read_v<decltype(lz::transpose(std::declval<A>()))> == spgemm_read::leaf);
static_assert(spgemm_read_v<decltype(2.0 * std::declval<A>())> == spgemm_read::scaled_leaf);
static_assert(spgemm_read_v<decltype(-std::declval<A>())> == spgemm_read::scaled_leaf);
static_assert(spgemm_read_v<decltype(lz::abs(std::declval<A>()))> == spgemm_read::values_loop);
static_assert(spgemm_read_v<decltype(std::declval<A>() + std::declval<A>())> ==
              spgemm_read::computed);
static_assert(spgemm_read_v<decltype(std::declval<A>() * std::declval<A>())> ==
              spgemm_read::computed);
} // namespace spgemm_plan_checks

// Every row's columns strictly increasing and in range (what csr_order::check accepts).
template <class T, class I>
bool valid_csr(const lz::csr_matrix<T, I>& C) {
  index_t where = -1;
  return lz::kernels::sparse::check_pattern<I>(C.rows(), C.cols(), C.nnz(), C.row_ptr().data(),
                                               C.col_idx().data(), true, where) == nullptr;
}

BOOST_AUTO_TEST_CASE(two_a_b_is_one_spgemm_with_alpha_folded_and_no_copy_of_an_operand) {
  const auto A = random_sparse<double>(50, 40, 0.1, 61);
  const auto B = random_sparse<double>(40, 30, 0.1, 62);
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  lz::reset_stats();
  C = 2 * A * B * 3;
  BOOST_TEST(rec.summary() == "dcsrgemm ");
  BOOST_TEST(rec.only().alpha == 6.0);
  BOOST_TEST(rec.only().m == 50);
  BOOST_TEST(rec.only().n == 30);
  BOOST_TEST(rec.only().k == 40);
  BOOST_TEST(rec.only().lda == A.nnz());
  BOOST_TEST(rec.only().ldb == B.nnz());
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 1u); // the result's values only
  BOOST_TEST(valid_csr(C));
  BOOST_TEST(close(lz::to_dense(C), lz::eval(6.0 * lz::to_dense(A) * lz::to_dense(B)), 1e-13));
  const std::string plan = lz::explain(C, 2 * A * B);
  BOOST_TEST(plan.find("[rule spgemm]") != std::string::npos, plan);
  BOOST_TEST(plan.find("A: its scalar folded into α; read in place") != std::string::npos, plan);
  BOOST_TEST(plan.find("B: read in place") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(a_transposed_or_computed_operand_is_prepared_once_then_one_spgemm) {
  const auto A = random_sparse<double>(40, 50, 0.1, 63);
  const auto B = random_sparse<double>(40, 30, 0.1, 64);
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  C = lz::transpose(A) * lz::abs(B);
  BOOST_TEST(rec.summary() == "dcsrgemm ");
  BOOST_TEST(close(lz::to_dense(C),
                   lz::eval(lz::transpose(lz::to_dense(A)) * lz::abs(lz::to_dense(B))), 1e-13));
  const std::string plan = lz::explain(C, lz::transpose(A) * lz::abs(B));
  BOOST_TEST(plan.find("A: stored transposed (CSC): transposed into CSR once, a counting sort of "
                       "its " +
                       std::to_string(A.nnz()) + " entries") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("B: its values are an expression: one loop writes them into a copy") !=
                 std::string::npos,
             plan);
  // transpose(A) * A: the Gram matrix, symmetric.
  lz::csr_matrix<double> G = lz::transpose(A) * A;
  const auto Gd = lz::to_dense(G);
  BOOST_TEST(close(Gd, lz::eval(lz::transpose(Gd)), 1e-13));
}

template <class T, class I>
void spgemm_matches_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t m = index_t(g() % 60), k = index_t(1 + g() % 60), n = index_t(g() % 60);
    const double d = 0.01 + 0.3 * double(g() % 10) / 10;
    const auto A = random_sparse<T, I>(m, k, d, seed + trial);
    const auto At = random_sparse<T, I>(k, m, d, seed + 50 + trial);
    const auto B = random_sparse<T, I>(k, n, d, seed + 100 + trial);
    const auto Bt = random_sparse<T, I>(n, k, d, seed + 150 + trial);
    const auto DA = lz::to_dense(A), DAt = lz::to_dense(At), DB = lz::to_dense(B),
               DBt = lz::to_dense(Bt);
    const T a = random_value<T>(g);
    lz::csr_matrix<T, I> C;
    lz::tensor<T, 2> ref;
    switch (trial % 4) {
    case 0:
      C = A * B;
      ref = lz::eval(DA * DB);
      break;
    case 1:
      C = a * lz::transpose(At) * B;
      ref = lz::eval(a * lz::transpose(DAt) * DB);
      break;
    case 2:
      C = (A * lz::transpose(Bt)) * a;
      ref = lz::eval(a * DA * lz::transpose(DBt));
      break;
    default:
      C = lz::transpose(At) * lz::transpose(Bt);
      ref = lz::eval(lz::transpose(DAt) * lz::transpose(DBt));
    }
    BOOST_TEST(C.rows() == m);
    BOOST_TEST(C.cols() == n);
    BOOST_TEST(valid_csr(C), "trial " << trial);
    BOOST_TEST(close(lz::to_dense(C), ref, tol<T>() * double(1 + k)),
               "trial " << trial << " m=" << m << " k=" << k << " n=" << n);
  }
}

BOOST_AUTO_TEST_CASE(spgemm_matches_the_dense_engine_for_every_type_index_and_transpose) {
  spgemm_matches_the_dense_engine<double, std::int32_t>(700);
  spgemm_matches_the_dense_engine<double, std::int64_t>(710);
  spgemm_matches_the_dense_engine<float, std::int32_t>(720);
  spgemm_matches_the_dense_engine<cd, std::int64_t>(730);
  spgemm_matches_the_dense_engine<cf, std::int32_t>(740);
}

BOOST_AUTO_TEST_CASE(a_large_spgemm_is_the_same_on_one_thread_and_on_several_and_may_alias) {
  auto A = random_sparse<double>(2000, 2000, 0.004, 65);
  const int before = lz::num_threads();
  lz::set_num_threads(1);
  lz::csr_matrix<double> C1 = A * A;
  lz::set_num_threads(4);
  lz::csr_matrix<double> C4 = A * A;
  lz::set_num_threads(before);
  BOOST_TEST(C1.nnz() == C4.nnz());
  BOOST_TEST(std::equal(C1.row_ptr().begin(), C1.row_ptr().end(), C4.row_ptr().begin()));
  BOOST_TEST(std::equal(C1.col_idx().begin(), C1.col_idx().end(), C4.col_idx().begin()));
  BOOST_TEST(std::equal(C1.values().begin(), C1.values().end(), C4.values().begin()));
  const auto D = lz::to_dense(A);
  A = A * A; // the operands are read before the destination takes the result
  BOOST_TEST(close(lz::to_dense(A), lz::eval(D * D), 1e-12));
}

BOOST_AUTO_TEST_CASE(a_spgemm_with_mismatched_shapes_throws_naming_both_and_leaves_c_alone) {
  const auto A = random_sparse<double>(10, 8, 0.3, 66);
  const auto B = random_sparse<double>(9, 5, 0.3, 67);
  lz::csr_matrix<double> C = A;
  try {
    C = A * B;
    BOOST_FAIL("no shape_error");
  } catch (const lz::shape_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("(10,8)") != std::string::npos, w);
    BOOST_TEST(w.find("(9,5)") != std::string::npos, w);
  }
  BOOST_TEST(close(lz::to_dense(C), lz::to_dense(A), 0));
  // Empty operands: a product with no stored entry, of the right shape.
  const lz::csr_matrix<double> Z(8, 0), E(0, 7), N(8, 6);
  lz::csr_matrix<double> P = A * N;
  BOOST_TEST(P.nnz() == 0);
  BOOST_TEST(P.rows() == 10);
  BOOST_TEST(P.cols() == 6);
  lz::csr_matrix<double> Q = Z * E;
  BOOST_TEST(Q.rows() == 8);
  BOOST_TEST(Q.cols() == 7);
  BOOST_TEST(Q.nnz() == 0);
}

// ---- sparse + sparse (rule sparse_sum) -------------------------------------------------------

namespace sparse_sum_plan_checks {
using S = lz::csr_matrix<double>;
using A = const S&;
using lz::fusion::sparse_sum_plan;
using lz::fusion::sparse_sum_plan_v;
template <class E>
constexpr sparse_sum_plan plan = sparse_sum_plan_v<std::remove_cvref_t<E>>;
static_assert(lz::sparse_sum_expression<decltype(std::declval<A>() + std::declval<A>())>);
static_assert(!lz::sparse_expression<decltype(std::declval<A>() + std::declval<A>())>);
static_assert(lz::sparse_sum_expression<decltype(2.0 * (std::declval<A>() - std::declval<A>()))>);
static_assert(plan<decltype(std::declval<A>() + std::declval<A>())> ==
              sparse_sum_plan::values_or_merge);
static_assert(plan<decltype(2.0 * std::declval<A>() - lz::transpose(std::declval<A>()))> ==
              sparse_sum_plan::values_or_merge);
static_assert(plan<decltype(std::declval<A>() * std::declval<A>() + std::declval<A>())> ==
              sparse_sum_plan::spgemm_addend);
static_assert(plan<decltype(std::declval<A>() - 2.0 * (std::declval<A>() * std::declval<A>()))> ==
              sparse_sum_plan::spgemm_addend);
static_assert(plan<decltype((std::declval<A>() + std::declval<A>()) + std::declval<A>())> ==
              sparse_sum_plan::merge);
// A sum or a product times a dense operand: distributed / associated into dense product terms.
static_assert(lz::expression<decltype((std::declval<A>() + std::declval<A>()) *
                                      std::declval<const lz::vector<double>&>())>);
static_assert(lz::expression<decltype(std::declval<A>() * std::declval<A>() *
                                      std::declval<const lz::vector<double>&>())>);
} // namespace sparse_sum_plan_checks

BOOST_AUTO_TEST_CASE(a_sum_of_different_patterns_is_one_csrgeam_with_alpha_and_beta_folded) {
  const auto A = random_sparse<double>(50, 40, 0.1, 81);
  const auto B = random_sparse<double>(50, 40, 0.1, 82);
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  lz::reset_stats();
  C = 2 * A - B / 4;
  BOOST_TEST(rec.summary() == "dcsrgeam ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(rec.only().beta == -0.25);
  BOOST_TEST(rec.only().m == 50);
  BOOST_TEST(rec.only().n == 40);
  BOOST_TEST(rec.only().lda == A.nnz());
  BOOST_TEST(rec.only().ldb == B.nnz());
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 1u); // the result's values only
  BOOST_TEST(valid_csr(C));
  BOOST_TEST(close(lz::to_dense(C), lz::eval(2.0 * lz::to_dense(A) - lz::to_dense(B) / 4), 1e-15));
  // The union: every entry of either operand is stored, and no other.
  index_t both = 0;
  for (index_t i = 0; i < 50; ++i)
    for (index_t j = 0; j < 40; ++j) {
      const auto in = [&](const lz::csr_matrix<double>& M) {
        const auto c = M.col_idx();
        return std::binary_search(c.begin() + M.row_ptr()[std::size_t(i)],
                                  c.begin() + M.row_ptr()[std::size_t(i) + 1], int(j));
      };
      BOOST_TEST(in(C) == (in(A) || in(B)));
      both += in(A) && in(B);
    }
  BOOST_TEST(C.nnz() == A.nnz() + B.nnz() - both);
  const std::string plan = lz::explain(C, 2 * A - B / 4);
  BOOST_TEST(plan.find("1. csrgeam C = α·A + β·B: the union of the two patterns") !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("[rule sparse_sum]") != std::string::npos, plan);
  BOOST_TEST(plan.find("A: its scalar folded into α; read in place") != std::string::npos, plan);
  BOOST_TEST(plan.find("B: its scalar folded into β; read in place") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(operands_with_the_same_pattern_are_one_loop_over_the_values_sharing_it) {
  const auto A = random_sparse<double>(60, 45, 0.1, 83);
  const lz::csr_matrix<double> A3 = 3 * A; // shares A's pattern
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  lz::reset_stats();
  C = A + A3;
  BOOST_TEST(rec.summary() == "");           // no merge
  BOOST_TEST(lz::stats().allocations == 1u); // the values only
  BOOST_TEST(C.shares_pattern_with(A));
  BOOST_TEST(close(lz::to_dense(C), lz::eval(4.0 * lz::to_dense(A)), 1e-15));
  lz::reset_stats();
  C = 0.5 * C - A; // C holds that pattern: in place
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(lz::to_dense(C), lz::to_dense(A), 1e-15));
  // Equal patterns in different arrays (built twice from the same triplets): one loop too, the
  // pattern copied once.
  const auto A2 = random_sparse<double>(60, 45, 0.1, 83);
  BOOST_TEST(!A2.shares_pattern_with(A));
  C = A - A2;
  BOOST_TEST(rec.summary() == "");
  BOOST_TEST(C.nnz() == A.nnz());
  BOOST_TEST(close(lz::to_dense(C), lz::tensor<double, 2>(lz::shape_t<2>{60, 45}), 0));
  const std::string plan = lz::explain(C, A + A3);
  BOOST_TEST(plan.find("one loop over the values") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(a_product_plus_a_sparse_term_is_one_spgemm_merged_with_the_term) {
  const auto A = random_sparse<double>(40, 30, 0.1, 84);
  const auto B = random_sparse<double>(30, 35, 0.1, 85);
  const auto D = random_sparse<double>(40, 35, 0.1, 86);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DD = lz::to_dense(D);
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  lz::reset_stats();
  C = 2 * A * B + 3 * D;
  BOOST_TEST(rec.summary() == "dcsrgemm ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(rec.only().beta == 3.0);
  BOOST_TEST(rec.only().ldc == D.nnz());
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 1u);
  BOOST_TEST(valid_csr(C));
  BOOST_TEST(close(lz::to_dense(C), lz::eval(2.0 * DA * DB + 3.0 * DD), 1e-13));
  rec.calls.clear();
  C = D - A * B; // the product on the right
  BOOST_TEST(rec.summary() == "dcsrgemm ");
  BOOST_TEST(rec.only().alpha == -1.0);
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(close(lz::to_dense(C), lz::eval(DD - DA * DB), 1e-13));
  rec.calls.clear();
  const auto E = random_sparse<double>(35, 35, 0.1, 80);
  C = A * B + D * E; // two products: the second computed first
  BOOST_TEST(rec.summary() == "dcsrgemm dcsrgemm ");
  BOOST_TEST(close(lz::to_dense(C), lz::eval(DA * DB + DD * lz::to_dense(E)), 1e-13));
  const std::string plan = lz::explain(C, 2 * A * B + 3 * D);
  BOOST_TEST(plan.find("1. spgemm C = α·A·B + β·D") != std::string::npos, plan);
  BOOST_TEST(plan.find("merged with β·D's row") != std::string::npos, plan);
  BOOST_TEST(plan.find("D: its scalar folded into β; read in place") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(a_sum_or_product_times_a_dense_operand_distributes_into_sparse_products) {
  const auto A = random_sparse<double>(40, 30, 0.1, 87);
  const auto B = random_sparse<double>(40, 30, 0.1, 88);
  const auto S = random_sparse<double>(30, 30, 0.1, 89);
  const auto x = random_dense<double, 1>({30}, 90);
  const auto M = random_dense<double, 2>({30, 5}, 91);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DS = lz::to_dense(S);
  lz::vector<double> y(40);
  lz::matrix<double> Y(40, 5);
  lz_test::recording rec;
  lz::reset_stats();
  y = (A - 2 * B) * x; // no union formed: two SpMVs into y
  BOOST_TEST(rec.summary() == "dcsrmv dcsrmv ");
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(y, lz::eval((DA - 2.0 * DB) * x), 1e-13));
  rec.calls.clear();
  Y = 0.5 * (A + B) * M;
  BOOST_TEST(rec.summary() == "dcsrmm dcsrmm ");
  BOOST_TEST(close(Y, lz::eval(0.5 * (DA + DB) * M), 1e-13));
  rec.calls.clear();
  y = A * S * x; // A·(S·x): two SpMVs, no SpGEMM
  BOOST_TEST(rec.summary() == "dcsrmv dcsrmv ");
  BOOST_TEST(close(y, lz::eval(DA * (DS * x)), 1e-13));
  // Reductions and to_dense of a sum compute it first.
  BOOST_TEST(std::abs(lz::sum(A + B) - (double(lz::sum(A)) + double(lz::sum(B)))) < 1e-12);
  BOOST_TEST(std::abs(lz::norm2(A - A) - 0.0) == 0.0);
  BOOST_TEST(close(lz::to_dense(A + B), lz::eval(DA + DB), 1e-15));
}

template <class T, class I>
void sums_match_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 10; ++trial) {
    const index_t m = index_t(g() % 50), n = index_t(g() % 50);
    const double d = 0.01 + 0.4 * double(g() % 10) / 10;
    const auto A = random_sparse<T, I>(m, n, d, seed + trial);
    const auto B = random_sparse<T, I>(m, n, d * 0.5, seed + 50 + trial);
    const auto Bt = random_sparse<T, I>(n, m, d, seed + 100 + trial);
    const auto K = random_sparse<T, I>(n, n, d, seed + 150 + trial);
    const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DBt = lz::to_dense(Bt),
               DK = lz::to_dense(K);
    const T a = random_value<T>(g), b = random_value<T>(g);
    lz::csr_matrix<T, I> C = B; // reassigned below
    lz::tensor<T, 2> ref;
    switch (trial % 5) {
    case 0:
      C = A + B;
      ref = lz::eval(DA + DB);
      break;
    case 1:
      C = a * A - b * lz::transpose(Bt);
      ref = lz::eval(a * DA - b * lz::transpose(DBt));
      break;
    case 2:
      C = lz::square(A) + (B - A) * a; // a values loop and a nested sum
      ref = lz::eval(lz::square(DA) + (DB - DA) * a);
      break;
    case 3:
      C = a * A * K + b * B;
      ref = lz::eval(a * DA * DK + b * DB);
      break;
    default:
      C = B - (A + B) * K / b;
      ref = lz::eval(DB - (DA + DB) * DK / b);
    }
    BOOST_TEST(C.rows() == m);
    BOOST_TEST(C.cols() == n);
    BOOST_TEST(valid_csr(C), "trial " << trial);
    BOOST_TEST(close(lz::to_dense(C), ref, tol<T>() * double(2 + n)),
               "trial " << trial << " m=" << m << " n=" << n);
  }
}

BOOST_AUTO_TEST_CASE(sums_match_the_dense_engine_for_every_type_index_and_transpose) {
  sums_match_the_dense_engine<double, std::int32_t>(800);
  sums_match_the_dense_engine<double, std::int64_t>(810);
  sums_match_the_dense_engine<float, std::int32_t>(820);
  sums_match_the_dense_engine<cd, std::int64_t>(830);
  sums_match_the_dense_engine<cf, std::int32_t>(840);
}

BOOST_AUTO_TEST_CASE(a_large_sum_is_the_same_on_one_thread_and_on_several_and_may_alias) {
  auto A = random_sparse<double>(3000, 3000, 0.004, 92);
  const auto B = random_sparse<double>(3000, 3000, 0.004, 93);
  const int before = lz::num_threads();
  lz::set_num_threads(1);
  lz::csr_matrix<double> C1 = A - 3 * B, P1 = A * B + B;
  lz::set_num_threads(4);
  lz::csr_matrix<double> C4 = A - 3 * B, P4 = A * B + B;
  lz::set_num_threads(before);
  for (const auto& [X, Y] : {std::pair{&C1, &C4}, std::pair{&P1, &P4}}) {
    BOOST_TEST(X->nnz() == Y->nnz());
    BOOST_TEST(std::equal(X->row_ptr().begin(), X->row_ptr().end(), Y->row_ptr().begin()));
    BOOST_TEST(std::equal(X->col_idx().begin(), X->col_idx().end(), Y->col_idx().begin()));
    BOOST_TEST(std::equal(X->values().begin(), X->values().end(), Y->values().begin()));
  }
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B);
  A = A + B; // the operands are read before the destination takes the result
  BOOST_TEST(close(lz::to_dense(A), lz::eval(DA + DB), 1e-15));
  A = A * B + A;
  BOOST_TEST(close(lz::to_dense(A), lz::eval((DA + DB) * DB + DA + DB), 1e-12));
}

BOOST_AUTO_TEST_CASE(a_sum_with_mismatched_shapes_throws_naming_both_and_leaves_c_alone) {
  const auto A = random_sparse<double>(10, 8, 0.3, 94);
  const auto B = random_sparse<double>(8, 10, 0.3, 95);
  lz::csr_matrix<double> C = A;
  for (int which = 0; which < 3; ++which) {
    try {
      if (which == 0) C = A + B;
      if (which == 1) C = A - 2 * B;
      if (which == 2) C = A * A + B; // (10,8)·(10,8): the product's inner dimensions first
      BOOST_FAIL("no shape_error");
    } catch (const lz::shape_error& e) {
      const std::string w = e.what();
      BOOST_TEST(w.find("(10,8)") != std::string::npos, w);
      if (which < 2) {
        BOOST_TEST(w.find("different shapes") != std::string::npos, w);
        BOOST_TEST(w.find("(8,10)") != std::string::npos, w);
      }
    }
  }
  BOOST_TEST(close(lz::to_dense(C), lz::to_dense(A), 0));
  // Empty operands: a sum of the right shape with no stored entry.
  const lz::csr_matrix<double> Z(8, 0), N(10, 8);
  lz::csr_matrix<double> P = Z + Z;
  BOOST_TEST(P.rows() == 8);
  BOOST_TEST(P.cols() == 0);
  BOOST_TEST(P.nnz() == 0);
  P = N - A;
  BOOST_TEST(close(lz::to_dense(P), lz::eval(-lz::to_dense(A)), 0));
}

// ---- sparse + dense (rule sparse_add) ---------------------------------------------------------

namespace sparse_add_plan_checks {
using S = lz::csr_matrix<double>;
using A = const S&;
using D = const lz::matrix<double>&;
using lz::fusion::term_counts_v;
template <class E>
constexpr rule_id rule = rule_v<double, std::remove_cvref_t<E>>;
static_assert(lz::expression<decltype(std::declval<A>() + std::declval<D>())>);
static_assert(rule<decltype(std::declval<A>() + std::declval<D>())> == rule_id::sparse_add);
static_assert(rule<decltype(std::declval<D>() - 2.0 * lz::transpose(std::declval<A>()))> ==
              rule_id::sparse_add);
static_assert(term_counts_v<decltype(std::declval<D>() - std::declval<A>())>.scatter == 1);
// Two sparse terms, or a sparse term and a product: one step each (sum of products).
static_assert(rule<decltype((std::declval<A>() + std::declval<A>()) + std::declval<D>())> ==
              rule_id::sum_of_products);
static_assert(rule<decltype(std::declval<A>() + std::declval<D>() * std::declval<D>())> ==
              rule_id::sum_of_products);
} // namespace sparse_add_plan_checks

BOOST_AUTO_TEST_CASE(a_sparse_plus_dense_is_one_loop_then_one_scatter_and_in_place_only_a_scatter) {
  const auto A = random_sparse<double>(30, 20, 0.1, 101);
  const auto D = random_dense<double, 2>({30, 20}, 102);
  const auto DA = lz::to_dense(A);
  lz::matrix<double> M(30, 20);
  lz_test::recording rec;
  lz::reset_stats();
  M = A + D;
  BOOST_TEST(rec.summary() == "dcsradd ");
  BOOST_TEST(rec.only().alpha == 1.0);
  BOOST_TEST(rec.only().beta == 1.0); // after the loop wrote D
  BOOST_TEST(rec.only().lda == A.nnz());
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(M, lz::eval(DA + D), 1e-15));
  rec.calls.clear();
  lz::reset_stats();
  M = M - 2 * A; // the destination term folds into β: no loop, no allocation
  BOOST_TEST(rec.summary() == "dcsradd ");
  BOOST_TEST(rec.only().alpha == -2.0);
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(M, lz::eval(D - DA), 1e-15));
  rec.calls.clear();
  M = lz::maximum(A + D, 0.0); // under a function: the scatter lands in M (β = 0), one pass
  BOOST_TEST(rec.summary() == "dcsradd ");
  BOOST_TEST(rec.only().beta == 0.0);
  BOOST_TEST(close(M, lz::eval(lz::maximum(DA + D, 0.0)), 1e-15));
  const std::string plan = lz::explain(M, D - 2 * A);
  BOOST_TEST(plan.find("dcsradd(N, 30x20 nnz=" + std::to_string(A.nnz()) + ", alpha=-2") !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("[rule sparse_add]") != std::string::npos, plan);
  BOOST_TEST(std::abs(double(lz::sum(A + D)) - double(lz::sum(DA + D))) < 1e-12);
}

template <class T, class I>
void sparse_plus_dense_matches_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t m = index_t(g() % 40), n = index_t(g() % 40);
    const double d = 0.01 + 0.4 * double(g() % 10) / 10;
    const auto A = random_sparse<T, I>(m, n, d, seed + trial);
    const auto At = random_sparse<T, I>(n, m, d, seed + 50 + trial);
    const auto B = random_sparse<T, I>(m, n, d, seed + 100 + trial);
    const auto D = random_dense<T, 2>({m, n}, seed + 150 + trial);
    const auto DA = lz::to_dense(A), DAt = lz::to_dense(At), DB = lz::to_dense(B);
    const T a = random_value<T>(g);
    // Destinations in both orders, and a strided view of a larger matrix.
    lz::tensor<T, 2> ref;
    const auto check = [&](auto&& M) {
      switch (trial % 4) {
      case 0:
        M = A + D;
        ref = lz::eval(DA + D);
        break;
      case 1:
        M = D - a * lz::transpose(At);
        ref = lz::eval(D - a * lz::transpose(DAt));
        break;
      case 2:
        M = a * (A - B) + D; // a sparse sum: one scatter per term
        ref = lz::eval(a * (DA - DB) + D);
        break;
      default:
        M = lz::square(A) + D * a; // a values expression: one loop into a temporary first
        ref = lz::eval(lz::square(DA) + D * a);
      }
      if (m > 0 && n > 0) // (max over an empty matrix has no value)
        BOOST_TEST(close(lz::eval(M), ref, tol<T>() * 4),
                   "trial " << trial << " m=" << m << " n=" << n);
    };
    for_each_destination<T>(m, n, check);
  }
}

BOOST_AUTO_TEST_CASE(sparse_plus_dense_matches_the_dense_engine_for_every_type_index_and_layout) {
  sparse_plus_dense_matches_the_dense_engine<double, std::int32_t>(900);
  sparse_plus_dense_matches_the_dense_engine<double, std::int64_t>(910);
  sparse_plus_dense_matches_the_dense_engine<float, std::int32_t>(920);
  sparse_plus_dense_matches_the_dense_engine<cd, std::int64_t>(930);
  sparse_plus_dense_matches_the_dense_engine<cf, std::int32_t>(940);
}

BOOST_AUTO_TEST_CASE(a_large_sparse_plus_dense_is_the_same_on_one_thread_and_on_several) {
  const auto A = random_sparse<double>(700, 600, 0.02, 103);
  const auto D = random_dense<double, 2>({700, 600}, 104);
  const int before = lz::num_threads();
  lz::set_num_threads(1);
  lz::matrix<double> M1 = lz::eval(D - 3 * A),
                     T1 = lz::eval(lz::transpose(A) + 0.5 * lz::eval(lz::transpose(D)));
  lz::set_num_threads(4);
  lz::matrix<double> M4 = lz::eval(D - 3 * A),
                     T4 = lz::eval(lz::transpose(A) + 0.5 * lz::eval(lz::transpose(D)));
  lz::set_num_threads(before);
  BOOST_TEST(close(M1, M4, 0));
  BOOST_TEST(close(T1, T4, 0));
  BOOST_TEST(close(M1, lz::eval(D - 3.0 * lz::to_dense(A)), 1e-15));
}

BOOST_AUTO_TEST_CASE(a_sparse_plus_dense_with_mismatched_shapes_throws_and_leaves_m_alone) {
  const auto A = random_sparse<double>(10, 8, 0.3, 105);
  const auto D = random_dense<double, 2>({8, 10}, 106);
  lz::matrix<double> M = lz::to_dense(A);
  const lz::matrix<double> M0 = M;
  try {
    M = A + D;
    BOOST_FAIL("no shape_error");
  } catch (const lz::shape_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("(10,8)") != std::string::npos, w);
    BOOST_TEST(w.find("(8,10)") != std::string::npos, w);
  }
  BOOST_CHECK_THROW(M = D - A, lz::shape_error);
  BOOST_TEST(close(M, M0, 0));
}

// ---- sparse × sparse + dense (rule sparse_add, one csrmultd) ---------------------------------

namespace multd_plan_checks {
using S = lz::csr_matrix<double>;
using A = const S&;
using D = const lz::matrix<double>&;
using lz::fusion::term_counts_v;
template <class E>
constexpr rule_id rule = rule_v<double, std::remove_cvref_t<E>>;
static_assert(lz::expression<decltype(std::declval<A>() * std::declval<A>() + std::declval<D>())>);
static_assert(rule<decltype(std::declval<A>() * std::declval<A>() + std::declval<D>())> ==
              rule_id::sparse_add);
static_assert(rule<decltype(std::declval<D>() -
                            2.0 * lz::transpose(std::declval<A>()) * lz::abs(std::declval<A>()))> ==
              rule_id::sparse_add);
static_assert(
    term_counts_v<decltype(std::declval<D>() - std::declval<A>() * std::declval<A>())>.scatter ==
    1);
// With another sparse or dense product: one step each (sum of products).
static_assert(
    rule<decltype(std::declval<A>() * std::declval<A>() + std::declval<A>() + std::declval<D>())> ==
    rule_id::sum_of_products);
} // namespace multd_plan_checks

BOOST_AUTO_TEST_CASE(a_sparse_product_plus_dense_is_one_csrmultd_into_the_rows_no_pattern_formed) {
  const auto A = random_sparse<double>(30, 25, 0.1, 111);
  const auto B = random_sparse<double>(25, 20, 0.1, 112);
  const auto Bt = random_sparse<double>(20, 25, 0.1, 113);
  const auto D = random_dense<double, 2>({30, 20}, 114);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DBt = lz::to_dense(Bt);
  lz::matrix<double> M(30, 20);
  lz_test::recording rec;
  lz::reset_stats();
  M = A * B + D; // D written by one loop, then the product accumulated into M's rows
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(rec.only().alpha == 1.0);
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(rec.only().lda == A.nnz());
  BOOST_TEST(rec.only().ldb == B.nnz());
  BOOST_TEST(rec.only().k == 25);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 0u); // no pattern, no copy of an operand
  BOOST_TEST(close(M, lz::eval(DA * DB + D), 1e-14));
  rec.calls.clear();
  lz::reset_stats();
  M = M - 2 * A * (B / 4); // the destination folds into β, the scalars into α: the call alone
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(rec.only().alpha == -0.5);
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(M, lz::eval(DA * DB + D - 0.5 * DA * DB), 1e-14));
  rec.calls.clear();
  M = lz::maximum(A * B + D, 0.0); // under a function: the product lands in M (β = 0), one pass
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(rec.only().beta == 0.0);
  BOOST_TEST(close(M, lz::eval(lz::maximum(DA * DB + D, 0.0)), 1e-14));
  rec.calls.clear();
  M = 3 * A * lz::transpose(Bt) - D; // a transposed operand: transposed by the kernel, recorded T
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(char(rec.only().tb) == 'T');
  BOOST_TEST(rec.only().alpha == 3.0);
  BOOST_TEST(close(M, lz::eval(3.0 * DA * lz::transpose(DBt) - D), 1e-14));
  rec.calls.clear();
  lz::reset_stats();
  M = lz::abs(A) * B + D; // a values expression: one loop into a temporary of nnz values first
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(close(M, lz::eval(lz::abs(DA) * DB + D), 1e-14));
  rec.calls.clear();
  lz::matrix<double> before = M;
  lz::reset_stats();
  M += A * B; // in place: the call alone, β = 1
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(M, lz::eval(before + DA * DB), 1e-14));
  rec.calls.clear();
  before = M;
  M -= 0.5 * A * B; // α = -0.5
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(rec.only().alpha == -0.5);
  BOOST_TEST(close(M, lz::eval(before - 0.5 * DA * DB), 1e-14));
  const std::string plan = lz::explain(M, D - 2 * A * lz::transpose(Bt));
  BOOST_TEST(plan.find("dcsrmultd(N, T, m=30, n=20, k=25, alpha=-2") != std::string::npos, plan);
  BOOST_TEST(plan.find("[rule sparse_add]") != std::string::npos, plan);
  BOOST_TEST(plan.find("B is stored transposed (CSC): the kernel transposes it into CSR once") !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("(csr(30,25)") != std::string::npos, plan); // the product, spelled out
  BOOST_TEST(std::abs(double(lz::sum(A * B + D)) - double(lz::sum(DA * DB + D))) < 1e-12);
}

template <class T, class I>
void sparse_product_plus_dense_matches_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t m = index_t(g() % 30), n = index_t(g() % 30), k = index_t(g() % 30);
    const double d = 0.01 + 0.4 * double(g() % 10) / 10;
    const auto A = random_sparse<T, I>(m, k, d, seed + trial);
    const auto At = random_sparse<T, I>(k, m, d, seed + 50 + trial);
    const auto B = random_sparse<T, I>(k, n, d, seed + 100 + trial);
    const auto Bt = random_sparse<T, I>(n, k, d, seed + 150 + trial);
    const auto D = random_dense<T, 2>({m, n}, seed + 200 + trial);
    const auto DA = lz::to_dense(A), DAt = lz::to_dense(At), DB = lz::to_dense(B),
               DBt = lz::to_dense(Bt);
    const T a = random_value<T>(g);
    // Destinations in both orders, and a strided view of a larger matrix.
    lz::tensor<T, 2> ref;
    const auto check = [&](auto&& M) {
      switch (trial % 4) {
      case 0:
        M = A * B + D;
        ref = lz::eval(DA * DB + D);
        break;
      case 1:
        M = D - a * lz::transpose(At) * B;
        ref = lz::eval(D - a * lz::transpose(DAt) * DB);
        break;
      case 2:
        M = (lz::transpose(At) * lz::transpose(Bt)) * a + D; // both transposed
        ref = lz::eval(lz::transpose(DAt) * lz::transpose(DBt) * a + D);
        break;
      default:
        M = lz::square(A) * B + D * a; // a values expression: one loop into a temporary first
        ref = lz::eval(lz::square(DA) * DB + D * a);
      }
      if (m > 0 && n > 0) // (max over an empty matrix has no value)
        BOOST_TEST(close(lz::eval(M), ref, tol<T>() * 8),
                   "trial " << trial << " m=" << m << " n=" << n << " k=" << k);
    };
    for_each_destination<T>(m, n, check);
  }
}

BOOST_AUTO_TEST_CASE(sparse_product_plus_dense_matches_the_dense_engine_for_every_type_and_layout) {
  sparse_product_plus_dense_matches_the_dense_engine<double, std::int32_t>(1900);
  sparse_product_plus_dense_matches_the_dense_engine<double, std::int64_t>(1910);
  sparse_product_plus_dense_matches_the_dense_engine<float, std::int32_t>(1920);
  sparse_product_plus_dense_matches_the_dense_engine<cd, std::int64_t>(1930);
  sparse_product_plus_dense_matches_the_dense_engine<cf, std::int32_t>(1940);
}

BOOST_AUTO_TEST_CASE(a_large_sparse_product_plus_dense_is_the_same_on_one_thread_and_on_several) {
  const auto A = random_sparse<double>(700, 500, 0.02, 115);
  const auto B = random_sparse<double>(500, 600, 0.02, 116);
  const auto D = random_dense<double, 2>({700, 600}, 117);
  const int before = lz::num_threads();
  lz::set_num_threads(1);
  lz::matrix<double> M1 = lz::eval(D - 3 * A * B),
                     T1 = lz::eval(lz::transpose(B) * lz::transpose(A) +
                                   0.5 * lz::eval(lz::transpose(D)));
  lz::set_num_threads(4);
  lz::matrix<double> M4 = lz::eval(D - 3 * A * B),
                     T4 = lz::eval(lz::transpose(B) * lz::transpose(A) +
                                   0.5 * lz::eval(lz::transpose(D)));
  lz::set_num_threads(before);
  BOOST_TEST(close(M1, M4, 0));
  BOOST_TEST(close(T1, T4, 0));
  BOOST_TEST(close(M1, lz::eval(D - 3.0 * lz::to_dense(A) * lz::to_dense(B)), 1e-13));
}

BOOST_AUTO_TEST_CASE(a_sparse_product_plus_dense_with_mismatched_shapes_throws_and_leaves_m_alone) {
  const auto A = random_sparse<double>(10, 8, 0.3, 118);
  const auto B = random_sparse<double>(8, 12, 0.3, 119);
  const auto D = random_dense<double, 2>({12, 10}, 120);
  lz::matrix<double> M = random_dense<double, 2>({10, 12}, 121);
  const lz::matrix<double> M0 = M;
  try {
    M = A * B + D;
    BOOST_FAIL("no shape_error");
  } catch (const lz::shape_error& e) {
    const std::string w = e.what();
    BOOST_TEST(w.find("(10,12)") != std::string::npos, w);
    BOOST_TEST(w.find("(12,10)") != std::string::npos, w);
  }
  BOOST_CHECK_THROW(M = D - B * A, lz::shape_error); // inner dimensions 12 and 10
  BOOST_CHECK_THROW(M += lz::transpose(B) * lz::transpose(A), lz::shape_error); // (12,10)
  BOOST_CHECK_THROW(M -= A, lz::shape_error);
  BOOST_TEST(close(M, M0, 0));
}

// ---- construction --------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(from_dense_keeps_entries_above_the_tolerance_and_to_dense_inverts_it) {
  lz::matrix<double> D = random_dense<double>(lz::shape_t<2>{20, 30}, 23);
  D = lz::where(lz::abs(D) < 0.5, 0.0, D);
  const auto A = lz::csr_matrix<double>::from_dense(D);
  BOOST_TEST(close(lz::to_dense(A), D, 0));
  BOOST_TEST(A.nnz() == index_t(double(lz::sum(lz::cast<double>(D != 0.0)))));
  const auto B = lz::csr_matrix<double>::from_dense(D, 0.9);
  BOOST_TEST(B.nnz() == index_t(double(lz::sum(lz::cast<double>(lz::abs(D) > 0.9)))));
  BOOST_TEST(A(3, 4) == D(3, 4));
}

BOOST_AUTO_TEST_CASE(adopted_csr_and_csc_arrays_are_read_in_place) {
  // [[1 0 2], [0 3 0]] as CSR, and the same matrix as CSC.
  std::vector<int> rp{0, 2, 3}, ci{0, 2, 1};
  std::vector<double> v{1, 2, 3};
  const auto A = lz::adopt_csr(2, 3, 3, rp.data(), ci.data(), v.data());
  std::vector<int> cp{0, 1, 2, 3}, ri{0, 1, 0};
  std::vector<double> w{1, 3, 2};
  const auto C = lz::adopt_csc(2, 3, 3, cp.data(), ri.data(), w.data());
  const lz::vector<double> x{1, 10, 100};
  lz::vector<double> y(2), z(2);
  y = A * x;
  z = C * x;
  BOOST_TEST(y(0) == 201.0);
  BOOST_TEST(y(1) == 30.0);
  BOOST_TEST(z(0) == 201.0);
  BOOST_TEST(z(1) == 30.0);
  v[1] = 5; // zero-copy: the expression reads the caller's array
  y = A * x;
  BOOST_TEST(y(0) == 501.0);
}

BOOST_AUTO_TEST_CASE(adoption_sorts_rows_on_request_and_refuses_malformed_arrays) {
  std::vector<int> rp{0, 2, 3}, ci{2, 0, 1};
  std::vector<double> v{2, 1, 3};
  BOOST_CHECK_THROW(lz::adopt_csr(2, 3, 3, rp.data(), ci.data(), v.data()), lz::layout_error);
  const auto A = lz::adopt_csr(2, 3, 3, rp.data(), ci.data(), v.data(), lz::csr_order::sort);
  BOOST_TEST(ci[0] == 0);
  BOOST_TEST(v[0] == 1.0);
  std::vector<int> bad_rp{0, 3, 2}, out_of_range{0, 5, 1};
  BOOST_CHECK_THROW(lz::adopt_csr(2, 3, 3, bad_rp.data(), ci.data(), v.data()), lz::layout_error);
  BOOST_CHECK_THROW(lz::adopt_csr(2, 3, 3, rp.data(), out_of_range.data(), v.data()),
                    lz::layout_error);
  BOOST_CHECK_THROW(lz::adopt_csr(2, 3, 4, rp.data(), ci.data(), v.data()), lz::layout_error);
  BOOST_CHECK_THROW((lz::adopt_csr<double, int>(2, 3, 3, nullptr, ci.data(), v.data())),
                    lz::layout_error);
  (void)A;
}

BOOST_AUTO_TEST_CASE(sizes_past_the_index_type_are_refused_with_a_clear_error) {
  const index_t big = index_t(std::numeric_limits<std::int32_t>::max()) + 1;
  try {
    lz::csr_matrix<double> A(big, 2);
    BOOST_FAIL("no throw");
  } catch (const lz::layout_error& e) {
    BOOST_TEST(std::string(e.what()).find("64") != std::string::npos);
  }
  BOOST_CHECK_THROW(lz::csr_matrix<double>(-1, 2), lz::layout_error);
  std::vector<int> r{0, 5}, c{0, 0};
  std::vector<double> v{1, 2};
  BOOST_CHECK_THROW(lz::csr_matrix<double>::from_triplets(3, 3, r, c, v), std::out_of_range);
  // (int64 indices take such sizes; the rows + 1 offsets of 2^31 rows are 16 GiB, not built here)
}

// ---- bad input -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(shape_mismatches_throw_and_leave_the_destination_untouched) {
  const auto A = random_sparse<double>(10, 8, 0.3, 30);
  const auto B = random_sparse<double>(10, 9, 0.3, 31);
  const lz::vector<double> x(9);
  lz::vector<double> y{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const lz::vector<double> y0 = y;
  BOOST_CHECK_THROW(y = A * x, lz::shape_error);
  BOOST_TEST(close(y, y0, 0));
  lz::csr_matrix<double> C = A;
  BOOST_CHECK_THROW(C = A + B, lz::shape_error);
  BOOST_TEST(close(lz::to_dense(C), lz::to_dense(A), 0));
  const lz::matrix<double> M(9, 2);
  lz::matrix<double> R(10, 2);
  BOOST_CHECK_THROW(R = A * M, lz::shape_error);
  try {
    (void)(A + B);
  } catch (const lz::shape_error& e) {
    BOOST_TEST(std::string(e.what()).find("different shapes") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_throwing_user_function_on_the_values_reaches_the_caller_values_old_or_new) {
  const auto A = random_sparse<double>(40, 40, 0.2, 32);
  lz::csr_matrix<double> B = A; // shares A's pattern: the map runs in place
  const auto f = [](double x) {
    if (x > 0.9) throw std::runtime_error("user function");
    return x; // (old and new values agree where it does not throw)
  };
  BOOST_CHECK_THROW(B = lz::map(f, A), std::runtime_error);
  BOOST_TEST(close(lz::to_dense(B), lz::to_dense(A), 0));
  BOOST_TEST(B.shares_pattern_with(A));
}

BOOST_AUTO_TEST_CASE(threads_multiplying_one_shared_matrix_at_once_each_get_the_right_result) {
  const auto A = random_sparse<double>(2000, 2000, 0.01, 33);
  const auto x = random_dense<double>(lz::shape_t<1>{2000}, 34);
  const lz::vector<double> ref = lz::eval(lz::seq, A * x);
  std::vector<lz::vector<double>> y(4, lz::vector<double>(2000));
  std::vector<std::thread> t;
  for (std::size_t i = 0; i < y.size(); ++i)
    t.emplace_back([&, i] {
      for (int r = 0; r < 20; ++r) y[i] = double(r % 3) * A * x + A * x;
    });
  for (auto& th : t) th.join();
  for (const auto& yi : y) // the last round: (19 % 3)·A·x + A·x
    BOOST_TEST(close(yi, lz::eval(2.0 * ref), 1e-12));
}
