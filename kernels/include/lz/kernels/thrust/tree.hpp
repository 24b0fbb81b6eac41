// The device kernel tree: what an expression tree becomes before it is passed BY VALUE into a
// Thrust functor (MatX style). Owning leaves are replaced by raw device pointers plus strides in
// the root's dimensions (permute and broadcast nodes are folded into those strides), scalars are
// kept by value, map nodes keep their functor. Every node is trivially copyable and every access
// is LZ_HD, so the same tree runs on the GPU (nvcc) and on Thrust's host system (g++). Nothing
// here includes xsimd, TBB or Thrust.
//
// Access paths (chosen by plan.hpp, run by launch.hpp):
//   flat(i)     p[i]                     every operand contiguous in the destination's order
//   lin(i)      p[i * s[R-1]]            one coalesced dim, any strides (0 = broadcast)
//   at2(r, c)   p[r * s[R-2] + c * s[R-1]]  two coalesced dims (one fast divmod per element)
//   at(idx)     p[sum idx[k] * s[k]]      general strided (a fast divmod per dim per element)
#pragma once

#include <lz/config.hpp>
#include <lz/expr/nodes.hpp>

#include <cstdint>
#include <type_traits>

namespace lz::kernels::dev {

/// n / d and n % d without a hardware divide (the GPU has none; a 64-bit div costs ~40 cycles on
/// a CPU): Lemire-Kaser-Kurz, q = mulhi64(ceil(2^64 / d), n), exact for n, d < 2^32. Larger
/// dividends (loops over 2^32 elements or more) fall back to `/`; d == 1 is the identity.
struct fast_divmod {
  std::uint64_t m = 0; // 0: no magic (d == 1 or a dividend may reach 2^32)
  index_t d = 1;

  /// @pre d >= 1; every dividend that will be divided is < max_dividend.
  static fast_divmod make(index_t d, index_t max_dividend) noexcept {
    fast_divmod f;
    f.d = d < 1 ? 1 : d;
    if (f.d > 1 && max_dividend <= index_t(0xffffffff) && f.d <= index_t(0xffffffff))
      f.m = ~std::uint64_t(0) / std::uint64_t(f.d) + 1;
    return f;
  }
  LZ_HD index_t div(index_t n) const noexcept {
    if (m) {
#if defined(__CUDA_ARCH__)
      return index_t(__umul64hi(m, std::uint64_t(n)));
#else
      return index_t(lz::detail::mul_hi(m, std::uint64_t(n)));
#endif
    }
    return d == 1 ? n : n / d;
  }
};

/// The index space of one planned loop: extents right-aligned in R slots (leading slots 1).
template <std::size_t R>
struct loop_index {
  index_t ext[R > 0 ? R : 1] = {};
  fast_divmod div[R > 0 ? R : 1] = {};

  /// Multi-index of linear index i (row-major over the planned dims).
  LZ_HD void unravel(index_t i, index_t* idx) const noexcept {
    if constexpr (R > 0) {
      for (std::size_t k = R - 1; k > 0; --k) {
        const index_t q = div[k].div(i);
        idx[k] = i - q * ext[k];
        i = q;
      }
      idx[0] = i;
    }
  }
};

/// A memory leaf: device pointer + strides (elements) in the root's R dims.
template <class T, std::size_t R>
struct kleaf {
  const T* p;
  index_t s[R > 0 ? R : 1];

  LZ_HD T flat(index_t i) const { return p[i]; }
  LZ_HD T lin(index_t i) const {
    if constexpr (R == 0)
      return p[0];
    else
      return p[i * s[R - 1]];
  }
  LZ_HD T at2(index_t r, index_t c) const {
    if constexpr (R >= 2)
      return p[r * s[R - 2] + c * s[R - 1]];
    else
      return lin(c);
  }
  LZ_HD T at(const index_t* idx) const {
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k) o += idx[k] * s[k];
    return p[o];
  }
  /// The same leaf advanced to index idx[0..n) of the leading dims (axis reductions).
  LZ_HD kleaf moved(const index_t* idx, std::size_t n) const {
    kleaf l = *this;
    if (l.p == nullptr) return l; // an empty operand: nothing is read through it
    for (std::size_t k = 0; k < n && k < R; ++k) l.p += idx[k] * s[k];
    return l;
  }
};

/// A constant.
template <class S>
struct kscalar {
  S v;
  LZ_HD S flat(index_t) const { return v; }
  LZ_HD S lin(index_t) const { return v; }
  LZ_HD S at2(index_t, index_t) const { return v; }
  LZ_HD S at(const index_t*) const { return v; }
  LZ_HD kscalar moved(const index_t*, std::size_t) const { return *this; }
};

/// An elementwise node: its functor applied to its children (same access path for all).
template <class F, class... C>
struct kmap {
  F f;
  detail::pack<C...> c;

  template <std::size_t... J>
  LZ_HD auto flat_(index_t i, std::index_sequence<J...>) const {
    return f(detail::get<J>(c).flat(i)...);
  }
  template <std::size_t... J>
  LZ_HD auto lin_(index_t i, std::index_sequence<J...>) const {
    return f(detail::get<J>(c).lin(i)...);
  }
  template <std::size_t... J>
  LZ_HD auto at2_(index_t r, index_t q, std::index_sequence<J...>) const {
    return f(detail::get<J>(c).at2(r, q)...);
  }
  template <std::size_t... J>
  LZ_HD auto at_(const index_t* idx, std::index_sequence<J...>) const {
    return f(detail::get<J>(c).at(idx)...);
  }
  template <std::size_t... J>
  LZ_HD kmap moved_(const index_t* idx, std::size_t n, std::index_sequence<J...>) const {
    return kmap{f, {{detail::get<J>(c).moved(idx, n)}...}};
  }
  using seq = std::index_sequence_for<C...>;
  LZ_HD auto flat(index_t i) const { return flat_(i, seq{}); }
  LZ_HD auto lin(index_t i) const { return lin_(i, seq{}); }
  LZ_HD auto at2(index_t r, index_t q) const { return at2_(r, q, seq{}); }
  LZ_HD auto at(const index_t* idx) const { return at_(idx, seq{}); }
  LZ_HD kmap moved(const index_t* idx, std::size_t n) const { return moved_(idx, n, seq{}); }
};

/// The destination: writable pointer + strides.
template <class T, std::size_t R>
struct kdst {
  T* p;
  index_t s[R > 0 ? R : 1];
  LZ_HD T& flat(index_t i) const { return p[i]; }
  LZ_HD T& lin(index_t i) const {
    if constexpr (R == 0)
      return p[0];
    else
      return p[i * s[R - 1]];
  }
  LZ_HD T& at2(index_t r, index_t c) const {
    if constexpr (R >= 2)
      return p[r * s[R - 2] + c * s[R - 1]];
    else
      return lin(c);
  }
  LZ_HD T& at(const index_t* idx) const {
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k) o += idx[k] * s[k];
    return p[o];
  }
};

/// Calls v(leaf) for every kleaf of a kernel tree (depth-first, the order of the expression's
/// memory leaves), mutable: the planner rewrites the strides in place.
template <class T, std::size_t R, class V>
void for_each_kleaf(kleaf<T, R>& k, V&& v) {
  v(k);
}
template <class S, class V>
void for_each_kleaf(kscalar<S>&, V&&) {}
template <class F, class... C, class V>
void for_each_kleaf(kmap<F, C...>& k, V&& v) {
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    (for_each_kleaf(detail::get<J>(k.c), v), ...);
  }
  (std::index_sequence_for<C...>{});
}

} // namespace lz::kernels::dev
