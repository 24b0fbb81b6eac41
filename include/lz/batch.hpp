// Batches of fixed-size tensors: lz::fixed_batch<T, N...> holds n items of shape N..., stored
// element-major — element k of every item is one contiguous plane of n values — so that an
// expression over batches runs one item per SIMD lane (4 or 8 items per instruction) and TBB
// threads over the items. Operands: batches of the same size (each item reads the same item of
// every batch), fixed tensors and scalars (the same for every item). The expression is a fixed
// tree per item (expr/fixed.hpp): products are one dot per element, reductions are per item
// (`P / lz::norm2(P)` normalises each item), every element of an item is computed before any is
// stored. docs/fixed.md, "Batches".
#pragma once

#include <lz/evaluate.hpp>
#include <lz/explain.hpp>
#include <lz/expr/fixed.hpp>
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/cpu/row.hpp>
#include <lz/simd.hpp>
#include <lz/tensor.hpp>

#include <span>
#include <string>

namespace lz {

/// A batch inside an expression: n items of extents Ext (item strides Str, in planes; both
/// lz::fixed_shape types, so that the type names a device kernel: nvcc's kernel stubs cannot
/// spell array template arguments); element k of item b at data[k * plane_stride + b], in
/// memory space Sp (host, or device: lz::device_batch).
template <class T, class Ext, class Str, memory_space Sp = memory_space::host>
class batch_view {
  static constexpr std::size_t R = Ext::rank;
  T* data_;
  index_t n_, ps_;
  std::uint64_t serial_;

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr memory_space lz_space = Sp;
  static constexpr std::size_t rank = R;
  static constexpr shape_t<R> static_extents = Ext::extents;
  static constexpr strided_layout<R> static_layout{Ext::extents, Str::extents};

  batch_view(T* data, index_t n, index_t plane_stride, std::uint64_t serial) noexcept
      : data_(data), n_(n), ps_(plane_stride), serial_(serial) {}
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
      batch_view(const batch_view<U, Ext, Str, Sp>& v)
  noexcept : data_(v.data()), n_(v.size()), ps_(v.plane_stride()), serial_(v.lz_serial()) {}

  LZ_HD T* data() const noexcept { return data_; }
  /// Items in the batch.
  LZ_HD index_t size() const noexcept { return n_; }
  /// Elements between two planes (element k and k+1 of one item).
  LZ_HD index_t plane_stride() const noexcept { return ps_; }
  /// The shape of one item.
  static constexpr const shape_t<R>& shape() noexcept { return static_extents; }
  /// The layout of one item (element k at plane k).
  static constexpr const strided_layout<R>& layout() noexcept { return static_layout; }
  std::uint64_t lz_serial() const noexcept { return serial_; }
  batch_view<const T, Ext, Str, Sp> batch() const noexcept { return *this; }
};

namespace detail {
template <class T, class Ext, class Str, memory_space Sp>
struct static_shape_of<batch_view<T, Ext, Str, Sp>> {
  static constexpr bool known = true;
  static constexpr int fixed_leaves = 1;
  static constexpr int batched = 1;
  static constexpr shape_t<Ext::rank> value = Ext::extents;
};
template <class T, class Ext, class Str, memory_space Sp>
struct closure<batch_view<T, Ext, Str, Sp>> {
  using type = batch_view<const T, Ext, Str, Sp>;
};
template <class T, class Ext, class Str, memory_space Sp>
struct closure<batch_view<T, Ext, Str, Sp>&> {
  using type = batch_view<const T, Ext, Str, Sp>;
};
template <class T, class Ext, class Str, memory_space Sp>
struct closure<const batch_view<T, Ext, Str, Sp>&> {
  using type = batch_view<const T, Ext, Str, Sp>;
};

/// A batch or a batch view (any cv/ref).
template <class X>
concept batch_leaf = requires(const std::remove_cvref_t<X>& x) {
  x.plane_stride();
  x.batch();
};

/// shape_error: a batch of `got` items where `want` are assigned (kernels/common/errors.cpp).
[[noreturn]] void throw_batch_size(index_t got, index_t want);
} // namespace detail

template <class T, index_t... N>
class fixed_batch;

namespace detail::batch_eval {

using fixed_eval::child_index;
using fixed_eval::for_each_index;

/// One item of a batch (the tail that does not fill a SIMD vector, and element types without
/// one).
struct item {
  static constexpr bool vector = false;
  index_t b;
  template <class V>
  LZ_INLINE LZ_HD static const V& lift(const V& v) noexcept {
    return v;
  }
  template <class V>
  LZ_INLINE LZ_HD V load(const V* p) const noexcept {
    return p[b];
  }
};

/// xsimd::batch<T>::size consecutive items, one per lane.
template <class T>
struct lanes {
  static constexpr bool vector = true;
  using B = xsimd::batch<T>;
  index_t b;
  template <class V>
  LZ_INLINE static B lift(const V& v) noexcept {
    return B(static_cast<T>(v));
  }
  LZ_INLINE B load(const T* p) const noexcept { return B::load_unaligned(p + b); }
  template <class Fin>
  LZ_INLINE static B finish(const B& acc, index_t n) noexcept {
    if constexpr (std::is_same_v<Fin, red::sqrt_fin>)
      return xsimd::sqrt(acc);
    else if constexpr (std::is_same_v<Fin, red::mean_fin>)
      return acc / B(static_cast<T>(n));
    else
      return acc;
  }
};

/// Whether the prepared tree runs on lanes<T>: every node yields T, every functor takes xsimd
/// batches, reductions are sums, products, min, max (norm2, mean: their finishers have lanes).
template <class T, class E>
constexpr bool lanes_ok() {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  if constexpr (!std::is_same_v<value_t<X>, T>) {
    return false;
  } else if constexpr (std::is_same_v<K, leaf_kind> || std::is_same_v<K, scalar_kind>) {
    return true;
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return std::is_same_v<kernels::cpu::batch_result_t<xsimd::batch<T>, X>, xsimd::batch<T>> &&
             (lanes_ok<T, A>() && ...);
    }(static_cast<const X*>(nullptr));
  } else if constexpr (fixed_eval::is_product<X>) {
    return lanes_ok<T, decltype(std::declval<X>().lhs)>() &&
           lanes_ok<T, decltype(std::declval<X>().rhs)>();
  } else if constexpr (fixed_eval::is_item_reduce<X>) {
    return []<class Op, class Fin, class A>(const fixed_eval::item_reduce<Op, Fin, A>*) {
      constexpr bool op = red::lane_op<Op>;
      constexpr bool fin = std::is_same_v<Fin, red::identity_fin> ||
                           std::is_same_v<Fin, red::sqrt_fin> || std::is_same_v<Fin, red::mean_fin>;
      return op && fin && lanes_ok<T, A>();
    }(static_cast<const X*>(nullptr));
  } else {
    return false;
  }
}

/// Throws unless every batch operand of e holds n items (before anything is written).
template <class E>
void check_sizes(const E& e, index_t n) {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    if constexpr (requires { e.plane_stride(); })
      if (e.size() != n) throw_batch_size(e.size(), n);
  } else if constexpr (std::is_same_v<K, map_kind>) {
    for_each_arg(e, [&](const auto& c) { check_sizes(c, n); });
  } else if constexpr (requires { e.lhs, e.rhs; }) {
    check_sizes(e.lhs, n), check_sizes(e.rhs, n);
  } else if constexpr (requires { e.arg; }) {
    check_sizes(e.arg, n);
  }
}

/// The items of context ctx: every element computed into registers, then stored.
LZ_HD_TEMPLATE
template <assign_op Op, std::size_t R, shape_t<R> S, class T, class P, class Ctx,
          bool Stream = false>
LZ_INLINE LZ_HD void items(T* dst, index_t ps, const P& p, const Ctx& ctx) {
  constexpr index_t m = extents_product(S);
  using V = std::remove_cvref_t<decltype(fixed_eval::at(p, child_index<P>(shape_t<R>{}), ctx))>;
  V tmp[m];
  for_each_index<R, S>([&](index_t flat, const shape_t<R>& idx) LZ_INLINE_LAMBDA {
    tmp[flat] = fixed_eval::at(p, child_index<P>(idx), ctx);
  });
  for_each_index<R, S>([&](index_t flat, const shape_t<R>&) LZ_INLINE_LAMBDA {
    T* q = dst + flat * ps + ctx.b;
    if constexpr (Ctx::vector) {
      if constexpr (Stream) // aligned: planes start on cache lines, items in whole vectors
        kernels::cpu::detail_row::stream_store<T>(q, tmp[flat]);
      else if constexpr (Op == assign_op::set)
        tmp[flat].store_unaligned(q);
      else
        fn::assign_combine<Op>(Ctx::B::load_unaligned(q), tmp[flat]).store_unaligned(q);
    } else {
      *q = static_cast<T>(fn::assign_combine<Op>(*q, tmp[flat]));
    }
  });
}

/// Host batches run on SIMD lanes, except in files nvcc compiles: there the evaluator's
/// functions are host-and-device, and an xsimd vector cannot be in their device instantiation
/// (host batches in a .cu file run item by item; g++-compiled files are unaffected).
#if defined(__CUDACC__)
inline constexpr bool host_lanes = false;
#else
inline constexpr bool host_lanes = true;
#endif

/// Whether batches of T whose prepared tree is P run on SIMD lanes.
template <class T, class P>
constexpr bool simd_batches() {
  if constexpr (!host_lanes || !(std::is_same_v<T, float> || std::is_same_v<T, double>))
    return false;
  else
    return lanes_ok<T, P>();
}

/// dst ⊕= e for the n items of a batch (element k of item b at dst[k * ps + b]).
template <assign_op Op, std::size_t R, shape_t<R> S, class T, class E>
void assign(T* dst, index_t ps, index_t n, const E& e) {
  const auto p = fixed_eval::prepare(e);
  using P = decltype(p);
  constexpr bool simd = simd_batches<T, P>();
  constexpr index_t w = simd ? index_t(xsimd::batch<T>::size) : 1;
  // `=` into batches larger than the cache: non-temporal stores (no read of the destination
  // first; W8 batched 10^6 items: 1.31x -> 1.5x Eigen's loop), as the elementwise loops do.
  constexpr bool can_stream =
      simd && Op == assign_op::set && kernels::cpu::detail_row::can_stream<T, xsimd::batch<T>>();
  const bool stream = can_stream && n * extents_product(S) * index_t(sizeof(T)) >=
                                        index_t(thresholds().stream_bytes);
  const auto run = [&](index_t begin, index_t end) {
    index_t b = begin;
    if constexpr (simd) {
      for (; b < end && b % w != 0; ++b) items<Op, R, S>(dst, ps, p, item{b}); // to a vector
      if constexpr (can_stream)
        if (stream) {
          for (; b + w <= end; b += w) items<Op, R, S, T, P, lanes<T>, true>(dst, ps, p, {b});
#if defined(__SSE2__)
          _mm_sfence(); // the streamed stores before whatever reads them
#endif
        }
      for (; b + w <= end; b += w) items<Op, R, S>(dst, ps, p, lanes<T>{b});
    }
    for (; b < end; ++b) items<Op, R, S>(dst, ps, p, item{b});
  };
  // Threads when the work (items × elements × a few flops) passes the parallel threshold.
  const index_t per_item = extents_product(S) * (2 + 2 * cost_v<E>);
  const index_t grain =
      std::max<index_t>(w * 16, (index_t(thresholds().parallel_work) / per_item + w - 1) / w * w);
  kernels::cpu::parallel_for(n, grain, run);
}

} // namespace detail::batch_eval

/// n fixed-size tensors of shape N... (items), stored element-major: element k of every item is
/// one contiguous, cache-line aligned plane. Expressions over batches (`Q = M * P;` with M a
/// batch of 4×4 matrices and P of 4-vectors, `Q = T * P + offset` with T one fixed matrix)
/// compute every item, SIMD across items, threads over them. Items are read and written one at
/// a time with `b[i]` and `set(i, item)`; `planes()` is the storage as a dynamic matrix
/// (elements × items) for everything else.
template <class T, index_t... N>
class fixed_batch : public detail::compound_assign<fixed_batch<T, N...>> {
  static_assert(element<T>, "lz::fixed_batch: the element type must be arithmetic or complex");

 public:
  using item_type = fixed_tensor<T, N...>;
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr std::size_t rank = sizeof...(N);
  static constexpr shape_t<rank> static_extents{N...};
  static constexpr strided_layout<rank> static_layout = item_type::static_layout;
  using view_type = batch_view<T, fixed_shape<N...>, detail::right_strides_t<N...>>;
  using const_view_type = batch_view<const T, fixed_shape<N...>, detail::right_strides_t<N...>>;

  fixed_batch() : fixed_batch(0) {}
  /// n items, zeros.
  explicit fixed_batch(index_t n) : planes_(shape_t<2>{item_type::static_size, n}, padded()) {}
  /// n items left uninitialised.
  fixed_batch(index_t n, uninitialized_t)
      : planes_(shape_t<2>{item_type::static_size, n}, padded(), uninitialized) {}
  /// A batch of the given items (copied in).
  explicit fixed_batch(std::span<const item_type> items)
      : fixed_batch(index_t(items.size()), uninitialized) {
    for (index_t b = 0; b < size(); ++b) set(b, items[std::size_t(b)]);
  }

  /// Evaluates `e` for every item (see the class comment).
  template <class E>
  requires(expression_or_scalar<E> &&
           !std::is_same_v<std::remove_cvref_t<E>, fixed_batch>) fixed_batch&
  operator=(const E& e) {
    assign<detail::assign_op::set>(e);
    return *this;
  }
  /// dst ⊕= e (`+=`, `-=`, `*=`, `/=` call it).
  template <detail::assign_op Op, class E>
  fixed_batch& assign_by(const E& e) {
    assign<Op>(e);
    return *this;
  }

  /// Items in the batch.
  index_t size() const noexcept { return planes_.extent(1); }
  /// The shape of one item.
  static constexpr const shape_t<rank>& shape() noexcept { return static_extents; }
  T* data() noexcept { return planes_.data(); }
  const T* data() const noexcept { return planes_.data(); }
  /// Elements between two planes.
  index_t plane_stride() const noexcept { return planes_.stride(0); }
  /// The layout of one item (element k at plane k).
  static constexpr const strided_layout<rank>& layout() noexcept { return static_layout; }
  std::uint64_t lz_serial() const noexcept { return planes_.lz_serial(); }

  /// Item b, copied out (unchecked).
  item_type operator[](index_t b) const noexcept {
    item_type t(uninitialized);
    for (index_t k = 0; k < item_type::static_size; ++k)
      t.data()[k] = data()[k * plane_stride() + b];
    return t;
  }
  /// Item b, copied out; throws std::out_of_range past the end.
  item_type at(index_t b) const {
    if (b < 0 || b >= size()) detail::throw_index(b, size(), 0);
    return (*this)[b];
  }
  /// Overwrites item b (unchecked).
  void set(index_t b, const item_type& v) noexcept {
    for (index_t k = 0; k < item_type::static_size; ++k)
      data()[k * plane_stride() + b] = v.data()[k];
  }
  /// The storage: element k of item b is planes()(k, b).
  tensor_view<T, 2> planes() noexcept LZ_LIFETIMEBOUND { return planes_.view(); }
  tensor_view<const T, 2> planes() const noexcept LZ_LIFETIMEBOUND { return planes_.view(); }

  view_type batch() noexcept LZ_LIFETIMEBOUND {
    return view_type(data(), size(), plane_stride(), lz_serial());
  }
  const_view_type batch() const noexcept LZ_LIFETIMEBOUND {
    return const_view_type(data(), size(), plane_stride(), lz_serial());
  }
  operator const_view_type() const noexcept LZ_LIFETIMEBOUND { return batch(); }

 private:
  template <detail::assign_op Op, class E>
  void assign(const E& e) {
    if constexpr (scalar_like<E>) {
      detail::batch_eval::assign<Op, rank, static_extents>(data(), plane_stride(), size(),
                                                           scalar_expr<T>{static_cast<T>(e)});
    } else {
      static_assert(detail::static_shaped_v<E>,
                    "lz::fixed_batch: the expression must be over batches, fixed-size tensors "
                    "and scalars only");
      detail::check_fixed_assignment<T, E, N...>();
      if constexpr (detail::fixed_assignable<T, E, N...>()) {
        detail::batch_eval::check_sizes(e, size());
        if constexpr (LZ_CHECKED) detail::check_lifetimes(e);
        detail::batch_eval::assign<Op, rank, static_extents>(data(), plane_stride(), size(), e);
      }
    }
  }

  tensor<T, 2> planes_; // (elements of an item, items), rows padded to a cache line
};

namespace detail {
template <class T, index_t... N>
struct static_shape_of<fixed_batch<T, N...>> {
  static constexpr bool known = true;
  static constexpr int fixed_leaves = 1;
  static constexpr int batched = 1;
  static constexpr shape_t<sizeof...(N)> value{N...};
};
// The closure rule: a batch lvalue enters a tree as a view of it (never copied); an rvalue is
// moved in, as tensors are.
template <class T, index_t... N>
struct closure<fixed_batch<T, N...>&> {
  using type = typename fixed_batch<T, N...>::const_view_type;
};
template <class T, index_t... N>
struct closure<const fixed_batch<T, N...>&> {
  using type = typename fixed_batch<T, N...>::const_view_type;
};
} // namespace detail

/// Transpose of every item of a batch: a batch view with the item layout reversed (no copy).
template <expression X>
requires detail::batch_leaf<X>
auto transpose(X&& x LZ_LIFETIMEBOUND) {
  using L = std::remove_cvref_t<X>;
  const auto v = x.batch();
  using T = std::remove_pointer_t<decltype(v.data())>;
  using Ext = detail::shape_type_t<detail::reversed_layout_of<L, false>>;
  using Str = detail::shape_type_t<detail::reversed_layout_of<L, true>>;
  return batch_view<T, Ext, Str, decltype(v)::lz_space>(v.data(), v.size(), v.plane_stride(),
                                                        v.lz_serial());
}

/// The plan lz::assign(pol, dst, e) would run, as text (nothing is evaluated).
template <class T, index_t... N, class E>
std::string explain(fixed_batch<T, N...>& dst, const E& e) {
  using namespace detail;
  constexpr index_t m = extents_product(shape_t<sizeof...(N)>{N...});
  const auto p = fixed_eval::prepare(e);
  constexpr bool simd = batch_eval::simd_batches<T, std::remove_cvref_t<decltype(p)>>();
  const index_t w = simd ? index_t(xsimd::batch<T>::size) : 1;
  return cat("plan: batch of ", std::to_string(dst.size()), " items ", to_string(dst.shape()),
             " = ", expr_text(e), "\n  1. inline, batched: ", std::to_string(m),
             " elements per item computed in the caller, ",
             simd ? cat(std::to_string(w), " items per SIMD vector") : std::string("item by item"),
             ", threads over items from lz::thresholds().parallel_work   [rule fixed]\n"
             "     note: no plan object, no BLAS, no heap\n");
}

} // namespace lz
