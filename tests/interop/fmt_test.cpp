// {fmt} formatting (include/lz/fmt.hpp): the same text as operator<< for tensors, views,
// expressions, reductions and layouts; {:.N} overrides the precision for one call only; works
// next to <fmt/ranges.h> (tensors are ranges too) and inside formatted containers.
#include <boost/test/unit_test.hpp>

#include <fmt/ranges.h> // before lz/fmt.hpp: the range formatter must not take tensors over
#include <lz/fmt.hpp>
#include <support/reference.hpp>

#include <sstream>

namespace {
template <class X>
std::string streamed(const X& x) {
  std::ostringstream os;
  os << x;
  return os.str();
}
} // namespace

BOOST_AUTO_TEST_CASE(fmt_prints_what_operator_shift_prints) {
  const auto A = lz::random<double>({4, 5}, 1, lz::normal{0, 10});
  const auto z = lz::random<std::complex<float>, 1>({6}, 2);
  const lz::tensor<std::int64_t, 3> I =
      lz::random<std::int64_t>({2, 3, 4}, 3, lz::integers{-50, 50});
  BOOST_TEST(fmt::format("{}", A) == streamed(A));
  BOOST_TEST(fmt::format("{}", z) == streamed(z));
  BOOST_TEST(fmt::format("{}", I) == streamed(I));
  BOOST_TEST(fmt::format("{}", lz::transpose(A)) == streamed(lz::transpose(A)));
  BOOST_TEST(fmt::format("{}", lz::col(A, 2)) == streamed(lz::col(A, 2)));
  BOOST_TEST(fmt::format("{}", 2.0 * A + 1.0) == streamed(lz_test::reference(2.0 * A + 1.0)));
  BOOST_TEST(fmt::format("{}", lz::sum(A, 0)) == streamed(lz_test::reference(lz::sum(A, 0))));
  BOOST_TEST(fmt::format("{}", A > 0.0) == streamed(lz_test::reference(A > 0.0)));
  BOOST_TEST(fmt::format("{}", lz::iota<int>(5000)) == streamed(lz::iota<int>(5000)));
  BOOST_TEST(fmt::format("{}", A.layout()) == streamed(A.layout()));
  BOOST_TEST(fmt::format("{:>12}", lz::transpose(A).layout()) ==
             fmt::format("{:>12}", lz::to_string(lz::transpose(A).layout())));
}

BOOST_AUTO_TEST_CASE(precision_in_the_spec_applies_to_one_call) {
  const auto x = lz::random<double>({8}, 4);
  const int before = lz::printoptions().precision;
  for (int p : {0, 1, 3, 12}) {
    lz::printoptions().precision = p;
    const std::string want = streamed(x);
    lz::printoptions().precision = before;
    BOOST_TEST(fmt::format(fmt::runtime("{:." + std::to_string(p) + "}"), x) == want);
    BOOST_TEST(lz::printoptions().precision == before);
  }
  BOOST_CHECK_THROW((void)fmt::format(fmt::runtime("{:x}"), x), fmt::format_error);
  BOOST_CHECK_THROW((void)fmt::format(fmt::runtime("{:.}"), x), fmt::format_error);
}

BOOST_AUTO_TEST_CASE(tensors_format_inside_containers) {
  const std::vector<lz::vector<int>> v{lz::iota<int>(3), lz::iota<int>(2, 5)};
  std::string want = "["; // built with += : GCC 12 warns (-Wrestrict) on "[" + std::string
  want += streamed(v[0]) + ", " + streamed(v[1]) + "]";
  BOOST_TEST(fmt::format("{}", v) == want);
}
