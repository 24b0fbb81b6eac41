// Slicing vocabulary and layout algebra for views: range/all, slice, permute, broadcast,
// reshape. Pure functions on strided_layout; the views in views.hpp wrap them with a pointer.
#pragma once

#include <lz/layout/layout.hpp>

#include <concepts>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace lz {

/// Elements begin, begin+step, ... while before `end` (after it for a negative step):
/// `range(0, n, 2)` = even indices, `range(n - 1, -1, -1)` = reversed. No wrap-around.
struct range {
  index_t begin = 0, end = 0, step = 1;
  constexpr range(index_t b, index_t e, index_t s = 1) : begin(b), end(e), step(s) {}
};
/// Tag: an axis reduction that keeps the reduced axis with extent 1 (NumPy's keepdims=True), so
/// the result broadcasts against its operand: `x - lz::max(x, 1, lz::keepdims)`.
struct keepdims_t {};
inline constexpr keepdims_t keepdims{};

/// The whole extent of one dimension (slicing). Called on an expression, `lz::all(e)` is the
/// "every element is true" reduction (defined with the other reductions).
struct all_t {
  template <class E>
  auto operator()(E&& e) const;
  template <class E>
  auto operator()(E&& e, std::size_t axis) const;
  template <class E>
  auto operator()(E&& e, std::size_t axis, keepdims_t) const;
};
inline constexpr all_t all{};

template <class S>
concept slice_arg = std::same_as<std::remove_cvref_t<S>, range> ||
    std::same_as<std::remove_cvref_t<S>, all_t> || std::integral<std::remove_cvref_t<S>>;

/// Number of dimensions a slice keeps (an integer index drops its dimension).
template <class... S>
inline constexpr std::size_t sliced_rank_v = (std::size_t(0) + ... +
                                              (std::integral<std::remove_cvref_t<S>> ? 0 : 1));

namespace detail {

/// std::out_of_range naming the index, the extent and the dimension (kernels/common/errors.cpp).
[[noreturn]] void throw_index(index_t i, index_t n, std::size_t dim);
/// std::out_of_range naming the range, the extent and the dimension (kernels/common/errors.cpp).
[[noreturn]] void throw_range(index_t begin, index_t end, index_t step, index_t n, std::size_t dim);
/// std::invalid_argument: a permutation of rank dimensions that is not one.
[[noreturn]] void throw_bad_permutation(std::size_t rank);
/// shape_error: shape from[0..rf) cannot broadcast to to[0..rt).
[[noreturn]] void throw_broadcast_to(const index_t* from, std::size_t rf, const index_t* to,
                                     std::size_t rt);
/// shape_error: a reshape of from[0..rf) (size elements) to to[0..rt) changes the size.
[[noreturn]] void throw_reshape_size(const index_t* from, std::size_t rf, index_t size,
                                     const index_t* to, std::size_t rt);
/// layout_error: a reshape to to[0..rt) needs a copy (input dims k and k + 1 not contiguous).
[[noreturn]] void throw_reshape_copy(const index_t* extents, const index_t* strides, std::size_t rf,
                                     const index_t* to, std::size_t rt, std::size_t k);

// One dimension of a slice: updates the offset, and appends (extent, stride) if kept.
struct slice_dim {
  index_t offset = 0;
  index_t extent = 0;
  index_t stride = 0;
  bool kept = false;
};

inline slice_dim apply_slice(index_t n, index_t s, index_t i, std::size_t dim) {
  if (i < 0 || i >= n) throw_index(i, n, dim);
  return {i * s, 0, 0, false};
}
inline slice_dim apply_slice(index_t n, index_t s, all_t, std::size_t) { return {0, n, s, true}; }
inline slice_dim apply_slice(index_t n, index_t s, range r, std::size_t dim) {
  if (r.step == 0) throw std::invalid_argument("lz: range step must not be 0");
  // Positive steps walk [0, n]; negative steps walk [-1, n-1]; begin/end must lie inside.
  const index_t lo = r.step > 0 ? 0 : -1, hi = r.step > 0 ? n : n - 1;
  if (r.begin < lo || r.begin > hi || r.end < lo || r.end > hi)
    throw_range(r.begin, r.end, r.step, n, dim);
  // |step| in unsigned arithmetic and no `dist + step` (steps near ±2^63 must not overflow);
  // two or more elements mean |step| < n, so s * step then fits as the tensor's own offsets do.
  const index_t dist = r.step > 0 ? r.end - r.begin : r.begin - r.end;
  const auto step = r.step > 0 ? std::uint64_t(r.step) : std::uint64_t(0) - std::uint64_t(r.step);
  const index_t count = dist > 0 ? index_t(1 + std::uint64_t(dist - 1) / step) : 0;
  return {count > 0 ? r.begin * s : 0, count, count > 1 ? s * r.step : s, true};
}
template <class S>
slice_dim apply_slice(index_t n, index_t s, const S& i, std::size_t dim) requires std::integral<S> {
  return apply_slice(n, s, static_cast<index_t>(i), dim);
}

} // namespace detail

/// Layout (and element offset) of a slice: `args` has one entry per dimension.
template <std::size_t R, class... S>
requires(sizeof...(S) == R) std::pair<index_t, strided_layout<sliced_rank_v<S...>>> slice_layout(
    const strided_layout<R>& l, const S&... args) {
  strided_layout<sliced_rank_v<S...>> out;
  index_t offset = 0;
  std::size_t dim = 0, kept = 0;
  (
      [&](const auto& a) {
        detail::slice_dim d = detail::apply_slice(l.extents[dim], l.strides[dim], a, dim);
        offset += d.offset;
        if (d.kept) {
          out.extents[kept] = d.extent;
          out.strides[kept] = d.stride;
          ++kept;
        }
        ++dim;
      }(args),
      ...);
  return {offset, out};
}

/// Layout with dimensions reordered: result dim k is input dim perm[k].
template <std::size_t R>
strided_layout<R> permute_layout(const strided_layout<R>& l,
                                 const std::array<std::size_t, R>& perm) {
  std::array<bool, R> used{};
  strided_layout<R> out;
  for (std::size_t k = 0; k < R; ++k) {
    if (perm[k] >= R || used[perm[k]]) detail::throw_bad_permutation(R);
    used[perm[k]] = true;
    out.extents[k] = l.extents[perm[k]];
    out.strides[k] = l.strides[perm[k]];
  }
  return out;
}

/// Broadcast a rank-R layout to shape `to` (rank R2 >= R): trailing dimensions align (NumPy);
/// new and stretched dimensions get stride 0.
template <std::size_t R2, std::size_t R>
strided_layout<R2> broadcast_layout(const strided_layout<R>& l, const shape_t<R2>& to) {
  static_assert(R2 >= R, "lz::broadcast_to cannot lower the rank");
  strided_layout<R2> out;
  out.extents = to;
  for (std::size_t k = 0; k < R2; ++k) {
    if (k < R2 - R) {
      out.strides[k] = 0;
      continue;
    }
    const std::size_t j = k - (R2 - R);
    if (l.extents[j] == to[k])
      out.strides[k] = l.strides[j];
    else if (l.extents[j] == 1)
      out.strides[k] = 0;
    else
      detail::throw_broadcast_to(l.extents.data(), R, to.data(), R2);
  }
  out.check_extents();
  return out;
}

/// Layout of a reshape that needs no copy, or layout_error. Works dimension group by group:
/// each group of input dims that multiplies to a group of output dims must be contiguous
/// among itself (stride[k] == stride[k+1] * extent[k+1]); the output dims of a group then
/// take row-major strides scaled by the group's innermost stride.
template <std::size_t R2, std::size_t R>
strided_layout<R2> reshape_layout(const strided_layout<R>& l, const shape_t<R2>& to) {
  strided_layout<R2> out;
  out.extents = to;
  out.check_extents();
  if (out.size() != l.size())
    detail::throw_reshape_size(l.extents.data(), R, l.size(), to.data(), R2);
  if (out.size() == 0) return strided_layout<R2>::right(to);
  // Drop extent-1 input dims: they impose nothing.
  std::array<index_t, R> ie{}, is{};
  std::size_t n = 0;
  for (std::size_t k = 0; k < R; ++k)
    if (l.extents[k] != 1) {
      ie[n] = l.extents[k];
      is[n] = l.strides[k];
      ++n;
    }
  std::size_t i = 0, o = 0;
  while (o < R2) {
    if (to[o] == 1) { // stride of an extent-1 dim is free; keep it tidy
      out.strides[o] = 1;
      ++o;
      continue;
    }
    // Grow an input group and an output group until their products agree.
    std::size_t i0 = i, o0 = o;
    index_t pi = ie[i++], po = to[o++];
    while (pi != po) {
      if (pi < po)
        pi *= ie[i++];
      else
        po *= to[o++];
    }
    for (std::size_t k = i0; k + 1 < i; ++k)
      if (is[k] != is[k + 1] * ie[k + 1])
        detail::throw_reshape_copy(l.extents.data(), l.strides.data(), R, to.data(), R2, k);
    index_t s = is[i - 1];
    for (std::size_t k = o; k-- > o0;) {
      out.strides[k] = s;
      s *= to[k];
    }
    while (o < R2 && to[o] == 1) out.strides[o++] = 1;
  }
  return out;
}

} // namespace lz
