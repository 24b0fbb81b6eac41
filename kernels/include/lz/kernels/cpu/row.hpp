// CPU kernel tree: an expression bound to raw pointers, and the per-expression slab kernels
// (rows x n elements) that the compiled loop driver (loop.cpp) calls. This is the only place
// expression trees meet xsimd; everything around it (coalescing, tiling, threads) is compiled
// once in lazuli_kernels.
#pragma once

#include <lz/expr/traverse.hpp>

#include <xsimd/xsimd.hpp>

namespace lz::kernels::cpu {

/// How a slab's innermost dimension is addressed, decided once per loop by the driver:
///   unit    every operand has inner stride 1        -> SIMD loads/stores
///   bcast   inner strides are 1 or 0 (dest 1)       -> SIMD, stride-0 operands broadcast
///   strided anything else                           -> scalar loop with strides
enum class mode : int { unit = 0, bcast = 1, strided = 2 };

template <class T>
struct bound_leaf {
  const T* p;
  index_t s;
  template <mode M>
  LZ_INLINE T at(index_t i) const noexcept {
    if constexpr (M == mode::unit)
      return p[i];
    else
      return p[i * s];
  }
  template <mode M, class B>
  LZ_INLINE B vec(index_t i) const noexcept {
    if constexpr (M == mode::unit)
      return B::load_unaligned(p + i);
    else
      return s ? B::load_unaligned(p + i) : B(*p);
  }
};

template <class S>
struct bound_scalar {
  S v;
  template <mode M>
  LZ_INLINE S at(index_t) const noexcept {
    return v;
  }
  template <mode M, class B>
  LZ_INLINE B vec(index_t) const noexcept {
    return B(v);
  }
};

template <class F, class... C>
struct bound_map {
  [[no_unique_address]] F f;
  detail::pack<C...> c;
  using seq = std::index_sequence_for<C...>;
  template <mode M, std::size_t... J>
  LZ_INLINE auto at_(index_t i, std::index_sequence<J...>) const {
    return f(detail::get<J>(c).template at<M>(i)...);
  }
  // The batch path's return type is spelled out so that a functor without a batch overload (a
  // user's scalar lambda in lz::map) makes vec() absent, not ill-formed: simd_ok then says no.
  template <mode M, class B, std::size_t... J>
  LZ_INLINE auto vec_(index_t i, std::index_sequence<J...>) const
      -> decltype(f(detail::get<J>(c).template vec<M, B>(i)...)) {
    return f(detail::get<J>(c).template vec<M, B>(i)...);
  }
  template <mode M>
  LZ_INLINE auto at(index_t i) const {
    return at_<M>(i, seq{});
  }
  template <mode M, class B>
  LZ_INLINE auto vec(index_t i) const -> decltype(this->template vec_<M, B>(i, seq{})) {
    return vec_<M, B>(i, seq{});
  }
};

template <std::size_t I, class E>
LZ_INLINE auto bind(const E& e, char* const* p, const index_t* s);

template <std::size_t I, class F, class... A>
LZ_INLINE auto bind_map(const map_expr<F, A...>& e, char* const* p, const index_t* s) {
  // Operand index of each child's first leaf: I + leaves of the children before it.
  constexpr auto off = [] {
    std::array<std::size_t, sizeof...(A) + 1> o{};
    o[0] = I;
    std::size_t k = 0;
    ((o[k + 1] = o[k] + detail::leaf_count_v<A>, ++k), ...);
    return o;
  }();
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return bound_map<F, decltype(bind<off[J]>(detail::get<J>(e.args), p, s))...>{
        e.f, {{bind<off[J]>(detail::get<J>(e.args), p, s)}...}};
  }
  (std::index_sequence_for<A...>{});
}

/// Binds tree `e` to operand pointers p[I...] with inner strides s[I...] (depth-first leaves).
template <std::size_t I, class E>
LZ_INLINE auto bind(const E& e, char* const* p, const index_t* s) {
  using K = detail::kind_t<E>;
  if constexpr (std::is_same_v<K, detail::leaf_kind> || std::is_same_v<K, detail::opaque_kind>)
    return bound_leaf<value_t<E>>{reinterpret_cast<const value_t<E>*>(p[I]), s[I]};
  else if constexpr (std::is_same_v<K, detail::scalar_kind>)
    return bound_scalar<value_t<E>>{e.value};
  else if constexpr (std::is_same_v<K, detail::map_kind>)
    return bind_map<I>(e, p, s);
  else
    return bind<I>(e.arg, p, s); // permute / broadcast only change strides
}

template <class T>
concept simd_lane = std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

template <class L, class E>
constexpr bool all_lanes_are() {
  using K = detail::kind_t<E>;
  if constexpr (std::is_same_v<K, detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (true && ... && all_lanes_are<L, A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else if constexpr (std::is_same_v<K, detail::permute_kind> ||
                     std::is_same_v<K, detail::broadcast_kind>)
    return all_lanes_are<L, decltype(std::declval<E>().arg)>();
  else
    return std::is_same_v<value_t<E>, L>;
}

template <class D, class E>
using bound_t = decltype(bind<1>(std::declval<const E&>(), nullptr, nullptr));

/// The tree can run on xsimd batches of D: every operand is D and every functor accepts
/// batches and yields a batch of D.
template <class D, class E>
constexpr bool simd_ok() {
  if constexpr (!simd_lane<D> || xsimd::batch<D>::size < 2)
    return false;
  else if constexpr (!all_lanes_are<D, E>())
    return false;
  else
    return requires(const bound_t<D, E>& b) {
      { b.template vec<mode::unit, xsimd::batch<D>>(0) } -> std::same_as<xsimd::batch<D>>;
    };
}

/// dst ⊕= v for the assignment operators (=, +=, -=, *=, /=).
template <detail::assign_op Op, class A, class B>
LZ_INLINE auto combine(const A& a, const B& b) {
  if constexpr (Op == detail::assign_op::set)
    return b;
  else if constexpr (Op == detail::assign_op::add)
    return a + b;
  else if constexpr (Op == detail::assign_op::sub)
    return a - b;
  else if constexpr (Op == detail::assign_op::mul)
    return a * b;
  else
    return a / b;
}

/// Slab kernel: rows x n elements. Pointers p[0] (destination) and p[1..] (leaves) are at the
/// slab's first element; s are inner strides in elements, so the outer strides in bytes.
template <class D, class E, mode M, bool Simd, detail::assign_op Op>
void slab_kernel(const void* ctx, char* const* p, const index_t* s, const index_t* so, index_t rows,
                 index_t n) {
  const E& e = *static_cast<const E*>(ctx);
  constexpr std::size_t N = 1 + detail::leaf_count_v<E>;
  char* q[N];
  for (std::size_t k = 0; k < N; ++k) q[k] = p[k];
  for (index_t r = 0; r < rows; ++r) {
    const auto b = bind<1>(e, q, s);
    D* out = reinterpret_cast<D*>(q[0]);
    index_t i = 0;
    if constexpr (Simd && M != mode::strided) {
      using B = xsimd::batch<D>;
      constexpr index_t W = B::size;
      auto get = [&](index_t j) -> B {
        if constexpr (Op == detail::assign_op::set)
          return b.template vec<M, B>(j);
        else
          return combine<Op>(B::load_unaligned(out + j), b.template vec<M, B>(j));
      };
      for (; i + 4 * W <= n; i += 4 * W) { // 4 independent batches hide latency in cache
        B v0 = get(i), v1 = get(i + W), v2 = get(i + 2 * W), v3 = get(i + 3 * W);
        v0.store_unaligned(out + i);
        v1.store_unaligned(out + i + W);
        v2.store_unaligned(out + i + 2 * W);
        v3.store_unaligned(out + i + 3 * W);
      }
      for (; i + W <= n; i += W) get(i).store_unaligned(out + i);
    }
    const index_t sd = M == mode::strided ? s[0] : 1;
    for (; i < n; ++i) {
      D& o = out[i * sd];
      o = static_cast<D>(combine<Op>(o, b.template at<M>(i)));
    }
    for (std::size_t k = 0; k < N; ++k) q[k] += so[k];
  }
}

using slab_fn = void (*)(const void* ctx, char* const* p, const index_t* s, const index_t* so,
                         index_t rows, index_t n);

/// The three slab kernels of one (destination type, tree) pair, indexed by mode.
struct slab_kernels {
  slab_fn fn[3];
  int simd_width; // lanes per batch, 1 when the tree runs scalar
};

template <class D, class E, bool AllowSimd, detail::assign_op Op>
constexpr slab_kernels slab_kernels_for() {
  constexpr bool S = AllowSimd && simd_ok<D, E>();
  constexpr int W = [] {
    if constexpr (S)
      return int(xsimd::batch<D>::size);
    else
      return 1;
  }();
  return {{&slab_kernel<D, E, mode::unit, S, Op>, &slab_kernel<D, E, mode::bcast, S, Op>,
           &slab_kernel<D, E, mode::strided, S, Op>},
          W};
}

} // namespace lz::kernels::cpu
