// lz::random: counter-based, so a tensor depends only on (seed, shape, distribution), never on
// the thread count; and its values have the moments of their distribution, within tolerances
// derived from n (5 standard errors: a correct generator fails with probability < 1e-6).
#include <boost/test/unit_test.hpp>

#include <support/reference.hpp>

#include <cstring>
#include <limits>

using lz::index_t;

namespace {

constexpr index_t n = 300001; // several parallel_for chunks (grain 65536), odd tail

template <class T, class Dist>
bool same_on_1_and_2_threads(Dist d, std::uint64_t seed) {
  lz::set_num_threads(1);
  const auto a = lz::random<T>({n}, seed, d);
  lz::set_num_threads(2);
  const auto b = lz::random<T>({n}, seed, d);
  lz::set_num_threads(0);
  return std::memcmp(a.data(), b.data(), sizeof(T) * std::size_t(n)) == 0;
}

struct moments {
  double mean = 0, var = 0, m3 = 0, m4 = 0, lo = INFINITY, hi = -INFINITY;
};
template <class X>
moments moments_of(const X& x) {
  moments m;
  long double s = 0;
  for (index_t i = 0; i < x.size(); ++i) s += (long double)x(i);
  m.mean = double(s / x.size());
  long double s2 = 0, s3 = 0, s4 = 0;
  for (index_t i = 0; i < x.size(); ++i) {
    const long double d = (long double)x(i) - m.mean;
    s2 += d * d;
    s3 += d * d * d;
    s4 += d * d * d * d;
    m.lo = std::min(m.lo, double(x(i)));
    m.hi = std::max(m.hi, double(x(i)));
  }
  m.var = double(s2 / x.size());
  m.m3 = double(s3 / x.size());
  m.m4 = double(s4 / x.size());
  return m;
}

// |got - want| within 5 standard errors.
bool within(double got, double want, double std_error) {
  return std::fabs(got - want) <= 5 * std_error;
}

} // namespace

BOOST_AUTO_TEST_CASE(tensors_are_identical_on_1_and_2_threads) {
  BOOST_TEST((same_on_1_and_2_threads<double>(lz::uniform{-2, 3}, 1)));
  BOOST_TEST((same_on_1_and_2_threads<float>(lz::uniform{}, 2)));
  BOOST_TEST((same_on_1_and_2_threads<double>(lz::normal{1, 2}, 3)));
  BOOST_TEST((same_on_1_and_2_threads<float>(lz::normal{}, 4)));
  BOOST_TEST((same_on_1_and_2_threads<std::int64_t>(lz::integers{-1000, 1000}, 5)));
  BOOST_TEST((same_on_1_and_2_threads<std::int32_t>(lz::integers{0, 7}, 6)));
}

BOOST_AUTO_TEST_CASE(element_i_depends_only_on_seed_and_i) {
  // A matrix is the row-major reshape of the vector with the same seed; other seeds differ.
  const auto v = lz::random<double>({6 * 7}, 9, lz::normal{});
  const auto M = lz::random<double>({6, 7}, 9, lz::normal{});
  BOOST_TEST(std::memcmp(v.data(), M.data(), sizeof(double) * 42) == 0);
  const auto w = lz::random<double>({6 * 7}, 10, lz::normal{});
  int same = 0;
  for (index_t i = 0; i < 42; ++i) same += v(i) == w(i);
  BOOST_TEST(same == 0);
}

BOOST_AUTO_TEST_CASE(uniform_has_the_moments_of_uniform) {
  for (auto [lo, hi] : {std::pair{0.0, 1.0}, std::pair{-3.0, 5.0}, std::pair{1e6, 1e6 + 1}}) {
    const auto x = lz::random<double>({n}, 11, lz::uniform{lo, hi});
    const moments m = moments_of(x);
    const double w = hi - lo, var = w * w / 12, mu4 = w * w * w * w / 80;
    BOOST_TEST(within(m.mean, (lo + hi) / 2, std::sqrt(var / n)));
    BOOST_TEST(within(m.var, var, std::sqrt((mu4 - var * var) / n)));
    BOOST_TEST(m.lo >= lo);
    BOOST_TEST(m.hi < hi);
    BOOST_TEST(m.lo < lo + 1e-3 * w); // reaches both ends
    BOOST_TEST(m.hi > hi - 1e-3 * w);
  }
}

BOOST_AUTO_TEST_CASE(normal_has_the_moments_of_normal) {
  for (auto [mu, sd] : {std::pair{0.0, 1.0}, std::pair{-4.0, 0.25}}) {
    const auto x = lz::random<double>({n}, 12, lz::normal{mu, sd});
    const moments m = moments_of(x);
    const double var = sd * sd;
    BOOST_TEST(within(m.mean, mu, sd / std::sqrt(double(n))));
    BOOST_TEST(within(m.var, var, var * std::sqrt(2.0 / n)));
    BOOST_TEST(within(m.m3 / (var * sd), 0.0, std::sqrt(6.0 / n)));   // skewness
    BOOST_TEST(within(m.m4 / (var * var), 3.0, std::sqrt(96.0 / n))); // kurtosis (var 96/n)
    // Tails: P(|z| > 2) = 0.0455.
    index_t tail = 0;
    for (index_t i = 0; i < n; ++i) tail += std::fabs(x(i) - mu) > 2 * sd;
    const double p = 0.04550026389635842;
    BOOST_TEST(within(double(tail) / n, p, std::sqrt(p * (1 - p) / n)));
  }
  const auto f = lz::random<float>({n}, 13, lz::normal{});
  BOOST_TEST(within(moments_of(f).var, 1.0, std::sqrt(2.0 / n)));
}

BOOST_AUTO_TEST_CASE(integers_are_uniform_over_low_to_high_exclusive) {
  const std::int64_t lo = -3, hi = 7, k = hi - lo;
  const auto x = lz::random<std::int64_t>({n}, 14, lz::integers{lo, hi});
  const moments m = moments_of(x);
  BOOST_TEST(m.lo == double(lo));
  BOOST_TEST(m.hi == double(hi - 1));
  const double var = double(k * k - 1) / 12;
  BOOST_TEST(within(m.mean, double(lo + hi - 1) / 2, std::sqrt(var / n)));
  // Pearson's chi-square over the k values: k-1 degrees of freedom, variance 2(k-1).
  std::vector<index_t> counts(std::size_t(k), 0);
  for (index_t i = 0; i < n; ++i) ++counts[std::size_t(x(i) - lo)];
  double chi2 = 0;
  const double expect = double(n) / double(k);
  for (index_t c : counts) chi2 += (double(c) - expect) * (double(c) - expect) / expect;
  BOOST_TEST(within(chi2, double(k - 1), std::sqrt(2.0 * double(k - 1))));
  BOOST_CHECK_THROW((void)lz::random<int>({3}, 1, lz::integers{5, 5}), std::invalid_argument);
}

// [INT64_MIN, INT64_MAX): the width overflows int64 (signed overflow before the fix, which
// UBSan reports); both halves of the range appear, nothing equals INT64_MAX.
BOOST_AUTO_TEST_CASE(integers_over_the_whole_int64_range_are_drawn_without_overflow) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                         hi = std::numeric_limits<std::int64_t>::max();
  const auto x = lz::random<std::int64_t>({4096}, 5, lz::integers{lo, hi});
  index_t negative = 0;
  for (index_t i = 0; i < x.size(); ++i) {
    negative += x(i) < 0;
    BOOST_TEST(x(i) != hi);
  }
  BOOST_TEST(negative > 1800);
  BOOST_TEST(negative < 2300);
}

BOOST_AUTO_TEST_CASE(float_uniform_never_rounds_up_to_high) {
  // Find an element whose double draw lies within half a float ulp of 1: rounding it to float
  // gives 1.0f, outside [0, 1), unless the generator guards against it.
  const std::uint64_t seed = 21;
  index_t i = 0;
  while (lz::detail::unit_double(lz::detail::counter_bits(seed, std::uint64_t(i))) <
         1.0 - 0x1.0p-25)
    ++i;
  const auto x = lz::random<float>({i + 1}, seed, lz::uniform{0, 1});
  BOOST_TEST(x(i) < 1.0f);
  BOOST_TEST(x(i) >= 0.99999994f);
}
