// The transcendental batch bodies compiled once in lazuli_kernels (kernels/cpu/vmath.cpp) and
// the choice between them and the inlined bodies (batch_math, lz/simd.hpp): which batch types
// call the library (the plan), and that the library's bodies compute what the inlined ones do,
// rare-lane fixes included, on random and special values with fixed seeds (the numbers). The
// op tests (tests/core/ops_test.cpp) check both against std through whole assignments.
#include <boost/test/unit_test.hpp>

#include <support/reference.hpp>

#include <lz/lz.hpp>
#include <lz/simd.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace d = lz::fn::detail;

// Values every body must agree on: zeros of both signs, ±inf, NaN, the smallest normal and
// subnormal numbers, the edges of exp's range (where the fixes take over) and ±1 (asin, acos),
// then random values of every magnitude and sign.
template <class T>
std::vector<T> inputs(std::uint64_t seed) {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0),      T(-0.0),   L::infinity(),   -L::infinity(),   L::quiet_NaN(),
                      L::min(),  -L::min(), L::denorm_min(), -L::denorm_min(), T(1),
                      T(-1),     T(0.5),    T(86.9),         T(87.5),          T(88.9),
                      T(-87.5),  T(-103.5), T(707.9),        T(709.5),         T(-745.0),
                      T(-708.5), T(1e-30),  T(3.14159265),   T(1e6),           T(-1e6),
                      L::max(),  -L::max(), T(2.5e-8)};
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> mag(-40, 40), unit(-1, 1), small(-10, 10);
  for (int i = 0; i < 4000; ++i) {
    const double x = (i % 3 == 0) ? unit(g) : (i % 3 == 1) ? small(g) : std::exp2(mag(g)) * unit(g);
    v.push_back(T(x));
  }
  return v;
}

// Runs F's library body and its inline body over `in` (a batch at a time; the second operand
// of a binary body is `in` rotated by one batch and a lane), returning the worst ulp distance.
template <class F, int Arity, class T>
double worst_ulp(const std::vector<T>& in, std::string& where) {
  using B = xsimd::batch<T>;
  constexpr std::size_t W = B::size;
  double worst = 0;
  for (std::size_t i = 0; i + W <= in.size(); i += W) {
    alignas(64) T a[W], b[W], lib[W], inl[W];
    for (std::size_t k = 0; k < W; ++k) {
      a[k] = in[i + k];
      b[k] = in[(i + k + W + 1) % in.size()];
    }
    const B x = B::load_aligned(a), y = B::load_aligned(b);
    if constexpr (Arity == 1) {
      d::outlined<F>(x).store_aligned(lib);
      F::run(x).store_aligned(inl);
    } else {
      d::outlined<F>(x, y).store_aligned(lib);
      F::run(x, y).store_aligned(inl);
    }
    for (std::size_t k = 0; k < W; ++k) {
      const double u = lz_test::ulp_distance<T>(lib[k], inl[k]);
      // A zero's sign is part of the result (expm1(-0) = -0): ulp_distance counts them equal.
      const bool sign_differs =
          lib[k] == T(0) && inl[k] == T(0) && std::signbit(lib[k]) != std::signbit(inl[k]);
      if (u > worst || sign_differs) {
        worst = sign_differs ? std::numeric_limits<double>::infinity() : u;
        where = "x = " + std::to_string(a[k]) +
                (Arity == 2 ? ", y = " + std::to_string(b[k]) : "") + ": library " +
                std::to_string(lib[k]) + ", inline " + std::to_string(inl[k]);
      }
    }
  }
  return worst;
}

template <class T>
void check_all_bodies() {
  const auto in = inputs<T>(sizeof(T) == 4 ? 11 : 12);
  // The library is compiled with the compiler's default FMA contraction, this file with
  // -ffp-contract=off (tests/CMakeLists.txt): a fused multiply-add may move the last bit.
  const double allowed = 2;
  auto check = [&](const char* name, double u, const std::string& where) {
    BOOST_TEST(u <= allowed, name << "<" << (sizeof(T) == 4 ? "float" : "double")
                                  << ">: library and inline bodies differ by " << u << " ulp at "
                                  << where);
  };
  std::string w;
#define LZ_CHECK_UNARY(NAME) check(#NAME, worst_ulp<d::NAME##_b, 1>(in, w), w);
  LZ_OUTLINED_UNARY_MATH(LZ_CHECK_UNARY)
#undef LZ_CHECK_UNARY
  check("atan2", worst_ulp<d::atan2_b, 2>(in, w), w);
}

} // namespace

BOOST_AUTO_TEST_CASE(batches_of_the_kernels_target_call_the_library_bodies_where_it_pays) {
#if defined(LZ_KERNELS_SIMD_ARCH)
  // CMake probed the target with lazuli_kernels' flags, which this test shares.
  BOOST_TEST(xsimd::default_arch::version() == unsigned(LZ_KERNELS_SIMD_ARCH));
  // Called on 512-bit targets, inlined on narrower ones (a call per 4 doubles cost W2 1.4x on
  // AVX2), called on any matching target with LZ_OUTLINE_MATH (kernels_vmath_outlined_test).
#if defined(LZ_OUTLINE_MATH)
  const bool called = true;
#else
  const bool called = sizeof(xsimd::batch<float>) == 64;
#endif
  BOOST_TEST(d::math_outlined<xsimd::batch<double>>::value == called);
  BOOST_TEST(d::math_outlined<xsimd::batch<float>>::value == called);
  BOOST_TEST_MESSAGE("transcendental bodies on " << xsimd::default_arch::name() << ": "
                                                 << (called ? "called" : "inlined"));
#else
  BOOST_TEST_MESSAGE("LZ_KERNELS_SIMD_ARCH undefined (cross build): every body is inlined");
  BOOST_TEST(!d::math_outlined<xsimd::batch<double>>::value);
#endif
  // Never for other element types, scalars, or batches of another target.
  BOOST_TEST(!d::math_outlined<xsimd::batch<std::int32_t>>::value);
  BOOST_TEST(!d::math_outlined<double>::value);
#if XSIMD_WITH_SSE2
  using sse2_batch = xsimd::batch<double, xsimd::sse2>;
  if constexpr (!std::is_same_v<xsimd::default_arch, xsimd::sse2>)
    BOOST_TEST(!d::math_outlined<sse2_batch>::value);
#endif
}

BOOST_AUTO_TEST_CASE(library_bodies_compute_what_the_inline_bodies_do_double) {
  check_all_bodies<double>();
}

BOOST_AUTO_TEST_CASE(library_bodies_compute_what_the_inline_bodies_do_float) {
  check_all_bodies<float>();
}

BOOST_AUTO_TEST_CASE(functors_on_batches_go_through_the_library_with_the_fixes) {
  // exp(-745) is subnormal (xsimd alone gives garbage there) and expm1(-0) is -0: the functor,
  // as a kernel calls it, gets both right on a batch.
  using B = xsimd::batch<double>;
  alignas(64) double out[B::size];
  lz::fn::exp_fn{}(B(-745.0)).store_aligned(out);
  BOOST_TEST(out[0] == std::exp(-745.0));
  lz::fn::expm1_fn{}(B(-0.0)).store_aligned(out);
  BOOST_TEST((out[0] == 0.0 && std::signbit(out[0])));
  lz::fn::atan2_fn{}(B(0.0), B(-0.0)).store_aligned(out);
  BOOST_TEST(out[0] == std::atan2(0.0, -0.0));
}

BOOST_AUTO_TEST_CASE(assignments_through_the_chosen_bodies_agree_with_libm) {
  // A whole tree, as a user writes it, through whichever bodies this build chose (inlined or
  // the library's): z = x*y + sin(w)*exp(-v) (W2) within 4 ulp of std, with a tail that is not
  // a whole batch.
  const lz::index_t n = 1003;
  auto x = lz::random<double>({n}, 1, lz::uniform{0.5, 2.0});
  auto y = lz::random<double>({n}, 2, lz::uniform{0.5, 2.0});
  auto w = lz::random<double>({n}, 3, lz::uniform{0.1, 3.0});
  auto v = lz::random<double>({n}, 4, lz::uniform{-2.0, 2.0});
  lz::vector<double> z = x * y + lz::sin(w) * lz::exp(-v);
  double worst = 0;
  for (lz::index_t i = 0; i < n; ++i)
    worst = std::max(
        worst, lz_test::ulp_distance<double>(z(i), x(i) * y(i) + std::sin(w(i)) * std::exp(-v(i))));
  BOOST_TEST(worst <= 4);
}

BOOST_AUTO_TEST_CASE(
    files_of_the_kernels_target_take_the_trigonometric_reduction_from_the_library) {
  // The plan: with xsimd 8.1, a file of the library's target declares xsimd's trigo_reducer
  // extern, so it never compiles the scalar reduction of huge arguments (lz/simd.hpp).
#if defined(LZ_KERNELS_SIMD_ARCH) && !defined(LZ_INLINE_MATH) && XSIMD_VERSION_MAJOR == 8 &&       \
    XSIMD_VERSION_MINOR == 1
  BOOST_TEST(LZ_DETAIL_FILE_SIMD_ARCH == LZ_KERNELS_SIMD_ARCH);
#if !defined(LZ_DETAIL_TRIG_REDUCER_EXTERN)
  BOOST_ERROR("a file of the kernels' target compiles xsimd's trigonometric reduction itself");
#else
  // The numbers, from the library's copy: its address names the extern definition (this file
  // emits none; without vmath.cpp's instantiation it would not link). Arguments beyond 2^20·π/2
  // take the scalar branch; sin(x) is then ±sin or ±cos of the reduced argument by quadrant.
  using B = xsimd::batch<double>;
  using R = xsimd::kernel::detail::trigo_reducer<B, xsimd::kernel::detail::trigo_radian_tag>;
  B (*reduce)(const B&, B&) noexcept = &R::reduce;
  std::mt19937_64 g(13);
  std::uniform_real_distribution<double> e(21, 1000);
  for (int k = 0; k < 64; ++k) {
    alignas(64) double x[B::size], q[B::size], r[B::size];
    for (auto& v : x) v = std::exp2(e(g)) * (k % 2 ? 1.0 : 1.0 + 1e-3 * double(k));
    B xr;
    reduce(B::load_aligned(x), xr).store_aligned(q);
    xr.store_aligned(r);
    for (std::size_t i = 0; i < B::size; ++i) {
      const int quadrant = int(q[i]) & 3;
      const double s = quadrant == 0   ? std::sin(r[i])
                       : quadrant == 1 ? std::cos(r[i])
                       : quadrant == 2 ? -std::sin(r[i])
                                       : -std::cos(r[i]);
      BOOST_TEST(std::abs(r[i]) <= 0.7854, "x = " << x[i] << ": reduced to " << r[i]);
      BOOST_TEST(lz_test::ulp_distance<double>(s, std::sin(x[i])) <= 2,
                 "x = " << x[i] << ": " << s << " against std::sin " << std::sin(x[i]));
    }
  }
#endif
#else
  BOOST_TEST_MESSAGE("xsimd's trigonometric reduction is compiled in this file");
#endif
  // Whatever the file does, whole assignments get huge, infinite and NaN arguments right.
  lz::vector<double> x = {1e7,
                          -3e15,
                          1e22,
                          1.5e300,
                          -1e300,
                          0.5,
                          std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(),
                          2e9,
                          -7e11,
                          1e100};
  lz::vector<double> s = lz::sin(x), c = lz::cos(x);
  lz::vector<float> xf = {1e7f, -3e15f, 1e22f, 3e38f, 0.5f, std::numeric_limits<float>::infinity(),
                          2e9f, -7e11f, 1e30f};
  lz::vector<float> sf = lz::sin(xf);
  for (lz::index_t i = 0; i < x.size(); ++i) {
    if (std::isnan(std::sin(x(i)))) {
      BOOST_TEST((std::isnan(s(i)) && std::isnan(c(i))), "x = " << x(i));
      continue;
    }
    BOOST_TEST(lz_test::ulp_distance<double>(s(i), std::sin(x(i))) <= 2, "sin " << x(i));
    BOOST_TEST(lz_test::ulp_distance<double>(c(i), std::cos(x(i))) <= 2, "cos " << x(i));
  }
  for (lz::index_t i = 0; i < xf.size(); ++i) {
    if (std::isnan(std::sin(xf(i))))
      BOOST_TEST(std::isnan(sf(i)), "x = " << xf(i));
    else
      BOOST_TEST(lz_test::ulp_distance<float>(sf(i), std::sin(xf(i))) <= 2, "sin " << xf(i));
  }
}
