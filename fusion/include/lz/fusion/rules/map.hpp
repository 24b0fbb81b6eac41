// map rule (the fallback, last in rules.hpp): dst ⊕= f(a, b, ...) elementwise → ONE loop over
// memory, whatever the tree. Lowered here; run by kernels/cpu/loop.cpp with the tree's slab
// kernels (kernels/cpu/row.hpp).
//   - leaves are flattened to strided operands (opaque nodes: reductions, products,
//     materialized first) and handed, with the tree's ONE kernel, to compiled code:
//   - contiguous fast path: every leaf addressed as the destination → one flat SIMD loop, no
//     driver, no index arithmetic (the fixed cost of small assignments stays tiny);
//   - otherwise dims reordered/coalesced/tiled by the driver, strided and broadcast operands
//     packed into L1 buffers so that the kernel only sees contiguous rows;
//   - a leaf that reads the destination at another position (A = transpose(A) + B) sends the
//     loop into a temporary, then the temporary into the destination.
#pragma once

#include <lz/fusion/plan.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <algorithm>

namespace lz::fusion {

namespace detail_level1 {
/// Compiled for float and double and the operators =, +=, -= and *= (fusion/src/level1.cpp):
/// the flattened call of a tree that is a sum of at most two scaled leaves of the destination's
/// type and rank, or x *= a (level1_candidate_v), as one BLAS 1 call in place when its geometry
/// allows one (true), else nothing (false: the loop runs). The kernels' run_map asks it
/// (map_info::blas1, set by run_map<Op, true>) from thresholds().level1_blas elements.
template <class T, detail::assign_op Op>
bool try_call(const kernels::cpu::map_call& c);
} // namespace detail_level1

namespace detail_map {

template <class P>
constexpr bool allow_simd = P::kind != exec_kind::seq;
template <class P>
constexpr bool allow_threads = P::kind == exec_kind::par || P::kind == exec_kind::automatic;

// Everything the compiled half (kernels::cpu::run_map) needs about this assignment that is
// known at compile time: the tree's one kernel, its operand count, cost, the policy's options,
// and, for a tree that may be one BLAS 1 call (Blas1), the compiled chooser that tries it.
template <detail::assign_op Op, class P, class T, std::size_t R, class E, bool Blas1>
inline constexpr kernels::cpu::map_info map_info_v = [] {
  kernels::cpu::map_info i;
  i.k = kernels::cpu::map_kernel_for<T, E, allow_simd<P>, Op>();
  i.wide = kernels::cpu::wide_kernel_for<T, E, allow_simd<P>, Op>();
  i.count = int(1 + detail::leaf_count_v<E>);
  i.rank = int(R);
  i.cost = detail::cost_v<E>;
  i.threads = allow_threads<P>;
  i.automatic = P::kind == exec_kind::automatic;
  i.op = detail::assign_op_symbol(Op);
  if constexpr (Blas1) {
    static_assert(detail::leaf_count_v<E> <= 2, "lz: run_map_vector_blas1<N> exists for N <= 3");
    i.blas1 = &detail_level1::try_call<T, Op>;
  }
  return i;
}();

} // namespace detail_map

/// Elementwise evaluation of `e` into `dst` (⊕ = Op). @pre shape(e) broadcasts to dst.shape().
/// Per tree only the operands are gathered here; the rest is compiled once (loop.cpp). Blas1:
/// the tree may be one BLAS 1 call instead (detail_level1::try_call decides, after flattening).
/// With `describe` (a destination's name and where to say whether it is aliased), the same call
/// is described instead (describe_map), nothing touched. One function per tree: gathering the
/// operands and the call in helpers of their own cost every assignment two functions more to
/// compile (perf/compile).
template <detail::assign_op Op, bool Blas1 = false, class P, class T, std::size_t R, class E,
          class... Describe>
auto run_map(const P& pol, tensor_view<T, R> dst, const E& e, const Describe&... describe) {
  constexpr bool describing = sizeof...(Describe) != 0;
  static_assert(!describing || detail::opaque_count_v<E> == 0,
                "lz: opaque nodes must be lowered before a loop");
  // The operands: the destination, then one per memory leaf (opaque nodes materialized into
  // `temps`), with the whole tree stretched to the destination's shape.
  detail::temp_store<detail::opaque_count_v<E>> temps;
  constexpr std::size_t n = 1 + detail::leaf_count_v<E>;
  std::array<detail::operand, n> ops; // (strides past R unset)
  if constexpr (describing) ops = {};
  ops[0].ptr = reinterpret_cast<char*>(dst.data());
  ops[0].esize = sizeof(T);
  for (std::size_t k = 0; k < R; ++k) ops[0].strides[k] = dst.layout().strides[k];
  if constexpr (rank_v<E> < R) { // a rank-0 tree filling the destination: its leaves broadcast
    for (std::size_t j = 1; j < n; ++j)
      for (std::size_t k = 0; k < R; ++k) ops[j].strides[k] = 0;
  }
  detail::flatten(e, ops.data() + 1, pol, temps); // extent-1 dims of leaves broadcast (stride 0)
  // The call: the constant part, the tree, the operands and the destination's extents (a copy
  // of them: the destination view's address stays here, so that the compiler keeps it in
  // registers, as the tree).
  const auto k = kernels::cpu::bind<1>(e); // the kernel tree
  const shape_t<R> extents = dst.layout().extents;
  kernels::cpu::map_call call;
  call.info = &detail_map::map_info_v<Op, P, T, R, E, Blas1>;
  call.tree = &k;
  call.ops = ops.data();
  call.extents = extents.data();
  if constexpr (describing) {
    return kernels::cpu::describe_map(call, describe...);
  } else if constexpr (R == 1 && n <= kernels::cpu::vector_operands) {
    char* p[n];
    if constexpr (Blas1)
      kernels::cpu::run_map_vector_blas1<int(n)>(call, p);
    else
      kernels::cpu::run_map_vector<int(n)>(call, p);
  } else {
    kernels::cpu::run_map(call);
  }
}

/// Explain text of run_map's decisions (no memory is touched; opaque nodes were lowered first).
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
std::string describe_map(const P& pol, tensor_view<T, R> dst, const E& e,
                         const std::string& dst_name, bool* aliased = nullptr) {
  return run_map<Op>(pol, dst, e, dst_name, aliased);
}

/// The map step on the host sinks: run it (kernels::cpu::run_map also writes the LZ_LOG=loop
/// line), or describe it.
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
void exec_sink::map(const P& pol, tensor_view<T, R> dst, const E& e) {
  run_map<Op>(pol, dst, e);
}
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
void explain_sink::map(const P& pol, tensor_view<T, R> dst, const E& e) {
  bool aliased = false;
  std::string text = describe_map<Op>(pol, dst, e, name_of(dst.data()), &aliased);
  if (aliased) (void)temp<T, R>(dst.shape(), "aliasing: operand reads the destination elsewhere");
  loop(text, "map");
}

namespace rules {
/// The fallback, last in the list: everything elementwise, one loop (the sink's map step).
struct map {
  static constexpr const char* name = "map";
  static constexpr rule_id id = rule_id::map;
  static constexpr bool always = true; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = true;
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    s.template map<Op>(pol, dst, e);
    return true;
  }
};
} // namespace rules

} // namespace lz::fusion
