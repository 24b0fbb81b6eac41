// BLAS backend over CBLAS (kernels/blas/cblas.cpp): every wrapper against a naive long-double
// loop over all orders, transposes, padded leading dimensions, signed increments, degenerate
// sizes and the alpha/beta special cases; the recorder and the LZ_LOG=blas trace line.
#include <boost/test/unit_test.hpp>

#include <support/capture.hpp>

#include <lz/errors.hpp>
#include <lz/info.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/log.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace blas = lz::kernels::blas;
using blas::order;
using blas::trans;
using blas::uplo;
using lz::index_t;

// Boost.Test prints operands of failed checks: the enums print as their flag letters.
namespace lz::kernels::blas {
inline std::ostream& operator<<(std::ostream& os, order v) { return os << char(v); }
inline std::ostream& operator<<(std::ostream& os, trans v) { return os << char(v); }
inline std::ostream& operator<<(std::ostream& os, uplo v) { return os << char(v); }
} // namespace lz::kernels::blas

namespace {

// ---- recorder --------------------------------------------------------------------------------
struct capture : blas::recorder {
  std::vector<blas::call> calls;
  blas::recorder* prev;
  capture() : prev(blas::set_recorder(this)) {}
  ~capture() override { blas::set_recorder(prev); }
  void record(const blas::call& c) override { calls.push_back(c); }
};

// ---- values ------------------------------------------------------------------------------------
template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};
template <class T>
using real_t = typename real_of<T>::type;
template <class T>
constexpr bool is_complex = !std::is_same_v<T, real_t<T>>;
template <class T>
using wide_t = std::conditional_t<is_complex<T>, std::complex<long double>, long double>;

template <class T>
T random_value(std::mt19937_64& g) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  if constexpr (is_complex<T>)
    return T(real_t<T>(d(g)), real_t<T>(d(g)));
  else
    return T(d(g));
}
template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& g) {
  std::vector<T> v(n);
  for (auto& x : v) x = random_value<T>(g);
  return v;
}
template <class T>
wide_t<T> widen(T v) {
  if constexpr (is_complex<T>)
    return {v.real(), v.imag()};
  else
    return v;
}
template <class W>
long double mag(W v) {
  return std::abs(v);
}
template <class T>
T conj_if(T v, bool c) {
  if constexpr (is_complex<T>)
    return c ? std::conj(v) : v;
  else
    return v;
}
template <class T>
long double eps() {
  return std::numeric_limits<real_t<T>>::epsilon();
}

// Element (i, j) of a matrix stored in order o with leading dimension ld.
index_t at(order o, index_t i, index_t j, index_t ld) {
  return o == order::row_major ? i * ld + j : i + j * ld;
}
// Elements a stored R×C matrix spans with leading dimension ld.
index_t span(order o, index_t r, index_t c, index_t ld) {
  if (r == 0 || c == 0) return 1;
  return o == order::row_major ? (r - 1) * ld + c : (c - 1) * ld + r;
}

// Checks |got - want| <= tol·bound elementwise with a message naming the case.
template <class T, class W>
void check_close(T got, W want, long double bound, const std::string& what) {
  const long double err = mag(widen(got) - want);
  const long double tol = 8 * eps<T>() * (bound + 1e-30L);
  if (!(err <= tol))
    BOOST_ERROR(what << ": got " << got << ", want " << static_cast<double>(std::real(want))
                     << ", err " << static_cast<double>(err) << " > " << static_cast<double>(tol));
}

const index_t sizes[] = {0, 1, 2, 3, 5, 7, 13, 31, 37};
template <class T>
std::vector<trans> transes() {
  if constexpr (is_complex<T>)
    return {trans::none, trans::transpose, trans::conj_transpose};
  else
    return {trans::none, trans::transpose, trans::conj_transpose}; // 'C' means 'T' for reals
}

using all_types = std::tuple<float, double, std::complex<float>, std::complex<double>>;
using real_types = std::tuple<float, double>;

// ---- gemm ------------------------------------------------------------------------------------
template <class T>
void gemm_case(std::mt19937_64& g, order o, trans ta, trans tb, index_t m, index_t n, index_t k,
               T alpha, T beta, bool nan_c) {
  std::uniform_int_distribution<index_t> pad(0, 3);
  const bool row = o == order::row_major;
  // Stored shapes of A (op(A) m×k) and B (op(B) k×n).
  const index_t ar = ta == trans::none ? m : k, ac = ta == trans::none ? k : m;
  const index_t br = tb == trans::none ? k : n, bc = tb == trans::none ? n : k;
  const index_t lda = std::max<index_t>(1, row ? ac : ar) + pad(g);
  const index_t ldb = std::max<index_t>(1, row ? bc : br) + pad(g);
  const index_t ldc = std::max<index_t>(1, row ? n : m) + pad(g);
  auto A = random_vector<T>(std::size_t(span(o, ar, ac, lda)), g);
  auto B = random_vector<T>(std::size_t(span(o, br, bc, ldb)), g);
  auto C = random_vector<T>(std::size_t(span(o, m, n, ldc)), g);
  if (nan_c)
    for (auto& c : C) c = T(std::numeric_limits<real_t<T>>::quiet_NaN());
  const auto C0 = C;
  capture rec;
  blas::gemm(o, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
  BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
  const auto& c = rec.calls[0];
  BOOST_TEST(c.o == o);
  BOOST_TEST((c.ta == ta && c.tb == tb && c.m == m && c.n == n && c.k == k));
  BOOST_TEST((c.lda == lda && c.ldb == ldb && c.ldc == ldc));
  BOOST_TEST(c.alpha == double(std::real(alpha)));
  BOOST_TEST(c.beta == double(std::real(beta)));

  const std::string what = std::string("gemm ") + char(o) + char(ta) + char(tb) +
                           " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                           " k=" + std::to_string(k);
  std::vector<bool> inside(C.size(), false);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      wide_t<T> s = 0;
      long double bound = 0;
      for (index_t p = 0; p < k; ++p) {
        const T a = conj_if(ta == trans::none ? A[at(o, i, p, lda)] : A[at(o, p, i, lda)],
                            ta == trans::conj_transpose);
        const T b = conj_if(tb == trans::none ? B[at(o, p, j, ldb)] : B[at(o, j, p, ldb)],
                            tb == trans::conj_transpose);
        s += widen(a) * widen(b);
        bound += mag(widen(a)) * mag(widen(b));
      }
      const std::size_t ci = std::size_t(at(o, i, j, ldc));
      inside[ci] = true;
      wide_t<T> want = widen(alpha) * s;
      bound *= mag(widen(alpha));
      if (beta != T(0)) {
        want += widen(beta) * widen(C0[ci]);
        bound += mag(widen(beta)) * mag(widen(C0[ci]));
      }
      check_close(C[ci], want, bound * (k + 2), what);
    }
  for (std::size_t e = 0; e < C.size(); ++e) // padding and gaps are never written
    if (!inside[e] && std::memcmp(&C[e], &C0[e], sizeof(T)) != 0)
      BOOST_ERROR(what << ": wrote outside C at " << e);
}

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_matches_naive_product_for_every_order_and_transpose, T,
                              all_types) {
  std::mt19937_64 g(42);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(sizes) - 1);
  for (order o : {order::row_major, order::col_major})
    for (trans ta : transes<T>())
      for (trans tb : transes<T>())
        for (int rep = 0; rep < 6; ++rep) {
          const index_t m = sizes[pick(g)], n = sizes[pick(g)], k = sizes[pick(g)];
          const T betas[] = {T(0), T(1), random_value<T>(g)};
          gemm_case<T>(g, o, ta, tb, m, n, k, random_value<T>(g), betas[rep % 3], false);
        }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_with_beta_zero_ignores_nan_in_c, T, all_types) {
  std::mt19937_64 g(7);
  for (order o : {order::row_major, order::col_major})
    for (index_t k : {0, 1, 17})
      gemm_case<T>(g, o, trans::transpose, trans::none, 9, 11, k, random_value<T>(g), T(0), true);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_with_alpha_zero_or_empty_k_scales_c_by_beta, T, all_types) {
  std::mt19937_64 g(8);
  for (order o : {order::row_major, order::col_major})
    for (T beta : {T(0), T(1), random_value<T>(g)}) {
      gemm_case<T>(g, o, trans::none, trans::none, 6, 5, 0, random_value<T>(g), beta, false);
      gemm_case<T>(g, o, trans::none, trans::transpose, 6, 5, 4, T(0), beta, false);
    }
}

BOOST_AUTO_TEST_CASE(gemm_accepts_any_leading_dimension_blas_never_reads) {
  // One row of A (row-major m = 1), an empty k, one column of B: lazuli layouts may carry any
  // stride there, BLAS would reject ld < max(1, ...).
  std::vector<double> A{1, 2, 3}, B{4, 5, 6}, C{7};
  blas::gemm(order::row_major, trans::none, trans::none, 1, 1, 3, 1.0, A.data(), 0, B.data(), 1,
             0.0, C.data(), 0);
  BOOST_TEST(C[0] == 32.0);
  std::vector<double> E(6, 1.0);
  blas::gemm(order::row_major, trans::none, trans::none, 2, 3, 0, 1.0, nullptr, 0, nullptr, 0, 2.0,
             E.data(), 3);
  for (double e : E) BOOST_TEST(e == 2.0);
}

BOOST_AUTO_TEST_CASE(gemm_rejects_a_leading_dimension_that_overlaps_lines) {
  std::vector<double> A(16), B(16), C(16);
  BOOST_CHECK_THROW(blas::gemm(order::row_major, trans::none, trans::none, 3, 3, 3, 1.0, A.data(),
                               2, B.data(), 3, 0.0, C.data(), 3),
                    lz::layout_error);
  BOOST_CHECK_THROW(blas::gemm(order::row_major, trans::none, trans::none, -1, 3, 3, 1.0, A.data(),
                               3, B.data(), 3, 0.0, C.data(), 3),
                    lz::shape_error);
}

// ---- syrk ------------------------------------------------------------------------------------
BOOST_AUTO_TEST_CASE_TEMPLATE(syrk_writes_the_full_symmetric_result, T, real_types) {
  std::mt19937_64 g(11);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(sizes) - 1);
  std::uniform_int_distribution<index_t> pad(0, 3);
  for (order o : {order::row_major, order::col_major})
    for (uplo u : {uplo::upper, uplo::lower})
      for (trans t : {trans::none, trans::transpose})
        for (int rep = 0; rep < 4; ++rep) {
          const index_t n = sizes[pick(g)], k = rep == 0 ? 0 : sizes[pick(g)];
          const bool row = o == order::row_major;
          const index_t ar = t == trans::none ? n : k, ac = t == trans::none ? k : n;
          const index_t lda = std::max<index_t>(1, row ? ac : ar) + pad(g);
          const index_t ldc = std::max<index_t>(1, n) + pad(g);
          auto A = random_vector<T>(std::size_t(span(o, ar, ac, lda)), g);
          auto C = random_vector<T>(std::size_t(span(o, n, n, ldc)), g);
          for (index_t i = 0; i < n; ++i) // symmetric start, so beta·C is symmetric too
            for (index_t j = 0; j < i; ++j) C[at(o, i, j, ldc)] = C[at(o, j, i, ldc)];
          const auto C0 = C;
          const T alpha = random_value<T>(g), beta = rep % 2 ? T(0) : random_value<T>(g);
          capture rec;
          blas::syrk(o, u, t, n, k, alpha, A.data(), lda, beta, C.data(), ldc);
          BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
          BOOST_TEST(rec.calls[0].u == u);
          BOOST_TEST((rec.calls[0].n == n && rec.calls[0].k == k && rec.calls[0].ta == t));
          BOOST_TEST((rec.calls[0].lda == lda && rec.calls[0].ldc == ldc));
          for (index_t i = 0; i < n; ++i)
            for (index_t j = 0; j < n; ++j) {
              long double s = 0, bound = 0;
              for (index_t p = 0; p < k; ++p) {
                const T a = t == trans::none ? A[at(o, i, p, lda)] : A[at(o, p, i, lda)];
                const T b = t == trans::none ? A[at(o, j, p, lda)] : A[at(o, p, j, lda)];
                s += (long double)a * b;
                bound += std::abs((long double)a * b);
              }
              long double want = alpha * s;
              bound *= std::abs(alpha);
              if (beta != T(0)) {
                want += (long double)beta * C0[at(o, i, j, ldc)];
                bound += std::abs((long double)beta * C0[at(o, i, j, ldc)]);
              }
              check_close(C[at(o, i, j, ldc)], want, bound * (k + 2), "syrk");
              BOOST_TEST(C[at(o, i, j, ldc)] == C[at(o, j, i, ldc)]); // exactly symmetric
            }
        }
}

// ---- gemv ------------------------------------------------------------------------------------
namespace {
// A strided vector in lazuli's convention: element i at base[off + i·inc], off chosen so every
// element lies in the buffer (negative inc walks down from the top).
template <class T>
struct svec {
  std::vector<T> buf;
  index_t off = 0, inc = 1, n = 0;
  T* ptr() { return buf.data() + off; }
  T& operator[](index_t i) { return buf[std::size_t(off + i * inc)]; }
  T operator[](index_t i) const { return buf[std::size_t(off + i * inc)]; }
};
template <class T>
svec<T> make_svec(index_t n, index_t inc, std::mt19937_64& g) {
  svec<T> v;
  v.n = n;
  v.inc = inc;
  const index_t a = inc < 0 ? -inc : inc;
  v.buf = random_vector<T>(std::size_t(n > 0 ? (n - 1) * a + 1 : 1) + 2, g);
  v.off = 1 + (inc < 0 ? (n - 1) * a : 0);
  return v;
}
const index_t incs[] = {1, 2, -1, -3};
} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(gemv_matches_naive_product_for_signed_increments, T, all_types) {
  std::mt19937_64 g(5);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(sizes) - 1), pinc(0, 3);
  std::uniform_int_distribution<index_t> pad(0, 3);
  for (order o : {order::row_major, order::col_major})
    for (trans t : transes<T>())
      for (int rep = 0; rep < 12; ++rep) {
        const index_t m = sizes[pick(g)], n = sizes[pick(g)];
        const bool row = o == order::row_major;
        const index_t lda = std::max<index_t>(1, row ? n : m) + pad(g);
        auto A = random_vector<T>(std::size_t(span(o, m, n, lda)), g);
        const index_t xl = t == trans::none ? n : m, yl = t == trans::none ? m : n;
        const index_t incx = rep == 5 ? 0 : incs[pinc(g)], incy = incs[pinc(g)];
        auto x = make_svec<T>(xl, incx, g);
        auto y = make_svec<T>(yl, incy, g);
        const T alpha = rep == 7 ? T(0) : random_value<T>(g);
        const T beta = rep % 3 == 0 ? T(0) : rep % 3 == 1 ? T(1) : random_value<T>(g);
        if (beta == T(0))
          for (auto& v : y.buf) v = T(std::numeric_limits<real_t<T>>::quiet_NaN());
        const auto y0 = y;
        capture rec;
        blas::gemv(o, t, m, n, alpha, A.data(), lda, x.ptr(), incx, beta, y.ptr(), incy);
        BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
        const auto& c = rec.calls[0];
        BOOST_TEST((c.m == m && c.n == n && c.ta == t && c.o == o));
        BOOST_TEST((c.lda == lda && c.ldb == incx && c.ldc == incy));
        std::vector<bool> inside(y.buf.size(), false);
        for (index_t i = 0; i < yl; ++i) {
          wide_t<T> s = 0;
          long double bound = 0;
          for (index_t j = 0; j < xl; ++j) {
            const T a = conj_if(t == trans::none ? A[at(o, i, j, lda)] : A[at(o, j, i, lda)],
                                t == trans::conj_transpose);
            s += widen(a) * widen(x[j]);
            bound += mag(widen(a)) * mag(widen(x[j]));
          }
          wide_t<T> want = widen(alpha) * s;
          bound *= mag(widen(alpha));
          const T yi0 = y0[i];
          if (beta != T(0)) {
            want += widen(beta) * widen(yi0);
            bound += mag(widen(beta)) * mag(widen(yi0));
          }
          inside[std::size_t(y.off + i * incy)] = true;
          check_close(y[i], want, bound * (xl + 2), "gemv");
        }
        for (std::size_t e = 0; e < y.buf.size(); ++e)
          if (!inside[e] && std::memcmp(&y.buf[e], &y0.buf[e], sizeof(T)) != 0)
            BOOST_ERROR("gemv wrote outside y at " << e);
      }
}

BOOST_AUTO_TEST_CASE(gemv_rejects_a_zero_increment_on_a_longer_output) {
  std::vector<double> A(9, 1.0), x(3, 1.0), y(3, 0.0);
  BOOST_CHECK_THROW(blas::gemv(order::row_major, trans::none, 3, 3, 1.0, A.data(), 3, x.data(), 1,
                               0.0, y.data(), 0),
                    lz::layout_error);
}

// ---- level 1 ---------------------------------------------------------------------------------
// A size, leading dimension or increment wider than the CBLAS's integers (32 bits for LP64
// builds) is refused before the call: the pointers here hold a few elements, and the output is
// left as it was.
BOOST_AUTO_TEST_CASE(sizes_wider_than_the_cblas_integers_are_refused_before_the_call) {
  if (blas::integer_bits() >= 64) return; // (an ILP64 CBLAS takes every index_t)
  const index_t wide = index_t(1) << blas::integer_bits();
  const std::string want = "exceeds the " + std::to_string(blas::integer_bits()) + "-bit";
  std::vector<double> x(4, 1.0), y(4, 2.0), C(4, 3.0);
  auto refused = [&](auto&& call, const char* what) {
    capture rec;
    try {
      call();
      BOOST_ERROR(what << ": no error");
    } catch (const lz::layout_error& e) {
      BOOST_TEST(std::string(e.what()).find(want) != std::string::npos, e.what());
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
    BOOST_TEST(rec.calls.size() == 1u); // (recorded, then refused)
  };
  refused([&] { (void)blas::dot(wide, x.data(), 1, y.data(), 1); }, "n = ");
  refused([&] { (void)blas::dot(2, x.data(), wide, y.data(), 1); }, "incx = ");
  refused([&] { blas::axpy(2, 2.0, x.data(), 1, y.data(), -wide); }, "incy = ");
  refused(
      [&] {
        blas::gemm(order::row_major, trans::none, trans::none, 2, 2, 2, 1.0, x.data(), wide,
                   y.data(), 2, 0.0, C.data(), 2);
      },
      "lda = ");
  refused(
      [&] {
        blas::gemv(order::row_major, trans::none, 2, 2, 1.0, x.data(), 2, y.data(), 1, 0.0,
                   C.data(), wide);
      },
      "incy = ");
  for (double v : y) BOOST_TEST(v == 2.0);
  for (double v : C) BOOST_TEST(v == 3.0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(axpy_scal_dot_match_naive_loops_for_signed_increments, T,
                              real_types) {
  std::mt19937_64 g(3);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(sizes) - 1), pinc(0, 3);
  for (int rep = 0; rep < 40; ++rep) {
    const index_t n = sizes[pick(g)];
    const index_t incx = rep % 10 == 9 ? 0 : incs[pinc(g)], incy = incs[pinc(g)];
    auto x = make_svec<T>(n, incx, g);
    auto y = make_svec<T>(n, incy, g);
    const T alpha = rep % 10 == 4 ? T(0) : random_value<T>(g);
    {
      auto y0 = y;
      capture rec;
      blas::axpy(n, alpha, x.ptr(), incx, y.ptr(), incy);
      BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
      BOOST_TEST(std::string(rec.calls[0].routine) == (sizeof(T) == 4 ? "saxpy" : "daxpy"));
      BOOST_TEST((rec.calls[0].n == n && rec.calls[0].lda == incx && rec.calls[0].ldb == incy));
      for (index_t i = 0; i < n; ++i) {
        const long double want = (long double)alpha * x[i] + y0[i];
        check_close(y[i], want, std::abs((long double)alpha * x[i]) + std::abs(y0[i]), "axpy");
      }
    }
    {
      const index_t inc = incx == 0 ? 1 : incx;
      auto z = make_svec<T>(n, inc, g);
      auto z0 = z;
      capture rec;
      blas::scal(n, alpha, z.ptr(), inc);
      BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
      BOOST_TEST((rec.calls[0].n == n && rec.calls[0].lda == inc));
      for (index_t i = 0; i < n; ++i)
        check_close(z[i], (long double)alpha * z0[i], std::abs((long double)alpha * z0[i]), "scal");
      for (std::size_t e = 0; e < z.buf.size(); ++e) {
        const index_t d = index_t(e) - z.off;
        const bool in = n > 0 && d % inc == 0 && d / inc >= 0 && d / inc < n;
        if (!in) BOOST_TEST(z.buf[e] == z0.buf[e]);
      }
    }
    {
      capture rec;
      const T r = blas::dot(n, x.ptr(), incx, y.ptr(), incy);
      BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
      BOOST_TEST((rec.calls[0].n == n && rec.calls[0].lda == incx && rec.calls[0].ldb == incy));
      long double s = 0, bound = 0;
      for (index_t i = 0; i < n; ++i) {
        s += (long double)x[i] * y[i];
        bound += std::abs((long double)x[i] * y[i]);
      }
      check_close(r, s, bound * (n + 1), "dot");
    }
  }
}

// ---- information, threads, trace -------------------------------------------------------------
// LZ_TEST_BLAS: the build's LZ_BLAS (tests/CMakeLists.txt).
BOOST_AUTO_TEST_CASE(info_names_library_core_threads_and_model) {
  const std::string s = blas::info();
  BOOST_TEST_MESSAGE(s);
  if (std::string(LZ_TEST_BLAS) == "openblas") {
    BOOST_TEST(s.rfind("OpenBLAS ", 0) == 0);
    BOOST_TEST(s.find("(core ") != std::string::npos);
    blas::set_num_threads(1);
    BOOST_TEST(blas::info().find(", 1 thread, ") != std::string::npos);
    blas::set_num_threads(0);
  } else { // another CBLAS: its name and the file that provides cblas_dgemm
    BOOST_TEST(s.rfind(std::string("CBLAS ") + LZ_TEST_BLAS + " (", 0) == 0, s);
    BOOST_TEST(s.find(std::string("lib") + LZ_TEST_BLAS) != std::string::npos, s);
  }
}

// Issue 30 (first part): an OpenBLAS core narrower than the CPU is named, with the fix.
BOOST_AUTO_TEST_CASE(a_blas_core_narrower_than_the_cpu_is_reported_with_the_coretype_to_set) {
  using blas::isa;
  BOOST_TEST(int(blas::core_isa("Prescott")) == int(isa::sse));
  BOOST_TEST(int(blas::core_isa("Sandybridge")) == int(isa::avx));
  BOOST_TEST(int(blas::core_isa("Haswell")) == int(isa::avx2));
  BOOST_TEST(int(blas::core_isa("Zen")) == int(isa::avx2));
  BOOST_TEST(int(blas::core_isa("SkylakeX")) == int(isa::avx512));
  BOOST_TEST(int(blas::core_isa("Cooperlake")) == int(isa::avx512));
  const std::string prescott = blas::narrower_core_warning("Prescott", isa::avx512);
  BOOST_TEST(prescott.find("OpenBLAS runs its Prescott kernels (SSE) on a CPU with AVX-512") !=
                 std::string::npos,
             prescott);
  BOOST_TEST(prescott.find("OPENBLAS_CORETYPE=SkylakeX") != std::string::npos, prescott);
  BOOST_TEST(blas::narrower_core_warning("Zen", isa::avx512).find("OPENBLAS_CORETYPE=SkylakeX") !=
             std::string::npos);
  BOOST_TEST(
      blas::narrower_core_warning("Sandybridge", isa::avx2).find("OPENBLAS_CORETYPE=Haswell") !=
      std::string::npos);
  BOOST_TEST(blas::narrower_core_warning("Haswell", isa::avx2).empty());
  BOOST_TEST(blas::narrower_core_warning("SkylakeX", isa::avx2).empty());
  BOOST_TEST(blas::narrower_core_warning("Prescott", isa::sse).empty());
}

// lz::info() carries the warning for the core in use. Run plainly, and by CTest with
// OPENBLAS_CORETYPE=Prescott (openblas_prescott_core_is_reported), where any CPU with AVX or
// wider must get it.
BOOST_AUTO_TEST_CASE(lz_info_warns_when_the_blas_core_in_use_is_narrower) {
  const std::string s = blas::info(), info = lz::info();
  const std::size_t at = s.find("(core ");
  if (std::string(LZ_TEST_BLAS) != "openblas" || at == std::string::npos) {
    BOOST_TEST(blas::core_warning().empty());
    return;
  }
  const std::string core = s.substr(at + 6, s.find(',', at) - at - 6);
  const std::string expect = blas::narrower_core_warning(core, blas::cpu_isa());
  BOOST_TEST(blas::core_warning() == expect);
  BOOST_TEST((info.find("warning: OpenBLAS runs its") != std::string::npos) == !expect.empty(),
             info);
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced && std::string(forced) == "Prescott" && int(blas::cpu_isa()) > int(blas::isa::sse))
    BOOST_TEST(!expect.empty(), "OPENBLAS_CORETYPE=Prescott on a CPU with AVX or wider");
}

// Issue 30: with no OPENBLAS_CORETYPE, a core narrower than the CPU is replaced at start-up by
// the CPU's width; the switch itself (OpenBLAS's dynamic dispatch redone) is checked by moving to
// Haswell and back, with a product computed on each.
BOOST_AUTO_TEST_CASE(a_narrower_openblas_core_is_switched_to_the_cpus_width_unless_the_user_chose) {
  using blas::isa;
  BOOST_TEST(blas::better_core("Prescott", isa::avx512, nullptr) == "SkylakeX");
  BOOST_TEST(blas::better_core("Prescott", isa::avx2, nullptr) == "Haswell");
  BOOST_TEST(blas::better_core("Zen", isa::avx512, nullptr) == "SkylakeX");
  BOOST_TEST(blas::better_core("Haswell", isa::avx2, nullptr) == "");
  BOOST_TEST(blas::better_core("SkylakeX", isa::avx512, nullptr) == "");
  BOOST_TEST(blas::better_core("Prescott", isa::avx512, "Prescott") == ""); // the user's choice
  const std::string s = blas::info();
  const std::size_t at = s.find("(core ");
  if (std::string(LZ_TEST_BLAS) != "openblas" || at == std::string::npos) {
    BOOST_TEST(!blas::select_core("Haswell"));
    return;
  }
  const std::string origin = blas::core_origin();
  BOOST_TEST(lz::info().find("core " + origin) != std::string::npos, lz::info());
  if (std::getenv("OPENBLAS_CORETYPE"))
    BOOST_TEST(origin == "OPENBLAS_CORETYPE");
  else // whatever OpenBLAS detected, the core in use is as wide as the CPU
    BOOST_TEST(blas::core_warning().empty(), blas::core_warning() << " (" << origin << ")");
  if (int(blas::cpu_isa()) < int(isa::avx2)) return;
  const std::string before = s.substr(at + 6, s.find(',', at) - at - 6);
  std::vector<double> A(70 * 50), B(50 * 40), ref(70 * 40), C(70 * 40);
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = std::sin(double(i));
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = std::cos(double(i));
  auto product = [&](std::vector<double>& out) {
    blas::gemm(blas::order::row_major, blas::trans::none, blas::trans::none, 70, 40, 50, 1.0,
               A.data(), 50, B.data(), 40, 0.0, out.data(), 40);
  };
  product(ref);
  BOOST_TEST_REQUIRE(blas::select_core("Haswell"));
  BOOST_TEST(blas::info().find("(core Haswell,") != std::string::npos, blas::info());
  product(C);
  double diff = 0;
  for (std::size_t i = 0; i < C.size(); ++i) diff = std::max(diff, std::abs(C[i] - ref[i]));
  BOOST_TEST(diff < 1e-12);
  BOOST_TEST(blas::select_core(before));
  BOOST_TEST(blas::info().find("(core " + before + ",") != std::string::npos, blas::info());
}

BOOST_AUTO_TEST_CASE(blas_channel_traces_one_line_per_call) {
  std::vector<double> A(512 * 256, 1.0), B(512 * 128, 1.0), C(512 * 128, 1.0);
  const std::string line = lz_test::capture_stderr([&] {
    lz::logging::enable(lz::logging::blas);
    blas::gemm(order::row_major, trans::transpose, trans::none, 256, 128, 512, 2.0, A.data(), 256,
               B.data(), 128, 3.0, C.data(), 128);
    lz::logging::disable(lz::logging::blas);
  });
  BOOST_TEST_MESSAGE(line);
  BOOST_TEST(line.rfind("[lz:blas] dgemm(R, T, N, m=256, n=128, k=512, alpha=2, lda=256, "
                        "ldb=128, beta=3, ldc=128) ",
                        0) == 0);
  BOOST_TEST(line.find("GFLOP/s\n") != std::string::npos);
  BOOST_TEST(std::count(line.begin(), line.end(), '\n') == 1);
  BOOST_TEST(C[0] == 2.0 * 512 + 3.0);
}
