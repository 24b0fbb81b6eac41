// Public names of the elementwise functions: each wraps its functor (ops/functors.hpp) in a
// map node. lz::map(f, a, b, ...) does the same for a user's own function.
#pragma once

#include <lz/ops/operators.hpp>

namespace lz {

#define LZ_UNARY(NAME)                                                                             \
  template <expression A>                                                                          \
  auto NAME(A&& a) {                                                                               \
    return make_map(#NAME, fn::NAME##_fn{}, make_closure(std::forward<A>(a)));                     \
  }
/// |x| (integers wrap: abs(INT_MIN) is INT_MIN, as NumPy). Elementwise, every policy and the
/// device.
LZ_UNARY(abs)
/// Square root. Elementwise, every policy and the device.
LZ_UNARY(sqrt)
/// Cube root. Elementwise, every policy and the device.
LZ_UNARY(cbrt)
/// e^x. Elementwise, every policy and the device.
LZ_UNARY(exp)
/// e^x - 1, accurate near 0. Elementwise, every policy and the device.
LZ_UNARY(expm1)
/// Natural logarithm. Elementwise, every policy and the device.
LZ_UNARY(log)
/// log(1 + x), accurate near 0. Elementwise, every policy and the device.
LZ_UNARY(log1p)
/// Sine (radians). Elementwise, every policy and the device.
LZ_UNARY(sin)
/// Cosine (radians). Elementwise, every policy and the device.
LZ_UNARY(cos)
/// Tangent (radians). Elementwise, every policy and the device.
LZ_UNARY(tan)
/// Hyperbolic tangent. Elementwise, every policy and the device.
LZ_UNARY(tanh)
/// Arcsine. Elementwise, every policy and the device.
LZ_UNARY(asin)
/// Arccosine. Elementwise, every policy and the device.
LZ_UNARY(acos)
/// Arctangent. Elementwise, every policy and the device.
LZ_UNARY(atan)
/// x * x (integers wrap). Elementwise, every policy and the device.
LZ_UNARY(square)
/// Largest integer value not above x. Elementwise, every policy and the device.
LZ_UNARY(floor)
/// Smallest integer value not below x. Elementwise, every policy and the device.
LZ_UNARY(ceil)
/// Nearest integer value, halves away from zero. Elementwise, every policy and the device.
LZ_UNARY(round)
/// -1, 0 or 1 by the sign of x (NaN stays NaN). Elementwise, every policy and the device.
LZ_UNARY(sign)
/// True where x is NaN. Elementwise, every policy and the device.
LZ_UNARY(isnan)
/// True where x is infinite. Elementwise, every policy and the device.
LZ_UNARY(isinf)
#undef LZ_UNARY

#define LZ_BINARY(NAME)                                                                            \
  template <class A, class B>                                                                      \
  requires detail::elementwise_operands<A, B>                                                      \
  auto NAME(A&& a, B&& b) {                                                                        \
    return detail::binary<fn::NAME##_fn>(std::forward<A>(a), std::forward<B>(b));                  \
  }
/// The larger of a and b (NaN if either is NaN, as NumPy's maximum). Elementwise, every policy and
/// the device.
LZ_BINARY(maximum)
/// The smaller of a and b (NaN if either is NaN, as NumPy's minimum). Elementwise, every policy and
/// the device.
LZ_BINARY(minimum)
/// Arctangent of a / b using both signs (the quadrant). Elementwise, every policy and the device.
LZ_BINARY(atan2)
/// a raised to b. Elementwise, every policy and the device.
LZ_BINARY(pow)
#undef LZ_BINARY

/// Elementwise product of two tensors of the same rank (the matrix product is `*`).
template <class A, class B>
requires detail::elementwise_operands<A, B>
auto hadamard(A&& a, B&& b) {
  return detail::binary<fn::multiplies_fn>(std::forward<A>(a), std::forward<B>(b));
}

/// where(c, a, b): a where c is true, else b (a and b may be scalars).
template <expression C, class A, class B>
requires expression_or_scalar<A> && expression_or_scalar<B>
auto where(C&& c, A&& a, B&& b) {
  using V = std::conditional_t<expression<A>, A, B>; // scalars take the other branch's type
  return make_map("where", fn::where_fn{}, make_closure(std::forward<C>(c)),
                  detail::as_operand<V>(std::forward<A>(a)),
                  detail::as_operand<V>(std::forward<B>(b)));
}

/// clamp(x, lo, hi) = minimum(maximum(x, lo), hi), elementwise.
template <expression A, class L, class H>
requires expression_or_scalar<L> && expression_or_scalar<H>
auto clamp(A&& a, L&& lo, H&& hi) {
  return make_map("clamp", fn::clamp_fn{}, make_closure(std::forward<A>(a)),
                  detail::as_operand<A>(std::forward<L>(lo)),
                  detail::as_operand<A>(std::forward<H>(hi)));
}

/// Elementwise conversion to T: `lz::cast<float>(x)`.
template <class T, expression A>
auto cast(A&& a) {
  return make_map("cast", fn::cast_fn<T>{}, make_closure(std::forward<A>(a)));
}

/// A user function applied elementwise, fused into the same single loop as built-in ops.
/// `f` takes one scalar per operand (and, optionally, xsimd batches: then it vectorizes).
template <class F, class... A>
requires(sizeof...(A) > 0 && (expression_or_scalar<A> && ...) &&
         (expression<A> || ...)) auto map(F f, A&&... a) {
  using First = typename detail::first_expression<A...>::type;
  return make_map("map", f, detail::as_operand<First>(std::forward<A>(a))...);
}

} // namespace lz
