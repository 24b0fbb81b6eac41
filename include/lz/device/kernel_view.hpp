// kernel_view: an expression tree → the trivially copyable kernel tree a device functor carries
// BY VALUE (kernels/include/lz/kernels/thrust/tree.hpp). Owning leaves (device tensors moved
// into the tree) become raw pointers; permute and broadcast nodes fold into the leaves' strides,
// expressed in the root's dimensions; scalars and functors are copied; opaque nodes (reductions,
// later products) are evaluated first, on the same stream, into stream-ordered temporaries that
// the tree then reads like any leaf. Thrust-free: the builder is plain host code.
#pragma once

#include <lz/device/tensor.hpp>
#include <lz/kernels/thrust/tree.hpp>

#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace lz {
namespace detail {

/// Stream-ordered temporaries of one device evaluation. They return to the pool at scope exit,
/// ordered on the stream after the work that reads them, so asynchronous work stays safe.
class device_temps {
  void* stream_ = nullptr;
  std::vector<std::pair<void*, std::size_t>> bufs_;

 public:
  explicit device_temps(void* stream) : stream_(stream) {}
  device_temps(const device_temps&) = delete;
  device_temps& operator=(const device_temps&) = delete;
  ~device_temps() {
    for (auto& [p, n] : bufs_) kernels::dev::pool_deallocate(p, n, stream_);
  }
  void* get(std::size_t bytes) {
    if (bytes == 0) bytes = 1;
    void* p = kernels::dev::pool_allocate(bytes, stream_);
    try {
      bufs_.emplace_back(p, bytes);
    } catch (...) {
      kernels::dev::pool_deallocate(p, bytes, stream_);
      throw;
    }
    return p;
  }
  std::size_t count() const noexcept { return bufs_.size(); }
};

/// State of one kernel-tree build: where opaque nodes run, where their results live; `dry`
/// builds (lz::explain) evaluate nothing and only describe the temporaries.
struct kernel_build {
  const device_policy* pol = nullptr;
  device_temps* temps = nullptr;
  bool dry = false;
  std::vector<std::string>* notes = nullptr;
};

/// For each dim of a node: the root dim it walks, or -1 when its index stays 0 (an extent-1 dim
/// stretched by broadcasting).
using dim_map = std::array<int, max_rank>;

template <class E>
std::string tree_text(const E& e);

} // namespace detail

/// Evaluates an opaque node on the device into fresh row-major device memory and returns it
/// (customization point, found by ADL: reductions in device/evaluate.hpp; products add theirs).
template <class E>
const value_t<E>* device_materialize(const E&, detail::kernel_build&) {
  static_assert(detail::dependent_false<E>,
                "lz: this node has no device evaluation yet (products on the device come with "
                "the fusion plan's device steps)");
  return nullptr;
}
template <class Op, class Fin, class E>
const typename reduce_expr<Op, Fin, E>::value_type*
device_materialize(const reduce_expr<Op, Fin, E>& r, detail::kernel_build& ctx);
template <class Op, class Fin, class E>
const typename reduce_axis_expr<Op, Fin, E>::value_type*
device_materialize(const reduce_axis_expr<Op, Fin, E>& r, detail::kernel_build& ctx);
// A product under a reduction (lz::sum(A * B)): planned by device/plan.hpp into a temporary.
template <class A, class B>
const typename matmul_expr<A, B>::value_type* device_materialize(const matmul_expr<A, B>& p,
                                                                 detail::kernel_build& ctx);

namespace detail {

template <std::size_t RT, class E>
auto build_kernel(const E& e, const dim_map& m, kernel_build& ctx);

// A child's dim map: extent-1 dims that its parent stretches stay at index 0.
template <std::size_t R, class C>
dim_map child_map(const C& c, const shape_t<R>& node_shape, const dim_map& m) {
  dim_map cm;
  cm.fill(-1);
  if constexpr (rank_v<C> == R && R > 0) {
    const auto& cs = c.shape();
    for (std::size_t k = 0; k < R; ++k) cm[k] = (cs[k] == 1 && node_shape[k] != 1) ? -1 : m[k];
  }
  return cm;
}

template <std::size_t RT, class T, std::size_t R>
kernels::dev::kleaf<T, RT> make_kleaf(const T* p, const shape_t<R>& strides, const dim_map& m) {
  kernels::dev::kleaf<T, RT> l{p, {}};
  for (std::size_t k = 0; k < R; ++k)
    if (m[k] >= 0) l.s[m[k]] += strides[k];
  return l;
}

template <std::size_t RT, class F, class... A>
auto build_map(const map_expr<F, A...>& e, const dim_map& m, kernel_build& ctx) {
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    using K = kernels::dev::kmap<F, decltype(build_kernel<RT>(get<J>(e.args), m, ctx))...>;
    return K{e.f,
             {{build_kernel<RT>(get<J>(e.args), child_map(get<J>(e.args), e.shape(), m), ctx)}...}};
  }
  (std::index_sequence_for<A...>{});
}

/// Kernel tree of `e` in the root's RT dims; `m` maps e's dims to root dims.
template <std::size_t RT, class E>
auto build_kernel(const E& e, const dim_map& m, kernel_build& ctx) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    static_assert(space_v<E> == memory_space::device,
                  "lz: a host tensor inside a device expression; copy it with lz::to_device");
    return make_kleaf<RT>(e.data(), e.layout().strides, m);
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    return kernels::dev::kscalar<value_t<E>>{e.value};
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return build_map<RT>(e, m, ctx);
  } else if constexpr (std::is_same_v<K, permute_kind>) {
    dim_map cm;
    cm.fill(-1);
    for (std::size_t k = 0; k < rank_v<E>; ++k) cm[e.perm[k]] = m[k];
    return build_kernel<RT>(e.arg, cm, ctx);
  } else if constexpr (std::is_same_v<K, broadcast_kind>) {
    constexpr std::size_t R2 = rank_v<E>, R1 = rank_v<decltype(e.arg)>, shift = R2 - R1;
    dim_map cm;
    cm.fill(-1);
    if constexpr (R1 > 0) {
      const auto& cs = e.arg.shape();
      for (std::size_t j = 0; j < R1; ++j)
        cm[j] = (cs[j] == 1 && e.shape()[j + shift] != 1) ? -1 : m[j + shift];
    }
    return build_kernel<RT>(e.arg, cm, ctx);
  } else { // opaque: evaluated first into a row-major temporary
    using V = value_t<E>;
    const V* p = nullptr;
    if (ctx.dry) {
      if (ctx.notes)
        ctx.notes->push_back(tree_text(e) + " -> device temporary " +
                             detail::to_string(shape_t<rank_v<E>>(e.shape())));
    } else {
      p = device_materialize(e, ctx);
    }
    return make_kleaf<RT>(p, strided_layout<rank_v<E>>::right(e.shape()).strides, m);
  }
}

/// Root map: the identity, with the whole tree broadcast to the destination's shape.
template <class E, std::size_t R>
dim_map root_map(const E& e, const shape_t<R>& dst) {
  dim_map m;
  m.fill(-1);
  for (std::size_t k = 0; k < R; ++k) m[k] = int(k);
  if constexpr (rank_v<E> == R && R > 0) {
    const auto& es = e.shape();
    for (std::size_t k = 0; k < R; ++k)
      if (es[k] == 1 && dst[k] != 1) m[k] = -1;
  }
  return m;
}

/// The stride arrays of a kernel tree's leaves, appended to `out`; returns how many.
template <class K>
int collect_strides(K& k, index_t** out) {
  int n = 0;
  kernels::dev::for_each_kleaf(k, [&](auto& l) { out[n++] = l.s; });
  return n;
}

// ---- text (lz::explain) ------------------------------------------------------------------------

template <class E>
std::string opaque_text(const E&) {
  return "opaque";
}
template <class Op, class Fin, class E>
std::string opaque_text(const reduce_expr<Op, Fin, E>& r) {
  return std::string(Fin::name[0] ? Fin::name : Op::name) + "(" + tree_text(r.arg) + ")";
}
template <class A, class B>
std::string opaque_text(const matmul_expr<A, B>& p) {
  return "(" + tree_text(p.lhs) + " · " + tree_text(p.rhs) + ")";
}
template <class Op, class Fin, class E>
std::string opaque_text(const reduce_axis_expr<Op, Fin, E>& r) {
  return std::string(Fin::name[0] ? Fin::name : Op::name) + "(" + tree_text(r.arg) + ", axis " +
         std::to_string(r.axis) + ")";
}

template <class E>
std::string tree_text(const E& e) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    std::string s(space_v<E> == memory_space::device ? "d" : "h"); // (not "d" + string&&:
    s += to_string(e.layout()); // GCC 12 -Wrestrict false positive)
    return s;
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    if constexpr (std::is_arithmetic_v<value_t<E>>) {
      std::string s = std::to_string(e.value);
      if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.push_back('0');
      }
      return s;
    } else {
      return "scalar";
    }
  } else if constexpr (std::is_same_v<K, map_kind>) {
    std::vector<std::string> args;
    for_each_arg(e, [&](const auto& c) { args.push_back(tree_text(c)); });
    const std::string name = fn::name_of<decltype(e.f)>();
    const bool infix = args.size() == 2 && !name.empty() && !std::isalpha(name[0]);
    if (infix) return "(" + args[0] + " " + name + " " + args[1] + ")";
    std::string s = name;
    s += "(";
    for (std::size_t j = 0; j < args.size(); ++j) s += (j ? ", " : "") + args[j];
    return s + ")";
  } else if constexpr (std::is_same_v<K, permute_kind>) {
    return "permute(" + tree_text(e.arg) + ")";
  } else if constexpr (std::is_same_v<K, broadcast_kind>) {
    return "broadcast_to(" + tree_text(e.arg) + ", " + detail::to_string(e.shape()) + ")";
  } else {
    return opaque_text(e);
  }
}
} // namespace detail

/// The trivially copyable kernel tree of a device expression without opaque nodes, in its own
/// dimensions (what the device functor receives). `static_assert(std::is_trivially_copyable_v<
/// decltype(lz::kernel_view(2.0 * x + y))>)`.
template <device_expression E>
auto kernel_view(const E& e) {
  static_assert(detail::opaque_count_v<E> == 0,
                "lz::kernel_view: evaluate nested reductions first (the device assignment does "
                "this itself, into stream-ordered temporaries)");
  detail::kernel_build ctx;
  detail::dim_map m;
  m.fill(-1);
  for (std::size_t k = 0; k < rank_v<E>; ++k) m[k] = int(k);
  return detail::build_kernel<rank_v<E>>(e, m, ctx);
}

} // namespace lz
