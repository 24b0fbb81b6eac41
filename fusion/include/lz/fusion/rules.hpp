// The ordered rule list. plan_assign tries the rules top to bottom: the first whose pattern
// matches the tree (compile time, `selects`) and that applies to the operands (run time: layouts,
// aliasing, sizes; `apply` returns false otherwise) lowers the assignment into steps on a sink
// (sink.hpp). `rule_order` IS the precedence: compile-time selection (`rule_v`), the host pass,
// lz::explain and the device pass (device/plan.hpp, after its bias+ReLU rule) all read it.
// A rule is one file, rules/<name>.hpp, headed by its algebra: `name`, `id` (plan.hpp),
// `selects<T, R, E>` and `apply<Op>(sink, policy, dst, e)`.
#pragma once

#include <lz/fusion/rules/chain.hpp>
#include <lz/fusion/rules/dot.hpp>
#include <lz/fusion/rules/gemm.hpp>
#include <lz/fusion/rules/gemv.hpp>
#include <lz/fusion/rules/inverse.hpp>
#include <lz/fusion/rules/level1.hpp>
#include <lz/fusion/rules/map.hpp>
#include <lz/fusion/rules/nested.hpp>
#include <lz/fusion/rules/normal_equations.hpp>
#include <lz/fusion/rules/reduce.hpp>
#include <lz/fusion/rules/solve.hpp>
#include <lz/fusion/rules/sparse_add.hpp>
#include <lz/fusion/rules/spmm.hpp>
#include <lz/fusion/rules/spmv.hpp>
#include <lz/fusion/rules/sum_of_products.hpp>
#include <lz/fusion/rules/transpose.hpp>
#include <lz/fusion/rules/triangular.hpp>
#include <lz/fusion/rules/via_temp.hpp>
#include <lz/fusion/sink.hpp>

#include <tuple>
#include <utility>

namespace lz::fusion {

/// An ordered list of rules (`rule_order` below; the device prepends its own, device/plan.hpp).
template <class... Rules>
struct rule_list {
  /// The first rule whose pattern matches dst (T, R) ⊕= E at compile time.
  template <class T, std::size_t R, class E>
  static constexpr rule_id first() {
    rule_id id = rule_id::map;
    bool found = false;
    ((found = found || (Rules::template selects<T, R, E> ? (id = Rules::id, true) : false)), ...);
    return id;
  }
  /// Lowers dst ⊕= e by the first rule that matches and applies. Only the rules that select
  /// the tree, up to the first one that always applies, are instantiated.
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static void plan(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    static constexpr tried c = tried_for<T, R, E>();
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (void)(rule_at<c.index[J]>::template apply<Op>(s, pol, dst, e) || ...);
    }
    (std::make_index_sequence<c.count>{});
  }
  /// True when exactly rules `a` then `b` are the ones plan would try for dst (T, R) ⊕= E.
  template <class T, std::size_t R, class E>
  static constexpr bool tries_only(rule_id a, rule_id b) {
    constexpr tried t = tried_for<T, R, E>();
    constexpr rule_id ids[] = {Rules::id...};
    return t.count == 2 && ids[t.index[0]] == a && ids[t.index[1]] == b;
  }

 private:
  template <std::size_t I>
  using rule_at = std::tuple_element_t<I, std::tuple<Rules...>>;
  struct tried {
    std::size_t index[sizeof...(Rules)] = {};
    std::size_t count = 0;
  };
  template <class T, std::size_t R, class E>
  static constexpr tried tried_for() {
    constexpr bool selects[] = {Rules::template selects<T, R, E>...};
    constexpr bool always[] = {Rules::always...};
    tried t;
    for (std::size_t i = 0; i < sizeof...(Rules); ++i)
      if (selects[i]) {
        t.index[t.count++] = i;
        if (always[i]) break;
      }
    return t;
  }
};

/// The rules, in order.
using rule_order = rule_list<rules::reduce,           // an axis reduction straight into dst
                             rules::normal_equations, // inv(AᵀA)·Aᵀ·b → one QR solve
                             rules::solve,            // solves → getrf/potrf/gels + solve
                             rules::triangular,       // triangular solves → trtrs in place
                             rules::inverse,          // inv(A) alone → getrf + getri
                             rules::spmv,             // α·op(A)·x + β·y, A sparse → one SpMV
                             rules::spmm,             // α·op(A)·B + β·C, A sparse → one SpMM
                             rules::sparse_add,       // α·op(A) + D, A sparse → one scatter
                             rules::gemm,             // product terms → BLAS calls into dst
                             rules::gemv,             //
                             rules::sum_of_products,  //
                             rules::level1,           // axpy / scal in place
                             rules::via_temp,         // a product reading dst → a temporary first
                             rules::nested,           // groups planned first, then one loop
                             rules::map>;             // everything elementwise, one loop

/// The first rule of `rule_order` for dst (T, R) ⊕= E at compile time (a scalar: map).
template <class T, std::size_t R, class E>
constexpr rule_id first_rule() {
  if constexpr (scalar_like<E>)
    return rule_id::map;
  else
    return rule_order::first<T, R, E>();
}

/// The rule `dst = e` reaches first at compile time: `static_assert(lz::fusion::rule_v<double,
/// decltype(A * B)> == lz::fusion::rule_id::gemm)`. Run-time conditions (layouts, aliasing) may
/// still send it to a later rule.
template <class T, class E>
inline constexpr rule_id rule_v = [] {
  using X = std::remove_cvref_t<E>;
  if constexpr (scalar_like<X>)
    return rule_id::map;
  else
    return first_rule<T, rank_v<X>, X>();
}();

/// Lowers dst ⊕= e into steps on sink s (any `plan_sink`): the first rule of `rule_order` that
/// matches and applies.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void plan_assign(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  if constexpr (scalar_like<E>)
    plan_assign<Op>(s, pol, dst, scalar_expr<T>{static_cast<T>(e)});
  else
    rule_order::plan<Op>(s, pol, dst, e);
}

/// True when plan_assign can only reach the map rule for dst (T, R) ⊕= E.
template <class T, std::size_t R, class E>
constexpr bool only_map_v = !scalar_like<E> && first_rule<T, R, E>() == rule_id::map;

/// True when plan_assign can only try BLAS 1 (in place) and then the loop for dst (T, R) ⊕= E.
template <class T, std::size_t R, class E>
constexpr bool level1_or_map_v =
    !scalar_like<E> && rule_order::tries_only<T, R, E>(rule_id::level1, rule_id::map);

/// True when execute checks every leaf of E where it reads it, in checked builds (so
/// evaluate.hpp does not walk the tree first): a loop's leaves in detail::flatten (BLAS 1 in
/// place is chosen after it, from the flattened loop); that is, a tree that can only be a loop or
/// BLAS 1 in place, or an axis reduction at the root with nothing under it computed first.
template <class T, std::size_t R, class E>
constexpr bool checks_own_leaves_v = [] {
  if constexpr (scalar_like<E>)
    return false;
  else if constexpr (is_axis_reduction_v<E>)
    return std::is_same_v<value_t<E>, T> && lz::detail::opaque_count_v<decltype(E::arg)> == 0;
  else
    return only_map_v<T, R, E> || level1_or_map_v<T, R, E>;
}();

/// Executes dst ⊕= e (⊕ = Op) under policy `pol`. @pre shapes checked by evaluate.hpp.
/// A tree that can only be a loop goes straight to it: the same run_map that plan_assign
/// would reach through the sink's map step, without instantiating the sink and the rule list
/// for it (compile time: a tenth of a plain tree's cost, perf/compile); so does a tree that
/// could be BLAS 1 in place (`y = a*x + y`: its loop asks the compiled chooser first). Computed
/// sparse terms (fusion/sparse.hpp) and full reductions (rules/reduce.hpp) in the tree are settled
/// first: what remains is planned, often a plain loop.
template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void execute(const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (only_map_v<T, R, E>) {
    run_map<Op>(pol, dst, e);
  } else if constexpr (level1_or_map_v<T, R, E>) {
    run_map<Op, level1_candidate_v<Op, T, R, E>>(pol, dst, e); // BLAS 1 first where it may be
  } else if constexpr (holds_computed_sparse_v<E>) {
    execute<Op>(pol, dst, settle_sparse(e, sparse_computer{}));
  } else if constexpr (settles_v<E>) {
    execute<Op>(pol, dst, settle_reductions(e, settled_by(pol)));
  } else if constexpr (is_axis_reduction_v<E> && std::is_same_v<value_t<E>, T>) {
    // The reduce rule, else via_temp's temporary, without planning the tree twice through the
    // rule list (compile time: perf/compile's lz::sum(A, 0) cost ~0.8 G instructions).
    if (reduces_into(dst, e)) {
      e.template apply_to<Op>(pol, dst);
    } else {
      exec_sink s;
      if (s.noting()) { // the reduce and via-temp rules' notes
        s.note({"reduce rule skipped: the destination overlaps the operand or is broadcast"});
        s.note({"the destination overlaps an operand or broadcasts the result: the tree is "
                "evaluated into a temporary, then assigned"});
      }
      const auto t = s.temp<T, R>(e.shape(), "tree reads the destination");
      e.template apply_to<lz::detail::assign_op::set>(pol, t);
      execute<Op>(pol, dst, tensor_view<const T, R>(t.data(), t.layout(), lz::detail::trusted));
    }
  } else {
    exec_sink s;
    plan_assign<Op>(s, pol, dst, e);
  }
}

} // namespace lz::fusion
