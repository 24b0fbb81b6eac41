// Device reduction suite (mirrors the CPU suite): sum prod min max mean norm2 dot any all argmin
// argmax, full and along every axis, over trees, views and layouts, with the CPU's semantics:
// NaN propagation, first index on ties and NaNs, integer widening, empty-input errors.
#include "support.hpp"

BOOST_AUTO_TEST_SUITE(device_reduce)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;

template <class A, class B>
void same_value(const A& host, const B& dev, double rel, const std::string& what) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(host)) {
      BOOST_TEST(std::isnan(double(dev)), what << ": expected NaN");
      return;
    }
    const double err = std::fabs(double(dev) - double(host)) / (std::fabs(double(host)) + 1e-300);
    BOOST_TEST(err <= rel, what << ": host " << host << " device " << dev);
  } else {
    BOOST_TEST(host == dev, what);
  }
}

BOOST_AUTO_TEST_CASE(full_reductions_match_the_cpu) {
  const auto x = rnd<double, 2>({123, 77}, 1, 0.5, 1.5), y = rnd<double, 2>({123, 77}, 2);
  const auto dx = lz::to_device(x), dy = lz::to_device(y);
  same_value(lz::eval(lz::par, lz::sum(lz::hadamard(x, y))),
             lz::eval(lz::device, lz::sum(lz::hadamard(dx, dy))), 1e-11, "sum");
  same_value(lz::eval(lz::par, lz::prod(x(lz::range(0, 40), lz::all))),
             lz::eval(lz::device, lz::prod(dx(lz::range(0, 40), lz::all))), 1e-10, "prod");
  same_value(lz::eval(lz::par, lz::min(y)), lz::eval(lz::device, lz::min(dy)), 0, "min");
  same_value(lz::eval(lz::par, lz::max(lz::transpose(y))),
             lz::eval(lz::device, lz::max(lz::transpose(dy))), 0, "max");
  same_value(lz::eval(lz::par, lz::mean(x - y)), lz::eval(lz::device, lz::mean(dx - dy)), 1e-11,
             "mean");
  same_value(lz::eval(lz::par, lz::norm2(y)), lz::eval(lz::device, lz::norm2(dy)), 1e-12, "norm2");
  same_value(lz::eval(lz::par, lz::dot(x, y)), lz::eval(lz::device, lz::dot(dx, dy)), 1e-11, "dot");
  same_value(lz::eval(lz::par, lz::argmin(y)), lz::eval(lz::device, lz::argmin(dy)), 0, "argmin");
  same_value(lz::eval(lz::par, lz::argmax(lz::transpose(y))),
             lz::eval(lz::device, lz::argmax(lz::transpose(dy))), 0, "argmax (logical order)");
  same_value(lz::eval(lz::par, lz::any(y > 1.9)), lz::eval(lz::device, lz::any(dy > 1.9)), 0,
             "any");
  same_value(lz::eval(lz::par, lz::all(x > 0.5)), lz::eval(lz::device, lz::all(dx > 0.5)), 0,
             "all");
}

BOOST_AUTO_TEST_CASE(w3_sum_of_squared_differences_matches_on_random_sizes) {
  std::mt19937 g(3);
  for (int rep = 0; rep < 5; ++rep) {
    const index_t n = 1 + g() % 200000;
    const auto x = rnd<double, 1>({n}, 10 + rep), y = rnd<double, 1>({n}, 20 + rep);
    const auto dx = lz::to_device(x), dy = lz::to_device(y);
    same_value(lz::eval(lz::par, lz::sum(lz::square(x - y))),
               lz::eval(lz::device, lz::sum(lz::square(dx - dy))), 1e-12, "W3");
  }
}

BOOST_AUTO_TEST_CASE(integer_sums_widen_and_bools_count) {
  const auto a = rnd<std::int32_t, 1>({5000}, 4, 2000000, 2100000000);
  const auto da = lz::to_device(a);
  const auto s = lz::eval(lz::device, lz::sum(da));
  static_assert(std::is_same_v<std::remove_cv_t<decltype(s)>, std::int64_t>);
  same_value(lz::eval(lz::par, lz::sum(a)), s, 0, "int32 sum widens to int64");
  same_value(lz::eval(lz::par, lz::sum(a > 1000000000)),
             lz::eval(lz::device, lz::sum(da > 1000000000)), 0, "bool count");
  same_value(lz::eval(lz::par, lz::mean(a)), lz::eval(lz::device, lz::mean(da)), 1e-14,
             "integer mean in double");
}

BOOST_AUTO_TEST_CASE(nan_propagates_and_arg_reductions_pick_the_first_index) {
  lz::vector<double> x{3.0, 7.0, 1.0, 7.0, 1.0, std::nan(""), 0.5, std::nan("")};
  const auto dx = lz::to_device(x);
  BOOST_TEST(std::isnan(lz::eval(lz::device, lz::max(dx))));
  BOOST_TEST(std::isnan(lz::eval(lz::device, lz::min(dx))));
  BOOST_TEST(std::isnan(lz::eval(lz::device, lz::sum(dx))));
  BOOST_TEST(lz::eval(lz::device, lz::argmax(dx)) == 5); // the first NaN wins, as in NumPy
  BOOST_TEST(lz::eval(lz::device, lz::argmin(dx)) == 5);
  const auto clean = lz::to_device(lz::vector<double>{3.0, 7.0, 1.0, 7.0, 1.0, 0.5, 0.5});
  BOOST_TEST(lz::eval(lz::device, lz::argmax(clean)) == 1); // ties: the first
  BOOST_TEST(lz::eval(lz::device, lz::argmin(clean)) == 5);
  same_value(lz::eval(lz::par, lz::argmax(x)), lz::eval(lz::device, lz::argmax(dx)), 0, "cpu");
}

BOOST_AUTO_TEST_CASE(empty_inputs_follow_the_cpu) {
  const lz::device_tensor<double, 1> e(lz::shape_t<1>{0});
  BOOST_TEST(lz::eval(lz::device, lz::sum(e)) == 0.0);
  BOOST_TEST(lz::eval(lz::device, lz::prod(e)) == 1.0);
  BOOST_TEST(std::isnan(lz::eval(lz::device, lz::mean(e))));
  BOOST_TEST(lz::eval(lz::device, lz::any(e > 0.0)) == false);
  BOOST_TEST(lz::eval(lz::device, lz::all(e > 0.0)) == true);
  BOOST_CHECK_THROW(lz::eval(lz::device, lz::min(e)), lz::shape_error);
  BOOST_CHECK_THROW(lz::eval(lz::device, lz::argmax(e)), lz::shape_error);
  const lz::device_tensor<double, 2> z(lz::shape_t<2>{3, 0});
  BOOST_CHECK_THROW(lz::eval(lz::device, lz::max(z, 1)), lz::shape_error);
  expect_match(lz::vector<double>(lz::shape_t<1>{3}), lz::eval(lz::device, lz::sum(z, 1)), 0, 0,
               "sum along an empty axis is 0");
  BOOST_TEST(lz::eval(lz::device, lz::max(z, 0)).size() == 0); // no outputs: nothing to reduce
}

template <class F>
void check_axes(const F& f, double ulps, double abs_tol, const std::string& what) {
  const auto T3 = rnd<double, 3>({9, 11, 13}, 5, 0.5, 1.5);
  const auto d3 = lz::to_device(T3);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    expect_match(lz::eval(lz::par, f(T3, axis)), lz::eval(lz::device, f(d3, axis)), ulps, abs_tol,
                 what + " axis " + std::to_string(axis));
    expect_match(lz::eval(lz::par, f(lz::permute(T3, {2, 0, 1}), axis)),
                 lz::eval(lz::device, f(lz::permute(d3, {2, 0, 1}), axis)), ulps, abs_tol,
                 what + " permuted, axis " + std::to_string(axis));
  }
}

BOOST_AUTO_TEST_CASE(axis_reductions_match_the_cpu_on_every_axis_and_layout) {
  check_axes([](const auto& t, std::size_t a) { return lz::sum(t * 2.0, a); }, 4, 1e-13, "sum");
  check_axes([](const auto& t, std::size_t a) { return lz::prod(t, a); }, 64, 1e-13, "prod");
  check_axes([](const auto& t, std::size_t a) { return lz::max(t, a); }, 0, 0, "max");
  check_axes([](const auto& t, std::size_t a) { return lz::min(-t, a); }, 0, 0, "min");
  check_axes([](const auto& t, std::size_t a) { return lz::mean(t, a); }, 4, 1e-14, "mean");
  check_axes([](const auto& t, std::size_t a) { return lz::norm2(t, a); }, 4, 1e-14, "norm2");
  check_axes([](const auto& t, std::size_t a) { return lz::argmax(t, a); }, 0, 0, "argmax");
  check_axes([](const auto& t, std::size_t a) { return lz::argmin(t, a); }, 0, 0, "argmin");
  check_axes([](const auto& t, std::size_t a) { return lz::any(t > 1.45, a); }, 0, 0, "any");
}

BOOST_AUTO_TEST_CASE(few_long_outputs_and_many_short_ones_agree_with_the_cpu) {
  const auto wide = rnd<double, 2>({3, 70000}, 6), tall = rnd<double, 2>({70000, 3}, 7);
  const auto dw = lz::to_device(wide), dt = lz::to_device(tall);
  expect_match(lz::eval(lz::par, lz::sum(wide, 1)), lz::eval(lz::device, lz::sum(dw, 1)), 64, 1e-11,
               "3 outputs x 70000 (one transform_reduce each)");
  expect_match(lz::eval(lz::par, lz::argmax(wide, 1)), lz::eval(lz::device, lz::argmax(dw, 1)), 0,
               0, "argmax, 3 outputs");
  expect_match(lz::eval(lz::par, lz::sum(tall, 1)), lz::eval(lz::device, lz::sum(dt, 1)), 4, 1e-13,
               "70000 outputs x 3");
  expect_match(lz::eval(lz::par, lz::max(tall, 0)), lz::eval(lz::device, lz::max(dt, 0)), 0, 0,
               "3 outputs down 70000 rows");
}

BOOST_AUTO_TEST_CASE(reductions_nest_inside_elementwise_trees) {
  const auto A = rnd<double, 2>({50, 40}, 8);
  const auto v = rnd<double, 1>({40}, 9);
  const auto dA = lz::to_device(A);
  const auto dv = lz::to_device(v);
  // centre the columns: A - broadcast(mean(A, 0)); a full reduction broadcasts as a scalar
  expect_match(lz::eval(lz::par, A - lz::broadcast_to(lz::mean(A, 0), {50, 40})),
               lz::eval(lz::device, dA - lz::broadcast_to(lz::mean(dA, 0), {50, 40})), 8, 1e-13,
               "column centring");
  expect_match(lz::eval(lz::par, v / lz::norm2(v) + lz::max(v)),
               lz::eval(lz::device, dv / lz::norm2(dv) + lz::max(dv)), 4, 1e-14, "normalise");
  // keepdims: the reduced axis kept with extent 1 broadcasts back (a row-wise softmax)
  auto ex = lz::exp(A - lz::max(A, 1, lz::keepdims));
  auto dex = lz::exp(dA - lz::max(dA, 1, lz::keepdims));
  expect_match(lz::eval(lz::par, ex / lz::sum(ex, 1, lz::keepdims)),
               lz::eval(lz::device, dex / lz::sum(dex, 1, lz::keepdims)), 16, 1e-15,
               "softmax with keepdims");
  const double centred = lz::eval(lz::device, lz::sum(dv - lz::mean(dv))); // ~0: absolute
  BOOST_TEST(std::fabs(centred - lz::eval(lz::par, lz::sum(v - lz::mean(v)))) <= 1e-12);
}

BOOST_AUTO_TEST_CASE(axis_reductions_write_into_destinations_and_accumulate) {
  const auto A = rnd<double, 2>({64, 48}, 10);
  const auto dA = lz::to_device(A);
  lz::vector<double> h(48);
  lz::device_tensor<double, 1> d(lz::shape_t<1>{48});
  h = 1.0;
  d = 1.0;
  lz::reset_device_stats();
  d += lz::sum(dA, 0); // straight into d: no temporary
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  h += lz::sum(A, 0);
  expect_match(h, d, 4, 1e-13, "+= sum along axis 0");
  // the destination aliases the operand: the reduction goes through a temporary
  lz::device_tensor<double, 2> dB = dA;
  lz::matrix<double> B = A;
  lz::assign(lz::device, lz::col(dB, 0), lz::max(dB, 1));
  lz::col(B, 0) = lz::max(B, 1);
  expect_match(B, dB, 0, 0, "aliasing axis reduction");
}

BOOST_AUTO_TEST_SUITE_END()
