// sum-of-products rule: A·B + D·E + β·C → gemm calls accumulating into C (β, then 1).
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
} // namespace

BOOST_AUTO_TEST_CASE(two_products_and_c_are_two_gemm_calls_without_temporaries) {
  auto A = rnd(40, 30, 1), B = rnd(30, 20, 2), D = rnd(40, 10, 3), E = rnd(10, 20, 4);
  lz::matrix<double> C = rnd(40, 20, 5);
  const lz::matrix<double> C0 = C;
  static_assert(rule_v<double, decltype(A * B + D * E + 2.0 * C)> == rule_id::sum_of_products);
  recording rec;
  lz::reset_stats();
  C = A * B + D * E + 2.0 * C;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.calls.size() == 2u);
  BOOST_TEST(rec.calls[0].beta == 2.0);
  BOOST_TEST(rec.calls[1].beta == 1.0);
  BOOST_TEST(max_rel_error(C, reference(A * B + D * E + 2.0 * C0)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(differences_and_scales_of_products) {
  auto A = rnd(12, 9, 6), B = rnd(9, 7, 7), D = rnd(12, 5, 8), E = rnd(5, 7, 9);
  lz::matrix<double> C(12, 7);
  recording rec;
  C = 0.5 * (A * B) - 3.0 * (D * E);
  BOOST_TEST(rec.calls.size() == 2u);
  BOOST_TEST(rec.calls[0].alpha == 0.5);
  BOOST_TEST(rec.calls[0].beta == 0.0);
  BOOST_TEST(rec.calls[1].alpha == -3.0);
  BOOST_TEST(rec.calls[1].beta == 1.0);
  BOOST_TEST(max_rel_error(C, reference(0.5 * (A * B) - 3.0 * (D * E))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(products_with_other_terms_write_them_first_then_accumulate) {
  auto A = rnd(8, 6, 10), B = rnd(6, 4, 11), D = rnd(8, 3, 12), E = rnd(3, 4, 13);
  auto F = rnd(8, 4, 14);
  lz::vector<double> bias = lz::random<double>({4}, 15);
  lz::matrix<double> C(8, 4);
  recording rec;
  lz::reset_stats();
  C = A * B + F + D * E + lz::broadcast_to(bias, {8, 4});
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.calls.size() == 2u);
  BOOST_TEST(rec.calls[0].beta == 1.0);
  BOOST_TEST(max_rel_error(C, reference(A * B + F + D * E + lz::broadcast_to(bias, {8, 4}))) <
             1e-12);
}

BOOST_AUTO_TEST_CASE(sums_of_matrix_vector_products) {
  auto A = rnd(10, 8, 16), B = rnd(10, 5, 17);
  auto x = lz::random<double>({8}, 18), z = lz::random<double>({5}, 19);
  lz::vector<double> y = lz::random<double>({10}, 20);
  const lz::vector<double> y0 = y;
  recording rec;
  y = A * x - B * z + y;
  BOOST_TEST(rec.count("dgemv") == 2u);
  BOOST_TEST(max_rel_error(y, reference(A * x - B * z + y0)) < 1e-12);
}
