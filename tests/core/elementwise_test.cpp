// The elementwise functions outside the op lists: where, clamp, logical operators, isnan,
// isinf, cast, hadamard, unary +/-, scalar operands, lz::map with user functions (vectorized
// and scalar-only), and every rank from 1 to lz::max_rank, against the reference evaluator
// under every policy, on random shapes, layouts and values.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cstdint>

namespace {

using namespace lz_test;
using lz::index_t;

using types = std::tuple<float, double, std::int32_t, std::int64_t>;
using float_types = std::tuple<float, double>;

BOOST_AUTO_TEST_CASE_TEMPLATE(where_and_clamp_match_the_reference, T, types) {
  rng r(0x5eed0006 + sizeof(T) * 7 + std::is_integral_v<T>);
  const values vals = std::is_floating_point_v<T> ? values::special : values::plain;
  for (int c = 0; c < 12; ++c) {
    const auto shape = random_shape<2>(r, 3000);
    auto a = make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto b =
        make_viewed<T, 2>(with_ones(shape, unsigned(r.between(0, 3))),
                          random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(), vals);
    auto m = make_viewed<bool, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                  r.next(), values::boolean);
    const T lo = T(-2), hi = T(3);
    auto w1 = lz::where(m.cview(), a.cview(), b.cview()); // bool tensor condition
    check_all_policies("where(mask, a, b)", w1, reference(w1), r);
    auto w2 = lz::where(a.cview() > b.cview(), a.cview(), lo); // SIMD mask, scalar branch
    check_all_policies("where(a > b, a, -2)", w2, reference(w2), r);
    auto w3 = lz::where(m.cview(), hi, b.cview());
    check_all_policies("where(mask, 3, b)", w3, reference(w3), r);
    auto c1 = lz::clamp(a.cview(), lo, hi);
    check_all_policies("clamp(a, -2, 3)", c1, reference(c1), r);
    auto c2 = lz::clamp(a.cview(), b.cview(), hi);
    check_all_policies("clamp(a, b, 3)", c2, reference(c2), r);
  }
}

BOOST_AUTO_TEST_CASE(logical_operators_on_bool_tensors_match_the_reference) {
  rng r(0x5eed0007);
  for (int c = 0; c < 12; ++c) {
    const auto shape = random_shape<2>(r, 3000);
    auto a = make_viewed<bool, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                  r.next(), values::boolean);
    auto b = make_viewed<bool, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                  r.next(), values::boolean);
    auto x = make_viewed<double, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                    r.next(), values::special);
    auto e1 = a.cview() && b.cview();
    check_all_policies("a && b", e1, reference(e1), r);
    auto e2 = a.cview() || !b.cview();
    check_all_policies("a || !b", e2, reference(e2), r);
    auto e3 = (x.cview() > 0.0) && !(x.cview() > 5.0);
    check_all_policies("(x > 0) && !(x > 5)", e3, reference(e3), r);
    auto e4 = (a.cview() == b.cview()) || (x.cview() != x.cview());
    check_all_policies("(a == b) || (x != x)", e4, reference(e4), r);
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(isnan_and_isinf_match_the_reference, T, float_types) {
  rng r(0x5eed0008 + sizeof(T));
  for (int c = 0; c < 10; ++c) {
    const auto shape = random_shape<2>(r, 3000);
    auto a = make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                               r.next(), values::special);
    auto e1 = lz::isnan(a.cview());
    check_all_policies("isnan(a)", e1, reference(e1), r);
    auto e2 = lz::isinf(a.cview());
    check_all_policies("isinf(a)", e2, reference(e2), r);
    auto e3 = lz::where(lz::isnan(a.cview()), T(0), a.cview());
    check_all_policies("where(isnan(a), 0, a)", e3, reference(e3), r);
  }
}

BOOST_AUTO_TEST_CASE(casts_match_the_reference) {
  rng r(0x5eed0009);
  for (int c = 0; c < 10; ++c) {
    const auto shape = random_shape<2>(r, 3000);
    auto f = make_viewed<float, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                   r.next(), values::special);
    auto d = make_viewed<double, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                                    r.next(), values::plain);
    auto i = make_viewed<std::int32_t, 2>(
        shape, random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(), values::plain);
    auto l = make_viewed<std::int64_t, 2>(
        shape, random_layout<2>(r, r.pick(all_layout_kinds), false), r.next(), values::plain);
    auto e1 = lz::cast<double>(f.cview());
    check_all_policies("cast<double>(float)", e1, reference(e1), r);
    auto e2 = lz::cast<std::int32_t>(d.cview());
    check_all_policies("cast<int32>(double)", e2, reference(e2), r);
    auto e3 = lz::cast<double>(l.cview()) * 0.5 + lz::cast<double>(i.cview());
    check_all_policies("cast<double>(int64) * 0.5 + cast<double>(int32)", e3, reference(e3), r);
    auto e4 = lz::cast<float>(d.cview()) + f.cview();
    check_all_policies("cast<float>(double) + float", e4, reference(e4), r);
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(hadamard_and_unary_operators_match_the_reference, T, types) {
  rng r(0x5eed000a + sizeof(T) * 7 + std::is_integral_v<T>);
  const values vals = std::is_floating_point_v<T> ? values::special : values::plain;
  for (int c = 0; c < 8; ++c) {
    const auto shape = random_shape<2>(r, 3000);
    auto a = make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto b = make_viewed<T, 2>(shape, random_layout<2>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto e = lz::hadamard(a.cview(), b.cview()) - T(2) * (+b.cview()) + -a.cview() * T(3);
    check_all_policies("hadamard(a, b) - 2 * (+b) + -a * 3", e, reference(e), r);
  }
}

// The driver handles every rank up to lz::max_rank; one mixed tree per rank, every layout.
template <class T, std::size_t R>
void rank_cases(rng& r, int count) {
  const values vals = std::is_floating_point_v<T> ? values::special : values::plain;
  for (int c = 0; c < count; ++c) {
    const auto shape = random_shape<R>(r, 5000);
    const unsigned mask = unsigned(r.next() & ((1u << R) - 1));
    auto a = make_viewed<T, R>(shape, random_layout<R>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto b =
        make_viewed<T, R>(with_ones(shape, mask),
                          random_layout<R>(r, r.pick(all_layout_kinds), false), r.next(), vals);
    auto c3 = make_viewed<T, R>(shape, random_layout<R>(r, r.pick(all_layout_kinds), false),
                                r.next(), vals);
    auto e = lz::maximum(a.cview(), b.cview() * T(2)) - lz::abs(c3.cview());
    std::ostringstream what;
    what << "maximum(a, b * 2) - abs(c) rank " << R << " " << type_name<T>()
         << lz::detail::to_string(shape);
    check_all_policies(what.str(), e, reference(e), r);
  }
}

using rank_types = std::tuple<double, std::int32_t>;
BOOST_AUTO_TEST_CASE_TEMPLATE(every_rank_from_1_to_8_matches_the_reference, T, rank_types) {
  rng r(0x5eed000c + sizeof(T) * 7 + std::is_integral_v<T>);
  rank_cases<T, 1>(r, 12);
  rank_cases<T, 3>(r, 12);
  rank_cases<T, 4>(r, 8);
  rank_cases<T, 8>(r, 8);
}

// A user function vectorizes when its body also accepts xsimd batches, and stays scalar when
// it does not; both fuse into the one loop and agree with the reference.
struct user_generic {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const {
    using std::abs; // batches find xsimd::abs by ADL
    return a * b + abs(a - b);
  }
};

BOOST_AUTO_TEST_CASE_TEMPLATE(user_functions_through_map_match_the_reference, T, types) {
  rng r(0x5eed000b + sizeof(T) * 7 + std::is_integral_v<T>);
  const values vals = std::is_floating_point_v<T> ? values::special : values::plain;
  for (int c = 0; c < 8; ++c) {
    const auto shape = random_shape<3>(r, 3000);
    auto a = make_viewed<T, 3>(shape, random_layout<3>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto b = make_viewed<T, 3>(shape, random_layout<3>(r, r.pick(all_layout_kinds), false),
                               r.next(), vals);
    auto e1 = lz::map(user_generic{}, a.cview(), b.cview());
    static_assert(lz::kernels::cpu::simd_ok<T, decltype(e1)>(), "generic body must vectorize");
    check_all_policies("map(generic)", e1, reference(e1), r);
    auto e2 = lz::map([](T x, T y) { return x < y ? y - x : x; }, a.cview(), b.cview());
    static_assert(!lz::kernels::cpu::simd_ok<T, decltype(e2)>());
    check_all_policies("map(scalar lambda)", e2, reference(e2), r);
  }
}

} // namespace
