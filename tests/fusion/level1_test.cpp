// syrk, axpy/scal and dot rules, and the explain/log/info diagnostics.
#include <boost/test/unit_test.hpp>

#include <support/products.hpp>
#include <support/recording.hpp>

using namespace lz_test;

namespace {
// Restores the thresholds a test changes.
struct thresholds_guard {
  lz::tuning saved = lz::thresholds();
  ~thresholds_guard() { lz::thresholds() = saved; }
};
} // namespace

BOOST_AUTO_TEST_CASE(transpose_a_times_a_is_one_syrk_with_a_symmetric_result) {
  auto A = lz::random<double>({50, 30}, 1, lz::uniform{-1, 1});
  lz::matrix<double> S(30, 30);
  recording rec;
  lz::reset_stats();
  S = lz::transpose(A) * A;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(std::string(rec.only().routine) == "dsyrk");
  BOOST_TEST(max_rel_error(S, reference(lz::transpose(A) * A)) < 1e-12);
  for (index_t i = 0; i < 30; ++i)
    for (index_t j = 0; j < 30; ++j) BOOST_TEST(S(i, j) == S(j, i));
  // A·Aᵀ too, and with syrk disabled it is a gemm.
  lz::matrix<double> T(50, 50);
  recording rec2;
  T = 2.0 * A * lz::transpose(A);
  BOOST_TEST(std::string(rec2.only().routine) == "dsyrk");
  BOOST_TEST(max_rel_error(T, reference(2.0 * A * lz::transpose(A))) < 1e-12);
  thresholds_guard g;
  lz::thresholds().use_syrk = false;
  recording rec3;
  T = A * lz::transpose(A);
  BOOST_TEST(std::string(rec3.only().routine) == "dgemm");
}

BOOST_AUTO_TEST_CASE(transpose_a_times_a_plus_a_matrix_that_is_not_symmetric_is_a_gemm) {
  // The sum is not symmetric: one syrk into C then mirroring a triangle would lose C's other
  // half (it did, until the fixed-size tests compared the two engines).
  auto A = lz::random<double>({20, 6}, 4, lz::uniform{-1, 1});
  auto C = lz::random<double>({6, 6}, 5, lz::uniform{-1, 1});
  lz::matrix<double> S(6, 6);
  recording rec;
  S = lz::transpose(A) * A + C;
  BOOST_TEST(std::string(rec.only().routine) == "dgemm");
  BOOST_TEST(max_rel_error(S, reference(lz::transpose(A) * A + C)) < 1e-12);
  lz::matrix<double> W = C;
  recording rec2;
  W += lz::transpose(A) * A;
  BOOST_TEST(std::string(rec2.only().routine) == "dgemm");
  BOOST_TEST(max_rel_error(W, reference(lz::transpose(A) * A + C)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(axpy_and_scal_in_place_when_enabled) {
  thresholds_guard g;
  lz::thresholds().level1_blas = 0;
  lz::vector<double> x = lz::random<double>({1000}, 2), y = lz::random<double>({1000}, 3);
  const lz::vector<double> y0 = y, x0 = x;
  {
    recording rec;
    lz::reset_stats();
    y = 2.5 * x + y;
    BOOST_TEST(lz::stats().allocations == 0u);
    BOOST_TEST(std::string(rec.only().routine) == "daxpy");
    BOOST_TEST(rec.only().alpha == 2.5);
  }
  {
    recording rec;
    y -= 0.5 * x;
    BOOST_TEST(rec.only().alpha == -0.5);
  }
  BOOST_TEST(max_rel_error(y, reference(y0 + 2.5 * x0 - 0.5 * x0)) < 1e-14);
  {
    recording rec;
    x *= 3.0;
    BOOST_TEST(std::string(rec.only().routine) == "dscal");
    recording rec2;
    x = 0.5 * x;
    BOOST_TEST(std::string(rec2.only().routine) == "dscal");
  }
  BOOST_TEST(max_rel_error(x, reference(1.5 * x0)) < 1e-15);
  // Reversed strides go through BLAS's own convention correctly.
  auto xr = x0(lz::range(999, -1, -1));
  lz::vector<double> z = y0;
  recording rec;
  z += 2.0 * xr;
  BOOST_TEST(std::string(rec.only().routine) == "daxpy");
  BOOST_TEST(max_rel_error(z, reference(y0 + 2.0 * xr)) < 1e-14);
}

// Compile time: only trees of at most two scaled leaves (or x *= a) can become a BLAS 1 call;
// anything else goes straight to the fused loop without instantiating the rule.
BOOST_AUTO_TEST_CASE(level1_rule_is_chosen_at_compile_time_for_scaled_leaves_only) {
  using lz::fusion::rule_id;
  using lz::fusion::rule_v;
  lz::vector<double> x(4), y(4);
  lz::vector<float> xf(4);
  lz::vector<int> xi(4);
  static_assert(rule_v<double, decltype(2.5 * x + y)> == rule_id::level1);
  static_assert(rule_v<double, decltype(-x + y / 2.0)> == rule_id::level1);
  static_assert(rule_v<float, decltype(2.0f * xf)> == rule_id::level1);
  static_assert(rule_v<double, decltype(2.5 * x + lz::sin(y))> == rule_id::map);
  static_assert(rule_v<double, decltype(x * y)> == rule_id::map);
  static_assert(rule_v<double, decltype(x + y + 2.0 * x)> == rule_id::map); // three terms
  static_assert(rule_v<int, decltype(3 * xi + xi)> == rule_id::map);
  BOOST_TEST(true);
}

// Compile time: a tree that can only become a loop (execute goes straight to run_map) and
// those that must pass through the rule list; run time: both give the reference's numbers and
// the loop allocates nothing.
BOOST_AUTO_TEST_CASE(trees_that_can_only_be_loops_skip_the_rule_list) {
  using lz::fusion::only_map_v;
  lz::vector<double> x = lz::random<double>({37}, 3), y = lz::random<double>({37}, 4), z(37);
  lz::matrix<double> A = lz::random<double>({5, 5}, 5), B = lz::random<double>({5, 5}, 6);
  static_assert(only_map_v<double, 1, decltype(x * y)>);
  static_assert(only_map_v<double, 1, decltype(2.5 * x + lz::sin(y))>);
  static_assert(only_map_v<double, 2, decltype(lz::transpose(A) + lz::abs(B))>);
  static_assert(!only_map_v<double, 1, decltype(2.5 * x + y)>);     // level 1
  static_assert(!only_map_v<double, 2, decltype(A * B)>);           // gemm
  static_assert(!only_map_v<double, 1, decltype(lz::sum(A, 0))>);   // reduce
  static_assert(!only_map_v<double, 1, decltype(x - lz::mean(x))>); // nested group
  lz::reset_stats();
  z = (x + y) * lz::exp(x);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(max_rel_error(z, reference((x + y) * lz::exp(x))) < 1e-14);
  z = 2.5 * x + y; // level 1 (or its loop below the threshold): the same numbers
  BOOST_TEST(max_rel_error(z, reference(2.5 * x + y)) < 1e-14);
}

// Compile time: a tree whose only candidates are BLAS 1 in place and the loop asks the compiled
// chooser, then loops, without the rule list (fusion::execute); other trees still plan through
// it. Run time: an axpy where it applies and the size reaches the threshold, else one loop; the
// reference's numbers either way, no allocation.
BOOST_AUTO_TEST_CASE(sums_of_scaled_leaves_ask_blas1_then_loop_without_the_rule_list) {
  using lz::fusion::level1_or_map_v;
  lz::vector<double> x = lz::random<double>({300}, 31), y = lz::random<double>({300}, 32), z(300);
  lz::vector<float> xf(4);
  lz::vector<int> xi(4);
  lz::matrix<double> A = lz::random<double>({6, 6}, 33), B = lz::random<double>({6, 6}, 34);
  static_assert(level1_or_map_v<double, 1, decltype(2.5 * x + y)>);
  static_assert(level1_or_map_v<double, 1, decltype(-x + y / 2.0)>);
  static_assert(level1_or_map_v<double, 2, decltype(lz::transpose(A) - A)>);
  static_assert(level1_or_map_v<float, 1, decltype(2.0f * xf)>);
  static_assert(!level1_or_map_v<double, 1, decltype(x * y)>);         // only a loop
  static_assert(!level1_or_map_v<int, 1, decltype(3 * xi + xi)>);      // no BLAS for int
  static_assert(!level1_or_map_v<double, 2, decltype(A * B + A)>);     // a product: gemm first
  static_assert(!level1_or_map_v<double, 1, decltype(lz::sum(A, 0))>); // a reduction
  const lz::vector<double> x0 = x, y0 = y;
  thresholds_guard g;
  lz::thresholds().level1_blas = 0;
  {
    recording rec;
    lz::reset_stats();
    y = 2.5 * x + y; // in place: one daxpy
    BOOST_TEST(std::string(rec.only().routine) == "daxpy");
    BOOST_TEST(rec.only().alpha == 2.5);
    z = 2.5 * x + y; // into another vector: no BLAS 1 form, the loop
    BOOST_TEST(rec.calls.size() == 1u);
    BOOST_TEST(lz::stats().allocations == 0u);
  }
  BOOST_TEST(max_rel_error(y, reference(2.5 * x0 + y0)) < 1e-14);
  BOOST_TEST(max_rel_error(z, reference(5.0 * x0 + y0)) < 1e-14);
  lz::thresholds().level1_blas = 1000; // above the size: the loop
  {
    recording rec;
    y = 2.5 * x + y;
    BOOST_TEST(rec.calls.empty());
  }
  BOOST_TEST(max_rel_error(y, reference(5.0 * x0 + y0)) < 1e-14);
}

// Run time: the terms' geometry decides; every refusal falls back to the fused loop with the
// same numbers.
BOOST_AUTO_TEST_CASE(level1_refuses_broadcast_overlapping_and_mismatched_layouts) {
  thresholds_guard g;
  lz::thresholds().level1_blas = 0;
  const index_t n = 257;
  lz::vector<double> y = lz::random<double>({n}, 11);
  const lz::vector<double> y0 = y;
  {
    // A one-element term broadcast over y is not an axpy operand (it would read past it).
    lz::vector<double> b = {4.0};
    recording rec;
    y = y + 2.0 * b;
    BOOST_TEST(rec.calls.empty(), rec.summary());
    BOOST_TEST(max_rel_error(y, reference(y0 + 2.0 * b)) == 0.0);
  }
  {
    // x overlaps y (shifted view of the same memory): no axpy, and the loop's aliasing copy
    // gives the result of evaluating into fresh memory.
    lz::vector<double> v = lz::random<double>({n + 1}, 12);
    const lz::vector<double> v0 = v;
    auto head = v(lz::range(0, n)), tail = v(lz::range(1, n + 1));
    recording rec;
    head = head + 3.0 * tail;
    BOOST_TEST(rec.calls.empty(), rec.summary());
    lz::vector<double> want(n);
    for (index_t i = 0; i < n; ++i) want(i) = v0(i) + 3.0 * v0(i + 1);
    BOOST_TEST(max_rel_error(v(lz::range(0, n)), want) == 0.0);
  }
  {
    // Matrices: the same contiguous layout runs as one flat axpy; a transposed term does not.
    lz::matrix<double> C = lz::random<double>({31, 17}, 13), A = lz::random<double>({31, 17}, 14);
    lz::matrix<double> S = lz::random<double>({17, 31}, 15);
    const lz::matrix<double> C0 = C;
    recording rec;
    C += 0.5 * A;
    BOOST_TEST(std::string(rec.only().routine) == "daxpy");
    BOOST_TEST(rec.only().n == 31 * 17);
    recording rec2;
    C = C - lz::transpose(S);
    BOOST_TEST(rec2.calls.empty(), rec2.summary());
    BOOST_TEST(max_rel_error(C, reference(C0 + 0.5 * A - lz::transpose(S))) < 1e-15);
    lz::matrix<double> F(31, 17, lz::layout_left);
    F = A;
    recording rec3;
    C += 2.0 * F; // column-major term, row-major destination
    BOOST_TEST(rec3.calls.empty(), rec3.summary());
  }
  {
    // float, strided destination and term (every other element).
    lz::vector<float> a = lz::random<float>({2 * n}, 16), b = lz::random<float>({2 * n}, 17);
    const lz::vector<float> a0 = a;
    auto as = a(lz::range(0, 2 * n, 2));
    auto bs = b(lz::range(1, 2 * n, 2));
    recording rec;
    as += 1.5f * bs;
    BOOST_TEST(std::string(rec.only().routine) == "saxpy");
    BOOST_TEST(rec.only().lda == 2); // incx
    BOOST_TEST(rec.only().ldb == 2); // incy
    for (index_t i = 0; i < n; ++i) {
      const float want = a0(2 * i) + 1.5f * b(2 * i + 1); // BLAS may fuse the multiply-add
      BOOST_TEST(std::fabs(a(2 * i) - want) <= 1e-6f * (1.0f + std::fabs(want)));
      BOOST_TEST(a(2 * i + 1) == a0(2 * i + 1));
    }
  }
}

namespace {
// dst ⊕= e once through the loop (level1_blas off) and once with BLAS 1 enabled from size 0,
// from the same starting values: the executed call (routine, length, alpha) is the one the
// explained plan names (or neither makes one), alpha is `alpha` (NaN: no call expected), and
// the numbers are the loop's (BLAS may fuse the multiply-add: a few ulps). Returns the BLAS run's
// result.
template <lz::detail::assign_op Op, class D, class E>
auto check_blas1_call(D&& dst, const E& e, double alpha, const std::string& what) {
  using T = lz::value_t<std::remove_cvref_t<D>>;
  using lz::detail::assign_op;
  const lz::tensor<T, lz::rank_v<std::remove_cvref_t<D>>> start = dst;
  const auto assign = [&] {
    if constexpr (Op == assign_op::set) dst = e;
    if constexpr (Op == assign_op::add) dst += e;
    if constexpr (Op == assign_op::sub) dst -= e;
    if constexpr (Op == assign_op::mul) dst *= e;
  };
  thresholds_guard g;
  assign();
  const lz::tensor<T, lz::rank_v<std::remove_cvref_t<D>>> loop = dst;
  dst = start;
  lz::thresholds().level1_blas = 0;
  std::string plan;
  if constexpr (Op == assign_op::set)
    plan = lz::explain(dst, e);
  else
    plan = lz::explain(dst, lz::compound_tag<Op>{}, e);
  recording rec;
  assign();
  BOOST_TEST_CONTEXT(what << "\n" << plan) {
    if (std::isnan(alpha)) {
      BOOST_TEST(rec.calls.empty(), rec.summary());
      BOOST_TEST(plan.find("axpy(") == std::string::npos);
      BOOST_TEST(plan.find("scal(") == std::string::npos);
    } else if (rec.calls.size() != 1) {
      BOOST_TEST(rec.calls.size() == 1u, rec.summary());
    } else {
      const auto& c = rec.only();
      BOOST_TEST(plan.find(std::string(c.routine) + "(n=" + std::to_string(c.n) + ",") !=
                 std::string::npos);
      BOOST_TEST(c.n == dst.size());
      BOOST_TEST(c.alpha == alpha);
      BOOST_TEST(std::signbit(c.alpha) == std::signbit(alpha));
    }
    // (values of magnitude ~1: a fused multiply-add differs by an ulp or two of the terms)
    const double tol = 16 * double(std::numeric_limits<T>::epsilon());
    BOOST_TEST(double(lz::max(lz::abs(dst - loop))) <= tol);
  }
  return lz::tensor<T, lz::rank_v<std::remove_cvref_t<D>>>(dst);
}
} // namespace

// Run time: the compiled chooser reads the leaves from the flattened loop and their
// coefficients from the tree's kernel; the explained plan reads them from the tree. On vectors
// (contiguous, strided, reversed), matrices of both layouts, transposed and one-row views, and
// float: the same call or none, the loop's numbers.
BOOST_AUTO_TEST_CASE(blas1_runs_exactly_the_call_its_plan_names) {
  using lz::detail::assign_op;
  const double none = std::nan("");
  const index_t n = 203;
  lz::vector<double> x = lz::random<double>({3 * n}, 41), y = lz::random<double>({3 * n}, 42);
  lz::vector<double> z = lz::random<double>({n}, 43);
  auto yc = y(lz::range(0, n)), ys = y(lz::range(0, 3 * n, 3)), xr = x(lz::range(n - 1, -1, -1));
  auto xc = x(lz::range(n, 2 * n)), xs = x(lz::range(1, 3 * n, 3));
  check_blas1_call<assign_op::set>(yc, 2.5 * xc + yc, 2.5, "y = 2.5x + y");
  check_blas1_call<assign_op::set>(ys, ys + xr / 4.0, 0.25, "strided y = y + reversed x / 4");
  check_blas1_call<assign_op::sub>(yc, -(3.0 * xs), -(-3.0), "y -= -(3 x strided)");
  check_blas1_call<assign_op::add>(ys, 0.5 * (2.0 * xc), 1.0, "y += 0.5 (2 x)");
  check_blas1_call<assign_op::set>(yc, -xc + yc, -1.0, "y = -x + y");
  check_blas1_call<assign_op::set>(ys, 3.0 * ys, 3.0, "strided y = 3 y (scal)");
  check_blas1_call<assign_op::mul>(yc, 1.5, 1.5, "y *= 1.5 (scal)");
  check_blas1_call<assign_op::set>(yc, 2.0 * xc + 3.0 * yc, none, "y = 2x + 3y");
  check_blas1_call<assign_op::set>(yc, xc * 2.0 - yc, none, "y = 2x - y");
  check_blas1_call<assign_op::set>(z, xc + yc, none, "z = x + y");
  check_blas1_call<assign_op::add>(yc, 2.0 * yc, none, "y += 2y");
  lz::matrix<double> A = lz::random<double>({7, 5}, 44), B = lz::random<double>({7, 5}, 45);
  const lz::matrix<double> F0 = lz::random<double>({7, 5}, 46), G0 = lz::random<double>({5, 7}, 47);
  lz::matrix<double> F(7, 5, lz::layout_left), G(5, 7, lz::layout_left);
  F = F0, G = G0; // (the values, in F's and G's own layouts)
  check_blas1_call<assign_op::add>(A, 2.0 * B, 2.0, "row-major A += 2B");
  const lz::matrix<double> H = lz::random<double>({5, 7}, 52); // row-major: H^T column-major
  check_blas1_call<assign_op::add>(F, 2.0 * lz::transpose(H), 2.0, "col-major F += 2 H^T");
  check_blas1_call<assign_op::set>(A, A - lz::transpose(G), -1.0, "A = A - G^T (row-major)");
  check_blas1_call<assign_op::add>(A, 2.0 * F, none, "row-major A += 2 col-major F");
  check_blas1_call<assign_op::set>(F, F - lz::transpose(G), none, "col-major F = F - G^T");
  // One row: the extent-1 dim's stride does not matter (flatten writes 0 there, a view keeps
  // its own), for the destination term and the other term alike.
  lz::matrix<double> R = lz::random<double>({1, 9}, 48), C = lz::random<double>({9, 1}, 49);
  auto row = lz::transpose(C);
  check_blas1_call<assign_op::set>(R, 2.0 * row + R, 2.0, "one row R = 2 C^T + R");
  check_blas1_call<assign_op::sub>(R, row / 2.0, -0.5, "one row R -= C^T / 2");
  lz::vector<double> b = {4.0};
  check_blas1_call<assign_op::set>(z, z + 2.0 * b, none, "z = z + 2b, b broadcast");
  lz::vector<float> u = lz::random<float>({n}, 50), v = lz::random<float>({n}, 51);
  check_blas1_call<assign_op::sub>(v, 0.75f * u, -0.75, "float v -= 0.75u");
  // Signed zeros: -0 += -0·x stays -0, as in the loop.
  lz::vector<double> w(n), one(n);
  w = -0.0, one = 1.0;
  const auto r = check_blas1_call<assign_op::add>(w, -0.0 * one, -0.0, "-0 += -0 x");
  for (index_t i = 0; i < n; ++i) BOOST_TEST(std::signbit(r(i)));
}

BOOST_AUTO_TEST_CASE(level1_is_the_fused_loop_by_default) {
  lz::vector<double> x = lz::random<double>({1000}, 4), y = lz::random<double>({1000}, 5);
  recording rec;
  y = 2.0 * x + y;
  BOOST_TEST(rec.calls.empty());
}

BOOST_AUTO_TEST_CASE(dot_goes_to_blas_when_enabled_and_matches_the_fused_reduction) {
  lz::vector<double> x = lz::random<double>({5000}, 6), y = lz::random<double>({5000}, 7);
  const double fused = lz::dot(x, y);
  thresholds_guard g;
  lz::thresholds().dot_blas = 1;
  lz::thresholds().dot_blas_max = index_t(1) << 62;
  recording rec;
  const double blas = lz::dot(x, y);
  BOOST_TEST(std::string(rec.only().routine) == "ddot");
  const double viahad = lz::sum(lz::hadamard(x, y));
  BOOST_TEST(rec.calls.size() == 2u);
  BOOST_TEST(std::fabs(blas - fused) <= 1e-12 * std::fabs(fused));
  BOOST_TEST(viahad == blas);
}

BOOST_AUTO_TEST_CASE(dot_uses_blas_only_for_lengths_inside_its_window) {
  thresholds_guard g;
  lz::thresholds().dot_blas = 100;
  lz::thresholds().dot_blas_max = 1000;
  for (index_t n : {99, 100, 1000, 1001}) {
    lz::vector<double> x = lz::random<double>({n}, 8), y = lz::random<double>({n}, 9);
    double want = 0;
    for (index_t i = 0; i < n; ++i) want += x(i) * y(i);
    recording rec;
    const double got = lz::dot(x, y);
    BOOST_TEST(rec.count("ddot") == (n >= 100 && n <= 1000 ? 1u : 0u), "n = " << n);
    BOOST_TEST(std::fabs(got - want) <= 1e-12 * (1.0 + std::fabs(want)), "n = " << n);
  }
}

BOOST_AUTO_TEST_CASE(log_channels_trace_blas_calls_and_cost_nothing_when_off) {
  BOOST_TEST(!lz::logging::on(lz::logging::blas));
  BOOST_TEST(lz::logging::parse("fusion,blas") == (lz::logging::fusion | lz::logging::blas));
  BOOST_TEST(lz::logging::parse("all") == unsigned(lz::logging::all));
  lz::logging::enable("blas");
  BOOST_TEST(lz::logging::on(lz::logging::blas));
  lz::logging::disable();
  BOOST_TEST(!lz::logging::on(lz::logging::blas));
}

BOOST_AUTO_TEST_CASE(info_reports_blas_core_and_threads) {
  const std::string s = lz::info();
  BOOST_TEST(s.find("OpenBLAS") != std::string::npos, s);
  BOOST_TEST(s.find("core") != std::string::npos, s);
  BOOST_TEST(s.find("xsimd") != std::string::npos, s);
  BOOST_TEST(s.find("threads") != std::string::npos, s);
  BOOST_TEST(s.find("parallel_work") != std::string::npos, s);
}
