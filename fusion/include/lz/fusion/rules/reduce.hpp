// reduce rule: dst ⊕= reduce(e, axis) → the axis reduction writes straight into the
// destination (no temporary), SIMD across outputs or along the axis, pairwise. Applies when
// the destination has the result's exact shape and shares no memory with the operand's leaves;
// otherwise it is computed into one temporary of its shape (rules.hpp, lower_via_temp; the
// nested rule on device sinks), then assigned. A full reduction assigned to a rank-0
// destination is computed and stored. Run by kernels/cpu/reduce.cpp.
// Full reductions INSIDE a host tree (`(x - lz::mean(x)) / lz::norm2(x)`) are settled before the
// tree is planned: each is computed (one pass, its node's cached value) and enters the tree as a
// scalar (settle_reductions, below; fusion::execute and lz::explain call it), so the rest is
// planned as if the user had written the numbers: no temporary, no nested plan
// (docs/decisions/full-reductions-settled-before-planning.md). lz::dist does the same with its
// collective reductions; the device keeps them as groups of the nested rule.
#pragma once

#include <lz/fusion/rules/dot.hpp>
#include <lz/fusion/terms.hpp>
#include <lz/kernels/cpu/reduce.hpp>

namespace lz::fusion {

template <class E>
inline constexpr bool is_axis_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_axis_reduction_v<reduce_axis_expr<Op, Fin, E>> = true;
template <class E>
inline constexpr bool is_full_reduction_v = false;
template <class Op, class Fin, class E>
inline constexpr bool is_full_reduction_v<reduce_expr<Op, Fin, E>> = true;

namespace detail_settle {
template <class E>
constexpr bool holds() {
  using K = lz::detail::kind_t<E>;
  if constexpr (is_full_reduction_v<E>)
    return true;
  else if constexpr (std::is_same_v<K, lz::detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (false || ... || holds<A>());
    }(static_cast<const E*>(nullptr));
  else if constexpr (std::is_same_v<K, lz::detail::permute_kind> ||
                     std::is_same_v<K, lz::detail::broadcast_kind>)
    return holds<decltype(std::declval<E>().arg)>();
  else
    return false;
}
} // namespace detail_settle

/// True when tree E holds a full reduction in its elementwise part (not inside an opaque node
/// such as a product, whose own step evaluates its operands) and is not one itself (a full
/// reduction assigned to a rank-0 destination is the reduce rule's).
template <class E>
inline constexpr bool settles_v =
    !is_full_reduction_v<std::remove_cvref_t<E>> && detail_settle::holds<std::remove_cvref_t<E>>();

/// e with each full reduction of its elementwise part replaced by the scalar `value_of(r)`,
/// called in the tree's left-to-right order. The other nodes are copied as they are.
template <class E, class F>
auto settle_reductions(const E& e, F&& value_of) {
  if constexpr (is_full_reduction_v<E>)
    return scalar_expr<value_t<E>>{value_of(e)};
  else if constexpr (!detail_settle::holds<E>())
    return e;
  else
    return lz::detail::rebuild_elementwise(
        e, [&](const auto& c) { return settle_reductions(c, value_of); });
}

/// The host's value of a full reduction in a tree: its node's value (computed at its first use,
/// under that use's policy, then kept: ops/reductions.hpp).
template <class P>
auto settled_by(const P& pol) {
  return [&pol](const auto& r) { return r.compute(pol); };
}

} // namespace lz::fusion

namespace lz::detail {

template <class P>
kernels::cpu::reduce_options reduce_options_for(int cost, bool keep_order) {
  kernels::cpu::reduce_options o;
  o.threads = P::kind == exec_kind::par || P::kind == exec_kind::automatic;
  o.parallel_work = P::kind == exec_kind::automatic ? thresholds().parallel_work.get() : 0;
  o.cost = cost;
  o.block = thresholds().reduce_block;
  o.keep_order = keep_order;
  o.prefetch_bytes = thresholds().reduce_prefetch;
  return o;
}

// The two reduction evaluators the nodes call (ops/reductions.hpp), run by kernels/cpu/reduce.cpp.
template <class P, class Op, class Fin, class E>
typename reduce_expr<Op, Fin, E>::value_type reduce_value(const P& pol,
                                                          const reduce_expr<Op, Fin, E>& r) {
  using namespace kernels::cpu;
  using node = reduce_expr<Op, Fin, E>;
  using value_type = typename node::value_type;
  using acc_type = typename node::acc_type;
  constexpr std::size_t R = rank_v<E>, N = 1 + leaf_count_v<E>;
  const auto s = r.arg.shape();
  index_t size = 1;
  for (std::size_t k = 0; k < R; ++k) size *= s[k];
  if (!Op::has_identity && size == 0) throw_empty_reduction(Op::name, s.data(), R);
  if constexpr (fusion::settles_v<E>) { // `sum(square(x - mean(x)))`: the mean first, a scalar
    auto a = fusion::settle_reductions(r.arg, fusion::settled_by(pol));
    return reduce_value(pol, reduce_expr<Op, Fin, decltype(a)>(std::move(a)));
  } else {
    if constexpr (std::is_same_v<value_type, acc_type>) { // dot: BLAS where it is faster
      value_type d{};
      if (fusion::try_dot<Op, Fin>(r.arg, d)) return d;
    }
    temp_store<opaque_count_v<E>> temps;
    std::array<operand, N> ops; // (strides past R unset: the driver reads R of them)
    flatten(r.arg, ops.data() + 1, pol, temps);
    constexpr bool vector = R == 1 && N <= vector_operands; // (ops[0] filled if needed)
    if constexpr (vector) {
    } else if constexpr (N > 1) { // ops[0]: walk memory in the first leaf's order
      ops[0].ptr = ops[1].ptr, ops[0].esize = ops[1].esize;
      for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = ops[1].strides[k];
    } else {
      for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = 0;
    }
    static constexpr reduce_kernels K = // (static: not rebuilt on the stack by every call)
        reducer_for<Op, Fin, value_type, assign_op::set, E,
                    P::kind != exec_kind::seq>::template kernels<false>();
    alignas(64) unsigned char part[max_reduce_partial];
    const auto k = bind<1>(r.arg); // (the kernel tree)
    if constexpr (vector)
      run_reduce_vector<int(N)>(s[0], ops.data(), K, &k,
                                reduce_options_for<P>(cost_v<E>, node::is_arg), part);
    else
      run_reduce(int(R), s.data(), int(N), ops.data(), K, &k,
                 reduce_options_for<P>(cost_v<E>, node::is_arg), part);
    return Fin{}(*reinterpret_cast<const acc_type*>(part), size);
  }
}

template <assign_op AOp, class P, class D, std::size_t RD, class Op, class Fin, class E>
void reduce_axis_into(const P& pol, tensor_view<D, RD> dst, const reduce_axis_expr<Op, Fin, E>& r) {
  using namespace kernels::cpu;
  constexpr std::size_t R = rank_v<E>, N = 1 + leaf_count_v<E>;
  const auto s = r.arg.shape();
  const std::size_t axis = r.axis;
  const index_t len = s[axis];
  if (!Op::has_identity && len == 0 && dst.size() > 0) throw_empty_reduction(Op::name, s.data(), R);
  temp_store<opaque_count_v<E>> temps;
  std::array<operand, N> ops{};
  ops[0].ptr = reinterpret_cast<char*>(dst.data());
  ops[0].esize = sizeof(D);
  for (std::size_t k = 0; k < RD; ++k) ops[0].strides[k] = dst.layout().strides[k];
  flatten(r.arg, ops.data() + 1, pol, temps);
  for (std::size_t j = 1; j < N; ++j) { // move the reduced axis last
    index_t t[max_rank];
    std::size_t m = 0;
    for (std::size_t k = 0; k < R; ++k)
      if (k != axis) t[m++] = ops[j].strides[k];
    t[m] = ops[j].strides[axis];
    for (std::size_t k = 0; k < R; ++k) ops[j].strides[k] = t[k];
  }
  static constexpr reduce_kernels K =
      reducer_for<Op, Fin, D, AOp, E, P::kind != exec_kind::seq>::kernels();
  const auto k = bind<1>(r.arg); // (the kernel tree)
  run_reduce_axis(int(RD), dst.shape().data(), len, int(N), ops.data(), K, &k,
                  reduce_options_for<P>(cost_v<E>, reduce_axis_expr<Op, Fin, E>::is_arg));
}

} // namespace lz::detail

namespace lz::fusion {

/// The reduce rule's run-time condition for an axis reduction e: dst has e's shape and shares no
/// byte with e's operand (the device's direct path asks the same, device/evaluate.hpp).
template <template <class, std::size_t> class View, class T, std::size_t R, class E>
bool reduces_into(View<T, R> dst, const E& e) {
  return dst.shape() == e.shape() && !touches_dst(dst, e.arg);
}

/// The reduce rule: a reduction step straight into dst when it applies; false otherwise.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
bool try_reduce(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    if (reduces_into(dst, e)) {
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

namespace rules {
struct reduce {
  static constexpr const char* name = "reduce";
  static constexpr rule_id id = rule_id::reduce;
  static constexpr bool always = false; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = is_axis_reduction_v<E> || is_full_reduction_v<E>;
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    return try_reduce<Op>(s, pol, dst, e);
  }
};
} // namespace rules

/// The reduction step on the host sinks: run it (kernels/cpu/reduce.cpp), or describe it.
template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void exec_sink::reduce(const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (is_axis_reduction_v<E>) {
    e.template apply_to<Op>(pol, dst);
  } else {
    T& d = *dst.data();
    d = static_cast<T>(fn::assign_combine<Op>(d, e.compute(pol)));
  }
}
namespace detail_reduce {
// True when the tree holds `A * B` of two square matrices of the same shape: in a reduction that
// is often NumPy's elementwise product written with lazuli's matrix product (explain says so).
template <class E>
bool has_square_product(const E& e) {
  using K = lz::detail::kind_t<E>;
  if constexpr (is_matmul_v<E>) {
    if constexpr (rank_v<decltype(e.lhs)> == 2 && rank_v<decltype(e.rhs)> == 2) {
      const auto a = e.lhs.shape(), b = e.rhs.shape();
      return a == b && a[0] == a[1];
    }
    return false;
  } else if constexpr (std::is_same_v<K, lz::detail::map_kind>) {
    bool any = false;
    lz::for_each_arg(e, [&](const auto& c) { any = any || has_square_product(c); });
    return any;
  } else if constexpr (std::is_same_v<K, lz::detail::permute_kind> ||
                       std::is_same_v<K, lz::detail::broadcast_kind>) {
    return has_square_product(e.arg);
  } else {
    return false;
  }
}
// The block reduction node N runs in under policy P (kernels::cpu::block_of).
template <class P, class N>
struct node_block;
template <class P, template <class, class, class> class Node, class Op, class Fin, class A>
struct node_block<P, Node<Op, Fin, A>> {
  static index_t get() {
    return kernels::cpu::block_of(
        thresholds().reduce_block,
        kernels::cpu::reduces_on_batches<Op, A, P::kind != exec_kind::seq>());
  }
};
// Explain's note for such a tree.
template <class E>
void note_square_product(explain_sink& s, const E& e) {
  if (has_square_product(e))
    s.note({"`A * B` of two square matrices of the same shape is the matrix product; the "
            "elementwise product is lz::hadamard(A, B)"});
}
} // namespace detail_reduce

template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
void explain_sink::reduce(const P&, tensor_view<T, R> dst, const E& e) {
  detail_reduce::note_square_product(*this, e.arg);
  if constexpr (is_axis_reduction_v<E>) {
    loop(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " along axis " +
             std::to_string(e.axis) + " of " + lz::detail::to_string(e.arg.shape()) + " → " +
             name_of(dst.data()) + to_string(dst.layout()) + " (pairwise blocks of " +
             std::to_string(detail_reduce::node_block<P, E>::get()) + ")",
         "reduce");
  } else {
    loop(std::string("reduce ") + std::remove_cvref_t<E>::op_name() + " over " +
             lz::detail::to_string(e.arg.shape()) + " → " + name_of(dst.data()) +
             " (pairwise blocks of " + std::to_string(detail_reduce::node_block<P, E>::get()) +
             ", thread-count independent)",
         "reduce");
  }
}

template <class P, class E>
typename E::value_type explain_sink::settled(const P&, const E& e) {
  detail_reduce::note_square_product(*this, e.arg);
  loop(detail_plan::describe_settled(E::op_name(), lz::detail::to_string(e.arg.shape()),
                                     detail_reduce::node_block<P, E>::get()),
       "reduce");
  using V = typename E::value_type;
  if constexpr (std::numeric_limits<V>::has_quiet_NaN) {
    return std::numeric_limits<V>::quiet_NaN();
  } else if constexpr (lz::detail::is_complex_v<V>) {
    constexpr auto nan = std::numeric_limits<typename V::value_type>::quiet_NaN();
    return V(nan, nan);
  } else {
    return V{};
  }
}

} // namespace lz::fusion
