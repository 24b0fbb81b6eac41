// Shared checking helpers for the core suites: iterate the four host policies, name element
// types, and assign an expression into random destinations under every policy, comparing with
// the reference evaluator and proving nothing outside the destination view was written.
#pragma once

#include <support/generators.hpp>

#include <sstream>
#include <string>

namespace lz_test {

/// Calls f(policy, "lz::name") for lz::seq, lz::simd, lz::par and lz::automatic.
template <class F>
void for_each_policy(F&& f) {
  f(lz::seq, "lz::seq");
  f(lz::simd, "lz::simd");
  f(lz::par, "lz::par");
  f(lz::automatic, "lz::automatic");
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, float>)
    return "float";
  else if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, bool>)
    return "bool";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64";
  else
    return "other";
}

/// `shape` with the dims in `mask` set to 1 (NumPy broadcasting operands).
template <std::size_t R>
lz::shape_t<R> with_ones(lz::shape_t<R> s, unsigned mask) {
  for (std::size_t k = 0; k < R; ++k)
    if (mask >> k & 1u) s[k] = 1;
  return s;
}

/// Assigns `e` (lz::assign) into a destination of random layout under every policy and
/// compares with `ref`: lz::seq must match bit for bit (its scalar loop calls what the reference
/// calls), the SIMD policies within `simd_ulp` ulp. Also checks that nothing outside the
/// destination view changed, and (sometimes) that lz::eval agrees.
template <class E, class Ref>
void check_all_policies(const std::string& what, const E& e, const Ref& ref, rng& r,
                        double simd_ulp = 0, bool eval_too = true) {
  using V = lz::value_t<E>;
  constexpr std::size_t R = lz::rank_v<E>;
  for_each_policy([&](auto pol, const char* pname) {
    layout_kind k = r.pick(all_layout_kinds);
    if (k == layout_kind::broadcast) k = layout_kind::general;
    auto d = make_viewed<V, R>(ref.shape(), random_layout<R>(r, k, true), r.next(), values::plain);
    lz::assign(pol, d.view, e);
    const double allowed = std::is_same_v<decltype(pol), lz::seq_policy> ? 0 : simd_ulp;
    const double u = max_ulp(d.view, ref);
    BOOST_TEST(u <= allowed, what << " under " << pname << " into " << describe(d, "dst") << " ["
                                  << to_string(k) << "]: " << u << " ulp (allowed " << allowed
                                  << ")");
    // ulp distance counts +0 and -0 as equal; a single op must still get the sign right
    // (1 / -x turns it into ±inf: xsimd 8.1's AVX-512 negation gave -(+0) = +0).
    BOOST_TEST(zero_sign_mismatches(d.view, ref) == 0,
               what << " under " << pname << ": a zero of the wrong sign");
    BOOST_TEST(d.untouched_outside(),
               what << " under " << pname << " wrote outside " << describe(d, "dst"));
    if (eval_too && r.chance(0.25)) {
      auto t = lz::eval(pol, e);
      BOOST_TEST(max_ulp(t, ref) <= allowed, what << " lz::eval under " << pname);
    }
  });
}

} // namespace lz_test
