// Reductions: sum prod min max mean norm2 dot argmin argmax all any, over everything or along
// one axis. Each is ONE pass over its (elementwise) operand: the operand tree is never
// materialized. A full reduction is a rank-0 expression that converts to its scalar on demand
// (`double s = lz::sum(x * y);`); inside a larger tree it is computed first and broadcast.
// Nodes only: the engine computes them (fusion/rules/reduce.hpp: reduce_value, reduce_axis_into).
#pragma once

#include <lz/expr/fixed.hpp>
#include <lz/expr/lifetime.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/expr/traverse.hpp>
#include <lz/ops/math.hpp>
#include <lz/ops/reduce_ops.hpp>
#include <lz/policy.hpp>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

namespace lz {

template <class Op, class Fin, class E>
struct reduce_expr;
template <class Op, class Fin, class E>
struct reduce_axis_expr;

namespace detail {

// Defined by the engine (fusion/rules/reduce.hpp), which every entry header includes.
/// The value of a full reduction under policy `pol`.
template <class P, class Op, class Fin, class E>
typename reduce_expr<Op, Fin, E>::value_type reduce_value(const P& pol,
                                                          const reduce_expr<Op, Fin, E>& r);
/// The value of a full reduction over distributed operands (lz::dist: dist/plan.hpp, which
/// every program with distributed operands includes).
template <class Op, class Fin, class E>
typename reduce_expr<Op, Fin, E>::value_type dist_reduce_value(const reduce_expr<Op, Fin, E>& r);
/// dst ⊕= r (an axis reduction). @pre dst.shape() == r.shape(); dst does not overlap r.arg.
template <assign_op AOp, class P, class D, std::size_t R, class Op, class Fin, class E>
void reduce_axis_into(const P& pol, tensor_view<D, R> dst, const reduce_axis_expr<Op, Fin, E>& r);

/// A full reduction's value once computed, shared by the copies of its node: one type for every
/// reduction, the value kept as bytes, reference-counted by the nodes holding it. Made only when
/// a node is copied or computed in place (a reduction converted straight to a number allocates
/// nothing). Its functions are compiled once (kernels/common/reduce_cache.cpp). Not
/// std::call_once: libstdc++ 12's deadlocks after a call that threw.
struct reduce_cache {
  std::atomic<long> refs{1};
  std::atomic<bool> done{false};
  std::mutex m;
  alignas(16) unsigned char value[16];
};
/// The cache in `slot`, made there first if it has none (one wins when threads race: the slot
/// is read and written through std::atomic_ref here).
reduce_cache* cache_in(reduce_cache*& slot);
/// cache_in(slot), with one more holder.
reduce_cache* share_cache(reduce_cache*& slot);
/// One holder fewer (null is fine); the last frees it.
void release_cache(reduce_cache* c) noexcept;
/// True when the cache in `slot` (null: none) holds a value.
bool cache_done(reduce_cache*& slot) noexcept;
/// True, with c's value copied to `out` (`size` bytes), when it is there.
bool cache_read(const reduce_cache* c, void* out, std::size_t size) noexcept;
/// Makes `v` (`size` bytes) c's value unless it has one already; either way `v` ends as c's
/// value (a temporary node that shares a cache computes without its lock: the first value in
/// wins, and every holder sees that one).
void cache_publish(reduce_cache* c, void* v, std::size_t size);
/// Copies c's value (`size` bytes) to `out`, running compute(ctx, out) under c's lock first if no
/// value is there yet. A compute that throws leaves the cache empty.
void cached_value(reduce_cache* c, void* out, std::size_t size,
                  void (*compute)(const void* ctx, void* out), const void* ctx);

/// shape_error: `name` (min, max, argmin, ...) of an empty operand of shape s[0..rank).
[[noreturn]] void throw_empty_reduction(const char* name, const index_t* s, std::size_t rank);

} // namespace detail

namespace detail {
/// What both forms of reduce_expr declare.
template <class Op, class Fin, class E>
struct reduce_node {
  static constexpr const char* op_name() { return Fin::name[0] ? Fin::name : Op::name; }
  using lz_expression = void;
  using lz_kind = opaque_kind;
  static constexpr std::size_t rank = 0;
  using acc_type = typename Op::template acc_t<value_t<E>>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fin, acc_type, index_t>>;
  static constexpr bool is_arg = red::arg_accumulator<acc_type>;
  static constexpr shape_t<0> shape() noexcept { return {}; }
};
} // namespace detail

/// Full reduction of E by Op (finalized by Fin): a rank-0 expression.
template <class Op, class Fin, class E>
struct reduce_expr : detail::reduce_node<Op, Fin, E> {
  using typename detail::reduce_node<Op, Fin, E>::value_type;

  E arg;
  /// The value, once computed: shared by the copies of this node (trees hold their operands by
  /// value), so a reduction kept in `auto` and used in several statements is computed once.
  /// Null until the node is first copied or computed in place. A plain pointer, read and written
  /// atomically (std::atomic_ref) where the node may be shared: copies of it and its const
  /// uses; plainly where the node is the caller's alone (moves, its destructor, a temporary's
  /// value), so that GCC folds `return lz::sum(x);` to the uncached path (a std::atomic member
  /// kept both paths: ~16 M compiler instructions a reduction).
  mutable detail::reduce_cache* cache = nullptr;
  static_assert(sizeof(value_type) <= sizeof(detail::reduce_cache::value) &&
                std::is_trivially_copyable_v<value_type>);

  explicit reduce_expr(E a) : arg(std::move(a)) {}
  reduce_expr(const reduce_expr& o) : arg(o.arg), cache(detail::share_cache(o.cache)) {}
  /// (No atomic exchange: nothing else may use a node while it is moved from, and a locked
  /// exchange per move was most of `x / lz::norm2(x)` on a 4-vector: 24 ns against 5.)
  reduce_expr(reduce_expr&& o) noexcept : arg(std::move(o.arg)), cache(o.cache) {
    o.cache = nullptr;
  }
  reduce_expr& operator=(const reduce_expr&) = delete;
  ~reduce_expr() {
    if (cache) detail::release_cache(cache);
  }

  /// True once the value is computed (it no longer reads its operand).
  bool computed() const noexcept { return detail::cache_done(cache); }

  /// The value: computed at the node's first use, under that use's policy, then fixed
  /// (`auto n = lz::norm2(v); v = v / n;` leaves n the norm v had; build the reduction again
  /// for a fresh value). A use that throws leaves it to be computed by the next.
  template <host_policy P>
  value_type compute(const P& pol) const {
    struct job {
      const reduce_expr* self;
      const P* pol;
    } j{this, &pol};
    value_type v;
    detail::cached_value(
        detail::cache_in(cache), &v, sizeof v,
        [](const void* ctx, void* out) {
          const job& c = *static_cast<const job*>(ctx);
          const value_type r = c.self->compute_now(*c.pol);
          std::memcpy(out, &r, sizeof r);
        },
        &j);
    return v;
  }
  value_type value() const& { return compute(automatic); }
  /// A temporary's value: computed without a cache's lock, and kept in the cache when a copy of
  /// the node shares one (then the first value computed is every holder's).
  value_type value() && {
    value_type v;
    detail::reduce_cache* const c = cache;
    if (c && detail::cache_read(c, &v, sizeof v)) return v;
    v = compute_now(automatic);
    if (c) detail::cache_publish(c, &v, sizeof v);
    cache = c; // (unchanged: said again so that GCC drops the destructor's test when c is null)
    return v;
  }
  /// A full reduction converts to its value (computing it at the first use).
  operator value_type() const& { return value(); }
  operator value_type() && { return std::move(*this).value(); }

  /// The value, computed now (no cache).
  template <host_policy P>
  value_type compute_now(const P& pol) const {
    static_assert(space_v<E> != memory_space::device,
                  "lz: a reduction of device operands runs on the device and returns its value "
                  "explicitly: lz::eval(lz::device, lz::sum(d))");
    if constexpr (space_v<E> == memory_space(1u << 2)) { // lz::dist::space: collective
      return detail::dist_reduce_value(*this);
    } else {
      // Checked builds: flatten checks each leaf the loop reads, the dot rule its two; a tree
      // with nodes computed first (products, inner reductions) is walked here.
      if constexpr (LZ_CHECKED && detail::opaque_count_v<E> != 0) detail::check_lifetimes(arg);
      return detail::reduce_value(pol, *this);
    }
  }

  template <class P>
  tensor<value_type, 0> materialize(const P& pol) const {
    tensor<value_type, 0> t(shape_t<0>{}, uninitialized);
    *t.data() = compute(pol);
    return t;
  }
};

/// A full reduction of a fixed tree (fixed-size operands, expr/fixed.hpp): computed when the node
/// is built, folded inline (a few nanoseconds), and held by value, as Eigen's and Armadillo's
/// `v.norm()` return a number: `auto n = lz::norm2(v);` holds the norm v has on that line. A
/// cache shared by its copies, as above, kept the node in memory behind an atomic pointer, and
/// that cost more than the reduction: `x / lz::norm2(x)` on a 4-vector took 22 ns against 5.
template <class Op, class Fin, class E>
requires detail::static_tree_v<E>
struct reduce_expr<Op, Fin, E> : detail::reduce_node<Op, Fin, E> {
  using typename detail::reduce_node<Op, Fin, E>::value_type;

  E arg;
  value_type result;

  explicit reduce_expr(E a) : arg(std::move(a)), result(detail::fixed_eval::reduce_now(*this)) {}

  static constexpr bool computed() noexcept { return true; }
  value_type value() const noexcept { return result; }
  operator value_type() const noexcept { return result; }
  template <host_policy P>
  value_type compute(const P&) const noexcept {
    return result;
  }
  template <host_policy P>
  value_type compute_now(const P&) const noexcept {
    return result;
  }
  template <class P>
  tensor<value_type, 0> materialize(const P&) const {
    tensor<value_type, 0> t(shape_t<0>{}, uninitialized);
    *t.data() = result;
    return t;
  }
};

namespace detail {
template <class Op, class Fin, class E>
struct static_shape_of<reduce_expr<Op, Fin, E>> {
  static constexpr bool known = static_shape_of<E>::known;
  static constexpr int fixed_leaves = static_shape_of<E>::fixed_leaves;
  static constexpr int batched = static_shape_of<E>::batched;
  static constexpr shape_t<0> value{};
};
} // namespace detail

/// Reduction of E along one axis: rank R-1.
template <class Op, class Fin, class E>
struct reduce_axis_expr {
  static constexpr const char* op_name() { return Fin::name[0] ? Fin::name : Op::name; }
  using lz_expression = void;
  using lz_kind = detail::opaque_kind;
  static constexpr std::size_t rank = rank_v<E> - 1;
  using acc_type = typename Op::template acc_t<value_t<E>>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fin, acc_type, index_t>>;
  static constexpr bool is_arg = red::arg_accumulator<acc_type>;

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
    detail::reduce_axis_into<AOp>(pol, dst, *this);
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
  return reduce_expr<Op, Fin, closure_t<E&&>>(make_closure(std::forward<E>(e)));
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
  }                                                                                                \
  template <expression E>                                                                          \
  auto NAME(E&& e, std::size_t axis, keepdims_t) {                                                 \
    return detail::expand_dims_expr(NAME(std::forward<E>(e), axis), axis);                         \
  }
#define LZ_SAME(x) x
/// Sum: lz::sum(e) of every element (a rank-0 expression, computed once at first use), lz::sum(e,
/// axis) along one axis, lz::sum(e, axis, lz::keepdims) keeping it with extent 1.
LZ_REDUCTION(sum, sum_op, identity_fin, LZ_SAME)
/// Product of the elements: whole, along an axis, or with keepdims (as lz::sum).
LZ_REDUCTION(prod, prod_op, identity_fin, LZ_SAME)
/// Smallest element (NaN if any is NaN): whole, along an axis, or with keepdims (as lz::sum).
LZ_REDUCTION(min, min_op, identity_fin, LZ_SAME)
/// Largest element (NaN if any is NaN): whole, along an axis, or with keepdims (as lz::sum).
LZ_REDUCTION(max, max_op, identity_fin, LZ_SAME)
/// Arithmetic mean (integers accumulate in double; empty gives NaN): whole, along an axis, or with
/// keepdims.
LZ_REDUCTION(mean, mean_op, mean_fin, LZ_SAME)
/// Euclidean norm, sqrt(sum(square(e))): whole, along an axis, or with keepdims.
LZ_REDUCTION(norm2, sum_op, sqrt_fin, lz::square)
/// Index of the smallest element (the first on ties and NaN), row-major over the whole, or along an
/// axis.
LZ_REDUCTION(argmin, argmin_op, index_fin, LZ_SAME)
/// Index of the largest element (the first on ties and NaN), row-major over the whole, or along an
/// axis.
LZ_REDUCTION(argmax, argmax_op, index_fin, LZ_SAME)
/// True if any element is true: whole, along an axis, or with keepdims.
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
template <class E>
auto all_t::operator()(E&& e, std::size_t axis, keepdims_t) const {
  return detail::expand_dims_expr((*this)(std::forward<E>(e), axis), axis);
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
