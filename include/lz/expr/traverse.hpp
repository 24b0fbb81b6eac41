// Traversals over expression trees, shared by every backend:
//   leaf_count_v   memory operands of a tree (tensors, views, materialized opaque nodes)
//   cost_v         per-element work in "adds" (drives the threading decision)
//   batch_result_t the type a tree yields on xsimd batches (void: some functor takes none)
//   flatten        fills one operand descriptor (pointer + strides in the tree's dimensions)
//                  per memory leaf, in depth-first order. Every extent-1 dim of a leaf gets
//                  stride 0: whatever extent the loop has there, the leaf reads its element 0
//                  (NumPy broadcasting, decided per leaf: no node re-walks its children);
//                  permute/broadcast nodes rewrite the strides of the leaves below them.
// A backend binds its own kernel tree to these descriptors (kernels/*/row.hpp).
#pragma once

#include <lz/expr/lifetime.hpp>
#include <lz/expr/nodes.hpp>
#include <lz/memory.hpp>
#include <lz/ops/functors.hpp>

#include <array>

namespace lz::detail {

/// One memory operand of a loop: where element 0 is, its size, and its stride (in elements)
/// along each loop dimension. Operand 0 of a loop is the destination. Only the loop's rank
/// strides are meaningful, and only they are read; whoever fills an operand sets them (a rank-0
/// operand of a rank-R node or tree broadcasts: stride 0, set by flatten_args and the map rule).
/// The rest are left as they are (zeroing all of them cost a small assignment ~10% of its fixed
/// cost).
struct operand {
  char* ptr = nullptr;
  index_t esize = 0;
  index_t strides[max_rank];
};

template <class E>
constexpr std::size_t count_leaves() {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind> || std::is_same_v<K, opaque_kind>)
    return 1;
  else if constexpr (std::is_same_v<K, scalar_kind>)
    return 0;
  else if constexpr (std::is_same_v<K, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (std::size_t(0) + ... + count_leaves<A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else
    return count_leaves<decltype(std::declval<E>().arg)>();
}
/// Number of memory operands (destination excluded) a tree's loop reads.
template <class E>
inline constexpr std::size_t leaf_count_v = count_leaves<E>();

template <class E>
constexpr std::size_t count_opaque() {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, opaque_kind>)
    return 1;
  else if constexpr (std::is_same_v<K, leaf_kind> || std::is_same_v<K, scalar_kind>)
    return 0;
  else if constexpr (std::is_same_v<K, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (std::size_t(0) + ... + count_opaque<A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else
    return count_opaque<decltype(std::declval<E>().arg)>();
}
/// Opaque nodes (reductions, products) that must be materialized before the loop runs.
template <class E>
inline constexpr std::size_t opaque_count_v = count_opaque<E>();

template <class E>
constexpr int tree_cost() {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return fn::cost_of<F> + (0 + ... + tree_cost<A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else if constexpr (std::is_same_v<K, permute_kind> || std::is_same_v<K, broadcast_kind>)
    return tree_cost<decltype(std::declval<E>().arg)>();
  else
    return 0;
}
/// Per-element work of a tree in "adds" (at least 1: a copy still moves memory).
template <class E>
inline constexpr int cost_v = tree_cost<E>() > 0 ? tree_cost<E>() : 1;

template <class E>
constexpr bool plain_tree() {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind> || std::is_same_v<K, scalar_kind>)
    return true;
  else if constexpr (std::is_same_v<K, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (true && ... && plain_tree<A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else
    return false;
}
/// Only tensors, scalars and elementwise nodes: eligible for the contiguous fast path.
template <class E>
inline constexpr bool is_plain_v = plain_tree<E>();

/// Keeps the temporaries of opaque nodes alive while a loop reads them.
template <std::size_t N>
struct temp_store {
  std::array<void*, N> buffers{};
  std::size_t count = 0;
  temp_store() = default;
  temp_store(const temp_store&) = delete;
  temp_store& operator=(const temp_store&) = delete;
  ~temp_store() {
    for (std::size_t i = 0; i < count; ++i) free_bytes(buffers[i]);
  }
  void keep(void* p) { buffers[count++] = p; }
};
template <>
struct temp_store<0> {
  void keep(void*) {}
};

// Materializes an opaque node into a fresh tensor; specialised by each opaque node's header
// through the member function `materialize(exec)`.
template <class E, class Exec, class Store>
operand flatten_opaque(const E& e, const Exec& ex, Store& temps) {
  auto t = e.materialize(ex);
  operand op;
  op.esize = sizeof(value_t<E>);
  const auto& l = t.layout();
  for (std::size_t k = 0; k < rank_v<E>; ++k) op.strides[k] = l.extents[k] == 1 ? 0 : l.strides[k];
  op.ptr = reinterpret_cast<char*>(t.data());
  temps.keep(t.release());
  count_temporary();
  return op;
}

template <class E, class Exec, class Store>
std::size_t flatten(const E& e, operand* out, const Exec& ex, Store& temps);

template <class E>
inline constexpr std::size_t arity_v = 0;
template <class F, class... A>
inline constexpr std::size_t arity_v<map_expr<F, A...>> = sizeof...(A);

// A map node's children, each at its first leaf's slot (offsets known at compile time): one
// function per node, no per-child lambdas (compile time).
template <class F, class... A, class Exec, class Store, std::size_t... J>
void flatten_args(const map_expr<F, A...>& e, operand* out, const Exec& ex, Store& temps,
                  std::index_sequence<J...>) {
  constexpr auto off = [] {
    std::array<std::size_t, sizeof...(A) + 1> o{};
    std::size_t k = 0;
    ((o[k + 1] = o[k] + leaf_count_v<A>, ++k), ...);
    return o;
  }();
  constexpr std::size_t R = map_expr<F, A...>::rank;
  if constexpr (R > 0 && ((rank_v<A> == 0 && leaf_count_v<A> != 0) || ...)) {
    // A rank-0 operand (a rank-0 tensor, an opaque rank-0 node) broadcasts along the node's R
    // dims: stride 0, which its own flatten does not write (rank-R children overwrite theirs).
    for (std::size_t j = 0; j < off[sizeof...(A)]; ++j)
      for (std::size_t k = 0; k < R; ++k) out[j].strides[k] = 0;
  }
  (flatten(static_cast<const pack_elem<J, A>&>(e.args).value, out + off[J], ex, temps), ...);
}

/// Fills `out` with one operand per memory leaf of `e` (depth-first), strides in e's own
/// dimensions (0 along a leaf's extent-1 dims); returns the number written. Opaque nodes are
/// evaluated (with `ex`) first.
template <class E, class Exec, class Store>
std::size_t flatten(const E& e, operand* out, const Exec& ex, Store& temps) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    if constexpr (LZ_CHECKED) check_lifetimes(e); // checked builds: the leaf lives
    out->ptr = reinterpret_cast<char*>(const_cast<value_t<E>*>(e.data()));
    out->esize = sizeof(value_t<E>);
    const auto& l = e.layout();
    for (std::size_t k = 0; k < rank_v<E>; ++k)
      out->strides[k] = l.extents[k] == 1 ? 0 : l.strides[k];
    return 1;
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    return 0;
  } else if constexpr (std::is_same_v<K, opaque_kind>) {
    *out = flatten_opaque(e, ex, temps);
    return 1;
  } else if constexpr (std::is_same_v<K, map_kind>) {
    flatten_args(e, out, ex, temps, std::make_index_sequence<arity_v<E>>{});
    return leaf_count_v<E>;
  } else if constexpr (std::is_same_v<K, permute_kind>) {
    const std::size_t n = flatten(e.arg, out, ex, temps);
    for (std::size_t j = 0; j < n; ++j) {
      index_t s[max_rank];
      for (std::size_t k = 0; k < rank_v<E>; ++k) s[k] = out[j].strides[e.perm[k]];
      for (std::size_t k = 0; k < rank_v<E>; ++k) out[j].strides[k] = s[k];
    }
    return n;
  } else { // broadcast_kind: new leading dims get stride 0 (stretched ones are 0 already)
    constexpr std::size_t R2 = rank_v<E>, shift = R2 - rank_v<decltype(e.arg)>;
    const std::size_t n = flatten(e.arg, out, ex, temps);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = R2; k-- > 0;)
        out[j].strides[k] = k >= shift ? out[j].strides[k - shift] : 0;
    return n;
  }
}

// Type tree E yields on batches B (void when some functor cannot take batches). Worked out on
// the functors' declared signatures (std::is_invocable), never by instantiating a body: a user
// function written for scalars only, `lz::map([](float x) {...}, a)`, must select the scalar
// path, not fail to compile inside a deduced return type.
template <class B, class E>
struct batch_result {
  using type = void;
};
template <class B, class E>
using batch_result_t = typename batch_result<B, std::remove_cvref_t<E>>::type;

template <class B, class... R>
struct invoke_batches {
  using type = void;
};
template <class B, class F, class... R>
requires(!(std::is_void_v<R> || ...) &&
         std::is_invocable_v<const F&, const R&...>) struct invoke_batches<B, F, R...> {
  using type = std::remove_cvref_t<std::invoke_result_t<const F&, const R&...>>;
};

template <class B, class E>
requires(std::is_same_v<kind_t<E>, leaf_kind> || std::is_same_v<kind_t<E>, opaque_kind> ||
         std::is_same_v<kind_t<E>, scalar_kind>) struct batch_result<B, E> {
  using type = B;
};
template <class B, class F, class... A>
struct batch_result<B, map_expr<F, A...>> {
  using type = typename invoke_batches<B, F, batch_result_t<B, A>...>::type;
};
template <class B, class E>
requires(std::is_same_v<kind_t<E>, permute_kind> ||
         std::is_same_v<kind_t<E>, broadcast_kind>) struct batch_result<B, E> {
  using type = batch_result_t<B, decltype(std::declval<const E&>().arg)>;
};

/// Trees costing at most this many adds per element are cheap: the fusion pass's loops unroll
/// them 4 batches deep at 256 bits (kernels/cpu/row.hpp), fixed trees keep their reductions at
/// 256 bits (expr/fixed.hpp).
inline constexpr int unroll_cost = 8;

} // namespace lz::detail

namespace lz::detail {

/// Calls v(leaf) for every memory leaf of a plain tree (tensors and views), depth-first.
template <class E, class V>
void for_each_leaf(const E& e, V&& v) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>)
    v(e);
  else if constexpr (std::is_same_v<K, map_kind>)
    for_each_arg(e, [&](const auto& c) { for_each_leaf(c, v); });
  else if constexpr (std::is_same_v<K, permute_kind> || std::is_same_v<K, broadcast_kind>)
    for_each_leaf(e.arg, v);
}

} // namespace lz::detail
