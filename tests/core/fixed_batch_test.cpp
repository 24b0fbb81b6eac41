// Batches of fixed-size tensors (lz::fixed_batch, include/lz/batch.hpp): every item of
// `Q = M * P`, `Q = T * P + c`, `P / lz::norm2(P)`, transposed items, compound assignments and
// aliasing against the same expression on each item's fixed tensors; SIMD lanes and the scalar
// tail on random sizes; one thread and several; size mismatches; no heap allocation; explain.
#include <boost/test/unit_test.hpp>

#include <support/recording.hpp>

#include <lz/lz.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

template <class F>
void fill_random(F& f, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : f) x = static_cast<typename F::value_type>(u(g));
}

template <class T, lz::index_t... N>
lz::fixed_batch<T, N...> random_batch(lz::index_t n, std::mt19937_64& g) {
  lz::fixed_batch<T, N...> b(n);
  for (lz::index_t i = 0; i < n; ++i) {
    lz::fixed_tensor<T, N...> f;
    fill_random(f, g);
    b.set(i, f);
  }
  return b;
}

template <class T, lz::index_t... N>
void check_item(const lz::fixed_tensor<T, N...>& got, const lz::fixed_tensor<T, N...>& want,
                double tol, lz::index_t item) {
  for (lz::index_t k = 0; k < got.size(); ++k)
    BOOST_TEST(std::abs(double(got.data()[k]) - double(want.data()[k])) <=
                   tol * (1 + std::abs(double(want.data()[k]))),
               "item " << item << " element " << k);
}

template <class T>
void every_form(lz::index_t n, std::mt19937_64& g) {
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  using m4 = lz::fixed_matrix<T, 4, 4>;
  using v4 = lz::fixed_vector<T, 4>;
  auto M = random_batch<T, 4, 4>(n, g);
  auto P = random_batch<T, 4>(n, g);
  lz::fixed_batch<T, 4> Q(n);
  lz::fixed_batch<T, 4, 4> R(n);
  m4 A;
  fill_random(A, g);

  Q = M * P;
  for (lz::index_t i = 0; i < n; ++i) check_item(Q[i], lz::eval(M[i] * P[i]), tol, i);
  Q = A * P + T(1);
  for (lz::index_t i = 0; i < n; ++i) check_item(Q[i], lz::eval(A * P[i] + T(1)), tol, i);
  Q = P / lz::norm2(P);
  for (lz::index_t i = 0; i < n; ++i) {
    const v4 p = P[i];
    check_item(Q[i], lz::eval(p / lz::norm2(p)), tol, i);
  }
  R = lz::transpose(M) * M - 2 * A;
  for (lz::index_t i = 0; i < n; ++i) {
    const m4 m = M[i];
    check_item(R[i], lz::eval(lz::transpose(m) * m - 2 * A), tol * 4, i);
  }
  R = lz::exp(M * T(0.5)) + lz::maximum(M, T(0));
  for (lz::index_t i = 0; i < n; ++i) {
    const m4 m = M[i];
    check_item(R[i], lz::eval(lz::exp(m * T(0.5)) + lz::maximum(m, T(0))), tol, i);
  }
  // Aliasing: M = M * M + M item by item, and a compound assignment.
  std::vector<m4> before;
  for (lz::index_t i = 0; i < n; ++i) before.push_back(M[i]);
  M = M * M + M;
  for (lz::index_t i = 0; i < n; ++i) {
    const m4& m = before[std::size_t(i)];
    check_item(M[i], lz::eval(m * m + m), tol * 4, i);
  }
  std::vector<v4> pb;
  for (lz::index_t i = 0; i < n; ++i) pb.push_back(P[i]);
  P += P * T(2);
  for (lz::index_t i = 0; i < n; ++i) check_item(P[i], lz::eval(pb[std::size_t(i)] * T(3)), tol, i);
}

} // namespace

BOOST_AUTO_TEST_SUITE(fixed_batch)

BOOST_AUTO_TEST_CASE(every_item_matches_its_fixed_tensor_on_random_sizes_and_threads) {
  std::mt19937_64 g(31);
  const lz::index_t stream_bytes = lz::thresholds().stream_bytes;
  for (int run = 0; run < 3; ++run) { // 1 thread, 2 threads, 2 threads streaming every `=`
    lz::set_num_threads(run == 0 ? 1 : 2);
    if (run == 2) lz::thresholds().stream_bytes = 0;
    for (lz::index_t n : {1, 3, 7, 8, 9, 17, 64, 1000, 70001}) { // lanes, tails, threads
      every_form<double>(n, g);
      every_form<float>(n, g);
    }
  }
  lz::thresholds().stream_bytes = stream_bytes;
  lz::set_num_threads(0);
}

BOOST_AUTO_TEST_CASE(batches_are_element_major_and_items_round_trip) {
  std::mt19937_64 g(5);
  std::vector<lz::matrix3d> items(10);
  for (auto& m : items) fill_random(m, g);
  lz::fixed_batch<double, 3, 3> B(items);
  BOOST_TEST(B.size() == 10);
  BOOST_TEST(B.plane_stride() % 8 == 0); // planes start on cache lines
  for (lz::index_t i = 0; i < 10; ++i) check_item(B[i], items[std::size_t(i)], 0, i);
  // Element (1, 2) of every item is one plane: planes()(1 * 3 + 2, i).
  for (lz::index_t i = 0; i < 10; ++i) BOOST_TEST(B.planes()(5, i) == items[std::size_t(i)](1, 2));
  BOOST_CHECK_THROW((void)B.at(10), std::out_of_range);
  B = 2.0; // a scalar fills every item
  BOOST_TEST(B[9](2, 2) == 2.0);
  B = lz::matrix3d::identity(); // a fixed tensor is the same for every item
  BOOST_TEST(B[4](1, 1) == 1.0);
  BOOST_TEST(B[4](0, 1) == 0.0);
}

BOOST_AUTO_TEST_CASE(batches_of_other_sizes_are_a_shape_error_and_write_nothing) {
  std::mt19937_64 g(6);
  auto M = random_batch<double, 4, 4>(12, g);
  auto P = random_batch<double, 4>(11, g);
  lz::fixed_batch<double, 4> Q(12);
  Q = 7.0;
  BOOST_CHECK_THROW(Q = M * P, lz::shape_error);
  for (lz::index_t i = 0; i < 12; ++i) BOOST_TEST(Q[i](3) == 7.0);
  try {
    Q = M * P;
  } catch (const lz::shape_error& e) {
    BOOST_TEST(std::string(e.what()) ==
               "lz: a batch of 11 items in an expression assigned to a batch of 12 items");
  }
}

BOOST_AUTO_TEST_CASE(batch_assignments_allocate_nothing_call_no_blas_and_explain_themselves) {
  std::mt19937_64 g(7);
  auto M = random_batch<double, 4, 4>(1000, g);
  auto P = random_batch<double, 4>(1000, g);
  lz::fixed_batch<double, 4> Q(1000);
  lz::set_num_threads(1);
  lz_test::recording rec;
  lz::reset_stats();
  for (int i = 0; i < 10; ++i) Q = M * P + Q;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.calls.size() == 0u);
  lz::set_num_threads(0);
  static_assert(lz::detail::batched_tree_v<decltype(M * P)>);
  static_assert(!lz::fixed_expression<decltype(M * P)>, "a batch tree is not one fixed tensor");
  const std::string plan = lz::explain(Q, M * P);
  BOOST_TEST(plan.find("inline, batched: 4 elements per item") != std::string::npos, plan);
  BOOST_TEST(plan.find("items per SIMD vector") != std::string::npos, plan);
}

BOOST_AUTO_TEST_SUITE_END()
