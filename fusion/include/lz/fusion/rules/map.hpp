// map rule (the fallback, last in rules.hpp): dst ⊕= f(a, b, ...) elementwise → ONE loop over
// memory, whatever the tree. Lowered here; run by kernels/cpu/loop.cpp with the tree's slab
// kernels (kernels/cpu/row.hpp).
//   - contiguous fast path: every leaf has the destination's layout → one flat SIMD loop, no
//     driver, no index arithmetic (the fixed cost of small assignments stays tiny);
//   - otherwise leaves are flattened to strided operands, opaque nodes (reductions, products)
//     materialized first, dims reordered/coalesced/tiled by the driver;
//   - a leaf that reads the destination at another position (A = transpose(A) + B) sends the
//     loop into a temporary, then the temporary into the destination.
// Included first, this header pulls in the whole engine in dependency order (tensor.hpp ends
// with evaluate.hpp, which includes the fusion pass); a guard, not #pragma once, lets that
// chain define this file before the outer inclusion continues.
#include <lz/tensor.hpp>
#ifndef LZ_LZ_FUSION_RULES_MAP_HPP
#define LZ_LZ_FUSION_RULES_MAP_HPP

#include <lz/fusion/plan.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <algorithm>

namespace lz::fusion {

namespace detail_map {

template <class P>
constexpr bool allow_simd = P::kind != exec_kind::seq;
template <class P>
constexpr bool allow_threads = P::kind == exec_kind::par || P::kind == exec_kind::automatic;

template <class P>
kernels::cpu::loop_options loop_options_for(int cost) {
  kernels::cpu::loop_options o;
  o.threads = allow_threads<P>;
  o.parallel_work = P::kind == exec_kind::automatic ? thresholds().parallel_work : 0;
  o.cost = cost;
  o.tile = thresholds().tile;
  o.stream_bytes = thresholds().stream_bytes;
  return o;
}

// Layout equality as an inlined loop: the defaulted operator== compares the std::arrays
// through a memcmp call, a visible share of the fixed cost of an in-cache assignment (W1 n=1e3).
template <std::size_t R>
LZ_INLINE bool same_layout(const strided_layout<R>& a, const strided_layout<R>& b) {
  bool eq = true;
  for (std::size_t k = 0; k < R; ++k)
    eq = eq && a.extents[k] == b.extents[k] && a.strides[k] == b.strides[k];
  return eq;
}

// Contiguous fast path: every leaf has the destination's (row- or column-major) layout and
// either is the destination or lies apart from it. Fills the operand pointers.
template <class T, std::size_t R, class E, std::size_t N>
bool flat_ok(tensor_view<T, R> dst, const E& e, char* (&ptrs)[N], index_t (&esize)[N]) {
  const auto& dl = dst.layout();
  if (!(dl.is_row_major() || dl.is_column_major())) return false;
  const index_t n = dl.size();
  char* const d0 = reinterpret_cast<char*>(dst.data());
  char* const d1 = d0 + n * index_t(sizeof(T));
  ptrs[0] = d0;
  esize[0] = sizeof(T);
  std::size_t k = 1;
  bool ok = true;
  detail::for_each_leaf(e, [&](const auto& leaf) {
    using L = value_t<decltype(leaf)>;
    char* p = reinterpret_cast<char*>(const_cast<L*>(leaf.data()));
    if constexpr (rank_v<decltype(leaf)> != R)
      ok = false; // a broadcast scalar leaf
    else
      ok = ok && same_layout(leaf.layout(), dl);
    ok = ok && (p == d0 || p + n * index_t(sizeof(L)) <= d0 || d1 <= p); // same position or apart
    ptrs[k] = p;
    esize[k] = sizeof(L);
    ++k;
  });
  return ok;
}

// Threads for a flat loop of n elements (0: stay on this thread).
template <class P>
int flat_threads(index_t work) {
  if constexpr (allow_threads<P>) {
    const index_t limit =
        std::max<index_t>(P::kind == exec_kind::automatic ? thresholds().parallel_work : 0,
                          kernels::cpu::min_parallel_work);
    if (work >= limit) {
      const int t = num_threads();
      return t > 1 ? t : 0;
    }
  }
  return 0;
}

// Contiguous fast path; returns false (having done nothing) when it does not apply.
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
bool run_flat(tensor_view<T, R> dst, const E& e) {
  using namespace kernels::cpu;
  constexpr std::size_t N = 1 + detail::leaf_count_v<E>;
  char* ptrs[N];
  index_t esize[N];
  if (!flat_ok(dst, e, ptrs, esize)) return false;
  const index_t n = dst.size();
  constexpr bool S = allow_simd<P> && simd_ok<T, E>();
  // Small (in-cache, single-thread) assignments call the unit kernel directly: their fixed
  // cost stays tiny (W1 n=1e3). Large ones go to the compiled driver, which streams outputs
  // larger than the cache and splits the work over threads (run_flat_loop, loop.cpp); keeping
  // that logic out of this template saves code in every assignment (compile time).
  loop_options o;
  o.threads = allow_threads<P>; // the driver checks the thread count (no call here)
  o.parallel_work = std::max<index_t>(
      P::kind == exec_kind::automatic ? thresholds().parallel_work : 0, min_parallel_work);
  o.cost = detail::cost_v<E>;
  o.stream_bytes = stream_ok<T, S, Op>() ? thresholds().stream_bytes : 0;
  const bool stream = o.stream_bytes > 0 && n * index_t(sizeof(T)) >= o.stream_bytes;
  if (!stream && !(o.threads && n * o.cost >= o.parallel_work)) {
    index_t ones[N], zeros[N];
    for (std::size_t j = 0; j < N; ++j) ones[j] = 1, zeros[j] = 0;
    slab_kernel<T, E, mode::unit, S, Op>(&e, ptrs, ones, zeros, 1, n);
    return true;
  }
  slab_fn st = nullptr;
  if constexpr (stream_ok<T, S, Op>()) st = &slab_kernel<T, E, mode::stream, S, Op>;
  run_flat_loop(&slab_kernel<T, E, mode::unit, S, Op>, st, &e, int(N), ptrs, esize, n, o);
  return true;
}

} // namespace detail_map

template <detail::assign_op Op, class P, class T, std::size_t R, class E>
void run_map(const P& pol, tensor_view<T, R> dst, const E& e);

namespace detail_map {

// A leaf reads the destination at another position (A = transpose(A) + B): evaluate into
// fresh memory, then copy in at the same positions. Per (Op, P, T, R), not per expression.
template <detail::assign_op Op, class P, class T, std::size_t R>
LZ_NOINLINE void run_via_temporary(const P& pol, tensor_view<T, R> dst, detail::operand* ops,
                                   int count, const kernels::cpu::loop_options& opt,
                                   const kernels::cpu::slab_kernels& set_kernels,
                                   const void* tree) {
  using namespace kernels::cpu;
  tensor<T, R> tmp(dst.shape(), uninitialized);
  detail::count_temporary();
  ops[0].ptr = reinterpret_cast<char*>(tmp.data());
  for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = tmp.layout().strides[k];
  loop_plan p = plan_loop(int(R), dst.layout().extents.data(), count, ops, opt);
  run_loop(p, set_kernels, tree);
  run_map<Op>(pol, dst, tensor_view<const T, R>(tmp.view()));
}

} // namespace detail_map

/// Elementwise evaluation of `e` into `dst` (⊕ = Op). @pre shape(e) broadcasts to dst.shape().
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
void run_map(const P& pol, tensor_view<T, R> dst, const E& e) {
  using namespace kernels::cpu;
  if constexpr (detail::is_plain_v<E>) {
    if (detail_map::run_flat<Op, P>(dst, e)) return;
  }
  constexpr std::size_t N = 1 + detail::leaf_count_v<E>;
  detail::temp_store<detail::opaque_count_v<E>> temps;
  std::array<detail::operand, N> ops{};
  ops[0].ptr = reinterpret_cast<char*>(dst.data());
  ops[0].esize = sizeof(T);
  for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = dst.layout().strides[k];
  detail::flatten(e, ops.data() + 1, pol, temps);
  if constexpr (rank_v<E> == R && R > 0) { // the whole tree broadcast to the destination
    const auto& es = e.shape();
    for (std::size_t k = 0; k < R; ++k)
      if (es[k] == 1 && dst.shape()[k] != 1)
        for (std::size_t j = 1; j < N; ++j) ops[j].strides[k] = 0;
  }
  const auto& ext = dst.layout().extents;
  const loop_options opt = detail_map::loop_options_for<P>(detail::cost_v<E>);
  constexpr bool S = detail_map::allow_simd<P>;
  if (kernels::reads_destination_elsewhere(ops[0], ops.data() + 1, int(N - 1), int(R),
                                           ext.data())) {
    detail_map::run_via_temporary<Op>(pol, dst, ops.data(), int(N), opt,
                                      slab_kernels_for<T, E, S, detail::assign_op::set>(), &e);
    return;
  }
  loop_plan p = plan_loop(int(R), ext.data(), int(N), ops.data(), opt);
  run_loop(p, slab_kernels_for<T, E, S, Op>(), &e);
}

/// Explain text of run_map's decisions (no memory is touched; opaque nodes were lowered first).
/// Gathers the facts only; kernels::cpu::describe_map_loop (compiled once) writes the text.
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
std::string describe_map(const P& pol, tensor_view<T, R> dst, const E& e,
                         const std::string& dst_name, bool* aliased = nullptr) {
  using namespace kernels::cpu;
  static_assert(detail::opaque_count_v<E> == 0, "lz: opaque nodes must be lowered before a loop");
  constexpr std::size_t N = 1 + detail::leaf_count_v<E>;
  constexpr bool S = detail_map::allow_simd<P> && simd_ok<T, E>();
  map_facts f;
  f.op = detail::assign_op_symbol(Op);
  f.operands = int(N - 1);
  f.cost = detail::cost_v<E>;
  if constexpr (S) f.simd_width = int(xsimd::batch<T>::size);
  if constexpr (detail::is_plain_v<E>) {
    char* ptrs[N];
    index_t esize[N];
    if (detail_map::flat_ok(dst, e, ptrs, esize)) {
      f.flat_size = dst.size();
      f.flat_threads = detail_map::flat_threads<P>(dst.size() * detail::cost_v<E>);
      return describe_map_loop(dst_name, f);
    }
  }
  detail::temp_store<0> none;
  std::array<detail::operand, N> ops{};
  ops[0].ptr = reinterpret_cast<char*>(dst.data());
  ops[0].esize = sizeof(T);
  for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = dst.layout().strides[k];
  detail::flatten(e, ops.data() + 1, pol, none);
  if constexpr (rank_v<E> == R && R > 0) {
    const auto& es = e.shape();
    for (std::size_t k = 0; k < R; ++k)
      if (es[k] == 1 && dst.shape()[k] != 1)
        for (std::size_t j = 1; j < N; ++j) ops[j].strides[k] = 0;
  }
  const auto& ext = dst.layout().extents;
  f.aliased =
      kernels::reads_destination_elsewhere(ops[0], ops.data() + 1, int(N - 1), int(R), ext.data());
  if (aliased) *aliased = f.aliased;
  const loop_plan p = plan_loop(int(R), ext.data(), int(N), ops.data(),
                                detail_map::loop_options_for<P>(detail::cost_v<E>));
  f.plan = &p;
  return describe_map_loop(dst_name, f);
}

/// map rule through a sink: run it, or describe it.
template <detail::assign_op Op, class Sink, class P, class T, std::size_t R, class E>
void lower_map(Sink& s, const P& pol, tensor_view<T, R> dst, const E& e) {
  if constexpr (Sink::executes) {
    if (LZ_UNLIKELY(logging::on(logging::loop))) {
      const long long t0 = logging::now_ns();
      run_map<Op>(pol, dst, e);
      logging::write_timed(logging::loop, describe_map<Op>(pol, dst, e, "dst"), t0);
      return;
    }
    run_map<Op>(pol, dst, e);
  } else {
    bool aliased = false;
    std::string text = describe_map<Op>(pol, dst, e, s.name_of(dst.data()), &aliased);
    if (aliased)
      (void)s.template temp<T, R>(dst.shape(), "aliasing: operand reads the destination elsewhere");
    s.loop(text, "map");
  }
}

} // namespace lz::fusion

#endif // LZ_LZ_FUSION_RULES_MAP_HPP
