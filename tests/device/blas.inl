// Device BLAS interface (kernels/include/lz/kernels/cuda/blas.hpp), the calls a fusion plan's
// device steps make: gemm/gemv in both orders with every trans flag, axpy and dot with negative
// increments, gemm + bias + ReLU. Compared with a plain triple loop on the host. Thrust-free (g++
// in both builds): on the host system it runs CBLAS, in the CUDA build cuBLAS (skips without GPU).
#include <boost/test/unit_test.hpp>

#include <lz/device/tensor.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <support/reference.hpp>

#include <cmath>
#include <vector>

BOOST_AUTO_TEST_SUITE(device_blas)

namespace dblas = lz::kernels::dev::blas;
using dblas::order;
using dblas::trans;
using lz::index_t;

namespace {

// Host data + device copy of a buffer.
template <class T>
struct buf {
  std::vector<T> h;
  lz::device_tensor<T, 1> d;
  explicit buf(std::vector<T> v) : h(std::move(v)), d(lz::shape_t<1>{index_t(h.size())}) {
    d.copy_from_host(h.data());
  }
  std::vector<T> back() const {
    std::vector<T> out(h.size());
    d.copy_to_host(out.data());
    return out;
  }
};

template <class T>
std::vector<T> random_vec(std::size_t n, std::uint64_t seed) {
  auto t = lz::random<T>(lz::shape_t<1>{index_t(n)}, seed, lz::uniform{-1, 1});
  return std::vector<T>(t.begin(), t.end());
}

// Element (i, j) of an r×c matrix stored with leading dim ld in order o.
template <class T>
T at(const std::vector<T>& a, order o, index_t ld, index_t i, index_t j) {
  return o == order::row_major ? a[std::size_t(i * ld + j)] : a[std::size_t(i + j * ld)];
}

template <class T>
double worst(const std::vector<T>& a, const std::vector<T>& b) {
  double w = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    w = std::max(w, std::fabs(double(a[i]) - double(b[i])));
  return w;
}

template <class T>
void check_gemm(order o, trans ta, trans tb, double tol) {
  const index_t m = 37, n = 29, k = 23;
  const index_t ar = ta == trans::none ? m : k, ac = ta == trans::none ? k : m;
  const index_t br = tb == trans::none ? k : n, bc = tb == trans::none ? n : k;
  const index_t lda = (o == order::row_major ? ac : ar) + 3,
                ldb = (o == order::row_major ? bc : br) + 1;
  const index_t ldc = (o == order::row_major ? n : m) + 2;
  const index_t acols = o == order::row_major ? ar : ac, bcols = o == order::row_major ? br : bc;
  const index_t ccols = o == order::row_major ? m : n;
  buf<T> A(random_vec<T>(std::size_t(lda * acols), 1)),
      B(random_vec<T>(std::size_t(ldb * bcols), 2)), C(random_vec<T>(std::size_t(ldc * ccols), 3));
  const T alpha = T(1.5), beta = T(-0.5);
  dblas::gemm(nullptr, o, ta, tb, m, n, k, alpha, A.d.data(), lda, B.d.data(), ldb, beta,
              C.d.data(), ldc);
  lz::kernels::dev::stream_sync(nullptr);
  std::vector<T> want = C.h;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = 0;
      for (index_t p = 0; p < k; ++p) {
        const T a = ta == trans::none ? at(A.h, o, lda, i, p) : at(A.h, o, lda, p, i);
        const T b = tb == trans::none ? at(B.h, o, ldb, p, j) : at(B.h, o, ldb, j, p);
        s += double(a) * double(b);
      }
      T& c =
          o == order::row_major ? want[std::size_t(i * ldc + j)] : want[std::size_t(i + j * ldc)];
      c = T(alpha * s + beta * double(c));
    }
  BOOST_TEST(worst(C.back(), want) <= tol);
}

} // namespace

BOOST_AUTO_TEST_CASE(gemm_matches_a_triple_loop_for_every_order_and_flag) {
  for (order o : {order::row_major, order::col_major})
    for (trans ta : {trans::none, trans::transpose})
      for (trans tb : {trans::none, trans::transpose}) {
        check_gemm<double>(o, ta, tb, 1e-12);
        check_gemm<float>(o, ta, tb, 1e-4);
      }
}

BOOST_AUTO_TEST_CASE(gemv_axpy_and_dot_match_loops_with_negative_increments) {
  const index_t m = 41, n = 19, lda = 24;
  for (order o : {order::row_major, order::col_major})
    for (trans t : {trans::none, trans::transpose}) {
      const index_t nx = t == trans::none ? n : m, ny = t == trans::none ? m : n;
      buf<double> A(random_vec<double>(std::size_t(lda * (o == order::row_major ? m : n)), 4));
      if (o == order::col_major) A = buf<double>(random_vec<double>(std::size_t(64 * n), 4));
      const index_t ld = o == order::row_major ? lda : 64;
      buf<double> x(random_vec<double>(std::size_t(2 * nx), 5)),
          y(random_vec<double>(std::size_t(ny), 6));
      // x walks backwards with stride -2 from its last pair: element 0 at the top
      dblas::gemv(nullptr, o, t, m, n, 2.0, A.d.data(), ld, x.d.data() + 2 * (nx - 1), -2, 1.0,
                  y.d.data(), 1);
      lz::kernels::dev::stream_sync(nullptr);
      std::vector<double> want = y.h;
      for (index_t i = 0; i < ny; ++i) {
        double s = 0;
        for (index_t j = 0; j < nx; ++j) {
          const double a = t == trans::none ? at(A.h, o, ld, i, j) : at(A.h, o, ld, j, i);
          s += a * x.h[std::size_t(2 * (nx - 1 - j))];
        }
        want[std::size_t(i)] += 2.0 * s;
      }
      BOOST_TEST(worst(y.back(), want) <= 1e-12);
    }
  buf<double> x(random_vec<double>(300, 7)), y(random_vec<double>(100, 8));
  dblas::axpy(nullptr, 100, -3.0, x.d.data() + 297, -3, y.d.data(), 1);
  lz::kernels::dev::stream_sync(nullptr);
  std::vector<double> want = y.h;
  for (std::size_t i = 0; i < 100; ++i) want[i] += -3.0 * x.h[297 - 3 * i];
  BOOST_TEST(worst(y.back(), want) <= 1e-14);
  buf<double> r(std::vector<double>{0.0});
  dblas::dot(nullptr, 100, x.d.data(), 3, y.d.data(), 1, r.d.data());
  lz::kernels::dev::stream_sync(nullptr);
  double s = 0;
  for (std::size_t i = 0; i < 100; ++i) s += x.h[3 * i] * want[i];
  BOOST_TEST(std::fabs(r.back()[0] - s) <= 1e-12);
}

BOOST_AUTO_TEST_CASE(gemm_bias_relu_is_maximum_of_product_plus_bias_and_zero) {
  const index_t m = 33, n = 21, k = 17;
  buf<float> A(random_vec<float>(std::size_t(m * k), 9)),
      B(random_vec<float>(std::size_t(n * k), 10)), bias(random_vec<float>(std::size_t(n), 11)),
      C(std::vector<float>(std::size_t(m * n), 0.f));
  // A row-major m×k, B stored n×k and used transposed (the layout of a linear layer's weights)
  const bool ran =
      dblas::gemm_bias_relu(nullptr, trans::none, trans::transpose, m, n, k, 1.0f, A.d.data(), k,
                            B.d.data(), k, bias.d.data(), C.d.data(), n);
  if (!ran) {
    BOOST_TEST_MESSAGE("cuBLASLt has no bias+ReLU algorithm here: the caller falls back");
    return;
  }
  lz::kernels::dev::stream_sync(nullptr);
  std::vector<float> want(std::size_t(m * n));
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = bias.h[std::size_t(j)];
      for (index_t p = 0; p < k; ++p)
        s += double(A.h[std::size_t(i * k + p)]) * B.h[std::size_t(j * k + p)];
      want[std::size_t(i * n + j)] = float(s > 0 ? s : 0);
    }
  BOOST_TEST(worst(C.back(), want) <= 1e-4);
}

BOOST_AUTO_TEST_SUITE_END()
