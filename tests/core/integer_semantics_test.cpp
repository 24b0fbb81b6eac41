// Integer arithmetic and the reductions' numeric edge cases (docs/errors.md, "Arithmetic that
// gives a value, not an error"): overflow wraps as in NumPy, integer division by zero gives 0
// and INT_MIN / -1 gives INT_MIN (no SIGFPE), on every policy and in compound assignment;
// mean of integers accumulates in double, mean of nothing is NaN; products of every 32-/64-bit
// integer type (long long included) are exact modulo 2^bits; bool .npy bytes read as 0/1. The
// UBSan job runs this suite: none of it may be undefined behaviour.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <lz/npy.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace {

using lz::index_t;

// Wrapping reference through the unsigned type (what the engine must give).
template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(a) + U(b));
}
template <class T>
T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(a) * U(b));
}

// Sizes: 7 stays on the scalar tail, 1000 runs SIMD batches, 300000 runs the threaded loop
// under lz::par / lz::automatic (above the parallel thresholds).
constexpr index_t sizes[] = {7, 1000, 300000};

template <class T>
lz::vector<T> filled(index_t n, T a, T b) { // a, b, a, b, ...
  lz::vector<T> v(n);
  for (index_t i = 0; i < n; ++i) v(i) = i % 2 ? b : a;
  return v;
}

template <class T, class P>
void check_division_edges(const P& pol) {
  constexpr T lo = std::numeric_limits<T>::min();
  for (index_t n : sizes) {
    const lz::vector<T> a = filled<T>(n, T(7), lo), zero = filled<T>(n, T(0), T(0)),
                        minus1 = filled<T>(n, T(-1), T(-1));
    lz::vector<T> q(n);
    lz::assign(pol, q, a / zero);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(q(i) == T(0));
    lz::assign(pol, q, a / minus1);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(q(i) == (i % 2 ? lo : T(-7)));
    lz::assign(pol, q, a / T(0)); // a scalar divisor
    for (index_t i = 0; i < n; ++i) BOOST_TEST(q(i) == T(0));
    // Batches holding both an ordinary and a zero divisor: only the zero lanes give 0.
    lz::vector<T> mixed(n);
    for (index_t i = 0; i < n; ++i) mixed(i) = i % 3 ? T(2) : T(0);
    lz::assign(pol, q, a / mixed);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(q(i) == (i % 3 ? T((i % 2 ? lo : T(7)) / 2) : T(0)));
  }
}

BOOST_AUTO_TEST_CASE(integer_division_by_zero_gives_zero_and_int_min_by_minus_one_wraps) {
  check_division_edges<std::int32_t>(lz::seq);
  check_division_edges<std::int32_t>(lz::simd);
  check_division_edges<std::int32_t>(lz::par);
  check_division_edges<std::int64_t>(lz::seq);
  check_division_edges<std::int64_t>(lz::simd);
  check_division_edges<std::int64_t>(lz::automatic);
}

BOOST_AUTO_TEST_CASE(compound_division_by_zero_leaves_zero_and_never_traps) {
  for (index_t n : sizes) {
    lz::vector<std::int32_t> x = filled<std::int32_t>(n, 9, std::numeric_limits<int>::min());
    const lz::vector<std::int32_t> z = filled<std::int32_t>(n, 0, -1);
    x /= z;
    for (index_t i = 0; i < n; ++i)
      BOOST_TEST(x(i) == (i % 2 ? std::numeric_limits<int>::min() : 0));
    lz::vector<std::uint32_t> u = filled<std::uint32_t>(n, 5u, 6u);
    u /= std::uint32_t(0);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(u(i) == 0u);
  }
}

BOOST_AUTO_TEST_CASE(signed_overflow_wraps_in_every_operator_and_policy) {
  using T = std::int32_t;
  constexpr T hi = std::numeric_limits<T>::max(), lo = std::numeric_limits<T>::min();
  for (index_t n : sizes) {
    const lz::vector<T> a = filled<T>(n, hi, lo), b = filled<T>(n, T(2), T(-3));
    lz::vector<T> r(n);
    lz::assign(lz::seq, r, a + b);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_add(a(i), b(i)));
    lz::assign(lz::simd, r, a * b);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_mul(a(i), b(i)));
    lz::assign(lz::par, r, a - b * b);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_add(a(i), T(-wrap_mul(b(i), b(i)))));
    lz::assign(lz::seq, r, -a);
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == (i % 2 ? lo : -hi));
    lz::assign(lz::seq, r, lz::abs(a));
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == (i % 2 ? lo : hi));
    lz::assign(lz::seq, r, lz::square(a));
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_mul(a(i), a(i)));
    r = a;
    r += b;
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_add(a(i), b(i)));
    r *= b;
    for (index_t i = 0; i < n; ++i) BOOST_TEST(r(i) == wrap_mul(wrap_add(a(i), b(i)), b(i)));
  }
}

BOOST_AUTO_TEST_CASE(int64_sum_prod_and_dot_wrap_like_numpy) {
  using T = std::int64_t;
  constexpr T hi = std::numeric_limits<T>::max();
  for (index_t n : sizes) {
    const lz::vector<T> a = filled<T>(n, hi, T(3));
    T sum = 0, prod = 1, dot = 0;
    for (index_t i = 0; i < n; ++i) {
      sum = wrap_add(sum, a(i));
      prod = wrap_mul(prod, a(i));
      dot = wrap_add(dot, wrap_mul(a(i), a(i)));
    }
    BOOST_TEST(T(lz::sum(a)) == sum);
    BOOST_TEST(T(lz::prod(a)) == prod);
    BOOST_TEST(T(lz::dot(a, a)) == dot);
    lz::vector<T> s = lz::sum(lz::reshape(a, lz::shape_t<2>{1, n}), 1);
    BOOST_TEST(s(0) == sum);
  }
  // int32 sums widen to int64 (NumPy's accumulator): no wrap at 2^31.
  const lz::vector<std::int32_t> big = filled<std::int32_t>(1000, 2000000000, 2000000000);
  BOOST_TEST(std::int64_t(lz::sum(big)) == std::int64_t(2000000000) * 1000);
}

BOOST_AUTO_TEST_CASE(mean_of_integers_accumulates_in_double) {
  // Six nanosecond timestamps (2024): their int64 sum overflows, their mean does not.
  const lz::vector<std::int64_t> t{1700000000000000000, 1700000000000000001, 1700000000000000002,
                                   1700000000000000003, 1700000000000000004, 1700000000000000005};
  const double m = lz::mean(t);
  BOOST_TEST(m == 1.7e18, boost::test_tools::tolerance(1e-15));
  static_assert(std::is_same_v<decltype(lz::mean(t))::value_type, double>);
  lz::matrix<std::int64_t> A(2, 3);
  for (index_t j = 0; j < 3; ++j) A(0, j) = t(j), A(1, j) = t(j + 3);
  const lz::vector<double> rows = lz::mean(A, 1);
  BOOST_TEST(rows(0) == 1.700000000000000001e18, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(rows(1) == 1.700000000000000004e18, boost::test_tools::tolerance(1e-15));
  // Floating means keep their type and their SIMD path.
  const lz::vector<float> f{1.f, 2.f, 4.f};
  static_assert(std::is_same_v<decltype(lz::mean(f))::value_type, float>);
  BOOST_TEST(float(lz::mean(f)) == 7.f / 3.f);
}

BOOST_AUTO_TEST_CASE(mean_of_nothing_is_nan_as_in_numpy) {
  const lz::matrix<double> e(0, 4);
  BOOST_TEST(std::isnan(double(lz::mean(e))));
  const lz::vector<double> cols = lz::mean(e, 0);
  BOOST_TEST(cols.size() == 4);
  for (index_t j = 0; j < 4; ++j) BOOST_TEST(std::isnan(cols(j)));
  const lz::matrix<std::int32_t> ei(0, 2);
  BOOST_TEST(std::isnan(double(lz::mean(ei))));
}

template <class T>
void check_integer_product() {
  const index_t m = 5, k = 7, n = 3;
  lz::matrix<T> A(m, k), B(k, n);
  using U = std::make_unsigned_t<T>;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < k; ++j) A(i, j) = T(U(i * 131 + j * 7) * U(0x9e3779b97f4a7c15ull));
  for (index_t i = 0; i < k; ++i)
    for (index_t j = 0; j < n; ++j) B(i, j) = T(U(i + 3 * j + 1) * U(0x2545f4914f6cdd1dull));
  const lz::matrix<T> C = A * B;
  const lz::vector<T> x = lz::col(B, 1), y = A * x;
  for (index_t i = 0; i < m; ++i) {
    for (index_t j = 0; j < n; ++j) {
      U want = 0;
      for (index_t p = 0; p < k; ++p) want += U(A(i, p)) * U(B(p, j));
      BOOST_TEST(C(i, j) == T(want));
      if (j == 1) BOOST_TEST(y(i) == T(want));
    }
  }
}

BOOST_AUTO_TEST_CASE(products_of_every_32_and_64_bit_integer_type_are_exact_modulo_2_to_the_bits) {
  check_integer_product<long long>();
  check_integer_product<long>();
  check_integer_product<int>();
  check_integer_product<unsigned>();
  check_integer_product<unsigned long long>();
}

BOOST_AUTO_TEST_CASE(bool_npy_bytes_other_than_zero_and_one_read_as_true) {
  const auto f = std::filesystem::temp_directory_path() / "lz_integer_semantics_bool.npy";
  const lz::vector<double> x{1.0, -1.0, 2.0, 3.0};
  lz::save_npy(f, x > 0.0); // bytes 1 0 1 1
  {
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(-4, std::ios::end);
    const char bytes[4] = {0, 1, 2, char(255)};
    io.write(bytes, 4);
  }
  const auto b = lz::load_npy<bool, 1>(f);
  std::filesystem::remove(f);
  BOOST_TEST(b.size() == 4);
  unsigned char raw[4];
  std::memcpy(raw, b.data(), 4);
  BOOST_TEST(raw[0] == 0);
  BOOST_TEST(raw[1] == 1);
  BOOST_TEST(raw[2] == 1);
  BOOST_TEST(raw[3] == 1);
  BOOST_TEST(std::int64_t(lz::sum(b)) == 3);
}

} // namespace
