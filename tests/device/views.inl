// Device views, layouts and aliasing (mirrors the CPU suite): views of device tensors are device
// views that never copy; the device loop handles any strides; an assignment that reads its
// destination at other positions goes through one pooled temporary, one that reads it in place
// does not.
#include "support.hpp"

BOOST_AUTO_TEST_SUITE(device_views)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;

BOOST_AUTO_TEST_CASE(views_of_device_tensors_are_device_views_that_never_copy) {
  lz::device_tensor<double, 2> A(lz::shape_t<2>{6, 8});
  auto t = lz::transpose(A);
  static_assert(std::is_same_v<decltype(t), lz::device_view<double, 2>>);
  BOOST_TEST(t.data() == A.data());
  BOOST_TEST(t.strides()[0] == 1);
  BOOST_TEST(t.strides()[1] == 8);
  auto s = lz::slice(A, lz::range(5, -1, -2), lz::all);
  static_assert(std::is_same_v<decltype(s), lz::device_view<double, 2>>);
  BOOST_TEST(s.strides()[0] == -16);
  auto b = lz::broadcast_to(lz::row(A, 2), {4, 8});
  static_assert(std::is_same_v<decltype(b), lz::device_view<const double, 2>>);
  BOOST_TEST(b.strides()[0] == 0);
  auto r = lz::reshape(A, {2, 3, 8});
  BOOST_TEST(r.strides()[0] == 24);
  static_assert(std::is_same_v<decltype(r), lz::device_view<double, 3>>);
  [[maybe_unused]] const lz::device_tensor<double, 2>& cA = A;
  static_assert(std::is_same_v<decltype(lz::diagonal(cA)), lz::device_view<const double, 1>>);
  static_assert(lz::space_v<decltype(2.0 * t + s)> == lz::memory_space::device);
  BOOST_CHECK_THROW(lz::reshape(lz::transpose(A), {48}), lz::layout_error);
}

BOOST_AUTO_TEST_CASE(writes_through_device_views_match_the_cpu) {
  auto H = rnd<double, 2>({12, 10}, 1);
  auto D = lz::to_device(H);
  const auto src = rnd<double, 1>({10}, 2);
  const auto dsrc = lz::to_device(src);
  lz::row(H, 3) = src * 2.0;
  lz::row(D, 3) = dsrc * 2.0;
  lz::col(H, 1) = -lz::col(H, 2);
  lz::col(D, 1) = -lz::col(D, 2);
  lz::diagonal(H) += 100.0;
  lz::diagonal(D) += 100.0;
  H(lz::range(11, -1, -2), lz::range(0, 10, 3)) = 7.0;
  D(lz::range(11, -1, -2), lz::range(0, 10, 3)) = 7.0;
  expect_match(H, D, 0, 0, "row/col/diagonal/slice writes");
}

BOOST_AUTO_TEST_CASE(random_strided_layouts_match_the_cpu) {
  std::mt19937 g(17);
  for (int rep = 0; rep < 8; ++rep) {
    const index_t m = 2 + g() % 40, n = 2 + g() % 40;
    const auto A = rnd<double, 2>({m, n}, 50 + rep), B = rnd<double, 2>({n, m}, 60 + rep);
    const auto dA = lz::to_device(A), dB = lz::to_device(B);
    const index_t s0 = 1 + g() % 3, s1 = 1 + g() % 3;
    auto hv = A(lz::range(m - 1, -1, -index_t(s0)), lz::range(0, n, s1));
    auto dv = dA(lz::range(m - 1, -1, -index_t(s0)), lz::range(0, n, s1));
    auto hb = lz::transpose(B)(lz::range(m - 1, -1, -index_t(s0)), lz::range(0, n, s1));
    auto db = lz::transpose(dB)(lz::range(m - 1, -1, -index_t(s0)), lz::range(0, n, s1));
    expect_match(lz::eval(lz::par, lz::hadamard(hv, hb) + lz::exp(hv)),
                 lz::eval(lz::device, lz::hadamard(dv, db) + lz::exp(dv)), 16, 1e-14,
                 "strided/reversed/transposed");
  }
}

BOOST_AUTO_TEST_CASE(padded_and_column_major_device_tensors_work_as_leaves) {
  const auto A = rnd<double, 2>({9, 7}, 3);
  lz::device_tensor<double, 2> P(lz::shape_t<2>{9, 7}, lz::padded{});
  BOOST_TEST(P.strides()[0] == 32); // 256-byte rows
  lz::device_tensor<double, 2> L(lz::shape_t<2>{9, 7}, lz::layout_left);
  lz::copy(A, P);
  lz::copy(A, L);
  expect_match(lz::eval(lz::par, A * 3.0 - A), lz::eval(lz::device, P * 3.0 - L), 2, 1e-15,
               "padded and column-major");
}

BOOST_AUTO_TEST_CASE(reading_the_destination_elsewhere_uses_one_pooled_temporary) {
  auto H = rnd<double, 2>({33, 33}, 4);
  auto D = lz::to_device(H);
  const auto E = rnd<double, 2>({33, 33}, 5);
  const auto dE = lz::to_device(E);
  lz::reset_device_stats();
  D = lz::transpose(D) + dE; // A = Aᵀ + E needs a temporary
  H = lz::transpose(H) + E;
  BOOST_TEST(lz::device_stats().pool_requests == 1u);
  BOOST_TEST(lz::device_stats().allocations == 0u);
  expect_match(H, D, 0, 0, "A = transpose(A) + E");
  // shifted self-read: x[1:] = x[:-1] * 2
  auto x = rnd<double, 1>({1000}, 6);
  auto dx = lz::to_device(x);
  x(lz::range(1, 1000)) = x(lz::range(0, 999)) * 2.0;
  dx(lz::range(1, 1000)) = dx(lz::range(0, 999)) * 2.0;
  expect_match(x, dx, 0, 0, "shifted self-read");
  // interleaved lattices never meet: no temporary
  lz::reset_device_stats();
  dx(lz::range(0, 1000, 2)) = dx(lz::range(1, 1000, 2)) + 1.0;
  x(lz::range(0, 1000, 2)) = x(lz::range(1, 1000, 2)) + 1.0;
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  expect_match(x, dx, 0, 0, "even = odd + 1");
}

BOOST_AUTO_TEST_CASE(the_pool_reuses_temporaries_across_assignments) {
  auto D = lz::to_device(rnd<double, 2>({64, 64}, 7));
  D = lz::transpose(D) * 0.5; // warm the pool
  lz::reset_device_stats();
  for (int i = 0; i < 5; ++i) D = lz::transpose(D) * 0.5;
  const auto s = lz::device_stats();
  BOOST_TEST(s.pool_requests == 5u);
  BOOST_TEST(s.pool_system_allocs == 0u); // served from the cache every time
  BOOST_TEST(s.allocations == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
