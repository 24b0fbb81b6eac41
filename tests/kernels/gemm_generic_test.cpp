// lazuli's own gemm/gemv (kernels/blas/gemm_generic.cpp, gemv_generic.cpp): int32, int64,
// float, double on random strided views (row/column-major, padded, stride-2, reversed) against
// an exact wrapping reference for integers and a long-double one for floating point; blocking
// edges, alpha/beta special cases, thread-count independence, the recorder.
#include <boost/test/unit_test.hpp>

#include <support/capture.hpp>

#include <lz/errors.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/log.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace blas = lz::kernels::blas;
using lz::index_t;

namespace {

struct capture : blas::recorder {
  std::vector<blas::call> calls;
  blas::recorder* prev;
  capture() : prev(blas::set_recorder(this)) {}
  ~capture() override { blas::set_recorder(prev); }
  void record(const blas::call& c) override { calls.push_back(c); }
};

template <class T>
constexpr bool is_int = std::is_integral_v<T>;
// Integer reference arithmetic: the unsigned type of the same width wraps exactly like the
// kernels promise (and is defined behaviour, unlike signed overflow).
template <class T>
using uns_t = std::make_unsigned_t<T>;

// Values: full-range integers (products and sums overflow and wrap), or small ones; reals in
// [-1, 1).
template <class T>
T random_value(std::mt19937_64& g, bool full_range) {
  if constexpr (is_int<T>) {
    if (full_range) return static_cast<T>(g());
    return static_cast<T>(std::uniform_int_distribution<int>(-100, 100)(g));
  } else {
    return T(std::uniform_real_distribution<double>(-1.0, 1.0)(g));
  }
}

// A strided m×n view into its own buffer: element (i, j) at buf[off + i·rs + j·cs]; the buffer
// has guard elements around the view and gaps between elements for stride-2 views.
template <class T>
struct view {
  std::vector<T> buf;
  index_t off = 0, rs = 0, cs = 0, rows = 0, cols = 0;
  T* ptr() { return buf.data() + off; }
  T& operator()(index_t i, index_t j) { return buf[std::size_t(off + i * rs + j * cs)]; }
  T operator()(index_t i, index_t j) const { return buf[std::size_t(off + i * rs + j * cs)]; }
};

enum class kind { row, col, padded_row, stride2, reversed, reversed_col, transposed_stride2 };
constexpr kind kinds[] = {
    kind::row,      kind::col,          kind::padded_row,        kind::stride2,
    kind::reversed, kind::reversed_col, kind::transposed_stride2};

const char* name(kind k) {
  switch (k) {
  case kind::row:
    return "row";
  case kind::col:
    return "col";
  case kind::padded_row:
    return "padded_row";
  case kind::stride2:
    return "stride2";
  case kind::reversed:
    return "reversed";
  case kind::reversed_col:
    return "reversed_col";
  default:
    return "transposed_stride2";
  }
}

template <class T>
view<T> make_view(index_t r, index_t c, kind k, std::mt19937_64& g, bool full_range) {
  view<T> v;
  v.rows = r;
  v.cols = c;
  switch (k) {
  case kind::row:
    v.rs = c, v.cs = 1;
    break;
  case kind::col:
    v.rs = 1, v.cs = r;
    break;
  case kind::padded_row:
    v.rs = c + 3, v.cs = 1;
    break;
  case kind::stride2:
    v.rs = 2 * (2 * c), v.cs = 2;
    break; // every other row and column
  case kind::reversed:
    v.rs = -c, v.cs = -1;
    break; // both axes flipped
  case kind::reversed_col:
    v.rs = 1, v.cs = -(r + 1);
    break; // column-major, columns flipped
  case kind::transposed_stride2:
    v.rs = 2, v.cs = 2 * r + 1;
    break;
  }
  if (v.rs == 0) v.rs = 1; // empty shapes
  if (v.cs == 0) v.cs = 1;
  const index_t guard = 2;
  index_t lo = 0, hi = 0; // offsets of the extreme elements relative to (0, 0)
  for (index_t e : {(r > 0 ? r - 1 : 0) * v.rs, (c > 0 ? c - 1 : 0) * v.cs}) {
    if (e < 0)
      lo += e;
    else
      hi += e;
  }
  v.buf.resize(std::size_t(hi - lo + 1 + 2 * guard));
  for (auto& x : v.buf) x = random_value<T>(g, full_range);
  v.off = guard - lo;
  return v;
}

// Reference C = alpha·A·B + beta·C: exact wrapping for integers; long double with an error
// bound per element for floating point. Checks every element of the view and that nothing
// outside it changed.
template <class T>
void check_gemm(const view<T>& A, const view<T>& B, T alpha, T beta, const view<T>& C0,
                const view<T>& C, const std::string& what) {
  const index_t m = C.rows, n = C.cols, k = A.cols;
  std::vector<bool> inside(C.buf.size(), false);
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      inside[std::size_t(C.off + i * C.rs + j * C.cs)] = true;
      if constexpr (is_int<T>) {
        uns_t<T> s = 0;
        for (index_t p = 0; p < k; ++p) s += uns_t<T>(A(i, p)) * uns_t<T>(B(p, j));
        uns_t<T> want = uns_t<T>(alpha) * s;
        if (beta != 0) want += uns_t<T>(beta) * uns_t<T>(C0(i, j));
        if (uns_t<T>(C(i, j)) != want) {
          BOOST_ERROR(what << ": C(" << i << "," << j << ") = " << C(i, j) << ", want " << T(want));
          return;
        }
      } else {
        long double s = 0, bound = 0;
        for (index_t p = 0; p < k; ++p) {
          s += (long double)A(i, p) * B(p, j);
          bound += std::abs((long double)A(i, p) * B(p, j));
        }
        long double want = alpha * s;
        bound *= std::abs(alpha);
        if (beta != 0) {
          want += (long double)beta * C0(i, j);
          bound += std::abs((long double)beta * C0(i, j));
        }
        const long double tol = 4 * (k + 2) * std::numeric_limits<T>::epsilon() * bound + 1e-30L;
        if (!(std::abs(C(i, j) - want) <= tol)) {
          BOOST_ERROR(what << ": C(" << i << "," << j << ") = " << C(i, j) << ", want "
                           << double(want));
          return;
        }
      }
    }
  for (std::size_t e = 0; e < C.buf.size(); ++e)
    if (!inside[e] && std::memcmp(&C.buf[e], &C0.buf[e], sizeof(T)) != 0) {
      BOOST_ERROR(what << ": wrote outside the view of C at " << e);
      return;
    }
}

template <class T>
void gemm_case(std::mt19937_64& g, index_t m, index_t n, index_t k, kind ka, kind kb, kind kc,
               T alpha, T beta, bool full_range, bool nan_c = false) {
  auto A = make_view<T>(m, k, ka, g, full_range);
  auto B = make_view<T>(k, n, kb, g, full_range);
  auto C = make_view<T>(m, n, kc, g, full_range);
  if constexpr (!is_int<T>)
    if (nan_c)
      for (auto& x : C.buf) x = std::numeric_limits<T>::quiet_NaN();
  const auto C0 = C;
  capture rec;
  blas::gemm_generic<T>(m, n, k, alpha, A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs, beta, C.ptr(),
                        C.rs, C.cs);
  BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
  const auto& c = rec.calls[0];
  BOOST_TEST((c.m == m && c.n == n && c.k == k));
  BOOST_TEST((c.alpha == double(alpha) && c.beta == double(beta)));
  BOOST_TEST((c.lda == A.rs && c.ldb == B.rs && c.ldc == C.rs));
  const std::string what = std::string("m=") + std::to_string(m) + " n=" + std::to_string(n) +
                           " k=" + std::to_string(k) + " A " + name(ka) + " B " + name(kb) + " C " +
                           name(kc);
  check_gemm(A, B, alpha, beta, C0, C, what);
}

using types = std::tuple<std::int32_t, std::int64_t, float, double>;
using int_types = std::tuple<std::int32_t, std::int64_t>;
using float_types = std::tuple<float, double>;
const index_t sizes[] = {0, 1, 2, 3, 5, 7, 13, 17, 31, 61};

template <class T>
const char* routine() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return "gemm_generic<i32>";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "gemm_generic<i64>";
  else if constexpr (std::is_same_v<T, float>)
    return "gemm_generic<f32>";
  else
    return "gemm_generic<f64>";
}

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_matches_reference_on_any_strided_views, T, types) {
  std::mt19937_64 g(2024);
  std::uniform_int_distribution<std::size_t> ps(0, std::size(sizes) - 1), pk(0, 6);
  for (int rep = 0; rep < 150; ++rep) {
    const index_t m = sizes[ps(g)], n = sizes[ps(g)], k = sizes[ps(g)];
    const T betas[] = {T(0), T(1), random_value<T>(g, false)};
    gemm_case<T>(g, m, n, k, kinds[pk(g)], kinds[pk(g)], kinds[pk(g)], random_value<T>(g, false),
                 betas[rep % 3], rep % 2 == 0);
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_covers_every_layout_combination, T, types) {
  std::mt19937_64 g(99);
  for (kind ka : kinds)
    for (kind kb : kinds)
      for (kind kc : kinds)
        gemm_case<T>(g, 14, 19, 9, ka, kb, kc, random_value<T>(g, false), random_value<T>(g, false),
                     true);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_crosses_cache_block_edges, T, types) {
  // k > KC (256) splits the sum into blocks accumulated with beta = 1; m > MC and n > NR·panels
  // give several row blocks and partial micro-tiles; n > NC (2048 / 4096) several column blocks.
  std::mt19937_64 g(5);
  gemm_case<T>(g, 301, 67, 601, kind::row, kind::row, kind::row, random_value<T>(g, false),
               random_value<T>(g, false), true);
  gemm_case<T>(g, 150, 45, 300, kind::reversed, kind::col, kind::col, random_value<T>(g, false),
               T(0), true);
  gemm_case<T>(g, 5, 4099, 3, kind::row, kind::stride2, kind::padded_row, random_value<T>(g, false),
               T(1), true);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_integers_wrap_exactly_like_the_type, T, int_types) {
  // Full-range values: every product overflows and so does every sum; the result must be the
  // wrapped value bit for bit (checked against unsigned arithmetic of the same width).
  std::mt19937_64 g(77);
  for (int rep = 0; rep < 20; ++rep)
    gemm_case<T>(g, 23 + rep, 17, 40 + 13 * rep, kind::row, kind::col, kind::row,
                 random_value<T>(g, true), random_value<T>(g, true), true);
  // A case where the exact sum needs more than 64 bits: all entries at the extremes.
  view<T> A = make_view<T>(8, 300, kind::row, g, false);
  view<T> B = make_view<T>(300, 8, kind::row, g, false);
  view<T> C = make_view<T>(8, 8, kind::row, g, false);
  for (auto& x : A.buf) x = std::numeric_limits<T>::max();
  for (auto& x : B.buf) x = std::numeric_limits<T>::min();
  const auto C0 = C;
  blas::gemm_generic<T>(8, 8, 300, T(1), A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs, T(0), C.ptr(),
                        C.rs, C.cs);
  check_gemm(A, B, T(1), T(0), C0, C, "extremes");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_beta_zero_never_reads_c, T, float_types) {
  std::mt19937_64 g(1);
  for (index_t k : {0, 1, 300})
    gemm_case<T>(g, 20, 21, k, kind::row, kind::row, kind::stride2, T(1.5), T(0), false, true);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_alpha_zero_or_empty_k_scales_c, T, types) {
  std::mt19937_64 g(3);
  for (T beta : {T(0), T(1), T(3)}) {
    gemm_case<T>(g, 7, 9, 0, kind::row, kind::row, kind::col, T(2), beta, true);
    gemm_case<T>(g, 7, 9, 5, kind::row, kind::row, kind::reversed, T(0), beta, true);
  }
  gemm_case<T>(g, 0, 9, 5, kind::row, kind::row, kind::row, T(2), T(3), true);
  gemm_case<T>(g, 9, 0, 5, kind::row, kind::row, kind::row, T(2), T(3), true);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_gives_identical_bits_for_one_and_two_threads, T, types) {
  std::mt19937_64 g(8);
  // Big enough to run in parallel (m·n·k above 2^18), odd enough for partial tiles.
  auto A = make_view<T>(203, 517, kind::row, g, true);
  auto B = make_view<T>(517, 131, kind::col, g, true);
  auto C1 = make_view<T>(203, 131, kind::row, g, true);
  auto C2 = C1;
  const T alpha = random_value<T>(g, false), beta = random_value<T>(g, false);
  lz::set_num_threads(1);
  blas::gemm_generic<T>(203, 131, 517, alpha, A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs, beta,
                        C1.ptr(), C1.rs, C1.cs);
  lz::set_num_threads(2);
  blas::gemm_generic<T>(203, 131, 517, alpha, A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs, beta,
                        C2.ptr(), C2.rs, C2.cs);
  lz::set_num_threads(0);
  BOOST_TEST(std::memcmp(C1.buf.data(), C2.buf.data(), C1.buf.size() * sizeof(T)) == 0);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemm_generic_reports_one_call_with_its_routine_name, T, types) {
  std::mt19937_64 g(4);
  auto A = make_view<T>(3, 4, kind::row, g, false);
  auto B = make_view<T>(4, 5, kind::col, g, false);
  auto C = make_view<T>(3, 5, kind::padded_row, g, false);
  capture rec;
  blas::gemm_generic<T>(3, 5, 4, T(2), A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs, T(3), C.ptr(),
                        C.rs, C.cs);
  BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
  BOOST_TEST(std::string(rec.calls[0].routine) == routine<T>());
  BOOST_TEST((rec.calls[0].m == 3 && rec.calls[0].n == 5 && rec.calls[0].k == 4));
  BOOST_TEST((rec.calls[0].alpha == 2.0 && rec.calls[0].beta == 3.0));
  BOOST_TEST((rec.calls[0].lda == 4 && rec.calls[0].ldb == 1 && rec.calls[0].ldc == 8));
  BOOST_CHECK_THROW(blas::gemm_generic<T>(-1, 5, 4, T(2), A.ptr(), A.rs, A.cs, B.ptr(), B.rs, B.cs,
                                          T(3), C.ptr(), C.rs, C.cs),
                    lz::shape_error);
}

// ---- gemv_generic ------------------------------------------------------------------------------
BOOST_AUTO_TEST_CASE_TEMPLATE(gemv_generic_matches_reference_on_strided_views, T, types) {
  std::mt19937_64 g(31);
  std::uniform_int_distribution<std::size_t> ps(0, std::size(sizes) - 1), pk(0, 6), pi(0, 4);
  const index_t incs[] = {1, 2, -1, -3, 0};
  for (int rep = 0; rep < 200; ++rep) {
    const index_t m = rep < 4 ? 700 : sizes[ps(g)], n = rep < 4 ? 300 : sizes[ps(g)];
    const kind ka = kinds[pk(g)];
    const index_t incx = incs[pi(g)], incy = incs[pi(g) % 4];
    const bool full = rep % 2 == 0;
    auto A = make_view<T>(m, n, ka, g, full);
    // x as an n×1 view and y as an m×1 view with the chosen increments.
    auto x = make_view<T>(n, 1, kind::row, g, full);
    auto y = make_view<T>(m, 1, kind::row, g, full);
    auto restride = [](view<T>& v, index_t inc) {
      const index_t len = v.rows, a = inc < 0 ? -inc : inc;
      v.buf.resize(std::size_t((len > 0 ? (len - 1) * a : 0) + 5));
      v.off = 2 + (inc < 0 ? (len - 1) * a : 0);
      v.rs = inc;
    };
    restride(x, incx);
    restride(y, incy);
    for (auto& e : x.buf) e = random_value<T>(g, full);
    for (auto& e : y.buf) e = random_value<T>(g, full);
    const T alpha = rep % 7 == 3 ? T(0) : random_value<T>(g, false);
    const T beta = rep % 3 == 0 ? T(0) : rep % 3 == 1 ? T(1) : random_value<T>(g, false);
    if constexpr (!is_int<T>)
      if (beta == T(0))
        for (auto& e : y.buf) e = std::numeric_limits<T>::quiet_NaN();
    const auto y0 = y;
    capture rec;
    blas::gemv_generic<T>(m, n, alpha, A.ptr(), A.rs, A.cs, x.ptr(), incx, beta, y.ptr(), incy);
    BOOST_TEST_REQUIRE(rec.calls.size() == 1u);
    BOOST_TEST((rec.calls[0].m == m && rec.calls[0].n == n && rec.calls[0].lda == A.rs &&
                rec.calls[0].ldb == incx && rec.calls[0].ldc == incy));
    // y is C (m×1) and x is B (n×1) of a gemm: same reference.
    check_gemm(A, x, alpha, beta, y0, y,
               std::string("gemv m=") + std::to_string(m) + " n=" + std::to_string(n) + " A " +
                   name(ka) + " incx=" + std::to_string(incx) + " incy=" + std::to_string(incy));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(gemv_generic_gives_identical_bits_for_one_and_two_threads, T, types) {
  std::mt19937_64 g(12);
  for (kind ka : {kind::row, kind::col, kind::stride2}) {
    auto A = make_view<T>(1001, 333, ka, g, true);
    auto x = make_view<T>(333, 1, kind::row, g, true);
    auto y1 = make_view<T>(1001, 1, kind::row, g, true);
    auto y2 = y1;
    lz::set_num_threads(1);
    blas::gemv_generic<T>(1001, 333, T(3), A.ptr(), A.rs, A.cs, x.ptr(), 1, T(2), y1.ptr(), 1);
    lz::set_num_threads(2);
    blas::gemv_generic<T>(1001, 333, T(3), A.ptr(), A.rs, A.cs, x.ptr(), 1, T(2), y2.ptr(), 1);
    lz::set_num_threads(0);
    BOOST_TEST(std::memcmp(y1.buf.data(), y2.buf.data(), y1.buf.size() * sizeof(T)) == 0);
  }
}

BOOST_AUTO_TEST_CASE(blas_channel_traces_gemm_generic_with_strides_and_rate) {
  std::vector<std::int32_t> A(6 * 4, 1), B(4 * 5, 2), C(6 * 5, 0);
  const std::string line = lz_test::capture_stderr([&] {
    lz::logging::enable(lz::logging::blas);
    blas::gemm_generic<std::int32_t>(6, 5, 4, 2, A.data(), 1, 6, B.data(), 5, 1, 0, C.data(), 5, 1);
    lz::logging::disable(lz::logging::blas);
  });
  BOOST_TEST_MESSAGE(line);
  BOOST_TEST(line.rfind("[lz:blas] gemm_generic<i32>(m=6, n=5, k=4, alpha=2, A=(1,6), B=(5,1), "
                        "beta=0, C=(5,1)) ",
                        0) == 0);
  BOOST_TEST(line.find("GOP/s\n") != std::string::npos);
  BOOST_TEST(C[0] == 16);
}
