// reduce rule: dst ⊕= reduce(e, axis) → the axis reduction writes straight into the
// destination (no temporary), SIMD across outputs or along the axis, pairwise. Applies when
// the destination has the result's exact shape and shares no memory with the operand's leaves;
// otherwise it is computed into one temporary of its shape (rules.hpp, lower_via_temp; the
// nested rule on device sinks), then assigned. A full reduction assigned to a rank-0
// destination is computed and stored. Run by kernels/cpu/reduce.cpp.
// Included first, this header pulls in the whole engine in dependency order (tensor.hpp ends
// with evaluate.hpp, which includes the fusion pass); a guard, not #pragma once, lets that
// chain define this file before the outer inclusion continues.
#include <lz/tensor.hpp>
#ifndef LZ_LZ_FUSION_RULES_REDUCE_HPP
#define LZ_LZ_FUSION_RULES_REDUCE_HPP

#include <lz/fusion/terms.hpp>

namespace lz::fusion {

template <class E>
inline constexpr bool is_axis_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_axis_reduction_v<reduce_axis_expr<Op, Fin, E>> = true;
template <class E>
inline constexpr bool is_full_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_full_reduction_v<reduce_expr<Op, Fin, E>> = true;

/// The reduce rule: a reduction step straight into dst when it applies; false otherwise.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
bool try_reduce(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    if (dst.shape() == e.shape() && !touches_dst(dst, e.arg)) {
      s.template reduce<Op>(pol, dst, e);
      return true;
    }
    if (s.noting())
      s.note({"reduce rule skipped: the destination overlaps the operand or is broadcast"});
  } else if constexpr (is_full_reduction_v<E> && R == 0) {
    s.template reduce<Op>(pol, dst, e);
    return true;
  }
  return false;
}

/// The reduction step on the host sinks: run it (kernels/cpu/reduce.cpp), or describe it.
template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void exec_sink::reduce(const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    e.template apply_to<Op>(pol, dst);
  } else {
    T& d = *dst.data();
    d = static_cast<T>(kernels::cpu::combine<Op>(d, e.compute(pol)));
  }
}
template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void explain_sink::reduce(const P&, tensor_view<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    loop(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " along axis " +
             std::to_string(e.axis) + " of " + lz::detail::to_string(e.arg.shape()) + " → " +
             name_of(dst.data()) + to_string(dst.layout()) + " (pairwise blocks of " +
             std::to_string(thresholds().reduce_block) + ")",
         "reduce");
  } else {
    loop(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " over " +
             lz::detail::to_string(e.arg.shape()) + " → " + name_of(dst.data()) +
             " (pairwise blocks of " + std::to_string(thresholds().reduce_block) +
             ", thread-count independent)",
         "reduce");
  }
}

} // namespace lz::fusion

#endif // LZ_LZ_FUSION_RULES_REDUCE_HPP
