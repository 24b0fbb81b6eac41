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
LZ_UNARY(abs)
LZ_UNARY(sqrt)
LZ_UNARY(cbrt)
LZ_UNARY(exp)
LZ_UNARY(expm1)
LZ_UNARY(log)
LZ_UNARY(log1p)
LZ_UNARY(sin)
LZ_UNARY(cos)
LZ_UNARY(tan)
LZ_UNARY(tanh)
LZ_UNARY(asin)
LZ_UNARY(acos)
LZ_UNARY(atan)
LZ_UNARY(square)
LZ_UNARY(floor)
LZ_UNARY(ceil)
LZ_UNARY(round)
LZ_UNARY(sign)
LZ_UNARY(isnan)
LZ_UNARY(isinf)
#undef LZ_UNARY

#define LZ_BINARY(NAME)                                                                            \
  template <class A, class B>                                                                      \
  requires detail::elementwise_operands<A, B>                                                      \
  auto NAME(A&& a, B&& b) {                                                                        \
    return detail::binary<fn::NAME##_fn>(std::forward<A>(a), std::forward<B>(b));                  \
  }
LZ_BINARY(maximum)
LZ_BINARY(minimum)
LZ_BINARY(atan2)
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
