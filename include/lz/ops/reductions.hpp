// Reductions: sum prod min max mean norm2 dot argmin argmax all any, over everything or along
// one axis. Each is ONE pass over its (elementwise) operand: the operand tree is never
// materialized. A full reduction is a rank-0 expression that converts to its scalar on demand
// (`double s = lz::sum(x * y);`); inside a larger tree it is computed first and broadcast.
#pragma once

#include <lz/evaluate.hpp>
#include <lz/kernels/cpu/reduce.hpp>
#include <lz/ops/math.hpp>

namespace lz {
namespace detail {

template <class P>
kernels::cpu::reduce_options reduce_options_for(int cost, bool keep_order) {
  kernels::cpu::reduce_options o;
  o.threads = P::kind == exec_kind::par || P::kind == exec_kind::automatic;
  o.parallel_work = P::kind == exec_kind::automatic ? thresholds().parallel_work : 0;
  o.cost = cost;
  o.block = thresholds().reduce_block;
  o.keep_order = keep_order;
  o.prefetch_bytes = thresholds().reduce_prefetch;
  return o;
}

/// shape_error: `name` (min, max, argmin, ...) of an empty operand of shape s[0..rank).
[[noreturn]] void throw_empty_reduction(const char* name, const index_t* s, std::size_t rank);
/// std::out_of_range: `name` along `axis` of a rank-`rank` expression (kernels/common/errors.cpp).
[[noreturn]] void throw_bad_axis(const char* name, std::size_t axis, std::size_t rank);

} // namespace detail

/// Full reduction of E by Op (finalized by Fin): a rank-0 expression.
template <class Op, class Fin, class E>
struct reduce_expr {
  static constexpr const char* op_name() { return Fin::name[0] ? Fin::name : Op::name; }
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = 0;
  using acc_type = typename Op::template acc_t<value_t<E>>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fin, acc_type, index_t>>;
  static constexpr bool is_arg = kernels::cpu::detail_red::arg_accumulator<acc_type>;

  E arg;

  static constexpr shape_t<0> shape() noexcept { return {}; }

  /// Evaluates under policy `pol`.
  template <host_policy P>
  value_type compute(const P& pol) const {
    static_assert(space_v<E> != memory_space::device,
                  "lz: a reduction of device operands runs on the device and returns its value "
                  "explicitly: lz::eval(lz::device, lz::sum(d))");
    using namespace kernels::cpu;
    constexpr std::size_t R = rank_v<E>, N = 1 + detail::leaf_count_v<E>;
    const auto s = arg.shape();
    index_t size = 1;
    for (std::size_t k = 0; k < R; ++k) size *= s[k];
    if (!Op::has_identity && size == 0) detail::throw_empty_reduction(Op::name, s.data(), R);
    if constexpr (std::is_same_v<value_type, acc_type>) { // dot: BLAS where it is faster
      value_type d{};
      if (fusion::try_dot<Op, Fin>(arg, d)) return d;
    }
    detail::temp_store<detail::opaque_count_v<E>> temps;
    std::array<detail::operand, N> ops{};
    detail::flatten(arg, ops.data() + 1, pol, temps);
    if constexpr (N > 1) ops[0] = ops[1]; // walk memory in the first leaf's order
    constexpr reduce_kernels K = reducer<Op, Fin, value_type, detail::assign_op::set, E,
                                         P::kind != exec_kind::seq>::template kernels<false>();
    alignas(64) unsigned char part[max_reduce_partial];
    run_reduce(int(R), s.data(), int(N), ops.data(), K, &arg,
               detail::reduce_options_for<P>(detail::cost_v<E>, is_arg), part);
    return Fin{}(*reinterpret_cast<const acc_type*>(part), size);
  }
  value_type value() const { return compute(automatic); }
  /// A full reduction converts to its value (evaluating now).
  operator value_type() const { return value(); }

  template <class P>
  tensor<value_type, 0> materialize(const P& pol) const {
    tensor<value_type, 0> t(shape_t<0>{}, uninitialized);
    *t.data() = compute(pol);
    return t;
  }
};

/// Reduction of E along one axis: rank R-1.
template <class Op, class Fin, class E>
struct reduce_axis_expr {
  static constexpr const char* op_name() { return Fin::name[0] ? Fin::name : Op::name; }
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = rank_v<E> - 1;
  using acc_type = typename Op::template acc_t<value_t<E>>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fin, acc_type, index_t>>;
  static constexpr bool is_arg = kernels::cpu::detail_red::arg_accumulator<acc_type>;

  E arg;
  std::size_t axis;
  shape_t<rank> shape_;

  const shape_t<rank>& shape() const noexcept { return shape_; }

  /// dst ⊕= reduction. @pre dst.shape() == shape(); dst does not overlap the operand.
  template <detail::assign_op AOp, host_policy P, class D>
  void apply_to(const P& pol, tensor_view<D, rank> dst) const {
    static_assert(space_v<E> != memory_space::device,
                  "lz: a reduction of device operands runs on the device: "
                  "lz::eval(lz::device, lz::sum(d, axis))");
    using namespace kernels::cpu;
    constexpr std::size_t R = rank_v<E>, N = 1 + detail::leaf_count_v<E>;
    const auto s = arg.shape();
    const index_t len = s[axis];
    if (!Op::has_identity && len == 0 && dst.size() > 0)
      detail::throw_empty_reduction(Op::name, s.data(), R);
    detail::temp_store<detail::opaque_count_v<E>> temps;
    std::array<detail::operand, N> ops{};
    ops[0].ptr = reinterpret_cast<char*>(dst.data());
    ops[0].esize = sizeof(D);
    for (std::size_t k = 0; k < rank; ++k) ops[0].strides[k] = dst.layout().strides[k];
    detail::flatten(arg, ops.data() + 1, pol, temps);
    for (std::size_t j = 1; j < N; ++j) { // move the reduced axis last
      index_t t[max_rank];
      std::size_t m = 0;
      for (std::size_t k = 0; k < R; ++k)
        if (k != axis) t[m++] = ops[j].strides[k];
      t[m] = ops[j].strides[axis];
      for (std::size_t k = 0; k < R; ++k) ops[j].strides[k] = t[k];
    }
    constexpr reduce_kernels K = reducer<Op, Fin, D, AOp, E, P::kind != exec_kind::seq>::kernels();
    run_reduce_axis(int(rank), dst.shape().data(), len, int(N), ops.data(), K, &arg,
                    detail::reduce_options_for<P>(detail::cost_v<E>, is_arg));
  }

  template <class P>
  tensor<value_type, rank> materialize(const P& pol) const {
    tensor<value_type, rank> t(shape_, uninitialized);
    apply_to<detail::assign_op::set>(pol, t.view());
    return t;
  }
};

namespace detail {

template <class Op, class Fin, class E>
auto reduce_all(E&& e) {
  return reduce_expr<Op, Fin, closure_t<E&&>>{make_closure(std::forward<E>(e))};
}

template <class Op, class Fin, class E>
auto reduce_axis(E&& e, std::size_t axis, const char* name) {
  constexpr std::size_t R = rank_v<E>;
  static_assert(R >= 1, "lz: axis reductions need rank >= 1");
  if (axis >= R) throw_bad_axis(name, axis, R);
  const auto s = e.shape();
  shape_t<R - 1> out{};
  for (std::size_t k = 0, m = 0; k < R; ++k)
    if (k != axis) out[m++] = s[k];
  return reduce_axis_expr<Op, Fin, closure_t<E&&>>{make_closure(std::forward<E>(e)), axis, out};
}

} // namespace detail

#define LZ_REDUCTION(NAME, OP, FIN, PRE)                                                           \
  template <expression E>                                                                          \
  auto NAME(E&& e) {                                                                               \
    return detail::reduce_all<red::OP, red::FIN>(PRE(std::forward<E>(e)));                         \
  }                                                                                                \
  template <expression E>                                                                          \
  auto NAME(E&& e, std::size_t axis) {                                                             \
    return detail::reduce_axis<red::OP, red::FIN>(PRE(std::forward<E>(e)), axis, #NAME);           \
  }
#define LZ_SAME(x) x
LZ_REDUCTION(sum, sum_op, identity_fin, LZ_SAME)
LZ_REDUCTION(prod, prod_op, identity_fin, LZ_SAME)
LZ_REDUCTION(min, min_op, identity_fin, LZ_SAME)
LZ_REDUCTION(max, max_op, identity_fin, LZ_SAME)
LZ_REDUCTION(mean, sum_op, mean_fin, LZ_SAME)
LZ_REDUCTION(norm2, sum_op, sqrt_fin, lz::square)
LZ_REDUCTION(argmin, argmin_op, index_fin, LZ_SAME)
LZ_REDUCTION(argmax, argmax_op, index_fin, LZ_SAME)
LZ_REDUCTION(any, any_op, identity_fin, LZ_SAME)
#undef LZ_SAME
#undef LZ_REDUCTION

/// lz::all(e): every element is true (lz::all is also the "whole dimension" slice argument).
template <class E>
auto all_t::operator()(E&& e) const {
  static_assert(expression<E>, "lz::all(e) needs an expression");
  return detail::reduce_all<red::all_op, red::identity_fin>(std::forward<E>(e));
}
template <class E>
auto all_t::operator()(E&& e, std::size_t axis) const {
  static_assert(expression<E>, "lz::all(e, axis) needs an expression");
  return detail::reduce_axis<red::all_op, red::identity_fin>(std::forward<E>(e), axis, "all");
}

/// Inner product of two expressions of the same shape: sum(x * y) in one pass.
template <expression A, expression B>
auto dot(A&& a, B&& b) {
  static_assert(rank_v<A> == rank_v<B>, "lz::dot needs operands of the same rank");
  if (a.shape() != b.shape())
    detail::throw_broadcast_mismatch(a.shape().data(), b.shape().data(), rank_v<A>, "dot");
  return sum(make_map("dot", fn::multiplies_fn{}, make_closure(std::forward<A>(a)),
                      make_closure(std::forward<B>(b))));
}

} // namespace lz
