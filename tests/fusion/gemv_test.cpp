// gemv rule: y = α·op(A)·x + β·y → ONE gemv; y = A*x + y in place. Plan, calls, numbers.
#include <boost/test/unit_test.hpp>

#include <support/products.hpp>
#include <support/recording.hpp>

using namespace lz_test;
using lz::fusion::rule_id;
using lz::fusion::rule_v;

namespace {
lz::matrix<double> rnd(index_t m, index_t n, std::uint64_t s) {
  return lz::random<double>({m, n}, s, lz::uniform{-1, 1});
}
lz::vector<double> rndv(index_t n, std::uint64_t s) {
  return lz::random<double>({n}, s, lz::uniform{-1, 1});
}
} // namespace

BOOST_AUTO_TEST_CASE(matrix_times_vector_plus_y_is_one_in_place_gemv) {
  auto A = rnd(300, 200, 1);
  auto x = rndv(200, 2);
  lz::vector<double> y = rndv(300, 3);
  const lz::vector<double> y0 = y;
  static_assert(rule_v<double, decltype(A * x + y)> == rule_id::gemv);
  recording rec;
  lz::reset_stats();
  y = A * x + y;
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto& c = rec.only();
  BOOST_TEST(std::string(c.routine) == "dgemv");
  BOOST_TEST(c.beta == 1.0);
  BOOST_TEST(c.m == 300);
  BOOST_TEST(c.n == 200);
  const auto want = reference(A * x + y0);
  const auto scale = reference(lz::abs(A) * lz::abs(x) + lz::abs(y0));
  BOOST_TEST(worst_ratio(y, want, scale, gamma_k<double>(200)) <= 1.0);
}

BOOST_AUTO_TEST_CASE(transposed_and_column_major_matrices_set_the_trans_flag) {
  auto A = rnd(40, 30, 4);
  lz::matrix<double> Ac(40, 30, lz::layout_left);
  lz::assign(Ac, A);
  auto x = rndv(40, 5);
  lz::vector<double> y(30);
  {
    recording rec;
    y = 2.0 * lz::transpose(A) * x;
    BOOST_TEST(char(rec.only().ta) == 'T');
    BOOST_TEST(rec.only().alpha == 2.0);
    BOOST_TEST(max_rel_error(y, reference(2.0 * lz::transpose(A) * x)) < 1e-12);
  }
  {
    auto x2 = rndv(30, 6);
    lz::vector<double> y2(40);
    recording rec;
    y2 = Ac * x2;
    BOOST_TEST(char(rec.only().ta) == 'T'); // column-major storage in a row-major call
    BOOST_TEST(max_rel_error(y2, reference(A * x2)) < 1e-12);
  }
}

BOOST_AUTO_TEST_CASE(strided_reversed_and_broadcast_vectors) {
  auto A = rnd(17, 11, 7);
  lz::vector<double> xs = rndv(33, 8);
  auto x = xs(lz::range(32, 10, -2)); // 11 elements, stride -2
  lz::vector<double> ys = rndv(34, 9);
  auto y = ys(lz::range(0, 34, 2)); // 17 elements, stride 2
  const lz::vector<double> y0 = y;
  recording rec;
  y = A * x + 0.5 * y;
  BOOST_TEST(rec.only().beta == 0.5);
  BOOST_TEST(max_rel_error(y, reference(A * x + 0.5 * y0)) < 1e-12);
  // A zero-stride x (broadcast) is not a BLAS vector: own kernel (small) or a copy.
  lz::vector<double> one{3.0};
  lz::vector<double> z(17);
  z = A * lz::broadcast_to(one, {11});
  BOOST_TEST(max_rel_error(z, reference(A * lz::broadcast_to(one, {11}))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(x_equals_a_times_x_uses_a_temporary) {
  auto A = rnd(20, 20, 10);
  lz::vector<double> x = rndv(20, 11);
  const lz::vector<double> x0 = x;
  lz::reset_stats();
  x = A * x;
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(max_rel_error(x, reference(A * x0)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(integer_and_float_matrix_vector_products) {
  auto Ai = lz::random<std::int64_t>({9, 7}, 1, lz::integers{-100, 100});
  auto xi = lz::random<std::int64_t>({7}, 2, lz::integers{-100, 100});
  lz::vector<std::int64_t> yi(9);
  recording rec;
  yi = Ai * xi;
  BOOST_TEST(rec.count("gemv_generic") == 1u);
  BOOST_TEST(max_ulp(yi, reference(Ai * xi)) == 0.0);
  auto Af = lz::random<float>({9, 7}, 3);
  auto xf = lz::random<float>({7}, 4);
  lz::vector<float> yf(9);
  recording rec2;
  yf = Af * xf;
  BOOST_TEST(std::string(rec2.only().routine) == "sgemv");
  BOOST_TEST(max_rel_error(yf, reference(Af * xf)) < 1e-5);
}

BOOST_AUTO_TEST_CASE(wrong_vector_length_is_a_shape_error) {
  auto A = rnd(4, 5, 12);
  lz::vector<double> x(4);
  BOOST_CHECK_THROW(A * x, lz::shape_error);
}

BOOST_AUTO_TEST_CASE(a_tall_transposed_product_splits_its_long_sums_over_threads) {
  // transpose(X) * r with X row-major 40000 × 50: 50 outputs, each a sum of 40000 terms. BLAS
  // would thread over the 50 outputs; the own kernel splits the sums (on 2+ threads).
  const lz::index_t m = 40000, n = 50;
  const auto X = rnd(m, n, 21);
  const auto r = rndv(m, 22);
  lz::vector<double> g(n);
  const int threads = lz::num_threads();
  lz::set_num_threads(2);
  {
    recording rec;
    g = lz::transpose(X) * r;
    BOOST_TEST(std::string(rec.only().routine) == "gemv_generic<f64>");
    BOOST_TEST(rec.only().m == n);
    BOOST_TEST(rec.only().n == m);
  }
  const auto want = reference(lz::transpose(X) * r);
  const auto scale = reference(lz::transpose(lz::abs(X)) * lz::abs(r));
  BOOST_TEST(worst_ratio(g, want, scale, gamma_k<double>(m)) <= 1.0);
  // The split depends on the size alone: the same bits on 1, 2 and 3 threads.
  for (int t : {1, 3}) {
    lz::set_num_threads(t);
    lz::vector<double> h(n);
    lz::kernels::blas::gemv_generic<double>(n, m, 1.0, X.data(), 1, n, r.data(), 1, 0.0, h.data(),
                                            1);
    BOOST_TEST(bool(lz::all(h == g)));
  }
  // One thread: BLAS, as before.
  lz::set_num_threads(1);
  {
    recording rec;
    g = lz::transpose(X) * r;
    BOOST_TEST(std::string(rec.only().routine) == "dgemv");
  }
  lz::set_num_threads(threads);
}
