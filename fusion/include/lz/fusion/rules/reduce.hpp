// reduce rule: dst ⊕= reduce(e, axis) → the axis reduction writes straight into the
// destination (no temporary), SIMD across outputs or along the axis, pairwise. Applies when
// the destination has the result's exact shape and shares no memory with the operand's leaves;
// otherwise the map rule materializes the reduction and copies it. Run by kernels/cpu/reduce.cpp.
#pragma once

#include <lz/kernels/alias.hpp>
#include <lz/tensor.hpp>

namespace lz::fusion {

template <class E>
inline constexpr bool is_axis_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_axis_reduction_v<reduce_axis_expr<Op, Fin, E>> = true;

namespace detail_reduce {
// Byte ranges of the plain leaves under e against the destination (opaque children are
// materialized into fresh memory, so they cannot alias).
template <class T, std::size_t R, class E>
bool leaves_touch(tensor_view<T, R> dst, const E& e) {
  bool hit = false;
  const char* d0 = reinterpret_cast<const char*>(dst.data() + dst.layout().min_offset());
  const char* d1 = reinterpret_cast<const char*>(dst.data() + dst.layout().max_offset() + 1);
  detail::for_each_leaf(e, [&](const auto& leaf) {
    const auto& l = leaf.layout();
    if (l.empty()) return;
    const char* a0 = reinterpret_cast<const char*>(leaf.data() + l.min_offset());
    const char* a1 = reinterpret_cast<const char*>(leaf.data() + l.max_offset() + 1);
    hit = hit || !(a1 <= d0 || d1 <= a0);
  });
  return hit && !dst.empty();
}
} // namespace detail_reduce

/// Runs the reduce rule if it applies; returns false (doing nothing) otherwise.
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
bool try_reduce(const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    if (dst.shape() == e.shape() && !detail_reduce::leaves_touch(dst, e.arg)) {
      e.template apply_to<Op>(pol, dst);
      return true;
    }
  }
  return false;
}

} // namespace lz::fusion
