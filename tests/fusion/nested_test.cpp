// nested rule: products and reductions inside elementwise trees. relu(A·B + bias) lands the
// product in the destination (gemm β = 0), then one in-place pass adds the bias and applies relu.
#include <boost/test/unit_test.hpp>

#include <support/capture.hpp>
#include <support/products.hpp>
#include <support/recording.hpp>

#include <cmath>
#include <complex>
#include <random>

using namespace lz_test;
using lz::fusion::rule_id;
using lz::fusion::rule_v;

namespace {
lz::matrix<double> rnd(index_t m, index_t n, std::uint64_t s) {
  return lz::random<double>({m, n}, s, lz::uniform{-1, 1});
}
} // namespace

BOOST_AUTO_TEST_CASE(bias_relu_epilogue_lands_in_the_destination_without_temporaries) {
  auto A = rnd(64, 48, 1), B = rnd(48, 32, 2);
  lz::vector<double> b = lz::random<double>({32}, 3, lz::uniform{-1, 1});
  lz::matrix<double> D(64, 32);
  auto expr = lz::maximum(A * B + lz::broadcast_to(b, {64, 32}), 0.0);
  static_assert(rule_v<double, decltype(expr)> == rule_id::nested);
  recording rec;
  lz::reset_stats();
  D = expr;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.only().beta == 0.0); // the gemm writes the destination, nothing copied first
  BOOST_TEST(max_rel_error(D, reference(expr)) < 1e-12);
  const std::string plan = lz::explain(D, expr);
  BOOST_TEST_MESSAGE(plan);
  BOOST_TEST(plan.find("temporaries: 0") != std::string::npos, plan);
}

namespace {
// The loops an assignment ran (LZ_LOG=loop prints one line per loop).
template <class F>
std::size_t loops_run(F&& f) {
  const std::string log = capture_stderr([&] {
    lz::logging::enable(lz::logging::loop);
    f();
    lz::logging::disable(lz::logging::loop);
  });
  std::size_t n = 0;
  for (std::size_t p = log.find("[lz:loop]"); p != std::string::npos;
       p = log.find("[lz:loop]", p + 1))
    ++n;
  return n;
}
} // namespace

// A function of (products + other terms): the products go to BLAS into the destination (the
// first with β = 0, the rest accumulating), and ONE in-place pass adds the other terms and
// applies the function. Operands in every layout; values against the reference.
BOOST_AUTO_TEST_CASE(a_function_of_products_plus_terms_is_the_products_then_one_pass) {
  std::mt19937_64 rng(31);
  for (const matrix_layout ka : all_layouts) {
    matrix_factory<double> f(rng());
    const index_t m = 3 + index_t(rng() % 20), k = 1 + index_t(rng() % 17),
                  n = 2 + index_t(rng() % 19);
    const auto A = f.make(m, k, ka), B = f.make(k, n, matrix_layout::col), E = f.make(m, k, ka),
               F = f.make(k, n, matrix_layout::row), C = f.make(m, n, ka);
    const lz::vector<double> b = lz::random<double>({n}, rng(), lz::uniform{-1, 1});
    lz::matrix<double> D(m, n);
    const auto bias = lz::broadcast_to(b, {m, n});
    { // dense layer: one gemm (β = 0), one pass
      const auto expr = lz::maximum(A * B + bias, 0.0);
      recording rec;
      lz::reset_stats();
      const std::size_t loops = loops_run([&] { D = expr; });
      BOOST_TEST(rec.count("gemm") == 1u, name(ka));
      BOOST_TEST(rec.calls.back().beta == 0.0, name(ka));
      BOOST_TEST(loops == 1u, name(ka)); // small products: strided operands go to the own kernel
      BOOST_TEST(lz::stats().allocations == 0u, name(ka));
      BOOST_TEST(max_rel_error(D, reference(expr)) < 1e-12, name(ka));
    }
    { // two products, scaled terms, a difference: gemm β = 0, gemm β = 1, one pass
      const auto expr = lz::tanh(2.0 * (A * B) - C + (E * F) / 4.0 - 0.5 * bias);
      recording rec;
      lz::reset_stats();
      const std::size_t loops = loops_run([&] { D = expr; });
      BOOST_TEST(rec.count("gemm") == 2u, name(ka));
      BOOST_TEST(rec.calls.front().beta == 0.0, name(ka));
      BOOST_TEST(rec.calls.front().alpha == 2.0, name(ka));
      BOOST_TEST(rec.calls.back().beta == 1.0, name(ka));
      BOOST_TEST(rec.calls.back().alpha == 0.25, name(ka));
      BOOST_TEST(loops == 1u, name(ka));
      BOOST_TEST(max_rel_error(D, reference(expr)) < 1e-12, name(ka));
    }
    { // a vector: gemv (β = 0), one pass
      const lz::vector<double> x = lz::random<double>({k}, rng()),
                               y = lz::random<double>({m}, rng());
      lz::vector<double> r(m);
      const auto expr = lz::exp(-(A * x + y));
      recording rec;
      const std::size_t loops = loops_run([&] { r = expr; });
      BOOST_TEST(rec.count("gemv") == 1u, name(ka));
      BOOST_TEST(rec.calls.back().beta == 0.0, name(ka));
      BOOST_TEST(loops == 1u, name(ka));
      BOOST_TEST(max_rel_error(r, reference(expr)) < 1e-12, name(ka));
    }
  }
}

// When the tree reads the destination, the products land in one temporary and the one pass
// reads it: still no copy of the other terms before the gemm.
BOOST_AUTO_TEST_CASE(a_function_of_products_plus_the_destination_uses_one_temporary_and_one_pass) {
  auto A = rnd(13, 7, 41), B = rnd(7, 13, 42);
  lz::matrix<double> C = rnd(13, 13, 43);
  const lz::matrix<double> C0 = C;
  recording rec;
  lz::reset_stats();
  const std::size_t loops = loops_run([&] { C = lz::sqrt(lz::abs(A * B - 3.0 * C)); });
  BOOST_TEST(rec.only().beta == 0.0);
  BOOST_TEST(loops == 1u);
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(max_rel_error(C, reference(lz::sqrt(lz::abs(A * B - 3.0 * C0)))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(a_tree_that_reads_the_destination_puts_the_product_in_a_temporary) {
  auto A = rnd(10, 10, 4), B = rnd(10, 10, 5);
  lz::matrix<double> C = rnd(10, 10, 6);
  const lz::matrix<double> C0 = C;
  lz::reset_stats();
  C = lz::tanh(A * B + C);
  BOOST_TEST(lz::stats().temporaries == 1u);
  BOOST_TEST(max_rel_error(C, reference(lz::tanh(A * B + C0))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(several_products_and_reductions_in_one_tree) {
  auto A = rnd(6, 5, 7), B = rnd(5, 4, 8), E = rnd(6, 4, 9);
  lz::vector<double> x = lz::random<double>({4}, 10);
  lz::matrix<double> D(6, 4);
  auto expr = lz::exp(-lz::square(A * B)) * lz::sum(x) + lz::abs(E * lz::mean(x)) - lz::sin(A * B);
  D = expr;
  BOOST_TEST(max_rel_error(D, reference(expr)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(compound_elementwise_with_a_product) {
  auto A = rnd(7, 3, 11), B = rnd(3, 7, 12);
  lz::matrix<double> C = rnd(7, 7, 13);
  const lz::matrix<double> C0 = C;
  C *= A * B; // elementwise (hadamard) multiply by the product
  BOOST_TEST(max_rel_error(C, reference(lz::hadamard(C0, A * B))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(reductions_of_products_and_products_of_views) {
  auto A = rnd(9, 8, 14), B = rnd(8, 9, 15);
  const auto AB = lz::eval(A * B);
  const double tr = lz::sum(lz::diagonal(AB));
  double want = 0;
  const auto P = reference(A * B);
  for (index_t i = 0; i < 9; ++i) want += P(i, i);
  BOOST_TEST(std::fabs(tr - want) < 1e-12);
  const double s = lz::sum(A * B);
  BOOST_TEST(std::fabs(s - double(lz::sum(P))) < 1e-12);
}

// LZ_LOG=alloc names every temporary a plan makes: its layout, its size and why.
BOOST_AUTO_TEST_CASE(alloc_channel_logs_each_plan_temporary_with_layout_size_and_reason) {
  auto A = rnd(40, 30, 21);
  lz::vector<double> z = lz::zeros<double>({30});
  const std::string log = capture_stderr([&] {
    lz::logging::enable(lz::logging::alloc);
    z = 2.0 * lz::sum(A, 0) + z; // the axis reduction is materialized first (nested rule)
    lz::logging::disable(lz::logging::alloc);
  });
  BOOST_TEST_MESSAGE(log);
  BOOST_TEST(log.find("[lz:alloc] temporary (30,):(1,) 240 B (nested product/reduction)\n") !=
             std::string::npos);
  BOOST_TEST(max_rel_error(z, reference(2.0 * lz::sum(A, 0))) < 1e-13);
}

// A product or axis reduction whose operand overlaps the destination (or whose result
// broadcasts into it) is evaluated into one temporary of its own shape, where its rule applies,
// then assigned: the same values as evaluating into fresh memory.
BOOST_AUTO_TEST_CASE(an_axis_reduction_that_reads_its_destination_goes_through_one_temporary) {
  lz::matrix<double> M = rnd(12, 9, 22);
  const lz::matrix<double> M0 = M;
  auto r0 = lz::row(M, 0); // row 0 of M = column sums of M (reads row 0 while writing it)
  lz::reset_stats();
  r0 = lz::sum(M, 0);
  BOOST_TEST(lz::stats().temporaries == 1u);
  const lz::vector<double> want = reference(lz::sum(M0, 0));
  BOOST_TEST(max_rel_error(lz::row(M, 0), want) < 1e-13);
  for (index_t i = 1; i < 12; ++i)
    for (index_t j = 0; j < 9; ++j) BOOST_TEST(M(i, j) == M0(i, j));
  // += through the temporary, and a result broadcast over a destination's rows.
  lz::reset_stats();
  lz::row(M, 1) += lz::sum(M, 0);
  BOOST_TEST(lz::stats().temporaries == 1u);
  const auto T3 = lz::random<double>({1, 9, 5}, 25);
  lz::matrix<double> B(4, 9);
  lz::assign(B, lz::sum(T3, 2)); // (1,9) broadcast over 4 rows
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 9; ++j) {
      double want = 0;
      for (index_t k = 0; k < 5; ++k) want += T3(0, j, k);
      BOOST_TEST(std::fabs(B(i, j) - want) <= 1e-14);
    }
}

BOOST_AUTO_TEST_CASE(explain_shows_a_product_that_reads_its_destination_through_a_temporary) {
  auto A = rnd(16, 16, 23);
  lz::matrix<double> C = rnd(16, 16, 24);
  const std::string plan = lz::explain(C, A * C + 2.0 * C);
  BOOST_TEST(plan.find("temporary tmp0 (16,16):(16,1) 2.0 KiB (tree reads the destination)") !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("dgemm") != std::string::npos, plan);
  BOOST_TEST(plan.find("temporaries: 1") != std::string::npos, plan);
  const lz::matrix<double> C0 = C;
  C = A * C + 2.0 * C;
  BOOST_TEST(max_rel_error(C, reference(A * C0 + 2.0 * C0)) < 1e-12);
}

// Full reductions inside a tree are settled first: each is one pass (its node's value), and the
// rest is planned with the values as scalars — no temporary, no nested plan, one loop.
BOOST_AUTO_TEST_CASE(full_reductions_in_a_tree_are_settled_into_scalars_before_planning) {
  using lz::fusion::settle_reductions;
  using lz::fusion::settles_v;
  lz::vector<double> x = lz::random<double>({1000}, 41, lz::uniform{-1, 1}), z(1000);
  lz::matrix<double> A = rnd(7, 5, 42);
  // Compile time: which trees settle, and what is left of them.
  static_assert(settles_v<decltype(x - lz::mean(x))>);
  static_assert(settles_v<decltype(lz::transpose(A) * lz::sum(A))>);
  static_assert(settles_v<decltype(lz::broadcast_to(x - lz::max(x), {3, 1000}))>);
  static_assert(!settles_v<decltype(x * x)>);
  static_assert(!settles_v<decltype(lz::sum(A, 0))>);                    // an axis reduction
  static_assert(!settles_v<decltype(A * (lz::sum(x) * lz::row(A, 0)))>); // inside a product
  const auto one = [](const auto&) { return 1.0; };
  using settled = decltype(settle_reductions((x - lz::mean(x)) / lz::norm2(x), one));
  static_assert(lz::fusion::only_map_v<double, 1, settled>);
  // Run time: two reduction passes and one loop; nothing allocated.
  const auto expr = (x - lz::mean(x)) / lz::norm2(x);
  lz::reset_stats();
  const std::size_t loops = loops_run([&] { z = (x - lz::mean(x)) / lz::norm2(x); });
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(loops == 1u);
  BOOST_TEST(max_rel_error(z, reference(expr)) < 1e-12);
  // explain shows the same: the two reductions as their own steps, then the loop.
  const std::string plan = lz::explain(z, expr);
  BOOST_TEST_MESSAGE(plan);
  BOOST_TEST(plan.find("1. reduce mean over (1000,) → a scalar, settled") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("2. reduce norm2 over (1000,) → a scalar, settled") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("3. loop dst = f(1 operands)") != std::string::npos, plan);
  BOOST_TEST(plan.find("temporaries: 0") != std::string::npos, plan);
}

// A settled value folds into the product's own call: `y = sum(v) * (A * x)` is ONE gemv with
// α = sum(v) (before: a gemv into y, then a loop multiplying y by a temporary).
BOOST_AUTO_TEST_CASE(a_settled_reduction_folds_into_the_blas_call_as_alpha) {
  auto A = rnd(40, 30, 43);
  lz::vector<double> x = lz::random<double>({30}, 44, lz::uniform{-1, 1});
  lz::vector<double> v = lz::random<double>({17}, 45, lz::uniform{0, 1}), y(40);
  const double s = lz::sum(v);
  recording rec;
  lz::reset_stats();
  const std::size_t loops = loops_run([&] { y = lz::sum(v) * (A * x); });
  BOOST_TEST(rec.only().routine == std::string("dgemv"));
  BOOST_TEST(rec.only().alpha == s);
  BOOST_TEST(loops == 0u);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(max_rel_error(y, reference(s * (A * x))) < 1e-13);
}

// Numbers against the reference on random shapes, layouts and policies; reductions of every
// kind (sum, mean, norm2, max, min, argmax) in elementwise, transposed and broadcast positions,
// inside another reduction, and in a tree that reads (and writes) their operand.
BOOST_AUTO_TEST_CASE(settled_reductions_give_the_reference_values_in_every_position) {
  std::mt19937_64 rng(46);
  for (int round = 0; round < 6; ++round) {
    const index_t m = 1 + index_t(rng() % 23), n = 1 + index_t(rng() % 19);
    auto A = rnd(m, n, rng()), B = rnd(n, m, rng());
    lz::vector<double> x = lz::random<double>({n}, rng(), lz::uniform{-2, 2});
    lz::matrix<double> Z(m, n), Zc(m, n, lz::layout_left);
    const auto e1 = lz::transpose(B) - lz::max(A) * A + lz::min(B);
    Z = e1;
    BOOST_TEST(max_rel_error(Z, reference(e1)) < 1e-13, "m=" << m << " n=" << n);
    lz::assign(lz::seq, Zc, e1);
    BOOST_TEST(max_rel_error(Zc, reference(e1)) < 1e-13);
    const auto e2 = lz::broadcast_to(x - lz::mean(x), {m, n}) / lz::norm2(A);
    lz::assign(lz::par, Z, e2);
    BOOST_TEST(max_rel_error(Z, reference(e2)) < 1e-13);
    // A reduction of a tree holding a reduction (the variance): settled too.
    const double mu = lz::mean(x);
    double want = 0;
    for (index_t j = 0; j < n; ++j) want += (x(j) - mu) * (x(j) - mu);
    lz::reset_stats();
    const double var = lz::sum(lz::square(x - lz::mean(x)));
    BOOST_TEST(lz::stats().allocations == 0u);
    BOOST_TEST(std::fabs(var - want) <= 1e-12 * (1 + want));
    // argmax's index as a scalar in a tree of another type.
    lz::vector<double> w(n);
    w = x + lz::argmax(x);
    const auto k = double(index_t(lz::argmax(x)));
    for (index_t j = 0; j < n; ++j) BOOST_TEST(w(j) == x(j) + k);
    // The tree reads and writes x: the reductions are computed before x changes.
    const lz::vector<double> x0 = x;
    x = (x - lz::mean(x)) / lz::norm2(x);
    BOOST_TEST(max_rel_error(x, reference((x0 - lz::mean(x0)) / lz::norm2(x0))) < 1e-12);
  }
}

// Other element types, the node's kept value, and errors: a reduction that throws leaves the
// destination untouched.
BOOST_AUTO_TEST_CASE(settled_reductions_keep_their_semantics_types_and_errors) {
  lz::vector<std::int64_t> xi{3, -1, 4, 1, -5}, zi(5);
  zi = 2 * xi - lz::sum(xi);
  for (index_t j = 0; j < 5; ++j) BOOST_TEST(zi(j) == 2 * xi(j) - 2);
  using C = std::complex<double>;
  lz::vector<C> xc{C(1, 2), C(-3, 0.5), C(0, -1)}, zc(3);
  zc = xc * lz::sum(xc);
  const C sc = C(1, 2) + C(-3, 0.5) + C(0, -1);
  for (index_t j = 0; j < 3; ++j) BOOST_TEST(std::abs(zc(j) - xc(j) * sc) < 1e-14);
  // A reduction kept in a variable is computed at its first use, then fixed (ops/reductions.hpp).
  lz::vector<double> x{1, 2, 3, 4}, y(4);
  auto m = lz::mean(x);
  y = x - m; // computes m = 2.5
  x = 2.0 * x;
  y = x - m; // still 2.5
  for (index_t j = 0; j < 4; ++j) BOOST_TEST(y(j) == 2.0 * double(j + 1) - 2.5);
  // max of an empty operand throws before anything is written.
  lz::vector<double> empty(0), z{7, 8, 9};
  BOOST_CHECK_THROW(z = z + lz::max(empty), lz::shape_error);
  BOOST_TEST((z(0) == 7 && z(1) == 8 && z(2) == 9));
}
