// Device elementwise suite (mirrors the CPU suite): every op of the op lists, fused trees over
// random shapes and layouts, compound assignment, integer and bool trees, user functors, the
// four access paths, and the no-allocation/no-transfer guarantee. Each device result is copied
// back and compared with the CPU (lz::par) result of the same tree over host copies.
#include "support.hpp"

BOOST_AUTO_TEST_SUITE(device_elementwise)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;

template <class T>
void check_unary_ops(double ulps, double abs_tol) {
  const auto hx = rnd<T, 2>({37, 53}, 11, -0.95, 0.95);
  const auto dx = lz::to_device(hx);
  [&]<class... F>(lz::fn::op_list<F...>) {
    (
        [&] {
          const auto h = lz::eval(lz::par, lz::make_map(F::name, F{}, lz::make_closure(hx)));
          const auto d = lz::eval(lz::device, lz::make_map(F::name, F{}, lz::make_closure(dx)));
          expect_match(h, d, ulps, abs_tol, F::name);
        }(),
        ...);
  }(lz::fn::unary_ops{});
}

BOOST_AUTO_TEST_CASE(every_unary_op_matches_the_cpu_in_double_and_float) {
  check_unary_ops<double>(16, 1e-15);
  check_unary_ops<float>(16, 1e-6);
}

BOOST_AUTO_TEST_CASE(every_binary_and_comparison_op_matches_the_cpu) {
  const auto hx = rnd<double, 2>({29, 31}, 21, 0.1, 3.0), hy = rnd<double, 2>({29, 31}, 22, -2, 2);
  const auto dx = lz::to_device(hx), dy = lz::to_device(hy);
  auto run = [&]<class... F>(lz::fn::op_list<F...>) {
    (
        [&] {
          const auto h = lz::eval(
              lz::par, lz::make_map(F::name, F{}, lz::make_closure(hx), lz::make_closure(hy)));
          const auto d = lz::eval(
              lz::device, lz::make_map(F::name, F{}, lz::make_closure(dx), lz::make_closure(dy)));
          expect_match(h, d, 16, 1e-14, F::name);
        }(),
        ...);
  };
  run(lz::fn::binary_ops{});
  run(lz::fn::compare_ops{});
}

// The same tree over host and device operands (generic lambdas build both).
template <class F, class... H>
void check_tree(const F& f, double ulps, double abs_tol, const std::string& what, const H&... h) {
  const auto host = lz::eval(lz::par, f(h...));
  const auto dev = lz::eval(lz::device, f(lz::to_device(h)...));
  expect_match(host, dev, ulps, abs_tol, what);
}

BOOST_AUTO_TEST_CASE(w1_and_w2_trees_match_the_cpu_on_random_shapes) {
  std::mt19937 g(5);
  for (int rep = 0; rep < 6; ++rep) {
    const index_t m = 1 + g() % 70, n = 1 + g() % 90;
    const auto x = rnd<double, 2>({m, n}, 100 + rep), y = rnd<double, 2>({m, n}, 200 + rep);
    const auto w = rnd<double, 2>({m, n}, 300 + rep), v = rnd<double, 2>({m, n}, 400 + rep);
    check_tree([](const auto& a, const auto& b) { return 2.5 * a + 1.5 * b; }, 2, 1e-14, "W1", x,
               y);
    check_tree(
        [](const auto& a, const auto& b, const auto& c, const auto& d) {
          return lz::hadamard(a, b) + lz::hadamard(lz::sin(c), lz::exp(-d));
        },
        16, 1e-14, "W2", x, y, w, v);
  }
}

BOOST_AUTO_TEST_CASE(trees_over_views_and_layouts_match_the_cpu) {
  const auto A = rnd<double, 2>({40, 40}, 1), B = rnd<double, 2>({40, 40}, 2);
  const auto v = rnd<double, 1>({40}, 3);
  const auto dA = lz::to_device(A), dB = lz::to_device(B);
  const auto dv = lz::to_device(v);
  // transposed operand (rows path)
  expect_match(lz::eval(lz::par, lz::transpose(A) + 2.0 * B),
               lz::eval(lz::device, lz::transpose(dA) + 2.0 * dB), 2, 1e-14, "transpose");
  // strided and reversed slices
  expect_match(lz::eval(lz::par, A(lz::range(0, 40, 2), lz::range(39, -1, -3)) * 3.0),
               lz::eval(lz::device, dA(lz::range(0, 40, 2), lz::range(39, -1, -3)) * 3.0), 0, 0,
               "slices");
  // broadcast vector across rows, and a column view
  expect_match(lz::eval(lz::par, A - lz::broadcast_to(v, {40, 40})),
               lz::eval(lz::device, dA - lz::broadcast_to(dv, {40, 40})), 0, 0, "broadcast_to");
  expect_match(lz::eval(lz::par, lz::col(A, 3) + lz::diagonal(B)),
               lz::eval(lz::device, lz::col(dA, 3) + lz::diagonal(dB)), 0, 0, "col+diagonal");
  // rank-3 permutation (general path) and broadcasting of an expression tree
  const auto T3 = rnd<double, 3>({6, 7, 8}, 4);
  const auto dT3 = lz::to_device(T3);
  expect_match(lz::eval(lz::par, lz::permute(T3, {2, 0, 1}) * 2.0),
               lz::eval(lz::device, lz::permute(dT3, {2, 0, 1}) * 2.0), 0, 0, "permute");
  expect_match(lz::eval(lz::par, lz::permute(T3 + 1.0, {1, 2, 0})),
               lz::eval(lz::device, lz::permute(dT3 + 1.0, {1, 2, 0})), 0, 0, "permute tree");
  expect_match(lz::eval(lz::par, lz::broadcast_to(v * 2.0, {3, 40})),
               lz::eval(lz::device, lz::broadcast_to(dv * 2.0, {3, 40})), 0, 0, "broadcast tree");
}

BOOST_AUTO_TEST_CASE(column_major_and_strided_destinations_are_written_in_place) {
  const auto A = rnd<double, 2>({13, 17}, 7);
  const auto dA = lz::to_device(A);
  lz::device_tensor<double, 2> dC(lz::shape_t<2>{13, 17}, lz::layout_left);
  lz::matrix<double> C(13, 17, lz::layout_left);
  dC = dA * 2.0 + 1.0;
  C = A * 2.0 + 1.0;
  BOOST_TEST(dC.layout().is_column_major());
  expect_match(C, dC, 0, 0, "layout_left destination");
  lz::device_tensor<double, 2> dW(lz::shape_t<2>{26, 34});
  lz::matrix<double> W(26, 34);
  auto dsub = dW(lz::range(1, 26, 2), lz::range(0, 34, 2));
  auto hsub = W(lz::range(1, 26, 2), lz::range(0, 34, 2));
  dsub = lz::sqrt(lz::abs(dA));
  hsub = lz::sqrt(lz::abs(A));
  expect_match(W, dW, 0, 1e-15, "strided destination (the gaps stay zero)");
}

BOOST_AUTO_TEST_CASE(compound_assignment_combines_with_the_destination) {
  const auto x = rnd<double, 1>({1001}, 8, 0.5, 2.0), y = rnd<double, 1>({1001}, 9, 0.5, 2.0);
  const auto dx = lz::to_device(x), dy = lz::to_device(y);
  auto hz = lz::eval(x * 1.0);
  auto dz = lz::to_device(hz);
  hz += 2.0 * y;
  dz += 2.0 * dy;
  hz -= y;
  dz -= dy;
  hz *= x;
  dz *= dx;
  hz /= y;
  dz /= dy;
  expect_match(hz, dz, 2, 1e-14, "+= -= *= /=");
}

BOOST_AUTO_TEST_CASE(integer_and_bool_trees_are_exact) {
  const auto a = rnd<std::int32_t, 2>({33, 20}, 10, 1, 1000),
             b = rnd<std::int32_t, 2>({33, 20}, 11, 1, 1000);
  check_tree([](const auto& p, const auto& q) { return lz::hadamard(p, q) + 3 - p / q; }, 0, 0,
             "int32", a, b);
  check_tree([](const auto& p, const auto& q) { return (p > q) && !(p == 7); }, 0, 0, "bool", a, b);
  check_tree([](const auto& p, const auto& q) { return lz::where(p < q, p, q * 2); }, 0, 0, "where",
             a, b);
  check_tree([](const auto& p, const auto&) { return lz::cast<double>(p) * 0.5; }, 0, 0, "cast", a,
             b);
}

// Integer edge cases give the CPU's values (docs/errors.md): x / 0 = 0, INT_MIN / -1 = INT_MIN,
// overflow wraps, in trees and in /= (a GPU does not trap, but its quotient by 0 is garbage).
BOOST_AUTO_TEST_CASE(integer_division_by_zero_and_overflow_give_the_cpu_values) {
  constexpr std::int32_t lo = std::numeric_limits<std::int32_t>::min(),
                         hi = std::numeric_limits<std::int32_t>::max();
  lz::matrix<std::int32_t> a(17, 9), b(17, 9);
  for (index_t i = 0; i < 17; ++i)
    for (index_t j = 0; j < 9; ++j) {
      a(i, j) = (i + j) % 3 == 0 ? lo : (i + j) % 3 == 1 ? hi : std::int32_t(i * 9 + j);
      b(i, j) = j % 3 == 0 ? 0 : j % 3 == 1 ? -1 : std::int32_t(j);
    }
  check_tree([](const auto& p, const auto& q) { return p / q + lz::hadamard(p, q) - (-p); }, 0, 0,
             "int32 edges", a, b);
  const auto db = lz::to_device(b);
  auto d = lz::to_device(a);
  d /= db;
  lz::matrix<std::int32_t> h = a;
  h /= b;
  expect_match(h, d, 0, 0, "/= by zero and -1");
}

BOOST_AUTO_TEST_CASE(maximum_minimum_and_clamp_propagate_nan_like_the_cpu) {
  lz::vector<double> x{1.0, std::nan(""), -3.0, 4.0}, y{2.0, 0.0, std::nan(""), -1.0};
  check_tree([](const auto& p, const auto& q) { return lz::maximum(p, q); }, 0, 0, "maximum", x, y);
  check_tree([](const auto& p, const auto& q) { return lz::minimum(p, q); }, 0, 0, "minimum", x, y);
  check_tree([](const auto& p, const auto&) { return lz::clamp(p, -1.0, 2.0); }, 0, 0, "clamp", x,
             y);
}

// A user functor: callable on host and device (LZ_HD), fused into the same single loop.
struct axpby_fn {
  double a, b;
  LZ_HD double operator()(double x, double y) const { return a * x + b * y; }
};

BOOST_AUTO_TEST_CASE(user_functors_run_fused_on_the_device) {
  const auto x = rnd<double, 1>({777}, 12), y = rnd<double, 1>({777}, 13);
  check_tree(
      [](const auto& p, const auto& q) {
        return lz::map(axpby_fn{2.5, 1.5}, p, q) + 1.0;
      },
      2, 1e-14, "lz::map", x, y);
}

BOOST_AUTO_TEST_CASE(scalar_assignment_fills_and_shape_errors_leave_the_destination_untouched) {
  lz::device_tensor<float, 2> d(lz::shape_t<2>{5, 6});
  d = 2.5f;
  expect_match(lz::matrix<float>(lz::shape_t<2>{5, 6}, 2.5f), d, 0, 0, "fill");
  const lz::device_tensor<float, 2> wrong(lz::shape_t<2>{6, 5});
  BOOST_CHECK_THROW(lz::assign(lz::device, d, wrong * 2.0f), lz::shape_error);
  expect_match(lz::matrix<float>(lz::shape_t<2>{5, 6}, 2.5f), d, 0, 0, "untouched");
  // a (1, n) tree broadcasts to an (m, n) destination, as on the CPU
  const auto row = rnd<float, 2>({1, 6}, 14);
  lz::matrix<float> h(5, 6);
  h = lz::broadcast_to(row, {5, 6});
  lz::assign(lz::device, d, lz::to_device(row) * 1.0f);
  expect_match(h, d, 0, 0, "broadcast on assignment");
}

BOOST_AUTO_TEST_CASE(the_planner_picks_flat_linear_rows_and_general_paths) {
  lz::device_tensor<double, 1> x(lz::shape_t<1>{100}), y(lz::shape_t<1>{100});
  lz::device_tensor<double, 2> A(lz::shape_t<2>{30, 30}), B(lz::shape_t<2>{30, 30});
  lz::device_tensor<double, 3> T(lz::shape_t<3>{4, 5, 6}), U(lz::shape_t<3>{6, 5, 4});
  auto has = [](const std::string& text, const std::string& s) {
    BOOST_TEST((text.find(s) != std::string::npos), text << " lacks '" << s << "'");
  };
  has(lz::explain(lz::device, y, 2.5 * x + 1.5 * y), "path flat 100");
  has(lz::explain(lz::device, A, 2.0 * B + 1.0), "path flat 900"); // 2-D contiguous: one dim
  has(lz::explain(lz::device, y, x(lz::range(99, -1, -1)) * 2.0), "path linear 100");
  has(lz::explain(lz::device, A, lz::transpose(B) + B), "path rows (30,30)");
  has(lz::explain(lz::device, T, lz::permute(U, {2, 1, 0}) + T), "path general (4,5,6)");
  has(lz::explain(lz::device, A, lz::transpose(A) + B), "reads the destination at other positions");
  has(lz::explain(lz::device, x, x - lz::mean(x)), "mean(d(100,):(1,)) -> device temporary");
}

BOOST_AUTO_TEST_CASE(an_elementwise_assignment_allocates_and_transfers_nothing) {
  const auto dx = lz::to_device(rnd<double, 1>({10000}, 15));
  const auto dy = lz::to_device(rnd<double, 1>({10000}, 16));
  lz::device_tensor<double, 1> dz(lz::shape_t<1>{10000});
  lz::assign(lz::device, dz, 2.5 * dx + 1.5 * dy); // warm-up
  lz::reset_device_stats();
  lz::assign(lz::device, dz, 2.5 * dx + 1.5 * dy);
  dz = lz::sin(dx) * dz + dy; // same-position read of the destination: no temporary either
  const auto s = lz::device_stats();
  BOOST_TEST(s.allocations == 0u);
  BOOST_TEST(s.pool_requests == 0u);
  BOOST_TEST(s.h2d + s.d2h + s.d2d == 0u);
  BOOST_TEST(s.launches == 2u);
}

BOOST_AUTO_TEST_CASE(kernel_views_are_trivially_copyable) {
  lz::device_tensor<double, 2> A(lz::shape_t<2>{3, 4}), B(lz::shape_t<2>{4, 3});
  auto k = lz::kernel_view(lz::exp(A) * 2.0 + lz::transpose(B));
  static_assert(std::is_trivially_copyable_v<decltype(k)>);
  // the transpose is folded into the leaf's strides, in the root's dimensions
  const auto& leaf = lz::detail::get<1>(k.c);
  BOOST_TEST(leaf.s[0] == 1);
  BOOST_TEST(leaf.s[1] == 3);
}

BOOST_AUTO_TEST_SUITE_END()
