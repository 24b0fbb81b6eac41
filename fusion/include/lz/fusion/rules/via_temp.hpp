// via-temp rule: a product or axis-reduction tree whose rule could not write the destination (an
// operand overlaps it, or the result broadcasts into it) is evaluated into a fresh temporary of its
// own shape and type, where that rule always applies, then assigned: one temporary.
//   C = C * C   →  tmp = C·C (gemm, β = 0);  C = tmp (one loop)
// Products of another element type than the destination's go on to the nested rule. Compile time:
// no nested rule is instantiated for the trees this rule takes.
#pragma once

#include <lz/fusion/rules/reduce.hpp>
#include <lz/fusion/terms.hpp>

namespace lz::fusion {

/// dst ⊕= e through a fresh temporary of e's shape and type.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void lower_via_temp(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  using V = value_t<E>;
  if (s.noting())
    s.note({"the destination overlaps an operand or broadcasts the result: the tree is "
            "evaluated into a temporary, then assigned"});
  const auto t = s.template temp<V, R>(e.shape(), "tree reads the destination");
  plan_assign<lz::detail::assign_op::set>(s, pol, t, e);
  using read_view = typename Sink::template view<const V, R>;
  plan_assign<Op>(s, pol, dst, read_view(t.data(), t.layout(), lz::detail::trusted));
}

namespace rules {
struct via_temp {
  static constexpr const char* name = "via temp";
  static constexpr rule_id id = rule_id::via_temp;
  static constexpr bool always = true; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects_fn() {
    if constexpr (R == 0)
      return false;
    else if constexpr (is_axis_reduction_v<E>)
      return true;
    else if constexpr (term_counts_v<E>.products > 0)
      return std::is_same_v<value_t<E>, T> && detail_terms::products_of_type<T, E>();
    else
      return false;
  }
  /// Compile time: an axis reduction, or products all of the destination's element type.
  template <class T, std::size_t R, class E>
  static constexpr bool selects = selects_fn<T, R, E>();
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    lower_via_temp<Op>(s, pol, dst, e);
    return true;
  }
};
} // namespace rules

} // namespace lz::fusion
