// The ordered rule list. plan_assign tries the rules top to bottom: the first that matches the
// tree (compile time) and applies to the operands (run time: layouts, aliasing, sizes) lowers
// the assignment into steps on a sink (plan.hpp). Reading this function IS the precedence.
// Each rule lives in rules/<name>.hpp, headed by its algebra.
#pragma once

#include <lz/fusion/rules/chain.hpp>
#include <lz/fusion/rules/dot.hpp>
#include <lz/fusion/rules/gemm.hpp>
#include <lz/fusion/rules/gemv.hpp>
#include <lz/fusion/rules/level1.hpp>
#include <lz/fusion/rules/map.hpp>
#include <lz/fusion/rules/nested.hpp>
#include <lz/fusion/rules/reduce.hpp>
#include <lz/fusion/rules/sum_of_products.hpp>
#include <lz/fusion/rules/syrk.hpp>
#include <lz/fusion/rules/transpose.hpp>
#include <lz/fusion/sink.hpp>

namespace lz::fusion {

/// Which rule a tree reaches first at compile time (the plan type tests static_assert on).
/// Run-time conditions (layouts, aliasing) may still send it to a later rule.
enum class rule_id { reduce, gemm, gemv, sum_of_products, level1, nested, map };

template <class T, class E>
constexpr rule_id rule_for() {
  if constexpr (scalar_like<E>)
    return rule_id::map;
  else if constexpr (is_axis_reduction_v<E> || is_full_reduction_v<E>)
    return rule_id::reduce;
  else if constexpr (rules::gemm::matches<E>)
    return rule_id::gemm;
  else if constexpr (rules::gemv::matches<E>)
    return rule_id::gemv;
  else if constexpr (rules::sum_of_products::matches<E>)
    return rule_id::sum_of_products;
  else if constexpr (rules::level1::matches<E, T>)
    return rule_id::level1;
  else if constexpr (detail_nested::count_groups<E>() > 0)
    return rule_id::nested;
  else
    return rule_id::map;
}
/// The rule `dst = e` reaches first at compile time: `static_assert(lz::fusion::rule_v<double,
/// decltype(A * B)> == lz::fusion::rule_id::gemm)`.
template <class T, class E>
inline constexpr rule_id rule_v = rule_for<T, std::remove_cvref_t<E>>();

namespace detail_rules {

// A product or axis-reduction tree whose rule could not write the destination (an operand
// overlaps it, or the result broadcasts into it) is evaluated into a fresh temporary of its own
// shape and type, where that rule always applies, then assigned: one temporary, and no nested
// rule instantiated for such trees (compile time). Products of another element type still go
// through the nested rule.
template <class V, class E>
constexpr bool products_of_type() {
  using namespace detail_terms;
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum || k == shape_kind::difference)
    return products_of_type<V, arg_t<E, 0>>() && products_of_type<V, arg_t<E, 1>>();
  else if constexpr (k == shape_kind::negation || k == shape_kind::scaled_right ||
                     k == shape_kind::divided)
    return products_of_type<V, arg_t<E, 0>>();
  else if constexpr (k == shape_kind::scaled_left)
    return products_of_type<V, arg_t<E, 1>>();
  else if constexpr (is_product_term<E>())
    return std::is_same_v<value_t<E>, V>;
  else
    return true;
}

template <class T, std::size_t R, class E>
constexpr bool via_fresh_temp() {
  if constexpr (R == 0)
    return false;
  else if constexpr (is_axis_reduction_v<E>)
    return true;
  else if constexpr (term_counts_v<E>.products > 0)
    return std::is_same_v<value_t<E>, T> && products_of_type<T, E>();
  else
    return false;
}

} // namespace detail_rules

template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void plan_assign(Sink& s, const P& pol, View<T, R> dst, const E& e);

/// dst ⊕= e through a fresh temporary of e's shape and type (see detail_rules::via_fresh_temp).
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

/// Lowers dst ⊕= e into steps on sink s (any `plan_sink`, sink.hpp): the host sinks run them on
/// the CPU or describe them, the device sinks on the device. Every decision is this list's.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void plan_assign(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  if constexpr (scalar_like<E>) {
    plan_assign<Op>(s, pol, dst, scalar_expr<T>{static_cast<T>(e)});
  } else {
    // reduce: an axis reduction straight into the destination
    if constexpr (is_axis_reduction_v<E> || is_full_reduction_v<E>) {
      if (try_reduce<Op>(s, pol, dst, e)) return;
    }
    // gemm / gemv / sum of products: product terms → BLAS calls accumulating into dst
    if constexpr (term_counts_v<E>.products > 0) {
      constexpr const char* name = rules::gemm::matches<E>   ? rules::gemm::name
                                   : rules::gemv::matches<E> ? rules::gemv::name
                                                             : rules::sum_of_products::name;
      if (lower_terms<Op>(s, pol, dst, e, name)) return;
    }
    // level 1: axpy / scal in place
    if constexpr (rules::level1::matches<E, T>) {
      if (lower_level1<Op>(s, dst, e)) return;
    }
    // a product or reduction the rules above could not write in place → a temporary, then dst
    if constexpr (detail_rules::via_fresh_temp<T, R, E>()) {
      lower_via_temp<Op>(s, pol, dst, e);
    } else if constexpr (detail_nested::count_groups<E>() > 0) {
      // nested: products and reductions inside an elementwise tree → planned first, then a loop
      lower_nested<Op>(s, pol, dst, e);
    } else {
      // map: everything elementwise, one loop (the fallback; always applies)
      s.template map<Op>(pol, dst, e);
    }
  }
}

/// True when plan_assign can only reach the map rule for dst (T, R) ⊕= E on the host: no
/// reduction, product, level-1 pattern or group, nothing that needs a temporary first.
template <class T, std::size_t R, class E>
constexpr bool only_map_v =
    !scalar_like<E> && !is_axis_reduction_v<E> && !is_full_reduction_v<E> &&
    term_counts_v<E>.products == 0 && !rules::level1::matches<E, T> &&
    !detail_rules::via_fresh_temp<T, R, E>() && detail_nested::count_groups<E>() == 0;

/// Executes dst ⊕= e (⊕ = Op) under policy `pol`. @pre shapes checked by evaluate.hpp.
/// A tree that can only be a loop goes straight to it: the same run_map that plan_assign
/// would reach through the sink's map step, without instantiating the sink and the rule list for it
/// (compile time: a tenth of a plain tree's cost, perf/compile).
template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void execute(const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (only_map_v<T, R, E>) {
    run_map<Op>(pol, dst, e);
  } else {
    exec_sink s;
    plan_assign<Op>(s, pol, dst, e);
  }
}

} // namespace lz::fusion
