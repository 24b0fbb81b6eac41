// Every elementwise op of the op lists (ops/functors.hpp: unary_ops, binary_ops, compare_ops)
// against the scalar reference evaluator, under lz::seq, lz::simd, lz::par and lz::automatic, on
// random shapes (0, 1, primes, 1e6+), layouts (row, column, padded, strided, reversed,
// permuted, broadcast, unaligned) and values (NaN, ±Inf, denormals), for float, double, int32
// and int64 wherever the op maps T to T.
//
// To keep compile time sane, the ops of a list reach the engine through one functor that picks
// the op at run time (`one_of`): one tree type per (list, element type), every op's own scalar
// and batch body called exactly as a map node would call it.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cstdint>
#include <string>

namespace {

using namespace lz_test;
using lz::index_t;

/// Calls functor number `which` of F... on scalars or xsimd batches.
template <class... F>
struct one_of {
  int which = 0;
  static constexpr const char* name = "one_of";
  static constexpr int count = sizeof...(F);
  static constexpr const char* names[] = {F::name..., ""};
  template <class... A>
  auto operator()(const A&... a) const
      -> std::common_type_t<std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>...> {
    using R =
        std::common_type_t<std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>...>;
    R r{};
    int k = 0;
    ((k++ == which ? void(r = R(F{}(a...))) : void()), ...);
    return r;
  }
};

// The ops of a list that map T (x T) to T, or to bool for comparisons.
template <class T, int Arity, bool Compare, class Acc, class... F>
struct select_ops {
  using type = Acc;
};
template <class T, int Arity, bool Compare, class... Acc, class F, class... Rest>
struct select_ops<T, Arity, Compare, one_of<Acc...>, F, Rest...> {
  static constexpr bool keep = [] {
    using Out = std::conditional_t<Compare, bool, T>;
    if constexpr (Arity == 1)
      return std::is_same_v<std::remove_cvref_t<std::invoke_result_t<F, T>>, Out>;
    else
      return std::is_same_v<std::remove_cvref_t<std::invoke_result_t<F, T, T>>, Out>;
  }();
  using type = typename select_ops<T, Arity, Compare,
                                   std::conditional_t<keep, one_of<Acc..., F>, one_of<Acc...>>,
                                   Rest...>::type;
};
template <class T, int Arity, bool Compare, class List>
struct ops_for;
template <class T, int Arity, bool Compare, class... F>
struct ops_for<T, Arity, Compare, lz::fn::op_list<F...>> {
  using type = typename select_ops<T, Arity, Compare, one_of<>, F...>::type;
};
template <class T>
using unary_for = typename ops_for<T, 1, false, lz::fn::unary_ops>::type;
template <class T>
using binary_for = typename ops_for<T, 2, false, lz::fn::binary_ops>::type;
template <class T>
using compare_for = typename ops_for<T, 2, true, lz::fn::compare_ops>::type;

// The scalar path calls the very functions the reference calls, so lz::seq must match it bit
// for bit. Batches use xsimd's approximations of the transcendental functions: these are the
// ulp bounds allowed for them. Everything else (IEEE-exact arithmetic, sqrt, rounding,
// comparisons) must match exactly under every policy.
double simd_ulp_bound(const std::string& name) {
  static const std::pair<const char*, double> bounds[] = {
      {"cbrt", 3}, {"exp", 2},  {"expm1", 2}, {"log", 2},  {"log1p", 2}, {"sin", 2},  {"cos", 2},
      {"tan", 3},  {"tanh", 3}, {"asin", 2},  {"acos", 2}, {"atan", 2},  {"atan2", 3}};
  for (const auto& [n, b] : bounds)
    if (name == n) return b;
  return 0; // pow runs lane by lane through std::pow (see ops/functors.hpp): exact
}

using types = std::tuple<float, double, std::int32_t, std::int64_t>;

template <class T>
values operand_values() {
  return std::is_floating_point_v<T> ? values::special : values::plain;
}
// Integer division by zero is undefined: integer right operands of `/` are positive.
template <class T>
values right_values(const std::string& op) {
  return std::is_integral_v<T> && op == "/" ? values::positive : operand_values<T>();
}

// Every op of the unary list, on cases of random shape, layout and values.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_unary_op_matches_the_reference, T, types) {
  using U = unary_for<T>;
  static_assert(U::count >= (std::is_floating_point_v<T> ? 20 : 4));
  rng r(0x5eed0001 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (int op = 0; op < U::count; ++op) {
    for (int c = 0; c < 14; ++c) {
      const auto shape = random_shape<2>(r, 4000);
      const layout_kind k = r.pick(all_layout_kinds);
      auto a =
          make_viewed<T, 2>(shape, random_layout<2>(r, k, false), r.next(), operand_values<T>());
      auto e = lz::make_map(U::names[op], U{op}, a.cview());
      std::ostringstream what;
      what << U::names[op] << "(" << type_name<T>() << lz::detail::to_string(shape) << " "
           << to_string(k) << ")";
      check_all_policies(what.str(), e, reference(e), r, simd_ulp_bound(U::names[op]));
    }
  }
}

// Every op of the binary list: operands of random layouts, NumPy broadcasting on either side,
// and a scalar on either side.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_binary_op_matches_the_reference, T, types) {
  using B = binary_for<T>;
  static_assert(B::count >= (std::is_floating_point_v<T> ? 8 : 5));
  rng r(0x5eed0002 + sizeof(T) * 7 + std::is_integral_v<T>);
  for (int op = 0; op < B::count; ++op) {
    const std::string name = B::names[op];
    for (int c = 0; c < 20; ++c) {
      const auto shape = random_shape<2>(r, 4000);
      const int form = int(r.between(0, 4)); // 0 full, 1/2 one side broadcast, 3/4 scalar side
      const unsigned mask = unsigned(r.between(1, 3));
      const auto sa = form == 1 ? with_ones(shape, mask) : shape;
      const auto sb = form == 2 ? with_ones(shape, mask) : shape;
      const layout_kind ka = r.pick(all_layout_kinds), kb = r.pick(all_layout_kinds);
      auto a = make_viewed<T, 2>(sa, random_layout<2>(r, ka, false), r.next(), operand_values<T>());
      auto b =
          make_viewed<T, 2>(sb, random_layout<2>(r, kb, false), r.next(), right_values<T>(name));
      std::ostringstream what;
      what << name << "(" << type_name<T>() << lz::detail::to_string(sa) << " " << to_string(ka)
           << ", " << lz::detail::to_string(sb) << " " << to_string(kb) << ")";
      const double bound = simd_ulp_bound(name);
      if (form <= 2) {
        auto e = lz::make_map(B::names[op], B{op}, a.cview(), b.cview());
        check_all_policies(what.str(), e, reference(e), r, bound);
      } else if (form == 3) {
        const T s = random_value<T>(r, operand_values<T>());
        auto e = lz::make_map(B::names[op], B{op}, lz::scalar_expr<T>{s}, b.cview());
        check_all_policies(what.str() + " scalar left", e, reference(e), r, bound);
      } else {
        const T s = random_value<T>(r, right_values<T>(name));
        auto e = lz::make_map(B::names[op], B{op}, a.cview(), lz::scalar_expr<T>{s});
        check_all_policies(what.str() + " scalar right", e, reference(e), r, bound);
      }
    }
  }
}

// Comparisons produce bool tensors (scalar loop); inside where() they run on SIMD masks.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_comparison_matches_the_reference, T, types) {
  using C = compare_for<T>;
  static_assert(C::count == 6);
  rng r(0x5eed0003 + sizeof(T) * 7 + std::is_integral_v<T>);
  const values vals = std::is_floating_point_v<T> ? values::special : values::small;
  for (int op = 0; op < C::count; ++op) {
    for (int c = 0; c < 10; ++c) {
      const auto shape = random_shape<2>(r, 3000);
      const layout_kind ka = r.pick(all_layout_kinds), kb = r.pick(all_layout_kinds);
      auto a = make_viewed<T, 2>(shape, random_layout<2>(r, ka, false), r.next(), vals);
      auto b = make_viewed<T, 2>(shape, random_layout<2>(r, kb, false), r.next(), vals);
      auto e = lz::make_map(C::names[op], C{op}, a.cview(), b.cview());
      std::ostringstream what;
      what << "a " << C::names[op] << " b (" << type_name<T>() << lz::detail::to_string(shape)
           << " " << to_string(ka) << ", " << to_string(kb) << ")";
      check_all_policies(what.str(), e, reference(e), r);
      auto w =
          lz::where(lz::make_map(C::names[op], C{op}, a.cview(), b.cview()), a.cview(), b.cview());
      check_all_policies("where(" + what.str() + ", a, b)", w, reference(w), r);
    }
  }
}

// One 1e6+ element case per op: prime extents, so SIMD tails and thread chunks are ragged.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_op_matches_the_reference_on_1e6_elements, T, types) {
  using U = unary_for<T>;
  using B = binary_for<T>;
  rng r(0x5eed0004 + sizeof(T) * 7 + std::is_integral_v<T>);
  const lz::shape_t<2> shape{1009, 1013}; // 1022117 elements
  auto a = make_viewed<T, 2>(shape, layout_spec<2>::row_major(), r.next(), operand_values<T>());
  auto b = make_viewed<T, 2>(shape, random_layout<2>(r, layout_kind::permuted, false), r.next(),
                             values::positive);
  lz::matrix<T> d(shape), ref(shape);
  // The reference of one functor over plain operands: the scalar body at every element (what
  // reference() does, without its general index walk, which would dominate this test's time).
  auto check = [&](const auto& e, const char* name, auto scalar) {
    for (index_t i = 0; i < shape[0]; ++i)
      for (index_t j = 0; j < shape[1]; ++j) ref(i, j) = scalar(i, j);
    lz::assign(lz::par, d, e);
    BOOST_TEST(max_ulp(d, ref) <= simd_ulp_bound(name),
               name << "(" << type_name<T>() << "(1009,1013)) lz::par");
    lz::assign(lz::automatic, d, e);
    BOOST_TEST(max_ulp(d, ref) <= simd_ulp_bound(name),
               name << "(" << type_name<T>() << "(1009,1013)) lz::automatic");
  };
  for (int op = 0; op < U::count; ++op)
    check(lz::make_map("", U{op}, a.cview()), U::names[op],
          [&](index_t i, index_t j) { return U{op}(a.view(i, j)); });
  for (int op = 0; op < B::count; ++op)
    check(lz::make_map("", B{op}, a.cview(), b.cview()), B::names[op],
          [&](index_t i, index_t j) { return B{op}(a.view(i, j), b.view(i, j)); });
}

// The sweeps above run the SIMD path only where an op's batch body compiles: make sure it does
// for every floating op and the integer ops xsimd supports, so lz::simd is not silently the
// scalar loop. (one_of takes batches only when all its ops do.)
template <class T, class F>
constexpr bool vectorizes = lz::kernels::cpu::simd_ok<
    T, lz::map_expr<F, lz::tensor_view<const T, 2>, lz::tensor_view<const T, 2>>>();
template <class T, class F>
constexpr bool
    vectorizes_unary = lz::kernels::cpu::simd_ok<T, lz::map_expr<F, lz::tensor_view<const T, 2>>>();

BOOST_AUTO_TEST_CASE(every_op_has_a_simd_body) {
  static_assert(vectorizes_unary<float, unary_for<float>>);
  static_assert(vectorizes_unary<double, unary_for<double>>);
  static_assert(vectorizes<float, binary_for<float>>);
  static_assert(vectorizes<double, binary_for<double>>);
  static_assert(vectorizes_unary<std::int32_t, unary_for<std::int32_t>>);
  static_assert(vectorizes_unary<std::int64_t, unary_for<std::int64_t>>);
  static_assert(vectorizes<std::int32_t, binary_for<std::int32_t>>);
  static_assert(vectorizes<std::int64_t, binary_for<std::int64_t>>);
  BOOST_TEST(true);
}

// Every public name builds a map node with its functor, so the sweeps above (which build the
// nodes from the op lists) cover the public functions.
BOOST_AUTO_TEST_CASE(public_names_build_their_functors) {
  lz::vector<double> x(3), y(3);
  using V = lz::tensor_view<const double, 1>;
#define LZ_CHECK_UNARY(NAME)                                                                       \
  static_assert(std::is_same_v<decltype(lz::NAME(x)), lz::map_expr<lz::fn::NAME##_fn, V>>);
  LZ_CHECK_UNARY(abs)
  LZ_CHECK_UNARY(sqrt)
  LZ_CHECK_UNARY(cbrt)
  LZ_CHECK_UNARY(exp)
  LZ_CHECK_UNARY(expm1)
  LZ_CHECK_UNARY(log)
  LZ_CHECK_UNARY(log1p)
  LZ_CHECK_UNARY(sin)
  LZ_CHECK_UNARY(cos)
  LZ_CHECK_UNARY(tan)
  LZ_CHECK_UNARY(tanh)
  LZ_CHECK_UNARY(asin)
  LZ_CHECK_UNARY(acos)
  LZ_CHECK_UNARY(atan)
  LZ_CHECK_UNARY(square)
  LZ_CHECK_UNARY(floor)
  LZ_CHECK_UNARY(ceil)
  LZ_CHECK_UNARY(round)
  LZ_CHECK_UNARY(sign)
  LZ_CHECK_UNARY(isnan)
  LZ_CHECK_UNARY(isinf)
#undef LZ_CHECK_UNARY
#define LZ_CHECK_BINARY(EXPR, FN)                                                                  \
  static_assert(std::is_same_v<decltype(EXPR), lz::map_expr<lz::fn::FN, V, V>>);
  LZ_CHECK_BINARY(x + y, plus_fn)
  LZ_CHECK_BINARY(x - y, minus_fn)
  LZ_CHECK_BINARY(x * y, multiplies_fn)
  LZ_CHECK_BINARY(x / y, divides_fn)
  LZ_CHECK_BINARY(lz::maximum(x, y), maximum_fn)
  LZ_CHECK_BINARY(lz::minimum(x, y), minimum_fn)
  LZ_CHECK_BINARY(lz::atan2(x, y), atan2_fn)
  LZ_CHECK_BINARY(lz::pow(x, y), pow_fn)
  LZ_CHECK_BINARY(x == y, equal_fn)
  LZ_CHECK_BINARY(x != y, not_equal_fn)
  LZ_CHECK_BINARY(x < y, less_fn)
  LZ_CHECK_BINARY(x <= y, less_equal_fn)
  LZ_CHECK_BINARY(x > y, greater_fn)
  LZ_CHECK_BINARY(x >= y, greater_equal_fn)
  LZ_CHECK_BINARY(lz::hadamard(x, y), multiplies_fn)
#undef LZ_CHECK_BINARY
  static_assert(std::is_same_v<decltype(-x), lz::map_expr<lz::fn::negate_fn, V>>);
  // A double literal does not widen a float tensor; a floating scalar widens an integer one.
  lz::vector<float> xf(3);
  lz::vector<int> xi(3);
  static_assert(std::is_same_v<lz::value_t<decltype(2.5 * xf)>, float>);
  static_assert(std::is_same_v<lz::value_t<decltype(xi * 2.5)>, double>);
  static_assert(std::is_same_v<lz::value_t<decltype(xi * 2)>, int>);
  BOOST_TEST(true);
}

} // namespace
