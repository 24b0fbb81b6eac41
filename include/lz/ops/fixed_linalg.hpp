// Closed forms on fixed-size operands: lz::cross (3-vectors), lz::determinant and lz::inverse
// (square, up to 4×4). Each evaluates its operand inline and returns a value (a number or a
// fixed tensor): at these sizes there is nothing to fuse, and a value can enter any expression.
// Larger or dynamic matrices are the solvers' (LAPACK) business.
#pragma once

#include <lz/errors.hpp>
#include <lz/expr/fixed.hpp>

namespace lz {
namespace detail {

/// linalg_error: `call` of an n×n matrix whose determinant is exactly 0
/// (kernels/common/errors.cpp).
[[noreturn]] void throw_singular(const char* call, index_t n);

/// The fixed tree e evaluated into a fixed tensor (inline; a fixed leaf is copied).
template <class E>
LZ_INLINE auto fixed_value(const E& e) {
  fixed_tensor_of_t<E> t(uninitialized);
  t = e;
  return t;
}

template <class E>
constexpr void check_square_fixed(const char* /*what*/) {
  static_assert(static_tree_v<E>, "lz::determinant / lz::inverse: the operand must be a "
                                  "fixed-size expression (lz::fixed_matrix)");
  static_assert(rank_v<E> == 2, "lz::determinant / lz::inverse: the operand must be a matrix");
  constexpr auto s = static_shape_of<std::remove_cvref_t<E>>::value;
  static_assert(s[0] == s[1], "lz::determinant / lz::inverse: the matrix must be square");
  static_assert(s[0] <= 4, "lz::determinant / lz::inverse: closed forms go up to 4x4; larger "
                           "matrices need a factorization");
}

// The 2×2 minors of rows (0, 1) and of rows (2, 3) of a 4×4 matrix m (the Laplace expansion
// by complementary minors): s[k] pairs columns (0,1) (0,2) (0,3) (1,2) (1,3) (2,3) of rows 0
// and 1, c[k] the same columns of rows 2 and 3.
template <class M, class V>
LZ_INLINE void minors4(const M& m, V (&s)[6], V (&c)[6]) {
  constexpr int pa[6] = {0, 0, 0, 1, 1, 2}, pb[6] = {1, 2, 3, 2, 3, 3};
  for (int k = 0; k < 6; ++k) {
    s[k] = m(0, pa[k]) * m(1, pb[k]) - m(0, pb[k]) * m(1, pa[k]);
    c[k] = m(2, pa[k]) * m(3, pb[k]) - m(2, pb[k]) * m(3, pa[k]);
  }
}

} // namespace detail

/// Cross product of two fixed-size 3-vectors (computed now; a lz::fixed_vector).
template <class A, class B>
requires(fixed_expression<A>&& fixed_expression<B>) auto cross(const A& a, const B& b) {
  static_assert(rank_v<A> == 1 && rank_v<B> == 1 &&
                    detail::static_shape_of<std::remove_cvref_t<A>>::value[0] == 3 &&
                    detail::static_shape_of<std::remove_cvref_t<B>>::value[0] == 3,
                "lz::cross needs two fixed-size 3-vectors");
  const auto x = detail::fixed_value(a);
  const auto y = detail::fixed_value(b);
  using V = value_t<decltype(a * b)>;
  return fixed_vector<V, 3>(V(x(1) * y(2) - x(2) * y(1)), V(x(2) * y(0) - x(0) * y(2)),
                            V(x(0) * y(1) - x(1) * y(0)));
}

/// Determinant of a fixed-size square matrix up to 4×4, in closed form (integers exact up to
/// overflow, which wraps).
template <class E>
requires fixed_expression<E>
auto determinant(const E& e) {
  detail::check_square_fixed<E>("determinant");
  const auto m = detail::fixed_value(e);
  using V = value_t<E>;
  constexpr index_t n = std::remove_const_t<decltype(m)>::static_extents[0];
  if constexpr (n == 1) {
    return V(m(0, 0));
  } else if constexpr (n == 2) {
    return V(m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0));
  } else if constexpr (n == 3) {
    return V(m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) -
             m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
             m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0)));
  } else {
    V s[6], c[6];
    detail::minors4(m, s, c);
    return V(s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0]);
  }
}

/// Inverse of a fixed-size square matrix up to 4×4, in closed form (the adjugate over the
/// determinant; a lz::fixed_matrix). An exactly singular matrix (determinant 0) throws
/// lz::linalg_error; a nearly singular one gives large, inaccurate entries, as any closed form
/// does: check `lz::determinant` against the matrix's scale when that matters.
template <class E>
requires fixed_expression<E>
auto inverse(const E& e) {
  detail::check_square_fixed<E>("inverse");
  using V = value_t<E>;
  static_assert(std::is_floating_point_v<V> || detail::is_complex_v<V>,
                "lz::inverse needs a floating-point or complex matrix (convert with lz::cast)");
  const auto m = detail::fixed_value(e);
  using M = std::remove_const_t<decltype(m)>;
  constexpr index_t n = M::static_extents[0];
  M r(uninitialized);
  if constexpr (n == 1) {
    if (m(0, 0) == V(0)) detail::throw_singular("lz::inverse", n);
    r(0, 0) = V(1) / m(0, 0);
  } else if constexpr (n == 2) {
    const V d = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
    if (d == V(0)) detail::throw_singular("lz::inverse", n);
    const V f = V(1) / d;
    r(0, 0) = m(1, 1) * f, r(0, 1) = -m(0, 1) * f;
    r(1, 0) = -m(1, 0) * f, r(1, 1) = m(0, 0) * f;
  } else if constexpr (n == 3) {
    const V c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
    const V c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
    const V c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
    const V d = m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02;
    if (d == V(0)) detail::throw_singular("lz::inverse", n);
    const V f = V(1) / d;
    r(0, 0) = c00 * f;
    r(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) * f;
    r(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) * f;
    r(1, 0) = c01 * f;
    r(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) * f;
    r(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) * f;
    r(2, 0) = c02 * f;
    r(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) * f;
    r(2, 2) = (m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0)) * f;
  } else {
    V s[6], c[6];
    detail::minors4(m, s, c);
    const V d = s[0] * c[5] - s[1] * c[4] + s[2] * c[3] + s[3] * c[2] - s[4] * c[1] + s[5] * c[0];
    if (d == V(0)) detail::throw_singular("lz::inverse", n);
    const V f = V(1) / d;
    r(0, 0) = (m(1, 1) * c[5] - m(1, 2) * c[4] + m(1, 3) * c[3]) * f;
    r(0, 1) = (-m(0, 1) * c[5] + m(0, 2) * c[4] - m(0, 3) * c[3]) * f;
    r(0, 2) = (m(3, 1) * s[5] - m(3, 2) * s[4] + m(3, 3) * s[3]) * f;
    r(0, 3) = (-m(2, 1) * s[5] + m(2, 2) * s[4] - m(2, 3) * s[3]) * f;
    r(1, 0) = (-m(1, 0) * c[5] + m(1, 2) * c[2] - m(1, 3) * c[1]) * f;
    r(1, 1) = (m(0, 0) * c[5] - m(0, 2) * c[2] + m(0, 3) * c[1]) * f;
    r(1, 2) = (-m(3, 0) * s[5] + m(3, 2) * s[2] - m(3, 3) * s[1]) * f;
    r(1, 3) = (m(2, 0) * s[5] - m(2, 2) * s[2] + m(2, 3) * s[1]) * f;
    r(2, 0) = (m(1, 0) * c[4] - m(1, 1) * c[2] + m(1, 3) * c[0]) * f;
    r(2, 1) = (-m(0, 0) * c[4] + m(0, 1) * c[2] - m(0, 3) * c[0]) * f;
    r(2, 2) = (m(3, 0) * s[4] - m(3, 1) * s[2] + m(3, 3) * s[0]) * f;
    r(2, 3) = (-m(2, 0) * s[4] + m(2, 1) * s[2] - m(2, 3) * s[0]) * f;
    r(3, 0) = (-m(1, 0) * c[3] + m(1, 1) * c[1] - m(1, 2) * c[0]) * f;
    r(3, 1) = (m(0, 0) * c[3] - m(0, 1) * c[1] + m(0, 2) * c[0]) * f;
    r(3, 2) = (-m(3, 0) * s[3] + m(3, 1) * s[1] - m(3, 2) * s[0]) * f;
    r(3, 3) = (m(2, 0) * s[3] - m(2, 1) * s[1] + m(2, 2) * s[0]) * f;
  }
  return r;
}

} // namespace lz
