// The sparse kernels (kernels/sparse/*.cpp): spmv and spmm against a dense reference loop on
// random patterns (empty rows, empty and 1×1 matrices, one-entry rows) for the four value types,
// both index types, the three ops and any signed strides; beta == 0 and alpha == 0; results that
// do not depend on the thread count; the recorder and the blas trace; building patterns from
// triplets, checking and sorting them.
#include <boost/test/unit_test.hpp>

#include <support/capture.hpp>
#include <support/recording.hpp>

#include <lz/errors.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/sparse/csr.hpp>
#include <lz/log.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace sp = lz::kernels::sparse;
namespace blas = lz::kernels::blas;
using blas::trans;
using lz::index_t;

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;

template <class V>
constexpr bool is_cplx = !std::is_arithmetic_v<V>;
template <class V>
struct real_of {
  using type = V;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};

template <class V>
V draw(std::mt19937_64& g) {
  std::uniform_real_distribution<double> d(-1, 1);
  if constexpr (is_cplx<V>) {
    using R = typename V::value_type;
    const R re = R(d(g));
    return V(re, R(d(g)));
  } else {
    return V(d(g));
  }
}
template <class V>
V nan_value() {
  using R = typename real_of<V>::type;
  if constexpr (is_cplx<V>)
    return V(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  else
    return std::numeric_limits<R>::quiet_NaN();
}
// A scalar of V from a complex number (the imaginary part dropped for real types).
template <class V>
V scalar(cd v) {
  if constexpr (is_cplx<V>)
    return V(typename V::value_type(v.real()), typename V::value_type(v.imag()));
  else
    return V(v.real());
}
template <class V>
double tolerance() {
  using R = typename real_of<V>::type;
  return std::is_same_v<R, float> ? 1e-5 : 1e-13;
}

// A CSR matrix owning its arrays: `density` of the entries present, columns sorted; rows listed
// in `empty` have none.
template <class V, class I>
struct matrix {
  index_t rows = 0, cols = 0;
  std::vector<I> row_ptr{0}, col_idx;
  std::vector<V> values;
  sp::csr<V, I> view() const {
    return {rows, cols, index_t(values.size()), row_ptr.data(), col_idx.data(), values.data()};
  }
  // Dense copy in cd (row-major).
  std::vector<cd> dense() const {
    std::vector<cd> d(static_cast<std::size_t>(rows * cols));
    for (index_t i = 0; i < rows; ++i)
      for (index_t k = row_ptr[std::size_t(i)]; k < row_ptr[std::size_t(i + 1)]; ++k)
        d[std::size_t(i * cols + col_idx[std::size_t(k)])] = cd(values[std::size_t(k)]);
    return d;
  }
};

template <class V, class I>
matrix<V, I> random_matrix(index_t rows, index_t cols, double density, std::uint64_t seed,
                           std::vector<index_t> empty = {}) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  matrix<V, I> a;
  a.rows = rows;
  a.cols = cols;
  for (index_t i = 0; i < rows; ++i) {
    const bool none = std::find(empty.begin(), empty.end(), i) != empty.end();
    for (index_t j = 0; j < cols && !none; ++j)
      if (u(g) < density) {
        a.col_idx.push_back(I(j));
        a.values.push_back(draw<V>(g));
      }
    a.row_ptr.push_back(I(a.values.size()));
  }
  return a;
}

// op(A) as a dense cd matrix (rows × cols of op(A)), row-major.
template <class V, class I>
std::vector<cd> op_dense(const matrix<V, I>& a, trans t, index_t& m, index_t& n) {
  const std::vector<cd> d = a.dense();
  if (t == trans::none) {
    m = a.rows;
    n = a.cols;
    return d;
  }
  m = a.cols;
  n = a.rows;
  std::vector<cd> o(d.size());
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t j = 0; j < a.cols; ++j) {
      const cd v = d[std::size_t(i * a.cols + j)];
      o[std::size_t(j * a.rows + i)] = t == trans::conj_transpose ? std::conj(v) : v;
    }
  return o;
}

// A strided vector of n elements at stride inc inside its own buffer (element 0 at `at`).
template <class V>
struct strided {
  std::vector<V> buf;
  index_t inc, at;
  strided(index_t n, index_t inc_, std::mt19937_64& g) : inc(inc_) {
    const index_t span = n == 0 ? 1 : (n - 1) * (inc < 0 ? -inc : inc) + 1;
    buf.resize(static_cast<std::size_t>(span + 2));
    for (auto& v : buf) v = draw<V>(g);
    at = 1 + (inc < 0 ? span - 1 : 0);
  }
  V* ptr() { return buf.data() + at; }
  V& operator[](index_t i) { return buf[std::size_t(at + i * inc)]; }
};

// |got - want| within tol·scale, for every element; names the first mismatch.
void check_close(const std::vector<cd>& got, const std::vector<cd>& want,
                 const std::vector<double>& scale, double tol, const std::string& what) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(got[i] - want[i]);
    if (!(err <= tol * (scale[i] + 1e-30))) {
      BOOST_ERROR(what << ": element " << i << " is " << got[i] << ", expected " << want[i]);
      return;
    }
  }
}

const char* op_name(trans t) { return t == trans::none ? "N" : t == trans::transpose ? "T" : "C"; }

// The pattern sizes every product test runs on.
template <class V, class I>
std::vector<matrix<V, I>> patterns() {
  std::vector<matrix<V, I>> p;
  p.push_back(random_matrix<V, I>(0, 5, 0.5, 1));               // no rows
  p.push_back(random_matrix<V, I>(4, 0, 0.5, 2));               // no columns
  p.push_back(random_matrix<V, I>(1, 1, 1.0, 3));               // 1×1
  p.push_back(random_matrix<V, I>(3, 3, 0.0, 4));               // all rows empty
  p.push_back(random_matrix<V, I>(7, 5, 0.45, 5, {0, 3, 6}));   // empty rows at both ends
  p.push_back(random_matrix<V, I>(9, 11, 0.12, 6));             // many one-entry rows
  p.push_back(random_matrix<V, I>(40, 33, 0.3, 7, {5, 6, 39})); // rows of 0 to ~20 entries
  p.push_back(random_matrix<V, I>(12, 70, 0.6, 8));             // long rows (two accumulators)
  return p;
}

const cd alphas_betas[][2] = {{{1, 0}, {0, 0}},
                              {{2.5, -0.5}, {-1.5, 0.25}},
                              {{0, 0}, {2, 1}},
                              {{0, 0}, {0, 0}},
                              {{-1, 0}, {1, 0}}};

template <class V, class I>
void spmv_against_reference() {
  std::mt19937_64 g(11);
  const index_t strides[][2] = {{1, 1}, {2, -3}, {-1, 2}, {3, 1}};
  for (const auto& a : patterns<V, I>())
    for (trans t : {trans::none, trans::transpose, trans::conj_transpose}) {
      index_t m, n;
      const std::vector<cd> d = op_dense(a, t, m, n);
      for (const auto& s : strides)
        for (const auto& ab : alphas_betas) {
          const V alpha = scalar<V>(ab[0]), beta = scalar<V>(ab[1]);
          strided<V> x(n, s[0], g), y(m, s[1], g);
          if (beta == V(0))
            for (auto& v : y.buf) v = nan_value<V>();
          std::vector<V> y0(static_cast<std::size_t>(m));
          for (index_t i = 0; i < m; ++i) y0[std::size_t(i)] = y[i];
          sp::spmv<V, I>(t, a.view(), alpha, x.ptr(), x.inc, beta, y.ptr(), y.inc, false);
          std::vector<cd> got(static_cast<std::size_t>(m)), want(static_cast<std::size_t>(m));
          std::vector<double> scale(static_cast<std::size_t>(m));
          for (index_t i = 0; i < m; ++i) {
            cd sum = 0;
            double mag = 0;
            for (index_t j = 0; j < n; ++j) {
              sum += d[std::size_t(i * n + j)] * cd(x[j]);
              mag += std::abs(d[std::size_t(i * n + j)]) * std::abs(cd(x[j]));
            }
            const cd a0 = cd(alpha), b0 = cd(beta);
            want[std::size_t(i)] = a0 * sum + (beta == V(0) ? cd(0) : b0 * cd(y0[std::size_t(i)]));
            scale[std::size_t(i)] =
                std::abs(a0) * mag +
                (beta == V(0) ? 0 : std::abs(b0) * std::abs(cd(y0[std::size_t(i)])));
            got[std::size_t(i)] = cd(y[i]);
          }
          check_close(got, want, scale, tolerance<V>(),
                      std::string("spmv ") + op_name(t) + " " + std::to_string(a.rows) + "x" +
                          std::to_string(a.cols) + " incx=" + std::to_string(s[0]) + " incy=" +
                          std::to_string(s[1]) + " alpha=" + std::to_string(ab[0].real()) +
                          " beta=" + std::to_string(ab[1].real()));
          // the buffer outside y is untouched
          if (m > 0 && beta == V(0)) {
            BOOST_TEST(std::isnan(std::abs(cd(y.buf.front()))));
            BOOST_TEST(std::isnan(std::abs(cd(y.buf.back()))));
          }
        }
    }
}

BOOST_AUTO_TEST_CASE(spmv_matches_a_dense_loop_for_every_type_op_stride_alpha_and_beta) {
  spmv_against_reference<float, std::int32_t>();
  spmv_against_reference<double, std::int32_t>();
  spmv_against_reference<cf, std::int32_t>();
  spmv_against_reference<cd, std::int32_t>();
  spmv_against_reference<float, std::int64_t>();
  spmv_against_reference<double, std::int64_t>();
  spmv_against_reference<cf, std::int64_t>();
  spmv_against_reference<cd, std::int64_t>();
}

// A strided matrix r × c in its own buffer: (i, j) at at + i·rs + j·cs.
template <class V>
struct strided_mat {
  std::vector<V> buf;
  index_t rs, cs, at;
  strided_mat(index_t r, index_t c, index_t rs_, index_t cs_, std::mt19937_64& g)
      : rs(rs_), cs(cs_) {
    auto span = [](index_t n, index_t s) { return n == 0 ? 0 : (n - 1) * (s < 0 ? -s : s); };
    buf.resize(std::size_t(span(r, rs) + span(c, cs) + 3));
    for (auto& v : buf) v = draw<V>(g);
    at = 1 + (rs < 0 ? span(r, rs) : 0) + (cs < 0 ? span(c, cs) : 0);
  }
  V* ptr() { return buf.data() + at; }
  V& operator()(index_t i, index_t j) { return buf[std::size_t(at + i * rs + j * cs)]; }
};

template <class V, class I>
void spmm_against_reference() {
  std::mt19937_64 g(12);
  for (const auto& a : patterns<V, I>())
    for (trans t : {trans::none, trans::transpose, trans::conj_transpose}) {
      index_t m, n;
      const std::vector<cd> d = op_dense(a, t, m, n);
      for (index_t k : {1, 3, 4, 16, 21, 40}) {
        // B and C layouts: row-major, column-major, padded/negative strides, one of each.
        const index_t lay[][4] = {
            {k, 1, k, 1},       {1, n + 1, 1, m + 2},     {k, 1, 1, m},
            {-2 * k, 2, 1, -m}, {1, -(n + 1), -k - 1, 1}, {k + 3, 1, 2 * k, 2}};
        for (const auto& l : lay)
          for (const auto& ab : alphas_betas) {
            const V alpha = scalar<V>(ab[0]), beta = scalar<V>(ab[1]);
            strided_mat<V> B(n, k, l[0], l[1], g), C(m, k, l[2], l[3], g);
            if (beta == V(0))
              for (auto& v : C.buf) v = nan_value<V>();
            std::vector<V> c0(static_cast<std::size_t>(m * k));
            for (index_t i = 0; i < m; ++i)
              for (index_t j = 0; j < k; ++j) c0[std::size_t(i * k + j)] = C(i, j);
            sp::spmm<V, I>(t, a.view(), k, alpha, B.ptr(), B.rs, B.cs, beta, C.ptr(), C.rs, C.cs,
                           false);
            std::vector<cd> got(static_cast<std::size_t>(m * k)), want(got.size());
            std::vector<double> scale(got.size());
            for (index_t i = 0; i < m; ++i)
              for (index_t j = 0; j < k; ++j) {
                cd sum = 0;
                double mag = 0;
                for (index_t p = 0; p < n; ++p) {
                  sum += d[std::size_t(i * n + p)] * cd(B(p, j));
                  mag += std::abs(d[std::size_t(i * n + p)]) * std::abs(cd(B(p, j)));
                }
                const std::size_t q = std::size_t(i * k + j);
                want[q] = cd(alpha) * sum + (beta == V(0) ? cd(0) : cd(beta) * cd(c0[q]));
                scale[q] = std::abs(cd(alpha)) * mag +
                           (beta == V(0) ? 0 : std::abs(cd(beta)) * std::abs(cd(c0[q])));
                got[q] = cd(C(i, j));
              }
            check_close(got, want, scale, tolerance<V>(),
                        std::string("spmm ") + op_name(t) + " " + std::to_string(a.rows) + "x" +
                            std::to_string(a.cols) + " k=" + std::to_string(k) + " B=(" +
                            std::to_string(l[0]) + "," + std::to_string(l[1]) + ") C=(" +
                            std::to_string(l[2]) + "," + std::to_string(l[3]) + ")");
          }
      }
    }
}

BOOST_AUTO_TEST_CASE(spmm_matches_a_dense_loop_for_every_type_op_layout_alpha_and_beta) {
  spmm_against_reference<float, std::int32_t>();
  spmm_against_reference<double, std::int32_t>();
  spmm_against_reference<cf, std::int32_t>();
  spmm_against_reference<cd, std::int32_t>();
  spmm_against_reference<double, std::int64_t>();
  spmm_against_reference<cf, std::int64_t>();
}

BOOST_AUTO_TEST_CASE(alpha_zero_gives_beta_times_y_without_reading_x_or_the_matrix) {
  const auto a = random_matrix<double, std::int32_t>(6, 4, 0.5, 20);
  for (trans t : {trans::none, trans::transpose}) {
    const index_t m = t == trans::none ? 6 : 4, n = t == trans::none ? 4 : 6;
    std::vector<double> x(std::size_t(n), std::nan("")), y(std::size_t(m), 3.0);
    sp::spmv<double, std::int32_t>(t, a.view(), 0.0, x.data(), 1, 2.0, y.data(), 1, true);
    for (double v : y) BOOST_TEST(v == 6.0);
    sp::spmv<double, std::int32_t>(t, a.view(), 0.0, x.data(), 1, 0.0, y.data(), 1, true);
    for (double v : y) BOOST_TEST(v == 0.0);
    std::vector<double> B(std::size_t(n * 3), std::nan("")), C(std::size_t(m * 3), 1.5);
    sp::spmm<double, std::int32_t>(t, a.view(), 3, 0.0, B.data(), 3, 1, -2.0, C.data(), 3, 1, true);
    for (double v : C) BOOST_TEST(v == -3.0);
  }
}

// A matrix big enough that every split happens: ~300k entries, uneven rows (some empty, some
// long), so chunks of equal entries are not chunks of equal rows. Columns uniformly random, or
// (band > 0) within `band` of each row's diagonal position: the transposed products split the
// output over threads only when rows mostly fall in one range.
template <class V>
matrix<V, std::int32_t> big_matrix(int band = 0) {
  std::mt19937_64 g(band == 0 ? 99 : 98);
  matrix<V, std::int32_t> a;
  a.rows = 30011;
  a.cols = 29989;
  const int last = int(a.cols - 1);
  std::uniform_int_distribution<int> len(0, 16), col(0, last), off(-band, band);
  std::vector<int> r;
  for (index_t i = 0; i < a.rows; ++i) {
    const int n = i % 1000 == 0 ? 400 : i % 7 == 0 ? 0 : len(g);
    const int c = int(i * a.cols / a.rows);
    r.clear();
    for (int p = 0; p < n; ++p) r.push_back(band == 0 ? col(g) : std::clamp(c + off(g), 0, last));
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    for (int j : r) {
      a.col_idx.push_back(j);
      a.values.push_back(draw<V>(g));
    }
    a.row_ptr.push_back(std::int32_t(a.values.size()));
  }
  return a;
}

// A stencil whose every row (but the edges) reaches exactly its band's ends: entries at i - 37,
// i - 1, i, i + 1 and i + 52 (lower 37, upper 52), 45 000 rows.
template <class V>
matrix<V, std::int32_t> stencil_matrix() {
  std::mt19937_64 g(97);
  matrix<V, std::int32_t> a;
  a.rows = a.cols = 45000;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t d : {-37, -1, 0, 1, 52})
      if (i + d >= 0 && i + d < a.cols) {
        a.col_idx.push_back(std::int32_t(i + d));
        a.values.push_back(draw<V>(g));
      }
    a.row_ptr.push_back(std::int32_t(a.values.size()));
  }
  return a;
}

template <class V>
void same_bits_on_any_thread_count(const matrix<V, std::int32_t>& a) {
  BOOST_TEST_REQUIRE(a.values.size() > 200000u);
  std::mt19937_64 g(5);
  const V alpha = scalar<V>({1.25, -0.5}), beta = scalar<V>({-0.75, 0.5});
  for (trans t : {trans::none, trans::transpose, trans::conj_transpose}) {
    const index_t m = t == trans::none ? a.rows : a.cols, n = t == trans::none ? a.cols : a.rows;
    std::vector<V> x(static_cast<std::size_t>(n)), y0(static_cast<std::size_t>(m));
    for (auto& v : x) v = draw<V>(g);
    for (auto& v : y0) v = draw<V>(g);
    const index_t k = 5;
    std::vector<V> B(static_cast<std::size_t>(n * k)), C0(static_cast<std::size_t>(m * k));
    for (auto& v : B) v = draw<V>(g);
    for (auto& v : C0) v = draw<V>(g);
    // reference: the calling thread only
    std::vector<V> y1 = y0, C1 = C0, Cc1 = C0;
    sp::spmv<V, std::int32_t>(t, a.view(), alpha, x.data(), 1, beta, y1.data(), 1, false);
    sp::spmm<V, std::int32_t>(t, a.view(), k, alpha, B.data(), k, 1, beta, C1.data(), k, 1, false);
    sp::spmm<V, std::int32_t>(t, a.view(), k, alpha, B.data(), 1, n, beta, Cc1.data(), 1, m, false);
    // The band known or not (csr::lower, upper: a transposed product's threads then walk only
    // the rows reaching their range of the output).
    sp::csr<V, std::int32_t> banded = a.view();
    sp::band_of<std::int32_t>(a.rows, a.row_ptr.data(), a.col_idx.data(), banded.lower,
                              banded.upper);
    for (int threads : {1, 2, 3, 4})
      for (const auto& view : {a.view(), banded}) {
        lz::set_num_threads(threads);
        std::vector<V> y = y0, C = C0, Cc = C0;
        sp::spmv<V, std::int32_t>(t, view, alpha, x.data(), 1, beta, y.data(), 1, true);
        sp::spmm<V, std::int32_t>(t, view, k, alpha, B.data(), k, 1, beta, C.data(), k, 1, true);
        sp::spmm<V, std::int32_t>(t, view, k, alpha, B.data(), 1, n, beta, Cc.data(), 1, m, true);
        const char* band = view.lower < 0 ? "band not known" : "band known";
        BOOST_TEST_INFO("op " << op_name(t) << ", " << threads << " threads, " << band);
        BOOST_TEST(std::memcmp(y.data(), y1.data(), y.size() * sizeof(V)) == 0);
        BOOST_TEST_INFO("op " << op_name(t) << ", " << threads << " threads, " << band);
        BOOST_TEST(std::memcmp(C.data(), C1.data(), C.size() * sizeof(V)) == 0);
        BOOST_TEST_INFO("op " << op_name(t) << ", " << threads << " threads, " << band);
        BOOST_TEST(std::memcmp(Cc.data(), Cc1.data(), Cc.size() * sizeof(V)) == 0);
      }
    lz::set_num_threads(0);
    // and the result is right (spot check against a long-double loop for op = none)
    if (t == trans::none) {
      double worst = 0;
      for (index_t i = 0; i < a.rows; i += 97) {
        cd s = 0;
        for (auto p = a.row_ptr[std::size_t(i)]; p < a.row_ptr[std::size_t(i + 1)]; ++p)
          s += cd(a.values[std::size_t(p)]) * cd(x[std::size_t(a.col_idx[std::size_t(p)])]);
        const cd want = cd(alpha) * s + cd(beta) * cd(y0[std::size_t(i)]);
        worst = std::max(worst, std::abs(want - cd(y1[std::size_t(i)])));
      }
      BOOST_TEST(worst < 1e3 * tolerance<V>());
    }
  }
}

BOOST_AUTO_TEST_CASE(results_are_bit_identical_whatever_the_thread_count_or_threads_flag) {
  same_bits_on_any_thread_count<double>(big_matrix<double>());
  same_bits_on_any_thread_count<cf>(big_matrix<cf>());
  same_bits_on_any_thread_count<double>(big_matrix<double>(300));
  same_bits_on_any_thread_count<cf>(big_matrix<cf>(300));
  same_bits_on_any_thread_count<double>(big_matrix<double>(100)); // (narrow for 2-4 threads)
  same_bits_on_any_thread_count<cf>(stencil_matrix<cf>());
}

// A matrix cut into column strips (cut_strips, csr::strips): an SpMV sums each row strip by strip
// (within rounding of the matrix itself); a transposed one scatters each strip into its own range
// of y, with the matrix's own bits; both the same on any thread count; an SpMM ignores them.
template <class V, class I>
void strip_products(const matrix<V, I>& a, index_t parts) {
  std::mt19937_64 g(13);
  sp::csr_strips<V, I> st;
  sp::cut_strips<V, I>(a.view(), parts, st);
  BOOST_TEST(index_t(st.parts.size()) == parts);
  index_t total = 0;
  for (index_t s = 0; s < parts; ++s) {
    const auto& S = st.parts[std::size_t(s)];
    total += S.nnz;
    for (index_t k = 0; k < S.nnz; ++k) { // every entry within its strip's columns
      BOOST_TEST(index_t(S.col_idx[k]) >= sp::strip_begin(a.cols, parts, s));
      BOOST_TEST(index_t(S.col_idx[k]) < sp::strip_begin(a.cols, parts, s + 1));
    }
  }
  BOOST_TEST(total == index_t(a.values.size()));
  sp::csr<V, I> cut = a.view();
  cut.strips = st.parts.data();
  cut.nstrips = parts;
  for (trans t : {trans::none, trans::transpose, trans::conj_transpose})
    for (const auto& ab : alphas_betas) {
      const V alpha = scalar<V>(ab[0]), beta = scalar<V>(ab[1]);
      const index_t m = t == trans::none ? a.rows : a.cols, n = t == trans::none ? a.cols : a.rows;
      for (index_t inc : {1, -2}) {
        strided<V> x(n, inc, g), y0(m, inc, g);
        std::vector<V> want = y0.buf;
        const index_t at = y0.at;
        sp::spmv<V, I>(t, a.view(), alpha, x.ptr(), inc, beta, want.data() + at, inc, false);
        std::vector<V> one = y0.buf;
        sp::spmv<V, I>(t, cut, alpha, x.ptr(), inc, beta, one.data() + at, inc, false);
        BOOST_TEST_INFO("op " << op_name(t) << ", " << parts << " strips, inc " << inc);
        if (t == trans::none) {
          double worst = 0, mag = 1;
          for (std::size_t i = 0; i < one.size(); ++i) {
            worst = std::max(worst, std::abs(cd(one[i]) - cd(want[i])));
            mag = std::max(mag, std::abs(cd(want[i])));
          }
          BOOST_TEST(worst <= 1e2 * tolerance<V>() * mag);
        } else {
          BOOST_TEST(std::memcmp(one.data(), want.data(), one.size() * sizeof(V)) == 0);
        }
        for (int threads : {2, 3}) {
          lz::set_num_threads(threads);
          std::vector<V> y = y0.buf;
          sp::spmv<V, I>(t, cut, alpha, x.ptr(), inc, beta, y.data() + at, inc, true);
          BOOST_TEST_INFO("op " << op_name(t) << ", " << parts << " strips, " << threads
                                << " threads");
          BOOST_TEST(std::memcmp(y.data(), one.data(), y.size() * sizeof(V)) == 0);
        }
        lz::set_num_threads(0);
      }
      const index_t k = 3;
      std::vector<V> B(static_cast<std::size_t>(n * k)), C0(std::size_t(m * k));
      for (auto& v : B) v = draw<V>(g);
      for (auto& v : C0) v = draw<V>(g);
      std::vector<V> C = C0, Cs = C0;
      sp::spmm<V, I>(t, a.view(), k, alpha, B.data(), k, 1, beta, C.data(), k, 1, false);
      sp::spmm<V, I>(t, cut, k, alpha, B.data(), k, 1, beta, Cs.data(), k, 1, false);
      BOOST_TEST((C.empty() || std::memcmp(C.data(), Cs.data(), C.size() * sizeof(V)) == 0));
    }
}

BOOST_AUTO_TEST_CASE(column_strips_sum_rows_in_pieces_and_scatter_with_the_matrix_own_bits) {
  for (index_t parts : {1, 2, 3, 5}) {
    for (const auto& a : patterns<double, std::int32_t>()) strip_products(a, parts);
    for (const auto& a : patterns<cf, std::int64_t>()) strip_products(a, parts);
  }
  strip_products(big_matrix<double>(), 3);
  strip_products(big_matrix<cd>(), 2);
}

// What a read function makes of a stored value.
template <class V>
V apply_read_fn(sp::value_fn fn, V v) {
  return fn == sp::value_fn::abs ? std::abs(v) : v * v;
}

// spmv_fill with a read function (value_fill::fn, src): the kernel applies abs or square to each
// stored value as it reads it — fill never called — with the bits of spmv over those values
// stored, on any thread count, either op, beta zero or not, strided vectors; spmm_fill (more
// columns) still fills its blocks, with the bits of spmm over the stored values.
template <class V>
void read_function_products(const matrix<V, std::int32_t>& a) {
  std::mt19937_64 g(7);
  const V alpha = V(1.25);
  for (sp::value_fn fn : {sp::value_fn::abs, sp::value_fn::square}) {
    matrix<V, std::int32_t> stored = a;
    for (auto& v : stored.values) v = apply_read_fn(fn, v);
    struct source {
      const matrix<V, std::int32_t>* a;
      sp::value_fn fn;
      std::atomic<int> fills{0};
    } src{&a, fn};
    sp::value_fill<V> f{&src, [](const void* ctx, index_t k0, V* v, index_t n) {
                          auto& s = *static_cast<source*>(const_cast<void*>(ctx));
                          ++s.fills;
                          for (index_t i = 0; i < n; ++i)
                            v[i] = apply_read_fn(s.fn, s.a->values[std::size_t(k0 + i)]);
                        }};
    f.fn = fn;
    f.src = a.values.data();
    for (trans t : {trans::none, trans::transpose}) {
      const index_t m = t == trans::none ? a.rows : a.cols, n = t == trans::none ? a.cols : a.rows;
      for (index_t inc : {1, 2})
        for (V beta : {V(0), V(-0.75)}) {
          std::vector<V> x(static_cast<std::size_t>(n * inc)), y0(std::size_t(m * inc));
          for (auto& v : x) v = draw<V>(g);
          for (auto& v : y0) v = draw<V>(g);
          std::vector<V> want = y0;
          sp::spmv<V, std::int32_t>(t, stored.view(), alpha, x.data(), inc, beta, want.data(), inc,
                                    false);
          for (int threads : {1, 2, 3}) {
            lz::set_num_threads(threads);
            std::vector<V> y = y0;
            sp::spmv_fill<V, std::int32_t>(t, a.view(), f, alpha, x.data(), inc, beta, y.data(),
                                           inc, true);
            BOOST_TEST_INFO("op " << op_name(t) << ", fn " << int(fn) << ", inc " << inc
                                  << ", beta " << beta << ", " << threads << " threads");
            BOOST_TEST(std::memcmp(y.data(), want.data(), y.size() * sizeof(V)) == 0);
          }
          lz::set_num_threads(0);
        }
      BOOST_TEST(src.fills == 0);
      const index_t k = 3;
      std::vector<V> B(static_cast<std::size_t>(n * k)), C(std::size_t(m * k)), want;
      for (auto& v : B) v = draw<V>(g);
      want = C;
      sp::spmm<V, std::int32_t>(t, stored.view(), k, alpha, B.data(), k, 1, V(0), want.data(), k, 1,
                                false);
      sp::spmm_fill<V, std::int32_t>(t, a.view(), f, k, alpha, B.data(), k, 1, V(0), C.data(), k, 1,
                                     true);
      BOOST_TEST(src.fills > 0);
      BOOST_TEST(std::memcmp(C.data(), want.data(), C.size() * sizeof(V)) == 0);
      src.fills = 0;
    }
  }
}

BOOST_AUTO_TEST_CASE(a_read_function_is_applied_in_the_row_loop_with_the_stored_values_bits) {
  read_function_products<double>(big_matrix<double>());
  read_function_products<float>(big_matrix<float>(100));
  read_function_products<double>(stencil_matrix<double>());
}

BOOST_AUTO_TEST_CASE(band_of_gives_the_least_lower_and_upper_bandwidths) {
  const auto band = [](const matrix<double, std::int64_t>& a) {
    index_t lower = -7, upper = -7;
    sp::band_of<std::int64_t>(a.rows, a.row_ptr.data(), a.col_idx.data(), lower, upper);
    // against every entry: the least values with i - lower <= c <= i + upper, none below 0
    index_t want_lower = 0, want_upper = 0;
    for (index_t i = 0; i < a.rows; ++i)
      for (auto p = a.row_ptr[std::size_t(i)]; p < a.row_ptr[std::size_t(i + 1)]; ++p) {
        want_lower = std::max(want_lower, i - index_t(a.col_idx[std::size_t(p)]));
        want_upper = std::max(want_upper, index_t(a.col_idx[std::size_t(p)]) - i);
      }
    BOOST_TEST(lower == want_lower);
    BOOST_TEST(upper == want_upper);
    return std::pair<index_t, index_t>{lower, upper};
  };
  for (std::uint64_t seed = 40; seed < 46; ++seed) // random shapes, some rows empty
    band(random_matrix<double, std::int64_t>(1 + index_t(seed % 5) * 7, 3 + index_t(seed % 3) * 9,
                                             0.2, seed, {0, 2}));
  // a tridiagonal 5 × 5 (1, 1); strictly upper (0, 4); one entry at (3, 0) of a 4 × 6 (3, 0);
  // no entries (0, 0)
  matrix<double, std::int64_t> t;
  t.rows = t.cols = 5;
  for (index_t i = 0; i < 5; ++i) {
    for (index_t j = std::max<index_t>(0, i - 1); j <= std::min<index_t>(4, i + 1); ++j)
      t.col_idx.push_back(j), t.values.push_back(1.0);
    t.row_ptr.push_back(std::int64_t(t.col_idx.size()));
  }
  BOOST_TEST((band(t) == std::pair<index_t, index_t>{1, 1}));
  matrix<double, std::int64_t> u;
  u.rows = u.cols = 5;
  for (index_t i = 0; i < 5; ++i) {
    for (index_t j = i + 1; j < 5; ++j) u.col_idx.push_back(j), u.values.push_back(1.0);
    u.row_ptr.push_back(std::int64_t(u.col_idx.size()));
  }
  BOOST_TEST((band(u) == std::pair<index_t, index_t>{0, 4}));
  matrix<double, std::int64_t> w;
  w.rows = 4, w.cols = 6;
  w.row_ptr = {0, 0, 0, 0, 1};
  w.col_idx = {0};
  w.values = {1.0};
  BOOST_TEST((band(w) == std::pair<index_t, index_t>{3, 0}));
  matrix<double, std::int64_t> e;
  e.rows = 3, e.cols = 2;
  e.row_ptr = {0, 0, 0, 0};
  BOOST_TEST((band(e) == std::pair<index_t, index_t>{0, 0}));
}

BOOST_AUTO_TEST_CASE(recorder_sees_one_call_with_the_documented_fields) {
  const auto a = random_matrix<double, std::int64_t>(6, 4, 0.5, 30);
  std::vector<double> x(6, 1.0), y(12, 0.0);
  {
    lz_test::recording rec;
    sp::spmv<double, std::int64_t>(trans::transpose, a.view(), 2.0, x.data(), 1, 0.5, y.data(), 3,
                                   true);
    const blas::call& c = rec.only();
    BOOST_TEST(std::string(c.routine) == "dcsrmv");
    BOOST_TEST((c.o == blas::order::row_major));
    BOOST_TEST((c.ta == trans::transpose));
    BOOST_TEST(c.m == 6);
    BOOST_TEST(c.n == 4);
    BOOST_TEST(c.k == index_t(a.values.size()));
    BOOST_TEST(c.alpha == 2.0);
    BOOST_TEST(c.beta == 0.5);
    BOOST_TEST(c.ldb == 1);
    BOOST_TEST(c.ldc == 3);
  }
  const auto z = random_matrix<cd, std::int32_t>(5, 7, 0.4, 31);
  std::vector<cd> B(7 * 3, cd(1, 1)), C(5 * 3);
  {
    lz_test::recording rec;
    sp::spmm<cd, std::int32_t>(trans::none, z.view(), 3, cd(1.5, 2), B.data(), 3, 1, cd(0, 1),
                               C.data(), 3, 1, false);
    const blas::call& c = rec.only();
    BOOST_TEST(std::string(c.routine) == "zcsrmm");
    BOOST_TEST((c.ta == trans::none));
    BOOST_TEST(c.m == 5);
    BOOST_TEST(c.n == 7);
    BOOST_TEST(c.k == 3);
    BOOST_TEST(c.alpha == 1.5);
    BOOST_TEST(c.beta == 0.0);
    BOOST_TEST(c.lda == index_t(z.values.size()));
    BOOST_TEST(c.ldb == 3);
    BOOST_TEST(c.ldc == 3);
  }
  lz_test::recording rec;
  const auto s = random_matrix<float, std::int32_t>(3, 3, 0.5, 32);
  const auto c = random_matrix<cf, std::int64_t>(3, 3, 0.5, 33);
  std::vector<float> xs(3, 1), ys(3);
  std::vector<cf> xc(3, 1), yc(3);
  sp::spmv<float, std::int32_t>(trans::none, s.view(), 1, xs.data(), 1, 0, ys.data(), 1, false);
  sp::spmm<float, std::int32_t>(trans::none, s.view(), 1, 1, xs.data(), 1, 1, 0, ys.data(), 1, 1,
                                false);
  sp::spmv<cf, std::int64_t>(trans::conj_transpose, c.view(), 1, xc.data(), 1, 0, yc.data(), 1,
                             false);
  BOOST_TEST(rec.summary() == "scsrmv scsrmm ccsrmv ");
  BOOST_TEST((rec.calls[2].ta == trans::conj_transpose));
}

BOOST_AUTO_TEST_CASE(blas_channel_traces_spmv_and_spmm_with_rate) {
  const auto a = random_matrix<double, std::int32_t>(6, 5, 0.5, 40);
  std::vector<double> x(5, 1.0), y(6), B(10, 1.0), C(12);
  const std::string lines = lz_test::capture_stderr([&] {
    lz::logging::enable(lz::logging::blas);
    sp::spmv<double, std::int32_t>(trans::none, a.view(), 2.0, x.data(), 1, 0.0, y.data(), 1,
                                   false);
    sp::spmm<double, std::int32_t>(trans::none, a.view(), 2, 1.0, B.data(), 2, 1, 0.0, C.data(), 2,
                                   1, false);
    lz::logging::disable(lz::logging::blas);
  });
  BOOST_TEST_MESSAGE(lines);
  const std::string nnz = std::to_string(a.values.size());
  BOOST_TEST(lines.rfind("[lz:blas] dcsrmv(trans=N, m=6, n=5, nnz=" + nnz +
                             ", alpha=2, incx=1, beta=0, incy=1) ",
                         0) == 0);
  BOOST_TEST(lines.find("[lz:blas] dcsrmm(trans=N, m=6, n=5, k=2, nnz=" + nnz +
                        ", alpha=1, B=(2,1), beta=0, C=(2,1)) ") != std::string::npos);
  BOOST_TEST(lines.find("GFLOP/s\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(blas_channel_traces_computed_values_products_as_spmv_and_spmm) {
  const auto a = random_matrix<double, std::int32_t>(6, 5, 0.5, 41);
  const sp::value_fill<double> f{&a, [](const void* ctx, index_t k0, double* v, index_t n) {
                                   const auto& m = *static_cast<const decltype(a)*>(ctx);
                                   for (index_t i = 0; i < n; ++i) v[i] = 2 * m.values[k0 + i];
                                 }};
  std::vector<double> x(6, 1.0), y(5), B(15, 1.0), C(18);
  const std::string lines = lz_test::capture_stderr([&] {
    lz::logging::enable(lz::logging::blas);
    sp::spmv_fill<double, std::int32_t>(trans::transpose, a.view(), f, 2.0, x.data(), 1, 0.5,
                                        y.data(), 1, false);
    sp::spmm_fill<double, std::int32_t>(trans::none, a.view(), f, 3, 1.0, B.data(), 1, 5, 0.0,
                                        C.data(), 3, 1, false);
    lz::logging::disable(lz::logging::blas);
  });
  BOOST_TEST_MESSAGE(lines);
  const std::string nnz = std::to_string(a.values.size());
  BOOST_TEST(lines.rfind("[lz:blas] dcsrmv(trans=T, m=6, n=5, nnz=" + nnz +
                             ", values=f, alpha=2, incx=1, beta=0.5, incy=1) ",
                         0) == 0);
  BOOST_TEST(lines.find("[lz:blas] dcsrmm(trans=N, m=6, n=5, k=3, nnz=" + nnz +
                        ", values=f, alpha=1, B=(1,5), beta=0, C=(3,1)) ") != std::string::npos);
}

// ---- building and checking patterns ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(from_triplets_sorts_columns_sums_duplicates_and_keeps_empty_rows) {
  //   row 0: (0,3) 1, (0,1) 2, (0,3) 4   -> cols 1, 3: 2, 5
  //   row 1: empty
  //   row 2: (2,0) 7, (2,2) -1, (2,0) 0.5 -> cols 0, 2: 7.5, -1
  //   row 3: (3,4) 9
  const std::vector<std::int32_t> r = {2, 0, 0, 3, 2, 0, 2};
  const std::vector<std::int32_t> c = {0, 3, 1, 4, 2, 3, 0};
  const std::vector<double> v = {7, 1, 2, 9, -1, 4, 0.5};
  std::vector<std::int32_t> rp, ci;
  std::vector<double> va;
  sp::from_triplets<double, std::int32_t>(4, 5, 7, r.data(), c.data(), v.data(), rp, ci, va);
  BOOST_TEST(rp == (std::vector<std::int32_t>{0, 2, 2, 4, 5}), boost::test_tools::per_element());
  BOOST_TEST(ci == (std::vector<std::int32_t>{1, 3, 0, 2, 4}), boost::test_tools::per_element());
  BOOST_TEST(va == (std::vector<double>{2, 5, 7.5, -1, 9}), boost::test_tools::per_element());
  // the result passes the strict check
  index_t where = 0;
  BOOST_TEST(sp::check_pattern<std::int32_t>(4, 5, 5, rp.data(), ci.data(), true, where) ==
             nullptr);
  // no triplets: rows + 1 zeros
  sp::from_triplets<double, std::int32_t>(3, 2, 0, nullptr, nullptr, nullptr, rp, ci, va);
  BOOST_TEST(rp == (std::vector<std::int32_t>{0, 0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(ci.empty());
  // a 0 × 0 matrix
  sp::from_triplets<double, std::int32_t>(0, 0, 0, nullptr, nullptr, nullptr, rp, ci, va);
  BOOST_TEST(rp == (std::vector<std::int32_t>{0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(from_triplets_matches_a_dense_accumulation_on_random_triplets) {
  std::mt19937_64 g(3);
  std::uniform_int_distribution<std::int64_t> ri(0, 20), cj(0, 12);
  const index_t count = 500;
  std::vector<std::int64_t> r(count), c(count);
  std::vector<cf> v(count);
  std::vector<cf> dense(21 * 13);
  for (index_t t = 0; t < count; ++t) {
    r[std::size_t(t)] = ri(g);
    c[std::size_t(t)] = cj(g);
    v[std::size_t(t)] = draw<cf>(g);
    dense[std::size_t(r[std::size_t(t)] * 13 + c[std::size_t(t)])] += v[std::size_t(t)];
  }
  std::vector<std::int64_t> rp, ci;
  std::vector<cf> va;
  sp::from_triplets<cf, std::int64_t>(21, 13, count, r.data(), c.data(), v.data(), rp, ci, va);
  index_t where = 0;
  BOOST_TEST(sp::check_pattern<std::int64_t>(21, 13, index_t(va.size()), rp.data(), ci.data(), true,
                                             where) == nullptr);
  std::vector<cf> back(21 * 13);
  for (index_t i = 0; i < 21; ++i)
    for (auto k = rp[std::size_t(i)]; k < rp[std::size_t(i + 1)]; ++k)
      back[std::size_t(i * 13 + ci[std::size_t(k)])] = va[std::size_t(k)];
  for (std::size_t q = 0; q < back.size(); ++q) BOOST_TEST(std::abs(back[q] - dense[q]) < 1e-5f);
}

template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const std::out_of_range& e) {
    return std::string("out_of_range: ") + e.what();
  } catch (const lz::layout_error& e) {
    return std::string("layout_error: ") + e.what();
  }
  return "nothing";
}

BOOST_AUTO_TEST_CASE(from_triplets_names_the_triplet_index_and_shape_of_a_bad_index) {
  std::vector<std::int32_t> rp, ci;
  std::vector<float> va;
  const std::vector<std::int32_t> r = {0, 1, 3}, c = {0, 1, 1}, rn = {0, -1, 0}, cn = {0, 0, -2};
  const std::vector<float> v = {1, 2, 3};
  const std::string row = thrown([&] {
    sp::from_triplets<float, std::int32_t>(3, 2, 3, r.data(), c.data(), v.data(), rp, ci, va);
  });
  BOOST_TEST_MESSAGE(row);
  BOOST_TEST(row.rfind("out_of_range: ", 0) == 0);
  BOOST_TEST(row.find("triplet 2") != std::string::npos);
  BOOST_TEST(row.find("(3, 1)") != std::string::npos);
  BOOST_TEST(row.find("3 x 2") != std::string::npos);
  const std::string col = thrown([&] {
    sp::from_triplets<float, std::int32_t>(3, 1, 3, r.data(), c.data(), v.data(), rp, ci, va);
  });
  BOOST_TEST(col.find("triplet 1") != std::string::npos);
  BOOST_TEST(col.find("(1, 1)") != std::string::npos);
  const std::string neg_row = thrown([&] {
    sp::from_triplets<float, std::int32_t>(3, 2, 3, rn.data(), c.data(), v.data(), rp, ci, va);
  });
  BOOST_TEST(neg_row.find("triplet 1") != std::string::npos);
  BOOST_TEST(neg_row.find("(-1, 1)") != std::string::npos);
  const std::string neg_col = thrown([&] {
    sp::from_triplets<float, std::int32_t>(3, 2, 3, c.data(), cn.data(), v.data(), rp, ci, va);
  });
  BOOST_TEST(neg_col.find("triplet 2") != std::string::npos);
  BOOST_TEST(neg_col.find("(1, -2)") != std::string::npos);
  // sizes that do not fit the index type
  const std::string big = thrown([&] {
    sp::from_triplets<float, std::int32_t>(index_t(1) << 31, 2, 0, r.data(), c.data(), v.data(), rp,
                                           ci, va);
  });
  BOOST_TEST_MESSAGE(big);
  BOOST_TEST(big.rfind("layout_error: ", 0) == 0);
  BOOST_TEST(big.find("32-bit") != std::string::npos);
  const std::string wide = thrown([&] {
    sp::from_triplets<float, std::int32_t>(2, index_t(1) << 32, 0, r.data(), c.data(), v.data(), rp,
                                           ci, va);
  });
  BOOST_TEST(wide.rfind("layout_error: ", 0) == 0);
  const std::string negative = thrown([&] {
    sp::from_triplets<float, std::int32_t>(-1, 2, 0, r.data(), c.data(), v.data(), rp, ci, va);
  });
  BOOST_TEST(negative.rfind("layout_error: ", 0) == 0);
}

BOOST_AUTO_TEST_CASE(check_pattern_names_each_malformation_and_its_row) {
  index_t where = 7;
  // valid: 3 × 4, rows {0, 2}, {}, {1, 3}
  const std::vector<std::int64_t> rp = {0, 2, 2, 4}, ci = {0, 2, 1, 3};
  BOOST_TEST(sp::check_pattern<std::int64_t>(3, 4, 4, rp.data(), ci.data(), true, where) ==
             nullptr);
  BOOST_TEST(where == -1);
  auto msg = [&](std::vector<std::int64_t> r, std::vector<std::int64_t> c, index_t nnz, bool sorted,
                 index_t rows = 3, index_t cols = 4) {
    const char* m =
        sp::check_pattern<std::int64_t>(rows, cols, nnz, r.data(), c.data(), sorted, where);
    return std::string(m ? m : "valid");
  };
  BOOST_TEST(msg({1, 2, 2, 4}, ci, 4, true) == "row_ptr[0] is not 0");
  BOOST_TEST(where == 0);
  BOOST_TEST(msg({0, 2, 1, 4}, ci, 4, true) == "row_ptr decreases: a row ends before it starts");
  BOOST_TEST(where == 1);
  BOOST_TEST(msg({0, 2, 2, 3}, ci, 4, true) == "row_ptr[rows] is not nnz");
  BOOST_TEST(where == 3);
  // row_ptr claims far more entries than col_idx holds: rejected before col_idx is read
  BOOST_TEST(msg({0, 2, 2, 1000000}, {0, 1}, 2, false) == "row_ptr[rows] is not nnz");
  BOOST_TEST(msg({0, 2, 2, 4}, {0, 2, 1, 4}, 4, false) == "column index outside [0, cols)");
  BOOST_TEST(where == 2);
  BOOST_TEST(msg({0, 2, 2, 4}, {-1, 2, 1, 3}, 4, false) == "column index outside [0, cols)");
  BOOST_TEST(where == 0);
  // unsorted and duplicate columns: errors only when sorted is asked for
  BOOST_TEST(msg({0, 2, 2, 4}, {0, 2, 3, 1}, 4, true) ==
             "columns not strictly increasing in a row (unsorted or duplicate)");
  BOOST_TEST(where == 2);
  BOOST_TEST(msg({0, 2, 2, 4}, {0, 2, 3, 1}, 4, false) == "valid");
  BOOST_TEST(msg({0, 2, 2, 4}, {2, 2, 1, 3}, 4, true) ==
             "columns not strictly increasing in a row (unsorted or duplicate)");
  BOOST_TEST(where == 0);
  BOOST_TEST(msg({0, 2, 2, 4}, {2, 2, 1, 3}, 4, false) == "valid");
  BOOST_TEST(msg({0}, {}, 0, true, 0, 0) == "valid"); // 0 × 0
  BOOST_TEST(msg({0}, {}, 0, true, -1, 0) == "negative size");
  // int32 too
  const std::vector<std::int32_t> r32 = {0, 1, 0}, c32 = {0};
  BOOST_TEST(
      std::string(sp::check_pattern<std::int32_t>(2, 1, 1, r32.data(), c32.data(), false, where)) ==
      "row_ptr decreases: a row ends before it starts");
}

BOOST_AUTO_TEST_CASE(sort_rows_sorts_each_row_sums_duplicates_and_rewrites_row_ptr) {
  //   row 0: cols 3, 1, 3 -> 1, 3 (values 2, 1 + 4)
  //   row 1: sorted already: 0, 2
  //   row 2: empty
  //   row 3: cols 2, 2, 2 -> 2 (1 + 2 + 3)
  std::vector<std::int32_t> rp = {0, 3, 5, 5, 8}, ci = {3, 1, 3, 0, 2, 2, 2, 2};
  std::vector<cd> va = {1, 2, 4, 5, 6, 1, 2, 3};
  const index_t nnz = sp::sort_rows<cd, std::int32_t>(4, rp.data(), ci.data(), va.data());
  BOOST_TEST(nnz == 5);
  BOOST_TEST(rp == (std::vector<std::int32_t>{0, 2, 4, 4, 5}), boost::test_tools::per_element());
  ci.resize(5);
  va.resize(5);
  BOOST_TEST(ci == (std::vector<std::int32_t>{1, 3, 0, 2, 2}), boost::test_tools::per_element());
  const std::vector<cd> want = {2, 5, 5, 6, 6};
  for (std::size_t q = 0; q < 5; ++q) BOOST_TEST(va[q] == want[q]);
  index_t where = 0;
  BOOST_TEST(sp::check_pattern<std::int32_t>(4, 4, nnz, rp.data(), ci.data(), true, where) ==
             nullptr);
  // sorted rows stay as they are
  std::vector<std::int64_t> rp2 = {0, 2, 3}, ci2 = {0, 5, 1};
  std::vector<float> va2 = {1, 2, 3};
  BOOST_TEST((sp::sort_rows<float, std::int64_t>(2, rp2.data(), ci2.data(), va2.data()) == 3));
  BOOST_TEST(rp2 == (std::vector<std::int64_t>{0, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST(va2 == (std::vector<float>{1, 2, 3}), boost::test_tools::per_element());
  BOOST_TEST((sp::sort_rows<float, std::int64_t>(0, rp2.data(), ci2.data(), va2.data()) == 0));
}

} // namespace
