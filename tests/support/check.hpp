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

/// What one policy's assignment in check_all_policies produced, measured in the template and
/// judged by the non-template check_policy_outcome: the assertions and their messages are
/// compiled once per test file, not once per expression and policy.
struct policy_outcome {
  const char* policy;
  std::string destination; // describe(d, "dst")
  layout_kind kind;
  double allowed;
  double ulp;
  index_t zero_sign_mismatches;
  bool untouched_outside;
  bool evaluated; // lz::eval ran too
  double eval_ulp;
};

inline void check_policy_outcome(const std::string& what, const policy_outcome& o) {
  const char* pname = o.policy;
  const double u = o.ulp, allowed = o.allowed;
  BOOST_TEST(u <= allowed, what << " under " << pname << " into " << o.destination << " ["
                                << to_string(o.kind) << "]: " << u << " ulp (allowed " << allowed
                                << ")");
  // ulp distance counts +0 and -0 as equal; a single op must still get the sign right
  // (1 / -x turns it into ±inf: xsimd 8.1's AVX-512 negation gave -(+0) = +0).
  BOOST_TEST(o.zero_sign_mismatches == 0,
             what << " under " << pname << ": a zero of the wrong sign");
  BOOST_TEST(o.untouched_outside, what << " under " << pname << " wrote outside " << o.destination);
  if (o.evaluated) BOOST_TEST(o.eval_ulp <= allowed, what << " lz::eval under " << pname);
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
    policy_outcome o{pname,
                     describe(d, "dst"),
                     k,
                     std::is_same_v<decltype(pol), lz::seq_policy> ? 0 : simd_ulp,
                     max_ulp(d.view, ref),
                     zero_sign_mismatches(d.view, ref),
                     d.untouched_outside(),
                     false,
                     0};
    if (eval_too && r.chance(0.25)) {
      auto t = lz::eval(pol, e);
      o.evaluated = true;
      o.eval_ulp = max_ulp(t, ref);
    }
    check_policy_outcome(what, o);
  });
}

} // namespace lz_test
