// chain rule: A·B·x → A·(B·x) (two gemv, never a gemm); matrix chains in the cheapest order
// by dynamic programming on the run-time sizes.
#include <boost/test/unit_test.hpp>

#include <support/products.hpp>
#include <support/recording.hpp>

#include <algorithm>

using namespace lz_test;

namespace {
lz::matrix<double> rnd(index_t m, index_t n, std::uint64_t s) {
  return lz::random<double>({m, n}, s, lz::uniform{-1, 1});
}

// Minimum flops over every parenthesisation, by brute force (independent of the DP).
double brute(const std::vector<index_t>& d, std::size_t i, std::size_t j) {
  if (i == j) return 0;
  double best = -1;
  for (std::size_t k = i; k < j; ++k) {
    const double c = brute(d, i, k) + brute(d, k + 1, j) + 2.0 * double(d[i] * d[k + 1] * d[j + 1]);
    if (best < 0 || c < best) best = c;
  }
  return best;
}
} // namespace

BOOST_AUTO_TEST_CASE(matrix_matrix_vector_is_two_gemv_never_a_gemm) {
  auto A = rnd(200, 150, 1), B = rnd(150, 120, 2);
  auto x = lz::random<double>({120}, 3, lz::uniform{-1, 1});
  lz::vector<double> r(200);
  recording rec;
  r = A * B * x;
  BOOST_TEST(rec.count("gemm") == 0u, rec.summary());
  BOOST_TEST(rec.count("dgemv") == 2u, rec.summary());
  BOOST_TEST(rec.calls[0].m == 150); // B·x first
  BOOST_TEST(max_rel_error(r, reference(A * (B * x))) < 1e-10);
}

BOOST_AUTO_TEST_CASE(four_matrix_chain_takes_the_cheapest_order) {
  // Skewed sizes: the left-to-right order costs ~100x the best one.
  const std::vector<index_t> d = {300, 10, 300, 10, 300};
  auto A = rnd(d[0], d[1], 4), B = rnd(d[1], d[2], 5), C = rnd(d[2], d[3], 6),
       D = rnd(d[3], d[4], 7);
  lz::matrix<double> R(d[0], d[4]);
  recording rec;
  R = A * B * C * D;
  BOOST_TEST(rec.count("gemm") == 3u, rec.summary());
  double flops = 0;
  for (const auto& c : rec.calls) flops += 2.0 * double(c.m * c.n * c.k);
  BOOST_TEST(flops == brute(d, 0, 3));
  // The reference one product at a time: the walker re-evaluates a nested product per element.
  const auto BC = reference(B * C);
  const auto ABC = reference(A * BC);
  BOOST_TEST(max_rel_error(R, reference(ABC * D)) < 1e-9);
}

BOOST_AUTO_TEST_CASE(random_chains_match_brute_force_cost_and_reference) {
  std::mt19937_64 rng(3);
  for (int t = 0; t < 20; ++t) {
    std::vector<index_t> d(5);
    for (auto& v : d) v = 1 + index_t(rng() % 40);
    auto A = rnd(d[0], d[1], rng()), B = rnd(d[1], d[2], rng()), C = rnd(d[2], d[3], rng()),
         D = rnd(d[3], d[4], rng());
    lz::matrix<double> R(d[0], d[4]);
    recording rec;
    R = 2.0 * A * B * C * D;
    double flops = 0;
    for (const auto& c : rec.calls)
      flops += 2.0 * double(c.m) * double(c.n) * double(c.k ? c.k : 1);
    BOOST_TEST(flops <= brute(d, 0, 3) * 1.0000001);
    BOOST_TEST(max_rel_error(R, reference(2.0 * A * B * C * D)) < 1e-9);
  }
}

BOOST_AUTO_TEST_CASE(chain_result_accumulates_with_beta) {
  auto A = rnd(30, 20, 8), B = rnd(20, 25, 9);
  auto x = lz::random<double>({25}, 10);
  lz::vector<double> y = lz::random<double>({30}, 11);
  const lz::vector<double> y0 = y;
  lz::reset_stats();
  y += 3.0 * A * B * x;
  BOOST_TEST(lz::stats().temporaries == 1u); // the intermediate B·x
  BOOST_TEST(max_rel_error(y, reference(y0 + 3.0 * (A * (B * x)))) < 1e-10);
}
