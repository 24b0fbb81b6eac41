// Every reduction (sum prod min max mean norm2 argmin argmax all any dot), over everything and
// along each axis, against the reference evaluator (long double accumulation) under every
// policy, on random shapes (empty included), layouts and values; empty reductions; bit-identical
// results for any thread count; pairwise accuracy (error ~log n, not n).
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace {

using namespace lz_test;
using lz::index_t;

using types = std::tuple<float, double, std::int32_t, std::int64_t>;
using float_types = std::tuple<float, double>;
using every_types = std::tuple<double, std::int32_t>;
using subset_types = std::tuple<float, std::int64_t>;

template <class E>
struct op_of;
template <class Op, class Fin, class E>
struct op_of<lz::reduce_expr<Op, Fin, E>> {
  using type = Op;
};
template <class Op, class Fin, class E>
struct op_of<lz::reduce_axis_expr<Op, Fin, E>> {
  using type = Op;
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Tolerance of a floating reduction result. Pairwise summation over blocks of B =
// thresholds().reduce_block elements with 32 SIMD lanes is within (B / 32 + log2 n) eps of
// sum |x| (lz::seq: blocks of B / 4, one running sum each: B / 4 + log2 n); the bound leaves a
// factor of 2. A mean
// divides it by n; norm2 (a sum of squares, then sqrt) is relative to itself; products are
// relative 4 n eps; everything else is exact.
double tolerance(const std::string& name, double eps, double sum_abs, double want, index_t n,
                 bool scalar = false) {
  // lz::seq has no SIMD lanes: each (quarter) block is one running sum.
  const double B = double(lz::thresholds().reduce_block);
  const double c = ((scalar ? B / 2 : B / 16) + 2 * std::log2(double(n) + 1)) * eps;
  if (name == "sum" || name == "dot") return c * sum_abs;
  if (name == "mean") return n ? c * sum_abs / double(n) : 0;
  if (name == "norm2") return c * std::fabs(want);
  if (name == "prod") return 4.0 * double(n + 1) * eps * std::fabs(want);
  return 0;
}

template <class V>
double eps_of() {
  if constexpr (std::is_floating_point_v<V>)
    return std::numeric_limits<V>::epsilon();
  else
    return 0;
}

// got vs want: within `tol`; NaN matches NaN, an infinity must be the same infinity.
template <class V>
bool close(V got, V want, double tol) {
  if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (std::isinf(want) || std::isinf(got)) return got == want;
    return std::fabs(double(got) - double(want)) <= tol;
  } else {
    return got == want;
  }
}

// Values a reduction is fed: products stay near 1 (no overflow), integers small.
template <class T>
values values_for(const std::string& name) {
  if (name == "prod") return std::is_integral_v<T> ? values::small : values::plain;
  if (name == "all" || name == "any") return values::boolean;
  return std::is_floating_point_v<T> ? values::special : values::plain;
}

template <class T, std::size_t R>
viewed_buffer<T, R> reduction_input(rng& r, const lz::shape_t<R>& shape, const std::string& name) {
  auto vb = make_viewed<T, R>(shape, random_layout<R>(r, r.pick(all_layout_kinds), false), r.next(),
                              values_for<T>(name));
  rng v(r.next());
  detail::for_each_index(vb.view, [&](const auto& i) {
    index_t off = 0;
    for (std::size_t k = 0; k < R; ++k) off += i[k] * vb.view.strides()[k];
    T& x = vb.view.data()[off];
    if (name == "prod") { // |x| in [0.75, 1.25) keeps floating products finite; integers ±1
      if constexpr (std::is_floating_point_v<T>)
        x = T((v.chance(0.5) ? 1 : -1) * (0.75 + 0.5 * v.unit()));
      else
        x = T(v.chance(0.5) ? 1 : -1);
    } else if constexpr (std::is_floating_point_v<T>) {
      // Sums of ±max overflow or not depending on the order (pairwise vs the long double
      // reference): finite specials stay below 1e30.
      if (std::isfinite(x) && std::fabs(x) > T(1e30)) x = T(1e30);
    }
  });
  return vb;
}

// The checks below keep per-expression template code to the engine calls and the reference;
// comparing and reporting are plain functions over doubles (each instantiation of a reduction
// costs seconds of compile time, so what is not the engine is not a template).

// got[p] (policies seq, simd, par, automatic) against want.
void report(const std::string& what, const double* got, double want, bool floating,
            const double* tol) {
  static const char* names[] = {"lz::seq", "lz::simd", "lz::par", "lz::automatic"};
  for (int p = 0; p < 4; ++p) {
    const bool ok = floating ? close<double>(got[p], want, tol[p]) : got[p] == want;
    BOOST_TEST(ok, what << " under " << names[p] << ": got " << got[p] << ", want " << want);
  }
}

// A tensor's elements as doubles, row-major (exact for every reduction result type).
template <class X>
std::vector<double> as_doubles(const X& t) {
  std::vector<double> out;
  out.reserve(std::size_t(t.size()));
  detail::for_each_index(t, [&](const auto& i) { out.push_back(double(ref_at(t, i))); });
  return out;
}

void report_axis(const std::string& what, const char* policy, const std::vector<double>& got,
                 const std::vector<double>& want, const std::vector<double>& sum_abs,
                 const char* name, double eps, index_t len, bool scalar, bool floating) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool ok = floating ? close<double>(got[i], want[i],
                                             tolerance(name, eps, sum_abs[i], want[i], len, scalar))
                             : got[i] == want[i];
    if (!ok) {
      BOOST_ERROR(what << " under " << policy << " at flat index " << i << ": got " << got[i]
                       << ", want " << want[i]);
      return;
    }
  }
}

template <class T, std::size_t R>
double sum_of_abs(const lz::tensor_view<T, R>& x) {
  double s = 0;
  detail::for_each_index(x, [&](const auto& i) { s += std::fabs(double(ref_at(x, i))); });
  return s;
}

// Full reduction `make(x)` under every policy vs the reference; empty inputs of reductions
// without identity must throw shape_error.
template <class T, class Make>
void check_full(const char* name, Make make, int cases, std::uint64_t seed) {
  rng r(seed);
  for (int c = 0; c < cases; ++c) {
    const auto shape = random_shape<3>(r, 5000);
    auto x = reduction_input<T, 3>(r, shape, name);
    const auto e = make(x.cview());
    using E = std::remove_cvref_t<decltype(e)>;
    using V = lz::value_t<E>;
    const index_t n = x.view.size();
    const std::string what = std::string(name) + "(" + type_name<T>() +
                             lz::detail::to_string(shape) + " " + describe(x, "x") + ")";
    if (!op_of<E>::type::has_identity && n == 0) {
      int throws = 0;
      for_each_policy([&](auto pol, const char*) { // (a node per policy: a node computes once)
        try {
          (void)lz::eval(pol, make(x.cview()));
        } catch (const lz::shape_error&) {
          ++throws;
        }
      });
      BOOST_TEST(throws == 4, what << " of nothing must throw shape_error");
      continue;
    }
    const double want = double(ref_scalar(e)), sum_abs = sum_of_abs(x.view);
    double got[4], tol[4];
    int p = 0;
    for_each_policy([&](auto pol, const char*) {
      got[p] = double(lz::eval(pol, make(x.cview()))); // (a node per policy)
      tol[p++] = tolerance(name, eps_of<V>(), sum_abs, want, n,
                           std::is_same_v<decltype(pol), lz::seq_policy>);
    });
    report(what, got, want, std::is_floating_point_v<V>, tol);
  }
}

// Axis reduction `make(x, axis)` into destinations of random layout under every policy.
template <class T, class Make>
void check_axis(const char* name, Make make, int cases, std::uint64_t seed) {
  rng r(seed);
  for (int c = 0; c < cases; ++c) {
    const auto shape = random_shape<3>(r, 5000);
    auto x = reduction_input<T, 3>(r, shape, name);
    const std::size_t axis = std::size_t(r.between(0, 2));
    const auto e = make(x.cview(), axis);
    using E = std::remove_cvref_t<decltype(e)>;
    using V = lz::value_t<E>;
    const std::string what = std::string(name) + "(" + type_name<T>() +
                             lz::detail::to_string(shape) + " " + describe(x, "x") + ", " +
                             std::to_string(axis) + ")";
    const index_t len = shape[axis];
    if (!op_of<E>::type::has_identity && len == 0 && e.shape()[0] * e.shape()[1] > 0) {
      lz::tensor<V, 2> d(e.shape());
      BOOST_CHECK_THROW(lz::assign(lz::par, d, e), lz::shape_error);
      continue;
    }
    const std::vector<double> want = as_doubles(reference(e));
    const std::vector<double> sum_abs =
        as_doubles(reference(lz::sum(lz::abs(lz::cast<double>(x.cview())), axis)));
    for_each_policy([&](auto pol, const char* pname) {
      layout_kind k = r.pick(all_layout_kinds);
      if (k == layout_kind::broadcast) k = layout_kind::general;
      auto d = make_viewed<V, 2>(e.shape(), random_layout<2>(r, k, true), r.next(), values::plain);
      lz::assign(pol, d.view, e);
      report_axis(what + " into " + describe(d, "dst"), pname, as_doubles(d.view), want, sum_abs,
                  name, eps_of<V>(), len, std::is_same_v<decltype(pol), lz::seq_policy>,
                  std::is_floating_point_v<V>);
      BOOST_TEST(d.untouched_outside(), what << " wrote outside the destination");
    });
  }
}

// Every reduction for T (Every = false: sum, mean, max, argmin and all, to bound compile time;
// double and int32 get every one, float and int64 the subset).
template <class T, bool Every>
void check_reductions(std::uint64_t seed, int cases) {
  auto full = [&](const char* name, auto make) { check_full<T>(name, make, cases, seed++); };
  auto axis = [&](const char* name, auto make) { check_axis<T>(name, make, cases, seed++); };
  full("sum", [](auto x) { return lz::sum(x); });
  full("mean", [](auto x) { return lz::mean(x); });
  full("max", [](auto x) { return lz::max(x); });
  full("argmin", [](auto x) { return lz::argmin(x); });
  full("all", [](auto x) { return lz::all(x); });
  axis("sum", [](auto x, std::size_t a) { return lz::sum(x, a); });
  axis("mean", [](auto x, std::size_t a) { return lz::mean(x, a); });
  axis("max", [](auto x, std::size_t a) { return lz::max(x, a); });
  axis("argmin", [](auto x, std::size_t a) { return lz::argmin(x, a); });
  axis("all", [](auto x, std::size_t a) { return lz::all(x, a); });
  if constexpr (Every) {
    full("prod", [](auto x) { return lz::prod(x); });
    full("min", [](auto x) { return lz::min(x); });
    full("norm2", [](auto x) { return lz::norm2(x); });
    full("argmax", [](auto x) { return lz::argmax(x); });
    full("any", [](auto x) { return lz::any(x); });
    axis("prod", [](auto x, std::size_t a) { return lz::prod(x, a); });
    axis("min", [](auto x, std::size_t a) { return lz::min(x, a); });
    axis("norm2", [](auto x, std::size_t a) { return lz::norm2(x, a); });
    axis("argmax", [](auto x, std::size_t a) { return lz::argmax(x, a); });
    axis("any", [](auto x, std::size_t a) { return lz::any(x, a); });
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_reduction_matches_the_reference, T, every_types) {
  check_reductions<T, true>(0x7ed0000 + sizeof(T) * 100 + std::is_integral_v<T> * 1000, 16);
}
BOOST_AUTO_TEST_CASE_TEMPLATE(reductions_match_the_reference_for_float_and_int64, T, subset_types) {
  check_reductions<T, false>(0x7ed0500 + sizeof(T) * 100 + std::is_integral_v<T> * 1000, 16);
}

// Reductions of elementwise trees are one pass over the operands (dot = sum(x * y)).
BOOST_AUTO_TEST_CASE_TEMPLATE(reductions_of_trees_and_dot_match_the_reference, T, types) {
  rng r(0x7ed1000 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (int c = 0; c < 20; ++c) {
    const auto shape = random_shape<2>(r, 8000);
    auto a = reduction_input<T, 2>(r, shape, "sum");
    auto b = reduction_input<T, 2>(r, shape, "sum");
    const auto d = lz::dot(a.cview(), b.cview());
    const auto t = lz::sum(lz::hadamard(a.cview(), b.cview()) - lz::abs(b.cview()));
    const auto want_d = ref_scalar(d), want_t = ref_scalar(t);
    double sum_abs = 0;
    detail::for_each_index(a.view, [&](const auto& i) {
      sum_abs += std::fabs(double(ref_at(a.view, i)) * double(ref_at(b.view, i))) +
                 std::fabs(double(ref_at(b.view, i)));
    });
    using V = lz::value_t<decltype(d)>;
    for_each_policy([&](auto pol, const char* pname) {
      const double tol = tolerance("sum", eps_of<V>(), sum_abs, 0, a.view.size(),
                                   std::is_same_v<decltype(pol), lz::seq_policy>);
      // (nodes built per policy: a full reduction is computed once, at its first use)
      BOOST_TEST(close<V>(lz::eval(pol, lz::dot(a.cview(), b.cview())), want_d, tol),
                 "dot " << lz::detail::to_string(shape) << " " << pname);
      BOOST_TEST(
          close<V>(lz::eval(pol, lz::sum(lz::hadamard(a.cview(), b.cview()) - lz::abs(b.cview()))),
                   want_t, tol),
          "sum(a * b - |b|) " << lz::detail::to_string(shape) << " " << pname);
    });
    // A full reduction converts to its value.
    const V v = lz::sum(lz::hadamard(a.cview(), b.cview()) - lz::abs(b.cview()));
    BOOST_TEST(close<V>(v, want_t, tolerance("sum", eps_of<V>(), sum_abs, 0, a.view.size())));
  }
}

// Long reduced axes exercise the block structure (blocks of B = thresholds().reduce_block:
// axes of 2B + 808 and B + 904) and the pairwise splits of the vertical (SIMD across outputs)
// and segment drivers.
BOOST_AUTO_TEST_CASE_TEMPLATE(long_axis_reductions_match_the_reference, T, types) {
  rng r(0x7ed2000 + sizeof(T) * 7 + std::is_integral_v<T>);
  const index_t B = lz::thresholds().reduce_block, two = 2 * B + 808, one = B + 904;
  const lz::shape_t<2> shapes[] = {{two, 3}, {3, two}, {700, 37}, {37, 700}, {one, 1}};
  for (const auto& s : shapes) {
    for (std::size_t axis = 0; axis < 2; ++axis) {
      auto x = make_viewed<T, 2>(s, random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(),
                                 std::is_floating_point_v<T> ? values::plain : values::plain);
      const auto e = lz::sum(x.cview(), axis);
      const auto m = lz::max(x.cview(), axis);
      const auto want = reference(e);
      const auto want_m = reference(m);
      const auto sum_abs = reference(lz::sum(lz::abs(lz::cast<double>(x.cview())), axis));
      using V = lz::value_t<decltype(e)>;
      for_each_policy([&](auto pol, const char* pname) {
        lz::tensor<V, 1> d(e.shape());
        lz::tensor<T, 1> dm(e.shape());
        lz::assign(pol, d, e);
        lz::assign(pol, dm, m);
        for (index_t i = 0; i < d.size(); ++i) {
          BOOST_TEST(close<V>(d(i), want(i),
                              tolerance("sum", eps_of<V>(), sum_abs(i), 0, s[axis],
                                        std::is_same_v<decltype(pol), lz::seq_policy>)),
                     "sum axis " << axis << " of " << lz::detail::to_string(s) << " " << pname
                                 << " at " << i);
          BOOST_TEST(dm(i) == want_m(i),
                     "max axis " << axis << " of " << lz::detail::to_string(s) << " " << pname);
        }
      });
    }
  }
}

// Every length around a batch (4, 8 or 16 lanes), on each path a slab or the vertical kernel is
// called from: a contiguous vector, a strided one, matrix rows with gaps between them, and
// along either axis (segments; across outputs, with a partial last batch of outputs). A row's
// last n % W elements run as its last batch, a row shorter than a batch on a padded copy
// (kernels/cpu/reduce.cpp): whole numbers, so every result is exact.
BOOST_AUTO_TEST_CASE_TEMPLATE(reductions_of_every_length_around_a_batch_match_the_reference, T,
                              types) {
  rng r(0x7ed2500 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (index_t n = 0; n <= 35; ++n) {
    const index_t m = 3;
    const auto X = random_tensor<T, 2>({m, 2 * n + 3}, r.next(), values::whole);
    const auto Y = random_tensor<T, 2>({m, 2 * n + 3}, r.next(), // (integers: divisors)
                                       std::is_integral_v<T> ? values::positive : values::whole);
    const auto x = lz::slice(X, lz::all, lz::range(0, n)); // rows with gaps
    const auto y = lz::slice(Y, lz::all, lz::range(0, n));
    const auto xs = lz::slice(X, 1, lz::range(0, 2 * n, 2)); // strided
    const auto ys = lz::slice(Y, 1, lz::range(0, 2 * n, 2));
    const lz::tensor<T, 1> xv = lz::slice(X, 0, lz::range(0, n)), yv = lz::slice(Y, 0, lz::all);
    const auto yv0 = lz::slice(yv, lz::range(0, n)); // (contiguous, at its buffer's start)
    auto full = [&](const auto& a, const auto& b, const char* what) {
      BOOST_TEST_CONTEXT(what << " of " << n << " elements, " << type_name<T>()) {
        BOOST_TEST(lz::sum(lz::hadamard(a, b)).value() == ref_scalar(lz::sum(lz::hadamard(a, b))));
        if (a.size() > 0) BOOST_TEST(lz::max(a - b).value() == ref_scalar(lz::max(a - b)));
        if constexpr (std::is_integral_v<T>) // (padding lanes: values of the row, never 0)
          BOOST_TEST(lz::sum(a / b).value() == ref_scalar(lz::sum(a / b)));
      }
    };
    full(xv, yv0, "a contiguous vector");
    full(xs, ys, "a strided vector");
    full(x, y, "3 rows with gaps");
    for (std::size_t axis = 0; axis < 2; ++axis) {
      using S = lz::value_t<decltype(lz::sum(lz::hadamard(x, y), axis))>; // (int32: int64)
      const lz::tensor<S, 1> got = lz::sum(lz::hadamard(x, y), axis);
      const auto want = reference(lz::sum(lz::hadamard(x, y), axis));
      BOOST_TEST_CONTEXT("sum along axis " << axis << " of 3 x " << n << ", " << type_name<T>()) {
        BOOST_TEST_REQUIRE(got.size() == want.size());
        for (index_t i = 0; i < got.size(); ++i) BOOST_TEST(got(i) == want(i));
      }
    }
  }
}

// Along a short axis whose leaves are strided across the outputs (the sums of a row-major
// matrix's rows), groups of outputs are transposed into buffers and run across the outputs
// (kernels/cpu/reduce.cpp, run_reduce_axis): rows of 1 to 121 elements, contiguous and every
// other column, around the batch and group sizes in outputs; whole numbers, so exact.
BOOST_AUTO_TEST_CASE_TEMPLATE(sums_of_short_rows_match_the_reference, T, types) {
  rng r(0x7ed2700 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (index_t m : {7, 8, 9, 17, 33, 300, 1111})
    for (index_t n : {1, 2, 3, 7, 37, 120, 121}) {
      const auto X = random_tensor<T, 2>({m, 2 * n}, r.next(), values::whole);
      for (index_t step : {1, 2}) {
        const auto x = lz::slice(X, lz::all, lz::range(0, step * n, step));
        using S = lz::value_t<decltype(lz::sum(x, 1))>;
        const lz::tensor<S, 1> got = lz::sum(x, 1);
        const lz::tensor<T, 1> got_max = lz::max(x + x, 1);
        const auto want = reference(lz::sum(x, 1));
        const auto want_max = reference(lz::max(x + x, 1));
        BOOST_TEST_CONTEXT(m << " rows of " << n << ", column step " << step << ", "
                             << type_name<T>()) {
          for (index_t i = 0; i < m; ++i) {
            BOOST_TEST(got(i) == want(i));
            BOOST_TEST(got_max(i) == want_max(i));
          }
        }
      }
    }
}

// The vertical kernel (contiguous outputs, the axis strided: `sum(A, 0)` of a row-major A)
// halves the axis into leaves of at most 256 rows, reads a leaf's two halves side by side (the
// second a row longer for an odd count) and two batches of outputs a pass, a last single batch
// twice and a partial one as the last batch (kernels/include/lz/kernels/cpu/reduce.hpp): row
// counts around those sizes, column counts around one to five batches of 4, 8 or 16 lanes;
// whole numbers, so every order gives the reference exactly.
BOOST_AUTO_TEST_CASE_TEMPLATE(column_sums_of_every_row_count_around_a_leaf_match_the_reference, T,
                              types) {
  rng r(0x7ed2900 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (index_t m : {1, 2, 3, 4, 255, 256, 257, 258, 513, 1025})
    for (index_t n : {4, 5, 8, 9, 12, 16, 17, 24, 31, 33, 40, 47, 48, 65, 80}) {
      const auto A = random_tensor<T, 2>({m, n}, r.next(), values::whole);
      using S = lz::value_t<decltype(lz::sum(A, 0))>;
      const lz::tensor<S, 1> got = lz::sum(A, 0);
      const lz::tensor<T, 1> got_max = lz::max(A - lz::square(A), 0);
      const auto want = reference(lz::sum(A, 0));
      const auto want_max = reference(lz::max(A - lz::square(A), 0));
      BOOST_TEST_CONTEXT(m << " x " << n << ", " << type_name<T>()) {
        BOOST_TEST_REQUIRE(got.size() == n);
        for (index_t j = 0; j < n; ++j) {
          BOOST_TEST(got(j) == want(j));
          BOOST_TEST(got_max(j) == want_max(j));
        }
      }
    }
}

// Outputs that are not a whole number of batch pairs along the last dim (`sum(P, 0)` of an
// n x 3 point set, 40 columns of 8 lanes): a row of outputs' block runs as rows of
// lcm(outputs, two batches) elements through the vertical kernel, the rows left over as one row
// more, and each output folds its accumulators (kernels/cpu/reduce.cpp, reduce_narrow): 2 to 120
// columns (under a batch of 4, 8 or 16 lanes, and past it), row counts around the fold's 1 to
// 32 rows and its leftovers; leaves contiguous, a row vector broadcast down the rows, one value
// broadcast to all; mean's count, `+=` into a strided destination, a rank-3 tensor's rows of
// outputs. Whole numbers: exact in any order.
BOOST_AUTO_TEST_CASE_TEMPLATE(column_sums_of_narrow_matrices_match_the_reference, T, types) {
  rng r(0x7ed2b00 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (index_t n : {2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 20, 24, 30, 40, 56, 120})
    for (index_t m : {1, 2, 3, 5, 8, 15, 16, 17, 31, 33, 47, 64, 65, 100, 257, 1000, 4099}) {
      const auto A = random_tensor<T, 2>({m, n}, r.next(), values::whole);
      const auto v = random_tensor<T, 1>({n}, r.next(), values::whole);
      const auto c = random_tensor<T, 2>({1, 1}, r.next(), values::whole);
      const auto X = random_tensor<T, 3>({2, m, n}, r.next(), values::whole);
      const auto V = lz::broadcast_to(v, {m, n});
      const auto C = lz::broadcast_to(c, {m, n});
      using S = lz::value_t<decltype(lz::sum(A, 0))>;
      using M = lz::value_t<decltype(lz::mean(A, 0))>;
      const lz::tensor<S, 1> got = lz::sum(A, 0);
      const lz::tensor<T, 1> got_max = lz::max(A - lz::square(A), 0);
      const lz::tensor<S, 1> got_bcast = lz::sum(lz::hadamard(A, V) + C, 0);
      const lz::tensor<M, 1> got_mean = lz::mean(A, 0);
      const lz::tensor<S, 2> got_3d = lz::sum(X, 1);
      lz::tensor<S, 1> into = random_tensor<S, 1>({2 * n}, r.next(), values::whole);
      const lz::tensor<S, 1> before = into;
      lz::slice(into, lz::range(0, 2 * n, 2)) += lz::sum(A, 0);
      const auto want = reference(lz::sum(A, 0));
      const auto want_max = reference(lz::max(A - lz::square(A), 0));
      const auto want_bcast = reference(lz::sum(lz::hadamard(A, V) + C, 0));
      const auto want_mean = reference(lz::mean(A, 0));
      const auto want_3d = reference(lz::sum(X, 1));
      BOOST_TEST_CONTEXT(m << " x " << n << ", " << type_name<T>()) {
        BOOST_TEST_REQUIRE(got.size() == n);
        for (index_t j = 0; j < n; ++j) {
          BOOST_TEST(got(j) == want(j));
          BOOST_TEST(got_max(j) == want_max(j));
          BOOST_TEST(got_bcast(j) == want_bcast(j));
          BOOST_TEST(close<M>(got_mean(j), want_mean(j),
                              2 * eps_of<M>() * std::fabs(double(want_mean(j)))));
          BOOST_TEST(got_3d(0, j) == want_3d(0, j));
          BOOST_TEST(got_3d(1, j) == want_3d(1, j));
          BOOST_TEST(into(2 * j) == S(before(2 * j) + want(j)));
          BOOST_TEST(into(2 * j + 1) == before(2 * j + 1));
        }
      }
    }
}

// Reductions into an existing destination with += and friends write straight into it.
BOOST_AUTO_TEST_CASE(compound_assignment_of_axis_reductions_matches_the_reference) {
  rng r(0x7ed3000);
  for (int c = 0; c < 20; ++c) {
    const auto shape = random_shape<2>(r, 4000);
    // Draws in a fixed order (function arguments are evaluated in an unspecified one).
    const std::uint64_t seed = r.next();
    const auto kind = r.pick(all_layout_kinds);
    auto x = make_viewed<double, 2>(shape, random_layout<2>(r, kind, false), seed, values::plain);
    const std::size_t axis = std::size_t(r.between(0, 1));
    const auto e = lz::sum(x.cview(), axis);
    const auto want = reference(e);
    lz::vector<double> d = random_tensor<double, 1>(e.shape(), r.next());
    const lz::vector<double> old = d;
    d += e;
    d -= lz::max(x.cview(), axis) * 0.0; // (a reduction inside a tree: map rule)
    for (index_t i = 0; i < d.size(); ++i)
      BOOST_TEST(std::fabs(d(i) - (old(i) + want(i))) <= 1e-12 * (1 + std::fabs(want(i))));
    lz::vector<double> q = old;
    q *= e;
    for (index_t i = 0; i < q.size(); ++i)
      BOOST_TEST(std::fabs(q(i) - old(i) * want(i)) <= 1e-12 * (1 + std::fabs(old(i) * want(i))));
  }
}

// Compile time: reductions of trees that differ only in their leaves' types (a vector, a
// matrix, a transposed or sliced view) share one kernel (kernels/cpu/reduce.hpp, reducer_for);
// a different functor or element type does not. Run time: each gives the reference's numbers.
BOOST_AUTO_TEST_CASE(reductions_of_the_same_computation_share_one_kernel) {
  namespace cpu = lz::kernels::cpu;
  using lz::red::identity_fin;
  using lz::red::sum_op;
  constexpr auto set = lz::detail::assign_op::set;
  lz::vector<double> x = lz::random<double>({50}, 41), y = lz::random<double>({50}, 42);
  lz::matrix<double> A = lz::random<double>({7, 5}, 43);
  const auto at = lz::transpose(A);
  const auto ax = lz::slice(A, lz::range(0, 7, 2), lz::all);
  using xs = decltype((x - y) * 2.0);
  using as = decltype((at - at) * 2.0);
  using ss = decltype((ax - lz::slice(A, lz::range(1, 7, 2), lz::all)) * 2.0);
  using k1 = cpu::reducer_for<sum_op, identity_fin, double, set, xs, true>;
  static_assert(std::is_same_v<k1, cpu::reducer_for<sum_op, identity_fin, double, set, as, true>>);
  static_assert(std::is_same_v<k1, cpu::reducer_for<sum_op, identity_fin, double, set, ss, true>>);
  static_assert(
      !std::is_same_v<
          k1, cpu::reducer_for<sum_op, identity_fin, double, set, decltype((x - y) / 2.0), true>>);
  static_assert(!std::is_same_v<k1, cpu::reducer_for<sum_op, identity_fin, float, set, xs, true>>);
  static_assert(!std::is_same_v<cpu::reducer_for<sum_op, identity_fin, double, set, xs, true>,
                                cpu::reducer_for<sum_op, identity_fin, double, set, xs, false>>);
  BOOST_TEST(std::fabs(lz::sum((x - y) * 2.0) - ref_scalar(lz::sum((x - y) * 2.0))) <= 1e-12);
  const auto as_e = (lz::transpose(A) - 0.5 * lz::transpose(A)) * 2.0;
  BOOST_TEST(std::fabs(lz::sum(as_e) - ref_scalar(lz::sum(as_e))) <= 1e-12);
  lz::vector<double> cols = lz::sum(as_e, 1);
  BOOST_TEST(max_rel_error(cols, reference(lz::sum(as_e, 1))) < 1e-13);
  lz::vector<double> rows = lz::sum(ax * 2.0, 0);
  BOOST_TEST(max_rel_error(rows, reference(lz::sum(ax * 2.0, 0))) < 1e-13);
}

// The empty reductions: min/max/argmin/argmax throw, the others give their identity.
BOOST_AUTO_TEST_CASE(empty_reductions_give_their_identity_or_throw) {
  const lz::matrix<double> e(0, 5), f(3, 0);
  const lz::vector<int> vi(0);
  for (const auto* m : {&e, &f}) {
    BOOST_CHECK_THROW(lz::min(*m).value(), lz::shape_error);
    BOOST_CHECK_THROW(lz::max(*m).value(), lz::shape_error);
    BOOST_CHECK_THROW(lz::argmin(*m).value(), lz::shape_error);
    BOOST_CHECK_THROW(lz::argmax(*m).value(), lz::shape_error);
    BOOST_TEST(lz::sum(*m).value() == 0.0);
    BOOST_TEST(lz::prod(*m).value() == 1.0);
    BOOST_TEST(std::isnan(lz::mean(*m).value()));
    BOOST_TEST(lz::all(*m).value() == true);
    BOOST_TEST(lz::any(*m).value() == false);
    BOOST_TEST(lz::norm2(*m).value() == 0.0);
    BOOST_TEST(lz::dot(*m, *m).value() == 0.0);
  }
  BOOST_CHECK_THROW(lz::min(vi).value(), lz::shape_error);
  BOOST_TEST(lz::sum(vi).value() == 0);
  BOOST_TEST(lz::prod(vi).value() == 1);
  BOOST_TEST(std::isnan(lz::mean(vi).value()));
  // Along an empty axis: identities per output, or shape_error when there are outputs.
  lz::vector<double> s0 = lz::sum(f, 1);
  BOOST_TEST(s0.size() == 3);
  for (index_t i = 0; i < 3; ++i) BOOST_TEST(s0(i) == 0.0);
  lz::vector<double> p0 = lz::prod(f, 1);
  for (index_t i = 0; i < 3; ++i) BOOST_TEST(p0(i) == 1.0);
  lz::vector<bool> a0 = lz::all(f, 1);
  for (index_t i = 0; i < 3; ++i) BOOST_TEST(a0(i) == true);
  lz::vector<double> m0 = lz::mean(f, 1);
  for (index_t i = 0; i < 3; ++i) BOOST_TEST(std::isnan(m0(i)));
  BOOST_CHECK_THROW(lz::vector<double>(lz::max(f, 1)), lz::shape_error);
  BOOST_CHECK_THROW(lz::eval(lz::argmin(f, 1)), lz::shape_error);
  // No outputs: nothing to reduce, nothing thrown.
  lz::vector<double> none = lz::max(e, 1);
  BOOST_TEST(none.size() == 0);
}

// Full reductions are fixed pairwise trees over fixed blocks: the same bits for any thread
// count (and for par, automatic and simd, which share the tree).
BOOST_AUTO_TEST_CASE_TEMPLATE(reductions_are_bit_identical_for_any_thread_count, T, types) {
  const index_t n = (index_t(1) << 21) + 12345;
  auto x = random_tensor<T, 1>({n}, 0xb17 + sizeof(T), values::plain);
  auto m = random_tensor<T, 2>({1500, 1333}, 0xb18 + sizeof(T), values::plain);
  auto narrow = random_tensor<T, 2>({300001, 3}, 0xb19 + sizeof(T), values::plain); // (chunks)
  using S = lz::value_t<decltype(lz::sum(x))>;
  std::vector<S> sums, dots;
  std::vector<lz::vector<S>> cols, rows, narrow_cols;
  for (int threads : {1, 2, 3, 4}) {
    lz::set_num_threads(threads);
    sums.push_back(lz::eval(lz::par, lz::sum(x)));
    dots.push_back(lz::eval(lz::par, lz::dot(x, x)));
    cols.push_back(lz::eval(lz::par, lz::sum(m, 0)));
    rows.push_back(lz::eval(lz::par, lz::sum(m, 1)));
    narrow_cols.push_back(lz::eval(lz::par, lz::sum(narrow, 0)));
  }
  lz::set_num_threads(0);
  for (std::size_t k = 1; k < sums.size(); ++k) {
    BOOST_TEST(same_bits(sums[k], sums[0]), "sum with " << k + 1 << " threads");
    BOOST_TEST(same_bits(dots[k], dots[0]), "dot with " << k + 1 << " threads");
    BOOST_TEST(std::memcmp(cols[k].data(), cols[0].data(), sizeof(S) * 1333) == 0);
    BOOST_TEST(std::memcmp(rows[k].data(), rows[0].data(), sizeof(S) * 1500) == 0);
    BOOST_TEST(std::memcmp(narrow_cols[k].data(), narrow_cols[0].data(), sizeof(S) * 3) == 0);
  }
  BOOST_TEST(same_bits(lz::eval(lz::automatic, lz::sum(x)), sums[0]));
  BOOST_TEST(same_bits(lz::eval(lz::simd, lz::sum(x)), sums[0]));
}

// The blocks are thresholds().reduce_block elements on SIMD accumulators and a quarter of it on
// lz::seq's one running sum (kernels/cpu/reduce.cpp, block_of): a sum of one and a half blocks
// is the first block's sum plus the rest's (a tree of smaller blocks splits elsewhere;
// docs/decisions/reduction-blocks-of-16384.md).
BOOST_AUTO_TEST_CASE_TEMPLATE(full_sums_combine_blocks_of_reduce_block_elements, T, float_types) {
  const index_t B = lz::thresholds().reduce_block, Q = B / 4;
  rng r(0xb10c + sizeof(T));
  lz::vector<T> x(B + B / 2);
  for (index_t i = 0; i < x.size(); ++i) x(i) = T(r.unit() * double(1 + i % 7)); // inexact sums
  const auto part = [&](const auto& pol, index_t lo, index_t hi) {
    const lz::vector<T> p = x(lz::range(lo, hi));
    return T(lz::eval(pol, lz::sum(p)));
  };
  const T blocks = part(lz::simd, 0, B) + part(lz::simd, B, x.size());
  BOOST_TEST(same_bits(T(lz::eval(lz::simd, lz::sum(x))), blocks));
  BOOST_TEST(same_bits(T(lz::sum(x)), blocks));
  // lz::seq: Q + Q / 2 elements are one of its blocks and half of another.
  const lz::vector<T> y = x(lz::range(0, Q + Q / 2));
  const T seq_blocks = part(lz::seq, 0, Q) + part(lz::seq, Q, Q + Q / 2);
  BOOST_TEST(same_bits(T(lz::eval(lz::seq, lz::sum(y))), seq_blocks));
  T running = 0;
  for (index_t i = 0; i < y.size(); ++i) running += y(i);
  BOOST_TEST(!same_bits(running, seq_blocks)); // (else the check above could not fail)
}

// lz::explain names the block each reduction runs in: thresholds().reduce_block on SIMD
// accumulators, a quarter of it under lz::seq and for arg-reductions, settled or not.
BOOST_AUTO_TEST_CASE(explain_names_the_block_each_reduction_runs_in) {
  const index_t B = lz::thresholds().reduce_block;
  const auto has = [](const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
  };
  const lz::vector<double> x = lz::ones<double>({100});
  const lz::matrix<double> A = lz::ones<double>({4, 100});
  lz::vector<double> r(4), z(100);
  lz::vector<lz::index_t> i(4);
  const std::string full = "pairwise blocks of " + std::to_string(B) + ",";
  const std::string quarter = "pairwise blocks of " + std::to_string(B / 4) + ",";
  const std::string axis = "pairwise blocks of " + std::to_string(B) + ")";
  const std::string axis_quarter = "pairwise blocks of " + std::to_string(B / 4) + ")";
  const std::string simd = lz::explain(z, x - lz::mean(x)); // settled first
  const std::string seq = lz::explain(lz::seq, z, x - lz::mean(x));
  BOOST_TEST(has(simd, full), simd);
  BOOST_TEST(has(seq, quarter), seq);
  const std::string rows = lz::explain(r, lz::sum(A, 1)),
                    rows_seq = lz::explain(lz::seq, r, lz::sum(A, 1));
  BOOST_TEST(has(rows, axis), rows);
  BOOST_TEST(has(rows_seq, axis_quarter), rows_seq);
  const std::string arg = lz::explain(i, lz::argmax(A, 1));
  BOOST_TEST(has(arg, axis_quarter), arg);
}

// A contiguous 1-d reduction runs its blocks directly (run_reduce's fast path); the same data
// seen as a contiguous matrix goes through the planned loop and the block grid. Both walk the
// same blocks, so they give the same bits, with or without software prefetches (issued from
// thresholds().reduce_prefetch operand bytes; 1 forces them, 0 turns them off).
BOOST_AUTO_TEST_CASE_TEMPLATE(contiguous_reductions_give_the_same_bits_on_every_path, T,
                              float_types) {
  const index_t rows = 1500, cols = 1333, n = rows * cols;
  auto x = random_tensor<T, 1>({n}, 0xfa57 + sizeof(T), values::plain);
  auto y = random_tensor<T, 1>({n}, 0xfa58 + sizeof(T), values::plain);
  const auto xm = lz::adopt(x.data(), {rows, cols}), ym = lz::adopt(y.data(), {rows, cols});
  const lz::tuning saved = lz::thresholds();
  // A sum of products too: near 0, it keeps the partial sums' last bits, which a total of
  // squares rounds away (an element met by another accumulator lane shows there).
  std::vector<T> got, dots;
  for (lz::index_t prefetch : {0, 1}) {
    lz::thresholds().reduce_prefetch = prefetch;
    for (auto p : {0, 1}) { // one thread, then the automatic policy's threads
      auto run = [&](const auto& e) {
        return p ? T(lz::sum(e)) : T(lz::eval(lz::simd, lz::sum(e)));
      };
      got.push_back(run(lz::square(x - y)));
      got.push_back(run(lz::square(xm - ym)));
      dots.push_back(run(lz::hadamard(x, y)));
      dots.push_back(run(lz::hadamard(xm, ym)));
    }
  }
  lz::thresholds() = saved;
  long double want = 0;
  for (index_t i = 0; i < n; ++i) want += (long double)(x(i) - y(i)) * (x(i) - y(i));
  const double eps = std::numeric_limits<T>::epsilon();
  // The differences are rounded as in the reference; each square once more (eps/2 relative).
  const double tol = tolerance("sum", eps, double(want), 0, n) + eps * double(want);
  BOOST_TEST(std::fabs(double(got[0]) - double(want)) <= tol, got[0] << " vs " << double(want));
  for (std::size_t k = 1; k < got.size(); ++k) {
    BOOST_TEST(same_bits(got[k], got[0]), "variant " << k << ": " << got[k] << " vs " << got[0]);
    BOOST_TEST(same_bits(dots[k], dots[0]),
               "variant " << k << ": " << dots[k] << " vs " << dots[0]);
  }
}

// An axis reduction over contiguous rows of a batch or more runs a row of outputs per slab
// call, each output one row of it (kernels/cpu/reduce.cpp, by rows); a row alone, as a vector,
// runs the full reduction. Both start every row at its first element with the same accumulator
// lanes and fold them in the same order: the same bits, on one thread or more. (Rows shorter
// than a batch, 16 floats on AVX-512, run transposed: lanes across rows, another order.)
BOOST_AUTO_TEST_CASE_TEMPLATE(axis_reductions_give_the_same_bits_as_each_row_alone, T,
                              float_types) {
  rng r(0x7ed4100 + sizeof(T));
  const index_t B = lz::thresholds().reduce_block; // by rows up to B, then by blocks
  for (index_t n : {index_t(16), index_t(17), index_t(37), index_t(300), B, B + 1})
    for (index_t m : {1, 3, 70}) {
      const auto a = random_tensor<T, 2>({m, n}, r.next(), values::plain);
      const auto b = random_tensor<T, 2>({m, n}, r.next(), values::plain);
      const lz::tensor<T, 1> sums = lz::sum(a, 1), sq = lz::sum(lz::square(a - b), 1);
      const lz::tensor<T, 1> maxs = lz::eval(lz::par, lz::max(lz::hadamard(a, b), 1));
      BOOST_TEST_CONTEXT(m << " rows of " << n << ", " << type_name<T>()) {
        for (index_t i = 0; i < m; ++i) {
          const auto ai = lz::row(a, i), bi = lz::row(b, i);
          BOOST_TEST(same_bits(sums(i), T(lz::sum(ai))));
          BOOST_TEST(same_bits(sq(i), T(lz::sum(lz::square(ai - bi)))));
          BOOST_TEST(same_bits(maxs(i), T(lz::max(lz::hadamard(ai, bi)))));
        }
      }
    }
}

// The rows of an axis reduction that start inside a 64-byte line run their middle batches
// realigned on AVX-512 (built from aligned loads by a permute: kernels/cpu/reduce.cpp,
// realign_groups); every lane still meets the elements an unaligned load gives it. So rows
// give the same bits at every offset from a line as aligned copies of them, and so do full
// reductions: sum, mean, prod, min and max, floats and doubles, lengths around the realigned
// groups' ends.
BOOST_AUTO_TEST_CASE_TEMPLATE(reductions_give_the_same_bits_at_any_offset_from_a_line, T,
                              float_types) {
  rng r(0xa119 + sizeof(T));
  constexpr index_t lanes = 64 / index_t(sizeof(T));
  for (index_t n : {index_t(95), index_t(96), index_t(100), index_t(131), index_t(200),
                    index_t(300), index_t(301), index_t(1000)}) {
    for (index_t o = 0; o < lanes; ++o) {
      // The last 3 n elements of an allocation aligned to a line, so that a read past the end
      // shows under the address sanitizer; values near 1 (products of 1000 stay finite), with
      // full mantissas.
      const std::size_t count = std::size_t(o + 3 * n);
      auto release = [](T* p) { ::operator delete(p, std::align_val_t(64)); };
      const std::unique_ptr<T, decltype(release)> buf(
          static_cast<T*>(::operator new(count * sizeof(T), std::align_val_t(64))), release);
      for (std::size_t i = 0; i < count; ++i)
        buf.get()[i] = T(1) + T(double(r.next() >> 11) * 0x1p-53 - 0.5) / T(64);
      const auto x = lz::adopt(buf.get() + o + 2 * n, {n});
      const lz::tensor<T, 1> c = x; // (aligned)
      BOOST_TEST_CONTEXT(n << " " << type_name<T>() << " at " << o << " past a line") {
        BOOST_TEST(same_bits(T(lz::sum(x)), T(lz::sum(c))));
        BOOST_TEST(same_bits(T(lz::mean(x)), T(lz::mean(c))));
        BOOST_TEST(same_bits(T(lz::prod(x)), T(lz::prod(c))));
        BOOST_TEST(same_bits(T(lz::min(x)), T(lz::min(c))));
        BOOST_TEST(same_bits(T(lz::max(x)), T(lz::max(c))));
        // Three rows of n from the offset: each starts at another place in its line.
        const auto A = lz::adopt(buf.get() + o, {3, n});
        const lz::tensor<T, 1> sums = lz::sum(A, 1), means = lz::mean(A, 1);
        const lz::tensor<T, 1> prods = lz::prod(A, 1), mins = lz::min(A, 1), maxs = lz::max(A, 1);
        for (index_t i = 0; i < 3; ++i) {
          const lz::tensor<T, 1> ci = lz::row(A, i);
          BOOST_TEST(same_bits(sums(i), T(lz::sum(ci))));
          BOOST_TEST(same_bits(means(i), T(lz::mean(ci))));
          BOOST_TEST(same_bits(prods(i), T(lz::prod(ci))));
          BOOST_TEST(same_bits(mins(i), T(lz::min(ci))));
          BOOST_TEST(same_bits(maxs(i), T(lz::max(ci))));
        }
      }
    }
  }
}

// Pairwise summation: the error grows like log n, not n. 1e7 positive floats spanning 2^±20
// (the worst case for a running sum, which loses the small terms once the total is large).
BOOST_AUTO_TEST_CASE(float_sums_of_1e7_mixed_magnitudes_are_accurate) {
  const index_t n = 10000000;
  lz::vector<float> x(n);
  rng r(0xacc);
  for (index_t i = 0; i < n; ++i) x(i) = std::ldexp(float(1 + r.unit()), int(r.between(-20, 19)));
  long double exact = 0;
  float naive = 0;
  for (index_t i = 0; i < n; ++i) {
    exact += x(i);
    naive += x(i);
  }
  const double eps = std::numeric_limits<float>::epsilon();
  const double err =
      std::fabs(double(lz::eval(lz::par, lz::sum(x))) - double(exact)) / double(exact);
  const double err_seq =
      std::fabs(double(lz::eval(lz::seq, lz::sum(x))) - double(exact)) / double(exact);
  const double err_naive = std::fabs(double(naive) - double(exact)) / double(exact);
  BOOST_TEST_MESSAGE("relative error: lz " << err / eps << " eps, lz::seq " << err_seq / eps
                                           << " eps, running sum " << err_naive / eps << " eps");
  BOOST_TEST(err <= 2 * std::log2(double(n)) * eps); // ~log n
  BOOST_TEST(err_seq <= 2 * std::log2(double(n)) * eps);
  BOOST_TEST(err_naive > 100 * err); // the bound above is one a running sum cannot meet
  // The error bound scales with log n: at 1e5 elements it is already within the same eps.
  lz::vector<float> y = x(lz::range(0, 100000));
  long double exact_y = 0;
  for (index_t i = 0; i < y.size(); ++i) exact_y += y(i);
  const double err_y = std::fabs(double(lz::sum(y).value()) - double(exact_y)) / double(exact_y);
  BOOST_TEST(err_y <= 2 * std::log2(1e5) * eps);
}

// Mixed signs (cancellation): the error relative to sum |x| stays at a few eps for 1e7 doubles
// and floats with magnitudes 2^±30.
BOOST_AUTO_TEST_CASE_TEMPLATE(sums_with_cancellation_are_accurate_relative_to_sum_abs, T,
                              float_types) {
  const index_t n = 10000000;
  lz::vector<T> x(n);
  rng r(0xacd + sizeof(T));
  long double exact = 0, sum_abs = 0;
  for (index_t i = 0; i < n; ++i) {
    x(i) = T((r.chance(0.5) ? 1 : -1) * std::ldexp(1 + r.unit(), int(r.between(-30, 29))));
    exact += x(i);
    sum_abs += std::fabs(x(i));
  }
  const double eps = std::numeric_limits<T>::epsilon();
  const double err = std::fabs(double(lz::sum(x).value() - exact)) / double(sum_abs);
  BOOST_TEST(err <= 2 * std::log2(double(n)) * eps, err / eps << " eps");
}

} // namespace
