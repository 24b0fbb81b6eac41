// Expressions and views as standard ranges (include/lz/ranges.hpp): element sequences equal the
// reference evaluator's row-major order for random trees (broadcasts, transposes, reductions
// inside), random access works, algorithms on trees allocate nothing, views are writable.
#include <boost/test/unit_test.hpp>

#include <support/reference.hpp>

#include <algorithm>
#include <random>
#include <ranges>
#include <vector>

using lz::index_t;

namespace {

// Row-major element sequence of an evaluated tensor (the reference).
template <class X>
std::vector<lz::value_t<X>> reference_sequence(const X& x) {
  const auto t = lz_test::reference(x);
  std::vector<lz::value_t<X>> v;
  lz_test::detail::for_each_index(t, [&](const auto& i) { v.push_back(lz_test::ref_at(t, i)); });
  return v;
}

template <class R>
std::vector<std::ranges::range_value_t<R>> as_vector(R&& r) {
  std::vector<std::ranges::range_value_t<R>> v;
  for (auto&& x : r) v.push_back(x);
  return v;
}

} // namespace

BOOST_AUTO_TEST_CASE(trees_and_views_model_random_access_ranges) {
  lz::vector<double> x(4);
  lz::matrix<float> A(2, 3);
  using tree = decltype(2.0 * x + 1.0);
  static_assert(std::ranges::random_access_range<tree>);
  static_assert(std::ranges::sized_range<tree>);
  static_assert(std::ranges::random_access_range<const tree>);
  static_assert(std::is_same_v<std::ranges::range_reference_t<tree>, double>);
  static_assert(std::ranges::random_access_range<decltype(lz::transpose(A + A))>);
  static_assert(std::ranges::random_access_range<decltype(lz::sum(A, 0))>);
  using view = decltype(lz::col(A, 1));
  static_assert(std::ranges::random_access_range<view>);
  static_assert(std::ranges::output_range<view, float>);
  static_assert(std::random_access_iterator<std::ranges::iterator_t<view>>);
  static_assert(
      std::is_same_v<std::iterator_traits<std::ranges::iterator_t<view>>::iterator_category,
                     std::random_access_iterator_tag>);
  static_assert(!std::ranges::output_range<decltype(lz::transpose(std::as_const(A))), float>);
  static_assert(std::ranges::contiguous_range<lz::vector<double>>); // tensors: storage
  static_assert(!std::ranges::range<decltype(lz::sum(x))>);         // rank 0: a scalar
}

BOOST_AUTO_TEST_CASE(max_of_a_tree_reads_it_once_without_allocating) {
  const auto x = lz::random<double>({10001}, 1, lz::normal{});
  lz::reset_stats();
  const double m = std::ranges::max(2.0 * x + 1.0);
  const auto count = std::ranges::count_if(lz::sin(x) > 0.5, [](bool b) { return b; });
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto ref = reference_sequence(2.0 * x + 1.0);
  BOOST_TEST(m == *std::max_element(ref.begin(), ref.end()));
  const auto sref = reference_sequence(lz::sin(x) > 0.5);
  BOOST_TEST(count == std::count(sref.begin(), sref.end(), true));
}

BOOST_AUTO_TEST_CASE(random_trees_iterate_in_row_major_order) {
  std::mt19937_64 g(5);
  for (int rep = 0; rep < 30; ++rep) {
    const index_t m = index_t(g() % 5) + 1, n = index_t(g() % 6) + 1, k = index_t(g() % 4) + 1;
    const auto A = lz::random<double>({m, n}, rep, lz::normal{});
    const auto B = lz::random<double>({n, m}, rep + 100, lz::normal{});
    const auto r = lz::random<double>({1, n}, rep + 200);
    const auto T = lz::random<double>({k, m, n}, rep + 300);
    int which = 0;
    // Exact, except trees holding reductions (summation order differs from the reference's).
    const auto check = [&](const auto& e, double tol = 0.0) {
      ++which;
      const auto got = as_vector(e), want = reference_sequence(e);
      bool ok = got.size() == want.size();
      for (std::size_t i = 0; ok && i < got.size(); ++i)
        ok = std::fabs(got[i] - want[i]) <= tol * std::fabs(want[i]);
      BOOST_TEST(ok, "tree " << which << " of shape " << lz::detail::to_string(e.shape()));
    };
    check(A * 2.0 - lz::exp(A));                                  // elementwise
    check(A + r);                                                 // extent-1 broadcast
    check(lz::transpose(B) - A);                                  // transposed leaf
    check(lz::transpose(B + 1.0) - A);                            // transposed tree
    check(lz::broadcast_to(lz::row(A, 0) * 3.0, {k, m, n}) + T);  // broadcast tree
    check(lz::slice(A, lz::range(m - 1, -1, -1), lz::all) + 0.5); // negative strides
    check(lz::sum(T, 1) * 2.0, 1e-14);                            // reduction inside
    check(lz::max(A + 1.0, 0), 0.0);                              // reduction at the root
    check(lz::where(A > 0.0, A, -A));
    check(lz::slice(T, lz::all, lz::range(0, m, 2), lz::all)); // a view
  }
}

BOOST_AUTO_TEST_CASE(iterators_support_random_access_and_reverse) {
  const auto A = lz::random<double>({5, 7}, 9);
  const auto e = lz::transpose(A) * 3.0;
  const auto ref = reference_sequence(e);
  auto b = std::ranges::begin(e);
  const auto end = std::ranges::end(e);
  BOOST_TEST((end - b) == 35);
  BOOST_TEST(std::ranges::size(e) == 35u);
  for (index_t i = 0; i < 35; i += 3) {
    BOOST_TEST(b[i] == ref[std::size_t(i)]);
    BOOST_TEST(*(b + i) == ref[std::size_t(i)]);
    BOOST_TEST(*(end - (35 - i)) == ref[std::size_t(i)]);
  }
  BOOST_TEST((b < end));
  BOOST_TEST((b + 35 == end));
  std::vector<double> rev = as_vector(e | std::views::reverse);
  std::reverse(rev.begin(), rev.end());
  BOOST_TEST(rev == ref);
  // Legacy algorithms and constructors accept the C++17 input-iterator face.
  std::vector<double> copy(std::ranges::begin(e), std::ranges::end(e));
  BOOST_TEST(copy == ref);
}

BOOST_AUTO_TEST_CASE(views_are_writable_ranges) {
  lz::matrix<double> A = lz::random<double>({6, 5}, 3);
  const lz::matrix<double> before = A;
  std::ranges::sort(lz::row(A, 2)); // in place, through the view
  BOOST_TEST(std::ranges::is_sorted(lz::row(A, 2)));
  auto row_before = as_vector(lz::row(before, 2));
  std::ranges::sort(row_before);
  BOOST_TEST(as_vector(lz::row(A, 2)) == row_before);
  std::ranges::fill(lz::col(A, 4), 7.0); // strided column
  for (index_t i = 0; i < 6; ++i) BOOST_TEST(A(i, 4) == 7.0);
  auto rev = lz::slice(A, lz::range(5, -1, -1), lz::range(0, 4)); // reversed rows
  std::ranges::transform(rev, std::ranges::begin(rev), [](double v) { return -v; });
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 4; ++j)
      BOOST_TEST(A(i, j) == -(i == 2 ? row_before[std::size_t(j)] : before(i, j)));
}
