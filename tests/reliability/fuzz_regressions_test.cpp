// Regression tests for what the differential fuzzer found (docs/reliability.md lists each with
// its fix). Each case is the fuzzer's shrunk reproducer, rewritten as a plain test against the
// reference evaluator, under every policy.
#define BOOST_TEST_MODULE fuzz_regressions
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

} // namespace
