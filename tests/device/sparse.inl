// Device sparse products (include/lz/device/sparse.hpp, the device sink's sparse step): the same
// rules as the host (spmv, spmm) with the device sinks. Each case checks the device call made
// (the device BLAS recorder: "dcsrmv", "dcsrmm" with α, β) and the numbers against the host
// lazuli result for the same tree. Built by g++ on the host system (every CI run: lazuli's CPU
// kernels behind the device interface) and by nvcc (cuSPARSE; skips without a GPU).
#include "support.hpp"

#include <lz/kernels/cuda/blas.hpp>

#include <cstdint>
#include <random>
#include <vector>

BOOST_AUTO_TEST_SUITE(device_sparse)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;
namespace dblas = lz::kernels::dev::blas;

namespace {

struct device_recording {
  device_recording() { dblas::record_calls(true); }
  ~device_recording() { dblas::record_calls(false); }
  device_recording(const device_recording&) = delete;
  device_recording& operator=(const device_recording&) = delete;
  dblas::call only() const {
    const auto c = dblas::recorded_calls();
    BOOST_TEST_REQUIRE(c.size() == 1u, "expected one device call, got " << c.size());
    return c.front();
  }
};

// A random m×n sparse matrix (fixed seed), some empty rows.
template <class T, class I = std::int32_t>
lz::csr_matrix<T, I> random_sparse(index_t m, index_t n, double density, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1), v(-1, 1);
  std::vector<I> r, c;
  std::vector<T> x;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j)
      if (i % 5 != 2 && u(g) < density) {
        r.push_back(I(i));
        c.push_back(I(j));
        x.push_back(T(v(g)));
      }
  return lz::csr_matrix<T, I>::from_triplets(m, n, r, c, x);
}

} // namespace

BOOST_AUTO_TEST_CASE(two_a_x_minus_three_y_is_one_device_spmv_with_alpha_and_beta) {
  const auto A = random_sparse<double>(70, 50, 0.1, 1);
  const auto x = rnd<double, 1>({50}, 2);
  const auto y0 = rnd<double, 1>({70}, 3);
  const auto dA = lz::to_device(A);
  const auto dx = lz::to_device(x);
  auto dy = lz::to_device(y0);
  device_recording rec;
  dy = 2 * dA * dx - 3 * dy;
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dcsrmv");
  BOOST_TEST(c.alpha == 2.0);
  BOOST_TEST(c.beta == -3.0);
  lz::vector<double> y = y0;
  y = 2 * A * x - 3 * y;
  expect_match(y, dy, 4, 1e-14);
}

BOOST_AUTO_TEST_CASE(device_spmv_spmm_match_the_host_for_transposes_strides_and_layouts) {
  for (const bool wide : {false, true})
    for (const bool trans : {false, true}) {
      const auto A32 = random_sparse<float>(40, 30, 0.2, 10 + trans);
      const auto A = random_sparse<double, std::int64_t>(40, 30, 0.2, 20 + trans);
      const index_t rin = trans ? 40 : 30, rout = trans ? 30 : 40;
      const auto x = rnd<double, 1>({rin}, 4);
      const auto X = rnd<double, 2>({rout, 3}, 5); // y is its middle column (stride 3)
      const auto B = rnd<double, 2>({rin, 6}, 6);
      lz::matrix<double> C(rout, 6, lz::layout_left);
      C = rnd<double, 2>({rout, 6}, 7);
      const auto dx = lz::to_device(x);
      auto dX = lz::to_device(X);
      const auto dB = lz::to_device(B);
      auto dC = lz::to_device(C); // (row-major on the device)
      lz::matrix<double> hX = X, hC = C;
      if (wide) {
        const auto dA = lz::to_device(A);
        if (trans) {
          dX(lz::all, 1) = 0.5 * lz::transpose(dA) * dx + dX(lz::all, 1);
          dC = lz::transpose(dA) * dB - 2 * dC;
          hX(lz::all, 1) = 0.5 * lz::transpose(A) * x + hX(lz::all, 1);
          hC = lz::transpose(A) * B - 2 * hC;
        } else {
          dX(lz::all, 1) = 0.5 * dA * dx + dX(lz::all, 1);
          dC = dA * lz::transpose(lz::to_device(lz::eval(lz::transpose(B)))) - 2 * dC;
          hX(lz::all, 1) = 0.5 * A * x + hX(lz::all, 1);
          hC = A * B - 2 * hC;
        }
        expect_match(hX, dX, 8, 1e-13);
        expect_match(hC, dC, 8, 1e-13);
      } else {
        const auto dA = lz::to_device(A32);
        const auto xf = lz::to_device(lz::eval(lz::cast<float>(x)));
        lz::vector<float> yf(rout);
        auto dy = lz::to_device(yf);
        if (trans) {
          dy = lz::transpose(dA) * xf;
          yf = lz::transpose(A32) * lz::eval(lz::cast<float>(x));
        } else {
          dy = dA * xf;
          yf = A32 * lz::eval(lz::cast<float>(x));
        }
        expect_match(yf, dy, 8, 1e-5);
      }
    }
}

BOOST_AUTO_TEST_CASE(a_device_sparse_matrix_round_trips_and_its_values_take_device_expressions) {
  const auto A = random_sparse<double>(25, 35, 0.2, 30);
  auto dA = lz::to_device(A);
  BOOST_TEST(dA.nnz() == A.nnz());
  dA.values_view() = 2 * dA.values_view();
  const auto back = lz::to_host(dA);
  BOOST_TEST(back.nnz() == A.nnz());
  lz::csr_matrix<double> twice = 2 * A;
  BOOST_TEST(double(lz::max(lz::abs(lz::to_dense(twice) - lz::to_dense(back)))) == 0.0);
  const auto x = rnd<double, 1>({35}, 31);
  const auto dx = lz::to_device(x);
  lz::device_vector<double> dy(lz::shape_t<1>{25});
  dy = lz::maximum(dA * dx, 0.0); // product into dy, then one device pass
  lz::vector<double> y = lz::maximum(twice * x, 0.0);
  expect_match(y, dy, 4, 1e-14);
}

BOOST_AUTO_TEST_SUITE_END()
