// Bad inputs get clear errors (errors.hpp) and leave destinations untouched: mismatched shapes
// in every operator (thrown where the node is built, naming both shapes and the operator),
// overlapping writable strides, overflowing sizes, out-of-range indices, reshapes that need a
// copy, null pointers; and empty tensors go through every op without trouble.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

namespace {

using namespace lz_test;
using lz::index_t;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// `build` must throw E whose message contains every one of `parts`.
template <class E = lz::shape_error>
void expect_error(const std::string& what, const std::function<void()>& build,
                  std::initializer_list<std::string> parts) {
  try {
    build();
    BOOST_ERROR(what << ": no exception");
  } catch (const E& e) {
    for (const auto& p : parts)
      BOOST_TEST(contains(e.what(), p), what << ": message \"" << e.what() << "\" lacks " << p);
  } catch (const std::exception& e) {
    BOOST_ERROR(what << ": wrong exception type: " << e.what());
  }
}

// ---- shapes -----------------------------------------------------------------------------------

// Building the node throws (nothing is evaluated: the lambdas only build), naming both shapes
// and the operator.
BOOST_AUTO_TEST_CASE(mismatched_shapes_throw_where_the_node_is_built) {
  lz::tensor<double, 3> a(lz::shape_t<3>{2, 3, 4}), b(lz::shape_t<3>{2, 4, 3});
  lz::tensor<bool, 3> m(lz::shape_t<3>{2, 3, 4}), n(lz::shape_t<3>{2, 4, 3});
  const std::string sa = "(2,3,4)", sb = "(2,4,3)";
  expect_error("+", [&] { (void)(a + b); }, {sa, sb, "'+'"});
  expect_error("-", [&] { (void)(a - b); }, {sa, sb, "'-'"});
  expect_error("*", [&] { (void)(a * b); }, {sa, sb, "'*'"});
  expect_error("/", [&] { (void)(a / b); }, {sa, sb, "'/'"});
  expect_error("==", [&] { (void)(a == b); }, {sa, sb, "'=='"});
  expect_error("!=", [&] { (void)(a != b); }, {sa, sb, "'!='"});
  expect_error("<", [&] { (void)(a < b); }, {sa, sb, "'<'"});
  expect_error("<=", [&] { (void)(a <= b); }, {sa, sb, "'<='"});
  expect_error(">", [&] { (void)(a > b); }, {sa, sb, "'>'"});
  expect_error(">=", [&] { (void)(a >= b); }, {sa, sb, "'>='"});
  expect_error("&&", [&] { (void)(m && n); }, {sa, sb, "'&&'"});
  expect_error("||", [&] { (void)(m || n); }, {sa, sb, "'||'"});
  expect_error("maximum", [&] { (void)lz::maximum(a, b); }, {sa, sb, "'maximum'"});
  expect_error("minimum", [&] { (void)lz::minimum(a, b); }, {sa, sb, "'minimum'"});
  expect_error("atan2", [&] { (void)lz::atan2(a, b); }, {sa, sb, "'atan2'"});
  expect_error("pow", [&] { (void)lz::pow(a, b); }, {sa, sb, "'pow'"});
  expect_error("hadamard", [&] { (void)lz::hadamard(a, b); }, {sa, sb, "'*'"});
  expect_error("where", [&] { (void)lz::where(m, a, b); }, {sa, sb, "'where'"});
  expect_error("where cond", [&] { (void)lz::where(n, a, 0.0); }, {sa, sb, "'where'"});
  expect_error("clamp", [&] { (void)lz::clamp(a, b, 1.0); }, {sa, sb, "'clamp'"});
  expect_error("map", [&] { (void)lz::map([](double x, double y) { return x * y; }, a, b); },
               {sa, sb, "'map'"});
  expect_error("dot", [&] { (void)lz::dot(a, b); }, {sa, sb, "'dot'"});
  // Deep in a tree: the node whose operands disagree throws, naming its own shapes.
  expect_error("nested", [&] { (void)(lz::sqrt(a + a) * 2.0 - lz::transpose(a)); },
               {sa, "(4,3,2)", "'-'"});
  expect_error("broadcast_to",
               [&] {
                 (void)lz::broadcast_to(a, {5, 2, 3, 3});
               },
               {sa, "(5,2,3,3)", "'broadcast_to'"});
  expect_error("broadcast_to tree",
               [&] {
                 (void)lz::broadcast_to(a + 1.0, {2, 3, 5});
               },
               {sa, "(2,3,5)", "'broadcast_to'"});
  // Extent-1 dims broadcast instead (NumPy); a mismatch of other extents does not.
  lz::tensor<double, 3> one(lz::shape_t<3>{1, 3, 1});
  BOOST_TEST((a + one).shape() == (lz::shape_t<3>{2, 3, 4}));
  expect_error("+ (1,3,1)", [&] { (void)(b + one); }, {sb, "(1,3,1)", "'+'"});
}

// A failing assignment writes nothing: shape errors, and errors while evaluating the tree
// (an empty min inside it), into views, tensors and with compound operators.
BOOST_AUTO_TEST_CASE(a_throwing_assignment_leaves_the_destination_untouched) {
  auto A = random_tensor<double, 2>({6, 5}, 1);
  const lz::matrix<double> before = A;
  const lz::vector<double> empty(0);
  auto untouched = [&](const char* what) {
    BOOST_TEST(A.shape() == before.shape(), what);
    BOOST_TEST(std::memcmp(A.data(), before.data(), sizeof(double) * 30) == 0, what);
  };
  auto V = A(lz::range(5, -1, -1), lz::all);
  expect_error("view = (5,6)", [&] { V = lz::matrix<double>(5, 6); }, {"(5,6)", "(6,5)", "'='"});
  untouched("view =");
  expect_error("view += (6,4)", [&] { V += lz::matrix<double>(6, 4) * 2.0; },
               {"(6,4)", "(6,5)", "'+='"});
  untouched("view +=");
  expect_error("tensor -= (2,5)", [&] { A -= lz::matrix<double>(2, 5); }, {"(2,5)", "'-='"});
  untouched("tensor -=");
  expect_error("lz::assign (6,1) -> (6,5) ok, (3,5) not",
               [&] { lz::assign(lz::par, A, lz::matrix<double>(3, 5)); }, {"(3,5)", "(6,5)"});
  untouched("lz::assign");
  // Evaluation errors: the empty min is computed before the loop writes anything.
  expect_error("A = A * min(empty)", [&] { A = A * lz::min(empty); }, {"min", "(0,)"});
  untouched("A = A * min(empty)");
  expect_error("A *= max(empty)", [&] { A *= lz::max(empty) + 1.0; }, {"max"});
  untouched("A *= max(empty)");
  expect_error("A = (other shape) + min(empty)",
               [&] { A = lz::matrix<double>(7, 7) + lz::min(empty); }, {"min"});
  untouched("A = other shape"); // not resized either
  expect_error("row(A, 0) = max(E, 1)",
               [&] { lz::assign(lz::row(A, 0), lz::max(lz::matrix<double>(5, 0), 1)); },
               {"max", "(5,0)"});
  untouched("row = max along an empty axis");
  // No buffer leaks when construction from a throwing expression fails.
  lz::reset_stats();
  expect_error("construct", [&] { lz::matrix<double> B = A + lz::argmin(empty); }, {"argmin"});
  BOOST_TEST(lz::stats().allocations == lz::stats().deallocations);
}

// D16, what holds when a user function throws while the loop runs (docs/errors.md, "User
// functions that throw"): the exception reaches the caller from whichever thread ran it, the
// operands are untouched, and each destination element holds either its old value or its new
// one; lz::eval into a fresh tensor, then a move, leaves the destination untouched.
BOOST_AUTO_TEST_CASE(a_throwing_user_function_reaches_the_caller_and_writes_old_or_new_values) {
  const index_t n = 4000000;
  lz::vector<double> x = lz::random<double>({n}, 7);
  x(n - 1000) = -1.0; // the function throws on this element
  const lz::vector<double> x0 = x;
  const auto f = [](double v) {
    if (v < 0) throw std::runtime_error("lz_test: negative input");
    return v * 2.0;
  };
  for (int policy = 0; policy < 2; ++policy) {
    lz::vector<double> d = lz::zeros<double>({n});
    try {
      if (policy == 0)
        lz::assign(lz::seq, d, lz::map(f, x));
      else
        lz::assign(lz::par, d, lz::map(f, x) + 1.0);
      BOOST_ERROR("no exception");
    } catch (const std::runtime_error& e) {
      BOOST_TEST(std::string(e.what()) == "lz_test: negative input");
    }
    BOOST_TEST(std::memcmp(x.data(), x0.data(), sizeof(double) * std::size_t(n)) == 0);
    index_t bad = 0;
    for (index_t i = 0; i < n; ++i) {
      const double want = policy == 0 ? x(i) * 2.0 : x(i) * 2.0 + 1.0;
      bad += d(i) != 0.0 && d(i) != want;
    }
    BOOST_TEST(bad == 0);
    BOOST_TEST(d(n - 1000) == 0.0);
  }
  // All or nothing: evaluate into a fresh tensor, then move it in.
  lz::vector<double> d = lz::zeros<double>({n});
  try {
    auto t = lz::eval(lz::par, lz::map(f, x));
    d = std::move(t);
  } catch (const std::runtime_error&) {
  }
  BOOST_TEST(double(lz::sum(lz::abs(d))) == 0.0);
}

// ---- layouts ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(overlapping_writable_strides_are_layout_errors) {
  std::vector<double> buf(64);
  expect_error<lz::layout_error>("(3,4):(1,1)",
                                 [&] {
                                   (void)lz::adopt(buf.data(), {3, 4}, {1, 1});
                                 },
                                 {"(3,4):(1,1)", "same element"});
  expect_error<lz::layout_error>("(2,3):(2,1)",
                                 [&] {
                                   (void)lz::adopt(buf.data(), {2, 3}, {2, 1});
                                 },
                                 {"(2,3):(2,1)"});
  expect_error<lz::layout_error>("(4,):(0,)", [&] { (void)lz::adopt(buf.data(), {4}, {0}); },
                                 {"(4,):(0,)"});
  expect_error<lz::layout_error>("(2,2,2):(3,2,1)",
                                 [&] {
                                   (void)lz::adopt(buf.data(), {2, 2, 2}, {3, 2, 1});
                                 },
                                 {"(2,2,2):(3,2,1)"});
  // The same layouts are fine read-only, and unique interleaved ones are fine writable.
  BOOST_CHECK_NO_THROW(lz::adopt(static_cast<const double*>(buf.data()), {3, 4}, {1, 1}));
  BOOST_CHECK_NO_THROW(lz::adopt(buf.data(), {2, 3}, {3, 2}));
  BOOST_CHECK_NO_THROW(lz::adopt(buf.data() + 20, {4, 5}, {-5, 1}));
  // Owning tensors: unique, non-negative strides.
  expect_error<lz::layout_error>(
      "tensor of (3,3):(1,1)",
      [&] {
        lz::matrix<double> T(lz::strided_layout<2>{{3, 3}, {1, 1}}, lz::uninitialized);
      },
      {"(3,3):(1,1)"});
  expect_error<lz::layout_error>(
      "tensor of (3,3):(-3,1)",
      [&] {
        lz::matrix<double> T(lz::strided_layout<2>{{3, 3}, {-3, 1}}, lz::uninitialized);
      },
      {"non-negative"});
  // Negative extents.
  expect_error<lz::layout_error>("negative extent", [&] { lz::matrix<double> T(3, -2); },
                                 {"negative extent", "(3,-2)"});
}

BOOST_AUTO_TEST_CASE(sizes_whose_product_overflows_are_layout_errors) {
  const index_t big = index_t(1) << 40;
  expect_error<lz::layout_error>("tensor",
                                 [&] {
                                   lz::tensor<double, 3>(lz::shape_t<3>{big, big, big});
                                 },
                                 {"overflows"});
  expect_error<lz::layout_error>(
      "bytes", [&] { lz::vector<double>(lz::shape_t<1>{index_t(1) << 61}); }, {"overflows"});
  expect_error<lz::layout_error>("zeros",
                                 [&] {
                                   (void)lz::zeros<float>({big, big});
                                 },
                                 {"overflows"});
  expect_error<lz::layout_error>("random",
                                 [&] {
                                   (void)lz::random<double>({big, 4, big}, 1);
                                 },
                                 {"overflows"});
  lz::vector<double> x(4);
  expect_error<lz::layout_error>("broadcast_to",
                                 [&] {
                                   (void)lz::broadcast_to(x, {big, big, 4});
                                 },
                                 {"overflows"});
  expect_error<lz::layout_error>("reshape",
                                 [&] {
                                   (void)lz::reshape(x, {big, big, 4});
                                 },
                                 {"overflows"});
  std::vector<double> buf(8);
  expect_error<lz::layout_error>("adopt span",
                                 [&] {
                                   (void)lz::adopt(buf.data(), {3, 3}, {index_t(1) << 62, 1});
                                 },
                                 {"overflows"});
  // Operands that broadcast to a shape of more than 2^63 elements: no tensor could hold the
  // result, and a reduction of it must not wrap around.
  const double v = 1.0;
  auto col = lz::adopt(&v, {big, 1}, {0, 0}), row = lz::adopt(&v, {1, big}, {0, 0});
  expect_error<lz::layout_error>("broadcast of two huge operands", [&] { (void)(col + row); },
                                 {"overflows"});
  expect_error<lz::layout_error>("nested broadcast", [&] { (void)lz::maximum(col * 2.0, row); },
                                 {"overflows", "'maximum'"});
}

// Extremes that used to be undefined behaviour or to pass validation: slice steps near ±2^63,
// a padding multiple near INT64_MAX, an adopted stride of INT64_MIN, a .npy shape whose empty
// extent hides strides that overflow.
BOOST_AUTO_TEST_CASE(steps_paddings_and_strides_at_the_int64_limits_are_handled) {
  constexpr index_t max = std::numeric_limits<index_t>::max(), min = -max - 1;
  lz::vector<double> x = lz::random<double>({10}, 3);
  const auto first = x(lz::range(0, 10, max)); // one element: x(0)
  BOOST_TEST(first.size() == 1);
  BOOST_TEST(first(0) == x(0));
  const auto last = x(lz::range(9, -1, min)); // one element: x(9)
  BOOST_TEST(last.size() == 1);
  BOOST_TEST(last(0) == x(9));
  const auto back = x(lz::range(9, -1, min + 1));
  BOOST_TEST(back.size() == 1);
  BOOST_TEST(x(lz::range(0, 10, max - 1)).size() == 1);
  BOOST_TEST(double(lz::sum(x(lz::range(9, -1, min)))) == x(9));
  expect_error<lz::layout_error>("padded near INT64_MAX",
                                 [&] { lz::matrix<double> P(3, 4, lz::padded{max - 1}); },
                                 {"overflows"});
  expect_error<lz::layout_error>(
      "padded INT64_MAX", [&] { lz::matrix<double> P(2, 2, lz::padded{max}); }, {"overflows"});
  std::vector<double> buf(8);
  expect_error<lz::layout_error>("adopt stride INT64_MIN",
                                 [&] { (void)lz::adopt(buf.data(), {2}, {min}); }, {"overflows"});
  expect_error<lz::layout_error>("adopt stride INT64_MIN, 2-d",
                                 [&] {
                                   (void)lz::adopt(buf.data(), {2, 2}, {min, 1});
                                 },
                                 {"overflows"});
}

BOOST_AUTO_TEST_CASE(out_of_range_indices_and_slices_throw_out_of_range) {
  lz::tensor<int, 3> t(lz::shape_t<3>{2, 3, 4});
  const lz::tensor<int, 3>& ct = t;
  auto v = t(lz::all, lz::range(2, -1, -1), lz::all);
  expect_error<std::out_of_range>("at(2,0,0)", [&] { (void)t.at(2, 0, 0); },
                                  {"index 2", "extent 2", "dimension 0"});
  expect_error<std::out_of_range>("at(0,0,-1)", [&] { (void)t.at(0, 0, -1); },
                                  {"index -1", "extent 4", "dimension 2"});
  expect_error<std::out_of_range>("const at", [&] { (void)ct.at(0, 3, 0); },
                                  {"index 3", "extent 3", "dimension 1"});
  expect_error<std::out_of_range>("view at", [&] { (void)v.at(1, 3, 1); }, {"index 3"});
  BOOST_TEST(&v.at(1, 0, 3) == &t(1, 2, 3));
  lz::vector<double> x(5);
  expect_error<std::out_of_range>("x.at(5)", [&] { (void)x.at(5); }, {"index 5", "extent 5"});
  expect_error<std::out_of_range>("range past the end", [&] { (void)x(lz::range(0, 6)); },
                                  {"range(0, 6, 1)", "extent 5"});
  expect_error<std::out_of_range>("range before the start", [&] { (void)x(lz::range(-1, 3)); },
                                  {"range(-1, 3, 1)"});
  expect_error<std::out_of_range>("reversed range", [&] { (void)x(lz::range(5, -1, -1)); },
                                  {"range(5, -1, -1)"});
  expect_error<std::invalid_argument>("step 0", [&] { (void)x(lz::range(0, 5, 0)); }, {"step"});
  expect_error<std::out_of_range>("index in a slice", [&] { (void)t(2, lz::all, lz::all); },
                                  {"index 2"});
  lz::matrix<double> M(2, 2);
  expect_error<std::out_of_range>("row", [&] { (void)lz::row(M, 2); }, {"index 2"});
  expect_error<std::out_of_range>("axis", [&] { (void)lz::sum(t, 3); }, {"axis 3"});
  expect_error<std::invalid_argument>("permute",
                                      [&] {
                                        (void)lz::permute(t, {0, 0, 1});
                                      },
                                      {"exactly once"});
}

BOOST_AUTO_TEST_CASE(reshape_that_needs_a_copy_is_a_layout_error) {
  lz::matrix<double> A(4, 6);
  expect_error<lz::layout_error>("transpose", [&] { (void)lz::reshape(lz::transpose(A), {24}); },
                                 {"needs a copy", "(6,4):(1,6)"});
  expect_error<lz::layout_error>("strided rows",
                                 [&] { (void)lz::reshape(A(lz::range(0, 4, 2), lz::all), {12}); },
                                 {"needs a copy"});
  expect_error<lz::layout_error>("column block",
                                 [&] {
                                   (void)lz::reshape(A(lz::all, lz::range(0, 3)), {2, 6});
                                 },
                                 {"needs a copy"});
  expect_error("element count", [&] { (void)lz::reshape(A, {5, 5}); }, {"(4,6)", "(5,5)"});
  // These need no copy: contiguous groups, strided but splittable, reversed row order kept.
  BOOST_CHECK_NO_THROW(lz::reshape(A(lz::range(0, 4, 2), lz::all), {2, 2, 3}));
  BOOST_CHECK_NO_THROW(lz::reshape(lz::transpose(A), {3, 2, 4}));
  auto r = lz::reshape(A(lz::range(3, -1, -1), lz::all), {4, 2, 3});
  BOOST_TEST(&r(0, 0, 0) == &A(3, 0));
  // The rvalue form moves instead of copying.
  lz::matrix<double> B(4, 6);
  const double* p = B.data();
  auto flat = lz::reshape(std::move(B), {24});
  BOOST_TEST(flat.data() == p);
}

BOOST_AUTO_TEST_CASE(null_pointers_with_a_non_empty_shape_are_layout_errors) {
  double* null = nullptr;
  expect_error<lz::layout_error>("adopt",
                                 [&] {
                                   (void)lz::adopt(null, {3, 4});
                                 },
                                 {"null pointer", "(3,4)"});
  expect_error<lz::layout_error>("adopt strided", [&] { (void)lz::adopt(null, {2}, {3}); },
                                 {"null pointer"});
  expect_error<lz::layout_error>("adopt const",
                                 [&] { (void)lz::adopt(static_cast<const double*>(nullptr), {1}); },
                                 {"null pointer"});
  // Empty shapes need no memory.
  auto e = lz::adopt(null, {0, 4});
  BOOST_TEST(e.size() == 0);
  lz::matrix<double> Z(0, 4);
  lz::assign(e, Z + 1.0);
  BOOST_TEST(lz::sum(e).value() == 0.0);
  BOOST_CHECK_THROW(lz::random<int>({4}, 1, lz::integers{3, 3}), std::invalid_argument);
}

// ---- empty tensors ----------------------------------------------------------------------------

// Every op of the op lists on empty operands (any empty dim) under every policy: an empty
// result, nothing written, nothing thrown.
template <class... F>
void each_op_on_empty(lz::fn::op_list<F...>, const lz::tensor_view<const double, 2>& a,
                      const lz::tensor_view<const double, 2>& b) {
  auto one = [&](auto f) {
    using Fn = decltype(f);
    for_each_policy([&](auto pol, const char* pname) {
      if constexpr (std::is_invocable_v<Fn, double, double>) {
        auto e = lz::make_map(Fn::name, f, a, b);
        auto t = lz::eval(pol, e);
        BOOST_TEST(t.size() == 0, Fn::name << " " << pname);
        lz::tensor<lz::value_t<decltype(e)>, 2> d(a.shape());
        BOOST_CHECK_NO_THROW(lz::assign(pol, d, e));
      } else {
        auto e = lz::make_map(Fn::name, f, a);
        BOOST_TEST(lz::eval(pol, e).size() == 0, Fn::name << " " << pname);
      }
    });
  };
  (one(F{}), ...);
}

BOOST_AUTO_TEST_CASE(every_op_and_view_works_on_empty_tensors) {
  for (const auto& s : {lz::shape_t<2>{0, 5}, lz::shape_t<2>{5, 0}, lz::shape_t<2>{0, 0}}) {
    lz::matrix<double> a(s), b(s);
    each_op_on_empty(lz::fn::unary_ops{}, a, b);
    each_op_on_empty(lz::fn::binary_ops{}, a, b);
    each_op_on_empty(lz::fn::compare_ops{}, a, b);
    BOOST_TEST(lz::eval(lz::where(a > b, a, 1.0) + lz::transpose(lz::transpose(b))).size() == 0);
    BOOST_TEST(lz::eval(lz::broadcast_to(lz::sum(a, 0), {3, s[1]})).size() == 3 * s[1]);
    BOOST_TEST(lz::reshape(a, {s[1], s[0]}).size() == 0);
    BOOST_TEST(lz::diagonal(a).size() == 0);
    lz::matrix<double> c = a * 2.0;
    BOOST_TEST(c.shape() == s);
    c += a;
    c = lz::transpose(lz::transpose(c)); // aliasing on nothing
  }
}

} // namespace
