// Regression tests for what the differential fuzzer found (docs/reliability.md lists each with
// its fix). Each case is the fuzzer's shrunk reproducer, rewritten as a plain test against the
// reference evaluator, under every policy.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

namespace {

using namespace lz_test;

// Fuzzer (mixed_types<double,2>): `D = lz::cast<double>(X + A*B)` with float A, B and double X
// recursed until the stack overflowed. No product rule takes a float product into a double
// destination, so the nested rule got the whole sum as its one "group" and planned it through
// the rule list again: itself, forever (fix: the whole tree is never its own group).
BOOST_AUTO_TEST_CASE(sums_of_products_of_another_element_type_are_planned_once) {
  const auto A = random_tensor<float, 2>({7, 5}, 1, values::whole);
  const auto B = random_tensor<float, 2>({5, 6}, 2, values::whole);
  const auto X = random_tensor<double, 2>({7, 6}, 3);
  const auto x = random_tensor<float, 1>({5}, 4, values::whole);
  const auto y = random_tensor<double, 1>({7}, 5);
  for_each_policy([&](auto pol, const char* pname) {
    lz::matrix<double> D(7, 6);
    lz::assign(pol, D, X + A * B);
    BOOST_TEST(same_values(D, reference(X + A * B)), pname);
    lz::assign(pol, D, lz::cast<double>(X - 2.0f * (A * B)));
    BOOST_TEST(same_values(D, reference(lz::cast<double>(X - 2.0f * (A * B)))), pname);
    lz::vector<double> v(7);
    lz::assign(pol, v, y + A * x);
    BOOST_TEST(same_values(v, reference(y + A * x)), pname);
    lz::matrix<float> F(7, 6);
    lz::assign(pol, F, lz::cast<float>(X + A * B)); // the float product, a double sum, a cast
    BOOST_TEST(same_values(F, reference(lz::cast<float>(X + A * B))), pname);
  });
}

// Random trees, the first time they ran on an AVX-512 machine: `D /= -(lz::minimum(...))` gave
// -inf where the reference gave +inf. xsimd 8.1's AVX-512 negation is `0 - x`, which turns +0
// into +0 instead of -0, and its expm1 and log1p turn -0 into +0 on every target (found once the
// op sweep compared the signs of zeros). lz's functors now flip the sign bit / keep ±0 lanes.
template <class T>
void check_zero_signs() {
  // 40 elements: whole batches and a scalar tail on every target (8/16 lanes on AVX-512)
  lz::vector<T> z(40);
  for (lz::index_t i = 0; i < z.size(); ++i) z(i) = i % 2 ? T(-0.0) : T(0.0);
  for_each_policy([&](auto pol, const char* pname) {
    lz::vector<T> r(40);
    lz::assign(pol, r, T(1) / -z); // 1 / -(+0) = -inf, 1 / -(-0) = +inf
    for (lz::index_t i = 0; i < r.size(); ++i)
      BOOST_TEST(r(i) == (i % 2 ? T(INFINITY) : -T(INFINITY)), pname << " 1/-z at " << i);
    lz::assign(pol, r, lz::expm1(z));
    for (lz::index_t i = 0; i < r.size(); ++i)
      BOOST_TEST(std::signbit(r(i)) == bool(i % 2), pname << " expm1 at " << i);
    lz::assign(pol, r, lz::log1p(z));
    for (lz::index_t i = 0; i < r.size(); ++i)
      BOOST_TEST(std::signbit(r(i)) == bool(i % 2), pname << " log1p at " << i);
  });
}

BOOST_AUTO_TEST_CASE(negation_expm1_and_log1p_keep_the_sign_of_zero) {
  check_zero_signs<double>();
  check_zero_signs<float>();
}

} // namespace
