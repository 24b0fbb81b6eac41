// Evaluation entry points (evaluate.hpp, tensor.hpp): lz::assign / lz::eval under every policy,
// the closure rule, full reductions as scalars, zero allocations for fused assignments,
// compound assignment, broadcasting in assignment, resizing (keeping column-major layouts),
// seeded random tensors independent of the thread count, and printing.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>
#include <support/recording.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using namespace lz_test;
using lz::index_t;
using types = std::tuple<double, float, std::int32_t, std::int64_t>;

template <class T, std::size_t R>
bool same_bits(const lz::tensor<T, R>& a, const lz::tensor<T, R>& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(T)) == 0;
}

// ---- closure rule -----------------------------------------------------------------------------

// `auto e = a + lz::eval(b * c);` owns the evaluated temporary: changing b and c afterwards
// does not change e, while a (an lvalue, held as a view) is read when e is evaluated.
BOOST_AUTO_TEST_CASE(kept_expressions_own_their_evaluated_temporaries) {
  auto a = random_tensor<double, 1>({1000}, 1), b = random_tensor<double, 1>({1000}, 2),
       c = random_tensor<double, 1>({1000}, 3);
  const lz::vector<double> bc = reference(b * c); // b * c before the change
  auto e = a + lz::eval(b * c);
  auto t = lz::transpose(lz::reshape(lz::eval(b * c), lz::shape_t<2>{40, 25}));
  auto s = lz::sum(lz::eval(b * c));
  b = lz::ones<double>({1000}) * 7.0;
  c = b;
  a(3) = 42.0; // seen through the view
  const lz::vector<double> got = e;
  for (index_t i = 0; i < 1000; ++i) BOOST_TEST(got(i) == a(i) + bc(i));
  const lz::matrix<double> tt = t;
  BOOST_TEST(tt.rows() == 25);
  BOOST_TEST(tt.cols() == 40);
  for (index_t i = 0; i < 25; ++i)
    for (index_t j = 0; j < 40; ++j) BOOST_TEST(tt(i, j) == bc(j * 25 + i));
  double want = 0;
  for (index_t i = 0; i < 1000; ++i) want += bc(i);
  BOOST_TEST(std::fabs(s.value() - want) <= 1e-12 * std::fabs(want) + 1e-12);
  static_assert(
      std::is_same_v<decltype(e.args),
                     lz::detail::pack<lz::tensor_view<const double, 1>, lz::tensor<double, 1>>>);
}

// A node holds a copy of a view, so the view object may go out of scope; the data must not.
BOOST_AUTO_TEST_CASE(kept_expressions_of_views_survive_the_view_objects) {
  lz::matrix<double> A = random_tensor<double, 2>({30, 20}, 4);
  auto e = [&] {
    auto v = A(lz::range(1, 30, 2), lz::all); // a local view
    return lz::sqrt(lz::abs(v)) + 1.0;
  }();
  const lz::matrix<double> got = e;
  for (index_t i = 0; i < 15; ++i)
    for (index_t j = 0; j < 20; ++j)
      BOOST_TEST(got(i, j) == std::sqrt(std::fabs(A(2 * i + 1, j))) + 1.0);
}

// ---- eval -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(eval_of_a_full_reduction_returns_the_scalar) {
  auto x = random_tensor<double, 2>({37, 41}, 5);
  auto xi = random_tensor<std::int32_t, 1>({1001}, 6);
  static_assert(std::is_same_v<decltype(lz::eval(lz::sum(x))), double>);
  static_assert(std::is_same_v<decltype(lz::eval(lz::par, lz::sum(xi))), std::int64_t>);
  static_assert(std::is_same_v<decltype(lz::eval(lz::mean(xi))), double>);
  static_assert(std::is_same_v<decltype(lz::eval(lz::argmax(x))), index_t>);
  static_assert(std::is_same_v<decltype(lz::eval(lz::all(x > 0.0))), bool>);
  static_assert(std::is_same_v<decltype(lz::eval(lz::sum(x, 0))), lz::tensor<double, 1>>);
  for_each_policy([&](auto pol, const char* pname) {
    BOOST_TEST(std::fabs(lz::eval(pol, lz::sum(x)) - ref_scalar(lz::sum(x))) <= 1e-12, pname);
    BOOST_TEST(lz::eval(pol, lz::sum(xi)) == ref_scalar(lz::sum(xi)), pname);
    BOOST_TEST(lz::eval(pol, lz::argmax(x)) == ref_scalar(lz::argmax(x)), pname);
    BOOST_TEST(lz::eval(pol, lz::max(xi)) == ref_scalar(lz::max(xi)), pname);
  });
  // Converting on demand, and inside a larger expression (broadcast as a scalar).
  const double s = lz::sum(x);
  BOOST_TEST(std::fabs(s - ref_scalar(lz::sum(x))) <= 1e-12);
  const lz::matrix<double> centered = x - lz::mean(x);
  const double m = lz::mean(x); // the same value, broadcast to every element
  BOOST_TEST(same_values(centered, reference(x - m)));
}

// A full reduction is computed at its first use, then fixed (docs/errors.md, "Full reductions"):
// kept in `auto` it neither goes stale nor runs again.
BOOST_AUTO_TEST_CASE(a_reduction_kept_in_auto_is_computed_once_at_first_use) {
  lz::vector<double> v = random_tensor<double, 1>({1000}, 7);
  const double norm = std::sqrt(ref_scalar(lz::sum(lz::square(v))));
  auto n = lz::norm2(v);
  v = v / n; // the first use: n is v's norm before the division
  BOOST_TEST(double(n) == norm, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(double(lz::norm2(v)) == 1.0, boost::test_tools::tolerance(1e-14));
  auto s = lz::sum(v);
  const double before = s;
  v(0) += 1.0;
  BOOST_TEST(double(s) == before); // fixed after its first use
  BOOST_TEST(double(lz::sum(v)) == before + 1.0, boost::test_tools::tolerance(1e-12));
  // Arithmetic on full reductions and scalars converts to the value type.
  const lz::vector<double> p = random_tensor<double, 1>({300}, 8),
                           q = random_tensor<double, 1>({300}, 9);
  const double r = 2.5;
  const double a = r / lz::dot(p, q);
  BOOST_TEST(a == r / ref_scalar(lz::sum(lz::hadamard(p, q))), boost::test_tools::tolerance(1e-12));
  const double m = -lz::mean(p);
  BOOST_TEST(m == -ref_scalar(lz::mean(p)), boost::test_tools::tolerance(1e-12));
  const bool positive = lz::sum(lz::square(p)) > 0.0;
  BOOST_TEST(positive);
}

// A temporary full reduction (`double(std::move(n))`, `return lz::sum(x);`) computes without the
// cache's lock, but a node copied before keeps one value for all its copies: the temporary
// publishes its value to them, or takes theirs. Copies converted from several threads at once
// agree (run under TSan in CI).
BOOST_AUTO_TEST_CASE(a_temporary_reduction_and_its_copies_share_one_value) {
  lz::vector<double> v = random_tensor<double, 1>({1000}, 12);
  auto n = lz::sum(v);
  const auto m = n; // shares n's cache
  const double first = std::move(n);
  BOOST_TEST(first == ref_scalar(lz::sum(v)), boost::test_tools::tolerance(1e-12));
  v(0) += 1.0;
  BOOST_TEST(double(m) == first); // the value the temporary computed
  lz_test::recording rec;
  auto p = lz::dot(v, v);
  const auto q = p;
  const double computed = q; // the copy computes first
  v(0) += 1.0;
  BOOST_TEST(double(std::move(p)) == computed);      // the temporary takes the copy's value,
  BOOST_TEST(rec.count("dot") == 1u, rec.summary()); // without computing it again

  const double expected = ref_scalar(lz::sum(lz::square(v)));
  const auto s = lz::sum(lz::square(v));
  std::vector<double> got(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      auto mine = s;
      got[std::size_t(t)] = t % 2 ? double(mine) : double(std::move(mine));
    });
  for (auto& t : ts) t.join();
  BOOST_TEST(got[0] == expected, boost::test_tools::tolerance(1e-12));
  for (double g : got) BOOST_TEST(g == got[0]);
  v(0) += 1.0;
  BOOST_TEST(double(s) == got[0]);
}

// Conjugate gradient written with `auto`, as a NumPy user would: one dot per reduction per
// iteration (recorded BLAS calls), converging to the reference solution.
BOOST_AUTO_TEST_CASE(conjugate_gradient_with_auto_runs_one_dot_per_reduction) {
  const index_t n = 48;
  const lz::matrix<double> M = random_tensor<double, 2>({n, n}, 10, lz_test::values::small);
  lz::matrix<double> A = lz::transpose(M) * M / (4.0 * double(n)); // eigenvalues in [1, ~4]:
  for (index_t i = 0; i < n; ++i) A(i, i) += 1.0;                  // 20 iterations converge
  const lz::vector<double> b = random_tensor<double, 1>({n}, 11);
  lz::vector<double> x = lz::zeros<double>({n}), r = b, p = r, Ap(n);
  lz_test::recording rec;
  const int iters = 20;
  for (int k = 0; k < iters; ++k) {
    auto rr = lz::dot(r, r); // used before and after r changes: r·r of this iteration's r
    Ap = A * p;
    auto alpha = rr / lz::dot(p, Ap); // used twice: one dot
    x += alpha * p;
    r -= alpha * Ap;
    auto beta = lz::dot(r, r) / rr;
    p = r + beta * p;
  }
  BOOST_TEST(rec.count("dot") == std::size_t(3 * iters), rec.summary());
  BOOST_TEST(rec.count("gemv") == std::size_t(iters), rec.summary());
  const lz::vector<double> res = A * x - b;
  BOOST_TEST(double(lz::norm2(res)) < 1e-8 * double(lz::norm2(b)));
}

// lz::eval returns a fresh row-major tensor of the expression's shape, under every policy.
BOOST_AUTO_TEST_CASE(eval_returns_a_row_major_tensor_under_every_policy) {
  rng r(7);
  for (int c = 0; c < 20; ++c) {
    const auto shape = random_shape<3>(r, 5000);
    auto a = make_viewed<double, 3>(shape, random_layout<3>(r, r.pick(all_layout_kinds), false),
                                    r.next(), values::special);
    auto e = lz::maximum(a.cview() * 2.0, lz::floor(a.cview()));
    const auto ref = reference(e);
    for_each_policy([&](auto pol, const char* pname) {
      const lz::tensor<double, 3> t = lz::eval(pol, e);
      BOOST_TEST(t.layout().is_row_major());
      BOOST_TEST(same_values(t, ref), pname << " " << lz::detail::to_string(shape));
    });
  }
}

// ---- zero allocations -------------------------------------------------------------------------

// Fused assignments into existing storage allocate nothing: no temporaries, no buffers, whatever
// the layouts, the policy or the operator.
BOOST_AUTO_TEST_CASE(fused_assignments_into_existing_storage_allocate_nothing) {
  auto x = random_tensor<double, 1>({100003}, 8), y = random_tensor<double, 1>({100003}, 9);
  auto A = random_tensor<double, 2>({300, 200}, 10), B = random_tensor<double, 2>({200, 300}, 11);
  lz::matrix<double> C(300, 200, lz::layout_left), P(300, 200, lz::padded{});
  std::vector<double> buf(3 * 600 * 200);
  auto strided = lz::adopt(buf.data() + 600, {300, 200}, {600, -3}); // strided, reversed
  lz::vector<double> colsum(200);
  lz::reset_stats();
  x = x + y;
  y = 2.0 * x + lz::sin(y);
  x += y * 0.5;
  x -= lz::abs(y);
  x *= 1.0001;
  x /= lz::maximum(lz::abs(y), 1.0);
  A = lz::transpose(B) * 0.5 + A; // a transposed read, the destination read in place
  C = A + 1.0;                    // column-major destination, row-major source
  P = A - C;                      // padded destination
  lz::assign(strided, lz::transpose(B) - A);
  strided += A;
  lz::assign(lz::seq, strided, A * 3.0);
  lz::assign(lz::simd, x, y);
  lz::assign(lz::par, A, lz::sqrt(lz::abs(lz::transpose(B))) + A);
  lz::assign(lz::automatic, A(lz::range(0, 300, 2), lz::all), A(lz::range(1, 300, 2), lz::all));
  lz::assign(colsum, lz::sum(A, 0));
  colsum += lz::max(A, 0);
  const double s = lz::sum(x * y).value() + lz::max(A).value() + lz::dot(x, y).value();
  const auto st = lz::stats();
  BOOST_TEST(st.allocations == 0u);
  BOOST_TEST(st.temporaries == 0u);
  BOOST_TEST(st.bytes_allocated == 0u);
  BOOST_TEST((std::isfinite(s) || std::isnan(s)));
}

// ---- compound assignment ----------------------------------------------------------------------

template <class T>
T apply(char op, T a, T b) {
  switch (op) {
  case '+':
    return T(a + b);
  case '-':
    return T(a - b);
  case '*':
    return T(a * b);
  default:
    return T(a / b);
  }
}

template <class D, class E>
void compound(char op, D& d, const E& e) {
  switch (op) {
  case '+':
    d += e;
    break;
  case '-':
    d -= e;
    break;
  case '*':
    d *= e;
    break;
  default:
    d /= e;
    break;
  }
}

// dst ⊕= expression and dst ⊕= scalar, into tensors and views of random layout, with
// broadcasting: equal to old ⊕ reference.
BOOST_AUTO_TEST_CASE_TEMPLATE(compound_assignment_matches_old_op_reference, T, types) {
  rng r(12 + sizeof(T) * 3 + std::is_integral_v<T>);
  for (int c = 0; c < 24; ++c) {
    const char op = "+-*/"[c % 4];
    const auto shape = random_shape<2>(r, 4000);
    const values v = std::is_integral_v<T> && op == '/' ? values::positive : values::small;
    auto a = make_viewed<T, 2>(with_ones(shape, unsigned(r.between(0, 3))),
                               random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(), v);
    auto b =
        make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(), v);
    auto e = lz::maximum(a.cview(), b.cview()) + T(1) * (std::is_integral_v<T> && op == '/');
    const auto ref = reference(e);
    const T scalar = std::is_integral_v<T> ? T(3) : T(1.25);
    // into a view of random layout
    auto d = make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), true), r.next(),
                               values::small);
    const auto old = reference(d.view);
    compound(op, d.view, e);
    lz::tensor<T, 2> want(shape);
    detail::for_each_index(want, [&](const auto& i) {
      want(i[0], i[1]) = apply(op, old(i[0], i[1]), T(ref_child(ref, i)));
    });
    BOOST_TEST(same_values(d.view, want), "view " << op << "= " << lz::detail::to_string(shape));
    BOOST_TEST(d.untouched_outside());
    // into an owning tensor, with a scalar
    lz::tensor<T, 2> t = old;
    compound(op, t, scalar);
    detail::for_each_index(
        want, [&](const auto& i) { want(i[0], i[1]) = apply(op, old(i[0], i[1]), scalar); });
    BOOST_TEST(same_values(t, want), "tensor " << op << "= scalar");
  }
}

// ---- broadcasting and resizing ----------------------------------------------------------------

// Views and lz::assign broadcast the expression (NumPy: extent-1 dims stretch; rank-0 values
// fill); `tensor = expr` of another shape resizes instead.
BOOST_AUTO_TEST_CASE(assignment_broadcasts_into_views_and_lz_assign) {
  auto row = random_tensor<double, 2>({1, 7}, 13), col = random_tensor<double, 2>({5, 1}, 14);
  auto one = random_tensor<double, 2>({1, 1}, 15);
  lz::matrix<double> A(5, 7), B(5, 7, lz::layout_left);
  lz::assign(A, row * 2.0);
  lz::assign(B, col + row);
  auto V = A(lz::range(4, -1, -1), lz::all); // reversed rows
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 7; ++j) {
      BOOST_TEST(A(i, j) == row(0, j) * 2.0);
      BOOST_TEST(B(i, j) == col(i, 0) + row(0, j));
    }
  V = one;
  for (double v : A) BOOST_TEST(v == one(0, 0));
  V += col;
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 7; ++j) BOOST_TEST(A(i, j) == one(0, 0) + col(4 - i, 0));
  lz::assign(A, lz::sum(B)); // a rank-0 expression fills
  const double sb = lz::sum(B);
  for (double v : A) BOOST_TEST(v == sb);
  A = 2.5; // a scalar fills
  for (double v : A) BOOST_TEST(v == 2.5);
  A -= lz::max(B);
  for (double v : A) BOOST_TEST(v == 2.5 - double(lz::max(B)));
  BOOST_CHECK_THROW(lz::assign(A, lz::matrix<double>(5, 3)), lz::shape_error);
  BOOST_CHECK_THROW(A += lz::matrix<double>(2, 7), lz::shape_error);
}

BOOST_AUTO_TEST_CASE(rank_zero_operands_broadcast_inside_trees_and_fill_destinations) {
  // A rank-0 tensor is an operand of any rank's tree (stride 0 along every dim of the loop),
  // next to scalars, in contiguous and strided loops; as a whole tree it fills the destination.
  lz::tensor<double, 0> t(lz::shape_t<0>{});
  *t.data() = 2.5;
  auto B = random_tensor<double, 2>({5, 7}, 31);
  lz::matrix<double> A(5, 7);
  A = B * t + 1.0; // contiguous: the flat path
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 7; ++j) BOOST_TEST(A(i, j) == B(i, j) * 2.5 + 1.0);
  A = lz::transpose(lz::transpose(B)) - t * t; // strided operands: the planned loop
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 7; ++j) BOOST_TEST(A(i, j) == B(i, j) - 6.25);
  lz::vector<double> x(9);
  lz::assign(x, t); // a rank-0 tree fills
  for (double v : x) BOOST_TEST(v == 2.5);
  x = t * 2.0 + x; // a rank-0 operand next to the destination
  for (double v : x) BOOST_TEST(v == 7.5);
  auto col = A(lz::all, 3);
  col = t - t * 4.0; // a strided destination
  for (index_t i = 0; i < 5; ++i) BOOST_TEST(A(i, 3) == 2.5 - 10.0);
}

BOOST_AUTO_TEST_CASE(tensor_assignment_of_another_shape_resizes) {
  lz::matrix<double> A(3, 4);
  auto B = random_tensor<double, 2>({5, 6}, 16);
  A = B * 2.0;
  BOOST_TEST(A.rows() == 5);
  BOOST_TEST(A.cols() == 6);
  BOOST_TEST(same_values(A, reference(B * 2.0)));
  A = lz::transpose(B); // the resized tensor aliases nothing
  BOOST_TEST(A.rows() == 6);
  BOOST_TEST(same_values(A, reference(lz::transpose(B))));
  A = A(lz::range(0, 3), lz::all) + 1.0; // a view of itself, of another shape
  BOOST_TEST(A.rows() == 3);
  BOOST_TEST(same_values(A, reference(lz::transpose(B)(lz::range(0, 3), lz::all) + 1.0)));
  lz::vector<double> x;
  x = lz::ones<double>({10}) * 3.0;
  BOOST_TEST(x.size() == 10);
  for (double v : x) BOOST_TEST(v == 3.0);
  lz::matrix<double> C(2, 2);
  C = B; // copy assignment of another shape
  BOOST_TEST(same_values(C, B));
}

// A column-major destination stays column-major when an assignment resizes it, whatever its
// old shape (also vector-shaped and empty ones, whose strides alone cannot tell).
BOOST_AUTO_TEST_CASE(resizing_keeps_column_major_destinations_column_major) {
  auto B = random_tensor<double, 2>({5, 3}, 17);
  const lz::shape_t<2> olds[] = {{3, 4}, {1, 4}, {4, 1}, {1, 1}, {0, 0}, {0, 3}, {3, 0}};
  for (const auto& s : olds) {
    lz::matrix<double> C(s[0], s[1], lz::layout_left);
    C = B + 1.0;
    BOOST_TEST(C.layout().is_column_major(), "old shape " << lz::detail::to_string(s));
    BOOST_TEST(C.strides()[0] == 1, "old shape " << lz::detail::to_string(s));
    BOOST_TEST(C.strides()[1] == 5, "old shape " << lz::detail::to_string(s));
    BOOST_TEST(same_values(C, reference(B + 1.0)));
    lz::matrix<double> D(s[0], s[1], lz::layout_left);
    D = B; // copy assignment too
    BOOST_TEST(D.strides()[0] == 1, "copy, old shape " << lz::detail::to_string(s));
    lz::matrix<double> E(s[0], s[1], lz::layout_left);
    E.resize({7, 2});
    BOOST_TEST(E.strides()[0] == 1, "resize, old shape " << lz::detail::to_string(s));
  }
  lz::matrix<double> R(3, 4); // row-major stays row-major
  R = lz::transpose(B);
  BOOST_TEST(R.strides()[1] == 1);
}

// ---- random tensors ---------------------------------------------------------------------------

// Counter-based generation: the same seed gives the same bits on 1, 2 or 3 threads.
BOOST_AUTO_TEST_CASE(random_tensors_are_identical_for_any_thread_count) {
  const lz::shape_t<2> shape{1031, 2039}; // > 2e6 elements: many parallel chunks
  std::vector<lz::tensor<double, 2>> u, n;
  std::vector<lz::tensor<std::int64_t, 2>> k;
  std::vector<lz::tensor<float, 2>> f;
  for (int threads : {1, 2, 3}) {
    lz::set_num_threads(threads);
    u.push_back(lz::random<double>(shape, 99));
    n.push_back(lz::random<double>(shape, 99, lz::normal{1.0, 2.0}));
    k.push_back(lz::random<std::int64_t>(shape, 99, lz::integers{-5, 5}));
    f.push_back(lz::random<float>(shape, 7, lz::uniform{-1, 1}));
  }
  lz::set_num_threads(0);
  for (std::size_t t = 1; t < 3; ++t) {
    BOOST_TEST(same_bits(u[t], u[0]));
    BOOST_TEST(same_bits(n[t], n[0]));
    BOOST_TEST(same_bits(k[t], k[0]));
    BOOST_TEST(same_bits(f[t], f[0]));
  }
  // The distributions hold (independent checks, not fixed values).
  BOOST_TEST(double(lz::min(u[0])) >= 0.0);
  BOOST_TEST(double(lz::max(u[0])) < 1.0);
  BOOST_TEST(std::fabs(double(lz::mean(u[0])) - 0.5) < 0.002);
  BOOST_TEST(std::fabs(double(lz::mean(n[0])) - 1.0) < 0.005);
  BOOST_TEST(std::fabs(double(lz::mean(lz::square(n[0] - 1.0))) - 4.0) < 0.02);
  BOOST_TEST(lz::min(k[0]).value() == -5);
  BOOST_TEST(lz::max(k[0]).value() == 4);
  BOOST_TEST(!same_bits(u[0], lz::random<double>(shape, 100))); // another seed
}

// ---- printing ---------------------------------------------------------------------------------

// NumPy's str(): empty arrays print as [] whatever their rank; rank 3 separates blocks by a
// blank line. (Expected texts are NumPy 1.24's output for the same arrays.)
BOOST_AUTO_TEST_CASE(printing_empty_and_rank_3_tensors_matches_numpy) {
  auto text = [](const auto& t) {
    std::ostringstream os;
    os << t;
    return os.str();
  };
  BOOST_TEST(text(lz::vector<double>(0)) == "[]");
  BOOST_TEST(text(lz::matrix<double>(2, 0)) == "[]");
  BOOST_TEST(text(lz::matrix<double>(0, 3)) == "[]");
  BOOST_TEST(text(lz::tensor<int, 3>(lz::shape_t<3>{2, 0, 3})) == "[]");
  lz::tensor<double, 3> t(lz::shape_t<3>{2, 3, 4});
  for (index_t i = 0; i < 24; ++i) t.data()[i] = double(i);
  BOOST_TEST(text(t) == "[[[ 0.  1.  2.  3.]\n  [ 4.  5.  6.  7.]\n  [ 8.  9. 10. 11.]]\n\n"
                        " [[12. 13. 14. 15.]\n  [16. 17. 18. 19.]\n  [20. 21. 22. 23.]]]");
  lz::tensor<int, 3> ti = lz::cast<int>(t);
  BOOST_TEST(text(ti) == "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n"
                         " [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]");
  // A permuted view prints in logical order: the same text as its evaluated copy.
  auto p = lz::permute(t, {2, 0, 1});
  BOOST_TEST(text(p) == text(lz::eval(p)));
  BOOST_TEST(text(lz::transpose(t) * 1.0) == text(lz::eval(lz::transpose(t))));
}

} // namespace

BOOST_AUTO_TEST_CASE(large_freed_buffers_are_reused_and_released_on_request) {
  lz::release_cached_memory();
  const index_t n = 512 * 1024; // 4 MiB of doubles: above the 1 MiB the cache keeps
  const void* first = nullptr;
  {
    lz::vector<double> a(n);
    first = a.data();
  }
  lz::reset_stats();
  {
    lz::vector<double> b(n / 2 + 1); // fits the cached block within a factor of two
    BOOST_TEST(b.data() == first);
    BOOST_TEST(b(0) == 0.0); // a reused block is zero-filled like a fresh one
    BOOST_TEST(b(n / 2) == 0.0);
  }
  BOOST_TEST(lz::stats().allocations == 1u); // still counted as an allocation
  BOOST_TEST(lz::stats().deallocations == 1u);
  {
    lz::vector<double> c(n / 4); // too small for it: a fresh block
    BOOST_TEST(c.data() != first);
  }
  lz::release_cached_memory();
  // Many threads allocating and freeing large buffers at once (run under TSan in CI).
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([t, &wrong] {
      for (int i = 0; i < 50; ++i) {
        lz::vector<double> v(index_t(200'000 + 1000 * t + i));
        v(0) = 1;
        if (double(lz::sum(v)) != 1.0) ++wrong;
      }
    });
  for (auto& th : ts) th.join();
  BOOST_TEST(wrong.load() == 0);
  lz::release_cached_memory();
}
