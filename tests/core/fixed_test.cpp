// Fixed-size tensors (lz::fixed_tensor, lz::matrix4d, ...; include/lz/expr/fixed.hpp): their
// construction and access; fixed trees evaluated inline (the plan chosen at compile time, no heap
// allocation and no BLAS call at run time, values against the dynamic engine on random operands
// of every size 1..8); aliasing; mixing with dynamic tensors both ways; reductions; cross,
// determinant and inverse against a long-double reference.
#include <boost/test/unit_test.hpp>

#include <support/recording.hpp>

#include <lz/lz.hpp>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>

// Every heap allocation of this program, counted (the fixed path must make none).
namespace {
std::atomic<long> heap_allocations{0};
}
void* operator new(std::size_t n) {
  ++heap_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  ++heap_allocations;
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

template <lz::index_t M, lz::index_t N>
using fm = lz::fixed_matrix<double, M, N>;

template <class F>
void fill_random(F& f, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : f) x = u(g);
}

// The same values as a dynamic tensor (a copy through the engine: the mixing path).
template <class T, lz::index_t... N>
lz::tensor<T, sizeof...(N)> dyn(const lz::fixed_tensor<T, N...>& f) {
  lz::tensor<T, sizeof...(N)> t = f;
  return t;
}

template <class F, class D>
void check_close(const F& f, const D& d, double tol = 1e-12) {
  BOOST_REQUIRE(f.shape() == d.shape());
  const auto* p = f.data();
  lz::index_t k = 0;
  for (lz::index_t i = 0; i < d.size(); ++i) {
    const double want = d.data()[i]; // d is a fresh row-major tensor
    BOOST_TEST(std::abs(p[k++] - want) <= tol * (1 + std::abs(want)));
  }
}

// Every expression form, fixed and dynamic side by side, for an M×K by K×N problem.
template <lz::index_t M, lz::index_t K, lz::index_t N>
void compare_with_dynamic(std::mt19937_64& g) {
  fm<M, K> A;
  fm<K, N> B;
  fm<M, N> C, D;
  fm<K, M> At;
  lz::fixed_vector<double, K> x;
  lz::fixed_vector<double, M> y, w;
  lz::fixed_matrix<double, 1, N> row;
  fill_random(A, g), fill_random(B, g), fill_random(C, g), fill_random(At, g);
  fill_random(x, g), fill_random(y, g), fill_random(row, g);
  const auto a = dyn(A), b = dyn(B), c = dyn(C), at = dyn(At);
  const auto xv = dyn(x), yv = dyn(y);
  const auto rv = dyn(row);

  D = A * B + C;
  check_close(D, lz::eval(a * b + c));
  D = 2.0 * A * B - 3.0 * C;
  check_close(D, lz::eval(2.0 * a * b - 3.0 * c));
  D = lz::transpose(At) * B;
  check_close(D, lz::eval(lz::transpose(at) * b));
  D = lz::exp(C) * 0.5 - lz::abs(C) + row; // elementwise with a broadcast row
  check_close(D, lz::eval(lz::exp(c) * 0.5 - lz::abs(c) + rv));
  D += C;
  lz::matrix<double> dd = lz::exp(c) * 0.5 - lz::abs(c) + rv + c;
  check_close(D, dd);
  w = A * x + y;
  check_close(w, lz::eval(a * xv + yv));
  w = lz::maximum(A * x, 0.0) / lz::norm2(x);
  check_close(w, lz::eval(lz::maximum(a * xv, 0.0) / lz::norm2(xv)));

  const double tol = 1e-12 * M * N;
  BOOST_TEST(std::abs(double(lz::sum(A * B)) - double(lz::sum(a * b))) <= tol);
  BOOST_TEST(double(lz::max(C)) == double(lz::max(c)));
  BOOST_TEST(double(lz::min(C)) == double(lz::min(c)));
  BOOST_TEST(lz::index_t(lz::argmax(C)) == lz::index_t(lz::argmax(c)));
  BOOST_TEST(lz::index_t(lz::argmin(C)) == lz::index_t(lz::argmin(c)));
  BOOST_TEST(std::abs(double(lz::mean(C)) - double(lz::mean(c))) <= tol);
  BOOST_TEST(std::abs(double(lz::prod(C + 2.0)) - double(lz::prod(c + 2.0))) <=
             1e-12 * std::abs(double(lz::prod(c + 2.0))) * M * N);
  BOOST_TEST(std::abs(double(lz::dot(y, y)) - double(lz::dot(yv, yv))) <= tol);
}

template <lz::index_t M>
void sizes_for(std::mt19937_64& g) {
  compare_with_dynamic<M, 1, 3>(g);
  compare_with_dynamic<M, M, M>(g);
  compare_with_dynamic<M, 5, 2>(g);
  compare_with_dynamic<M, 8, 8>(g); // 8 × 8 products: 64 elements, the last fully unrolled size
}

// Reference determinant and inverse by Gaussian elimination with partial pivoting in long double.
template <int N>
long double det_ref(const fm<N, N>& m, long double (*inv)[N] = nullptr) {
  long double a[N][2 * N];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < 2 * N; ++j) a[i][j] = j < N ? m(i, j) : (j - N == i);
  long double det = 1;
  for (int c = 0; c < N; ++c) {
    int p = c;
    for (int r = c + 1; r < N; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (p != c) {
      for (int j = 0; j < 2 * N; ++j) std::swap(a[p][j], a[c][j]);
      det = -det;
    }
    det *= a[c][c];
    for (int r = 0; r < N; ++r)
      if (r != c) {
        const long double f = a[r][c] / a[c][c];
        for (int j = 0; j < 2 * N; ++j) a[r][j] -= f * a[c][j];
      }
  }
  if (inv)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) inv[i][j] = a[i][N + j] / a[i][i];
  return det;
}

template <int N>
void check_det_inverse(std::mt19937_64& g) {
  for (int trial = 0; trial < 50; ++trial) {
    fm<N, N> m;
    fill_random(m, g);
    m += 2.0 * fm<N, N>::identity(); // well conditioned
    long double inv[N][N];
    const long double d = det_ref<N>(m, inv);
    BOOST_TEST(std::abs(lz::determinant(m) - double(d)) <= 1e-13 * std::abs(double(d)) * N);
    const fm<N, N> r = lz::inverse(m);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) BOOST_TEST(std::abs(r(i, j) - double(inv[i][j])) <= 1e-13 * N);
    // And inverse(m) * m is the identity through the fixed product.
    const fm<N, N> id = r * m;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) BOOST_TEST(std::abs(id(i, j) - (i == j)) <= 1e-13 * N);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(fixed)

BOOST_AUTO_TEST_CASE(fixed_tensors_are_values_with_compile_time_extents) {
  static_assert(sizeof(lz::matrix4d) == 16 * sizeof(double));
  static_assert(alignof(lz::matrix4d) == 64 && alignof(lz::vector4d) == 32);
  static_assert(sizeof(lz::vector3d) == 24, "no padding: alignment divides the size");
  static_assert(std::is_trivially_copyable_v<lz::matrix4d>);
  static_assert(lz::matrix4d::rows() == 4 && lz::fixed_matrix<float, 2, 5>::cols() == 5);
  lz::matrix3d z;
  for (double v : z) BOOST_TEST(v == 0.0); // zeros by default
  lz::matrix2d m{{1, 2}, {3, 4}};
  BOOST_TEST(m(0, 1) == 2.0);
  BOOST_TEST(m(1, 0) == 3.0);
  lz::vector3f v(1, 2, 3), u{4, 5, 6};
  BOOST_TEST(v(2) == 3.0f);
  BOOST_TEST(u(0) == 4.0f);
  const auto id = lz::matrix3d::identity();
  BOOST_TEST(id(1, 1) == 1.0);
  BOOST_TEST(id(0, 1) == 0.0);
  BOOST_TEST(lz::matrix2f::ones()(1, 1) == 1.0f);
  BOOST_TEST(lz::matrix2f::constant(7)(0, 1) == 7.0f);
  lz::matrix2d copy = m; // value semantics
  copy(0, 0) = 9;
  BOOST_TEST(m(0, 0) == 1.0);
  BOOST_TEST(m.at(1, 1) == 4.0);
  BOOST_CHECK_THROW(m.at(2, 0), std::out_of_range);
  BOOST_CHECK_THROW((lz::matrix2d{{1, 2}, {3}}), lz::shape_error);
  BOOST_CHECK_THROW((lz::vector3d{1, 2}), lz::shape_error);
  BOOST_CHECK_THROW((lz::matrix2d{{1, 2}, {3, 4}, {5, 6}}), lz::shape_error);
  // Slices are dynamic views of the same elements.
  auto col = m(lz::all, 1);
  col(0) = 20;
  BOOST_TEST(m(0, 1) == 20.0);
}

BOOST_AUTO_TEST_CASE(fixed_trees_are_planned_inline_at_compile_time) {
  lz::matrix4d A, B, C;
  lz::matrix<double> dynamic(4, 4);
  static_assert(lz::fixed_expression<decltype(A * B + C)>);
  static_assert(lz::fixed_expression<decltype(lz::transpose(A) * B - 2.0 * C)>);
  static_assert(lz::fixed_expression<decltype(lz::sum(A * B))>);
  static_assert(lz::fixed_expression<decltype(A / lz::norm2(A))>);
  static_assert(!lz::fixed_expression<decltype(A * B + dynamic)>, "mixed trees: the engine");
  static_assert(!lz::fixed_expression<decltype(dynamic + 1.0)>);
  static_assert(std::is_same_v<decltype(lz::eval(A * B + C)), lz::matrix4d>);
  static_assert(std::is_same_v<decltype(lz::transpose(lz::fixed_matrix<float, 2, 3>())(0, 0)),
                               float&> ||
                true); // (rvalues transpose through the engine's views)
  const std::string plan = lz::explain(C, A * B + C);
  BOOST_TEST(plan.find("inline, fixed") != std::string::npos, plan);
  BOOST_TEST(plan.find("gemm") == std::string::npos, plan);
  BOOST_TEST(plan.find("temporaries: 0") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(fixed_trees_allocate_nothing_and_call_no_blas) {
  std::mt19937_64 g(25);
  lz::matrix4d A, B, C, D;
  lz::vector4d x, y;
  fill_random(A, g), fill_random(B, g), fill_random(C, g), fill_random(x, g);
  lz_test::recording rec;
  lz::reset_stats();
  const long before = heap_allocations.load();
  for (int i = 0; i < 100; ++i) {
    D = A * B + C;
    D = lz::transpose(A) * B - 2.0 * D;
    y = A * x + y;
    D += lz::exp(A) / lz::norm2(x);
    x = x / lz::sum(lz::abs(x));
    D = D * D + D; // aliasing: still no heap
  }
  const double s = lz::sum(A * B) + lz::dot(x, y);
  BOOST_TEST(heap_allocations.load() - before == 0);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.calls.size() == 0u, rec.summary());
  BOOST_TEST(std::isfinite(s));
}

BOOST_AUTO_TEST_CASE(fixed_trees_match_the_dynamic_engine_for_every_size_1_to_8) {
  std::mt19937_64 g(2025);
  sizes_for<1>(g);
  sizes_for<2>(g);
  sizes_for<3>(g);
  sizes_for<4>(g);
  sizes_for<5>(g);
  sizes_for<6>(g);
  sizes_for<7>(g);
  sizes_for<8>(g);
  compare_with_dynamic<12, 12, 12>(g); // 144 elements: the constant-bound loops
  compare_with_dynamic<3, 20, 4>(g);   // inner dimension 20: the product's loop
}

BOOST_AUTO_TEST_CASE(fixed_assignments_read_everything_before_writing) {
  std::mt19937_64 g(7);
  lz::matrix4d E, F;
  lz::vector4d x;
  fill_random(E, g), fill_random(x, g);
  F = E;
  lz::matrix<double> e = dyn(E);
  E = E * E + E;
  check_close(E, lz::eval(e * e + e));
  e = lz::eval(E);
  E = lz::transpose(E);
  check_close(E, lz::eval(lz::transpose(e)));
  e = lz::eval(E);
  E = lz::transpose(E) * E - E;
  check_close(E, lz::eval(lz::transpose(e) * e - e));
  auto xv = dyn(x);
  x = F * x;
  check_close(x, lz::eval(dyn(F) * xv));
  // A dynamic view of fixed memory as the destination of its own fixed tree.
  lz::matrix<double> ref = lz::eval(dyn(F) * dyn(F));
  auto view = F.view();
  view = F * F; // inline into the dynamic view, aliasing-safe
  check_close(F, ref);
}

BOOST_AUTO_TEST_CASE(fixed_and_dynamic_tensors_mix_both_ways) {
  std::mt19937_64 g(11);
  lz::matrix3d A, B;
  fill_random(A, g), fill_random(B, g);
  lz::matrix<double> M = A * B; // a fixed tree into a new dynamic tensor
  check_close(lz::eval(A * B), M);
  lz::matrix<double> N(3, 3);
  N = 2.0 * A + M; // a fixed operand inside a dynamic tree
  check_close(lz::eval(2.0 * A + M), N);
  lz::matrix<double> P = A * M; // a product of fixed and dynamic operands: the engine (BLAS)
  check_close(lz::eval(A * B * B), lz::eval(A * lz::eval(B * B)), 1e-12);
  check_close(lz::eval(A * M), P);
  lz::matrix3d F(M); // dynamic into fixed: explicit construction, checked at run time
  check_close(F, M);
  F = N - M;
  check_close(F, lz::eval(N - M));
  const lz::matrix3d before = F;
  lz::matrix<double> wrong(2, 3);
  BOOST_CHECK_THROW(F = wrong, lz::shape_error);
  BOOST_CHECK_THROW(F = wrong + 1.0, lz::shape_error);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) BOOST_TEST(F(i, j) == before(i, j)); // untouched
  // A rank-0 fixed tree converts to its value; a scalar fills.
  const double r = lz::dot(A(0, lz::all), A(0, lz::all)) / lz::norm2(A);
  BOOST_TEST(std::isfinite(r));
  F = 5.0;
  BOOST_TEST(F(2, 2) == 5.0);
}

BOOST_AUTO_TEST_CASE(fixed_reductions_are_folded_inline) {
  lz::matrix2d m{{1, -2}, {3, 4}};
  lz::vector3d v(3, 0, 4);
  BOOST_TEST(double(lz::sum(m)) == 6.0);
  BOOST_TEST(double(lz::prod(m)) == -24.0);
  BOOST_TEST(double(lz::max(m)) == 4.0);
  BOOST_TEST(double(lz::min(m)) == -2.0);
  BOOST_TEST(lz::index_t(lz::argmin(m)) == 1);
  BOOST_TEST(double(lz::norm2(v)) == 5.0);
  BOOST_TEST(double(lz::mean(v)) == 7.0 / 3);
  BOOST_TEST(bool(lz::any(m > 3.0)));
  BOOST_TEST(!bool(lz::all(m > 0.0)));
  lz::fixed_vector<std::int32_t, 3> iv(2147483647, 1, 0);
  BOOST_TEST(std::int64_t(lz::sum(iv)) == 2147483648LL); // widened like the dynamic engine
  // A stored reduction keeps its value (as for dynamic operands); over fixed operands that is
  // the value they had when it was built (docs/fixed.md).
  auto n = lz::norm2(v);
  v = v / n;
  BOOST_TEST(std::abs(double(lz::norm2(v)) - 1.0) <= 1e-15);
  BOOST_TEST(double(n) == 5.0);
  auto s = lz::sum(m);
  m(0, 0) = 100;
  BOOST_TEST(double(s) == 6.0);
  static_assert(sizeof(s) == sizeof(lz::matrix2d::const_view_type) + sizeof(double),
                "a value and the operand's view: no cache");
}

// The SIMD packets of fixed trees (expr/fixed.hpp, packet_lanes): which trees run on vectors, and
// that every such form (flat, along rows, reductions, compound assignments, NaN, float, dynamic
// destinations of every layout) gives what the dynamic engine gives.
template <class E>
using prepared_t =
    std::remove_cvref_t<decltype(lz::detail::fixed_eval::prepare(std::declval<const E&>()))>;
template <class T, class E>
constexpr lz::index_t lanes_of() {
  constexpr auto S = lz::detail::static_shape_of<E>::value;
  return lz::detail::fixed_eval::packet_plan<T, E, S.size(), S>().lanes;
}
template <class T, class E>
constexpr bool flat_of() {
  constexpr auto S = lz::detail::static_shape_of<E>::value;
  return lz::detail::fixed_eval::packet_plan<T, E, S.size(), S>().flat;
}

BOOST_AUTO_TEST_CASE(fixed_trees_run_on_simd_vectors_where_every_operand_allows) {
  lz::matrix4d A, B, C;
  lz::matrix3d A3;
  lz::matrix4f F;
  lz::fixed_matrix<int, 4, 4> I;
  constexpr lz::index_t dbl = lz::index_t(xsimd::batch<double>::size);
  constexpr lz::index_t flt = lz::index_t(xsimd::batch<float>::size);
  constexpr lz::index_t dbl256 = dbl < 4 ? dbl : 4;
  // Elementwise over whole fixed tensors: the 16 elements as one row, the target's full width.
  static_assert(lanes_of<double, decltype(A + B * 2.0)>() == (dbl < 16 ? dbl : 16));
  static_assert(flat_of<double, decltype(lz::maximum(A, 0.0))>());
  static_assert(lanes_of<float, decltype(lz::sqrt(F) + F)>() == (flt < 16 ? flt : 16));
  // Products (and a transposed left factor) run along rows: 4 lanes of 256 bits.
  static_assert(lanes_of<double, decltype(A * B + C)>() == dbl256);
  static_assert(!flat_of<double, decltype(A * B + C)>());
  static_assert(lanes_of<double, decltype(lz::transpose(A) * B)>() == dbl256);
  // Element by element: a transposed operand, rows of 3, integers, a narrowing destination.
  static_assert(lanes_of<double, decltype(lz::transpose(A) + A)>() == 1);
  static_assert(lanes_of<double, decltype(A * lz::transpose(B))>() == 1);
  static_assert(lanes_of<double, decltype(A3 * A3 + A3)>() == 1);
  static_assert(lanes_of<int, decltype(I + I)>() == 1);
  static_assert(lanes_of<float, decltype(A + B)>() == 1);
  const std::string plan = lz::explain(C, A + B);
  BOOST_TEST(plan.find("-lane vectors (the elements as one row)") != std::string::npos, plan);
  BOOST_TEST(lz::explain(C, A * B + C).find("-lane vectors along rows") != std::string::npos);
  BOOST_TEST(lz::explain(A3, A3 * A3).find("element by element") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(simd_fixed_trees_match_the_dynamic_engine_in_every_form) {
  std::mt19937_64 g(30);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  lz::matrix4d A, B, C, D;
  lz::fixed_matrix<double, 4, 1> col, col2;
  fill_random(A, g), fill_random(B, g), fill_random(C, g), fill_random(col, g);
  auto a = dyn(A), b = dyn(B), c = dyn(C);
  // Compound assignments on packets, flat and along rows.
  D = C;
  D -= A * B;
  check_close(D, lz::eval(c - a * b));
  D *= 2.0 + lz::abs(A);
  check_close(D, lz::eval(lz::hadamard(c - a * b, 2.0 + lz::abs(a)))); // *=: elementwise
  // A column (last extent 1) is read, not broadcast, when its elements run as one row.
  col2 = col * 2.0 + lz::exp(col);
  check_close(col2, lz::eval(dyn(col) * 2.0 + lz::exp(dyn(col))));
  BOOST_TEST(double(lz::max(col)) == double(lz::max(dyn(col))));
  // NaN propagates through maximum, minimum, max, min and sqrt in every lane position.
  for (int k = 0; k < 16; ++k) {
    lz::matrix4d N = A;
    N.data()[k] = nan;
    D = lz::maximum(N, 0.0) + lz::minimum(B, N);
    for (int i = 0; i < 16; ++i)
      BOOST_TEST(std::isnan(D.data()[i]) == (i == k), "NaN at " << k << ", element " << i);
    D = lz::maximum(N, 0.0); // the first operand's NaN (x86's max alone returns the second)
    BOOST_TEST(std::isnan(D.data()[k]));
    D = lz::minimum(N, 1.0);
    BOOST_TEST(std::isnan(D.data()[k]));
    BOOST_TEST(std::isnan(double(lz::max(N))));
    BOOST_TEST(std::isnan(double(lz::min(N))));
    BOOST_TEST(std::isnan(double(lz::max(N * 2.0 + 1.0))));
    BOOST_TEST(std::isnan(double(lz::sum(N * 2.0))));
    // ... and without NaN the extreme is found in every lane position (infinities included).
    N = A;
    N.data()[k] = k % 2 ? inf : 1e300;
    N.data()[15 - k] = k % 2 ? -inf : -1e300;
    BOOST_TEST(double(lz::max(N)) == N.data()[k]);
    BOOST_TEST(double(lz::min(N)) == N.data()[15 - k]);
    BOOST_TEST(double(lz::max(-N)) == -N.data()[15 - k]);
  }
  lz::matrix4d S = lz::abs(A);
  S(1, 2) = -4.0;
  D = lz::sqrt(S);
  BOOST_TEST(std::isnan(D(1, 2)));
  BOOST_TEST(D(0, 0) == std::sqrt(S(0, 0)));
  // Ties between -0 and +0 go to the second operand, as in NumPy (and the scalar path).
  lz::matrix4d Z = lz::matrix4d::constant(-0.0);
  D = lz::maximum(Z, 0.0);
  BOOST_TEST(!std::signbit(D(3, 3)));
  D = lz::maximum(lz::matrix4d(), Z);
  BOOST_TEST(std::signbit(D(3, 3)));
  // Floats: 16 to a vector on AVX-512.
  lz::matrix4f Fa, Fb, Fc, Fd;
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto* f : {&Fa, &Fb, &Fc})
    for (auto& x : *f) x = u(g);
  const auto fa = dyn(Fa), fb = dyn(Fb), fc = dyn(Fc);
  Fd = Fa * Fb + Fc;
  check_close(Fd, lz::eval(fa * fb + fc), 1e-6);
  Fd = lz::maximum(Fa, 0.0f) * lz::sqrt(lz::abs(Fb));
  check_close(Fd, lz::eval(lz::maximum(fa, 0.0f) * lz::sqrt(lz::abs(fb))), 1e-6);
  BOOST_TEST(std::abs(float(lz::sum(Fa)) - float(lz::sum(fa))) <= 1e-5f);
  BOOST_TEST(float(lz::max(Fa)) == float(lz::max(fa)));
  // Dynamic destinations: a dense one, a 4x4 block of a larger matrix (rows of stride 8),
  // a transposed view (columns of stride 1): each written where its layout says.
  for (int layout = 0; layout < 3; ++layout) {
    lz::matrix<double> big(8, 8);
    big = 7.0;
    auto block = big(lz::range(2, 6), lz::range(1, 5));
    lz::matrix<double> dense(4, 4);
    for (int form = 0; form < 2; ++form) {
      const lz::matrix<double> want = form == 0 ? lz::eval(a + 2.0 * b) : lz::eval(a * b + c);
      auto check = [&](const auto& got) {
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            BOOST_TEST(std::abs(got(i, j) - want(i, j)) <= 1e-12, layout << form << i << j);
      };
      if (layout == 0) {
        if (form == 0)
          dense.view() = A + 2.0 * B;
        else
          dense.view() = A * B + C;
        check(dense);
      } else if (layout == 1) {
        if (form == 0)
          block = A + 2.0 * B;
        else
          block = A * B + C;
        check(block);
        BOOST_TEST(big(0, 0) == 7.0); // outside the block: untouched
        BOOST_TEST(big(2, 0) == 7.0);
        BOOST_TEST(big(2, 5) == 7.0);
      } else {
        auto t = lz::transpose(dense.view());
        if (form == 0)
          t = A + 2.0 * B;
        else
          t = A * B + C;
        check(t);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(cross_determinant_and_inverse_match_a_long_double_reference) {
  std::mt19937_64 g(44);
  check_det_inverse<1>(g);
  check_det_inverse<2>(g);
  check_det_inverse<3>(g);
  check_det_inverse<4>(g);
  lz::vector3d a(1, 0, 0), b(0, 1, 0);
  const lz::vector3d c = lz::cross(a, b);
  BOOST_TEST(c(2) == 1.0);
  BOOST_TEST(c(0) == 0.0);
  const lz::vector3d d = lz::cross(a + b, 2.0 * b);
  BOOST_TEST(d(2) == 2.0);
  lz::fixed_matrix<int, 3, 3> im{{2, 0, 1}, {1, 3, 2}, {1, 1, 2}};
  BOOST_TEST(lz::determinant(im) == 6);
  lz::matrix3d singular{{1, 2, 3}, {2, 4, 6}, {0, 1, 1}};
  BOOST_CHECK_THROW(lz::inverse(singular), lz::linalg_error);
  try {
    (void)lz::inverse(lz::matrix4d());
  } catch (const lz::linalg_error& e) {
    BOOST_TEST(std::string(e.what()) == "lz::inverse: the 4x4 matrix is singular (determinant 0)");
  }
}

BOOST_AUTO_TEST_SUITE_END()
