// Device batches of fixed-size tensors (lz::device_batch, include/lz/device/batch.hpp): every item
// of `Q = M * P`, `Q = T * P + c` (a fixed tensor and a scalar copied into the kernel),
// `P / lz::norm2(P)` (a reduction per item), transposed items, compound assignments and aliasing,
// against the host lz::fixed_batch of the same expression; round trips; one launch per
// assignment; size mismatches.
#include "support.hpp"

#include <lz/lz.hpp>

#include <random>
#include <span>
#include <vector>

BOOST_AUTO_TEST_SUITE(device_batch)

namespace {

template <class T, lz::index_t... N>
lz::fixed_batch<T, N...> random_batch(lz::index_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  lz::fixed_batch<T, N...> b(n);
  for (lz::index_t i = 0; i < n; ++i) {
    lz::fixed_tensor<T, N...> f;
    for (auto& x : f) x = static_cast<T>(u(g));
    b.set(i, f);
  }
  return b;
}

// Host and device batches hold the same values (within `tol`, relative).
template <class T, lz::index_t... N>
void expect_same(const lz::fixed_batch<T, N...>& host, const lz::device_batch<T, N...>& dev,
                 double tol, const char* what) {
  const auto back = lz::to_host(dev);
  BOOST_TEST_REQUIRE(back.size() == host.size(), what);
  double worst = 0;
  for (lz::index_t i = 0; i < host.size(); ++i) {
    const auto h = host[i], d = back[i];
    for (lz::index_t k = 0; k < h.size(); ++k)
      worst = std::max(worst, std::abs(double(h.data()[k]) - double(d.data()[k])) /
                                  (1 + std::abs(double(h.data()[k]))));
  }
  BOOST_TEST(worst <= tol, what << ": worst relative difference " << worst);
}

template <class T>
void every_form(lz::index_t n) {
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-13;
  auto M = random_batch<T, 4, 4>(n, 1);
  auto P = random_batch<T, 4>(n, 2);
  auto dM = lz::to_device(M);
  auto dP = lz::to_device(P);
  lz::fixed_batch<T, 4> Q(n);
  lz::device_batch<T, 4> dQ(n);
  lz::fixed_tensor<T, 4, 4> A;
  for (lz::index_t k = 0; k < 16; ++k) A.data()[k] = T(k % 5) - T(2);

  expect_same(P, dP, 0, "round trip");
  Q = M * P;
  lz::reset_device_stats();
  dQ = dM * dP;
  BOOST_TEST(lz::device_stats().launches == 1u);
  expect_same(Q, dQ, tol, "Q = M * P");
  Q = A * P + T(1);
  dQ = A * dP + T(1);
  expect_same(Q, dQ, tol, "Q = A * P + 1 (A copied into the kernel)");
  Q = P / lz::norm2(P);
  dQ = dP / lz::norm2(dP);
  expect_same(Q, dQ, tol, "Q = P / norm2(P) (per item)");
  M = lz::transpose(M) * M - T(2) * A;
  dM = lz::transpose(dM) * dM - T(2) * A;
  expect_same(M, dM, tol * 4, "M = transpose(M) * M - 2A (aliasing)");
  P += M * P;
  dP += dM * dP;
  expect_same(P, dP, tol * 8, "P += M * P");
}

} // namespace

BOOST_AUTO_TEST_CASE(every_item_matches_the_host_batch) {
  for (lz::index_t n : {1, 7, 1000, 40001}) {
    every_form<double>(n);
    every_form<float>(n);
  }
}

BOOST_AUTO_TEST_CASE(device_batches_of_other_sizes_are_a_shape_error) {
  lz::device_batch<double, 4, 4> M(10);
  lz::device_batch<double, 4> P(9), Q(10);
  BOOST_CHECK_THROW(Q = M * P, lz::shape_error);
  Q = 3.0;
  BOOST_TEST(lz::to_host(Q)[9](3) == 3.0);
}

BOOST_AUTO_TEST_SUITE_END()
