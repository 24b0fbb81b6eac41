// Layouts as values (mdspan vocabulary): extents + signed strides in elements. Every tensor,
// view and kernel leaf describes its memory with a strided_layout<R>; printed as (M,N):(sM,sN).
#pragma once

#include <lz/config.hpp>
#include <lz/errors.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace lz {

/// Extents of a rank-R tensor, outermost first: `lz::shape_t<2>{rows, cols}`.
template <std::size_t R>
using shape_t = std::array<index_t, R>;

/// Row-major (C order, the default): the last index varies fastest.
struct layout_right_t {};
inline constexpr layout_right_t layout_right{};
/// Column-major (Fortran order): the first index varies fastest.
struct layout_left_t {};
inline constexpr layout_left_t layout_left{};

/// Row-major with the leading dimension (row stride) rounded up to a multiple of `multiple`
/// elements (0 = one cache line), so that every row starts aligned: `matrix<double>(m, n,
/// lz::padded())`.
struct padded {
  index_t multiple = 0;
  bool column_major = false;
};

namespace detail {

// The error paths that format shapes are compiled once (kernels/common/errors.cpp): building
// the message inline cost every user file the std::string machinery (compile time).
/// "(2,3)" ("(5,)" for rank 1), as NumPy prints shapes.
std::string dims_text(const index_t* s, std::size_t rank);
/// "(M,N):(sM,sN)", a layout in CuTe's notation.
std::string layout_text(const index_t* extents, const index_t* strides, std::size_t rank);
[[noreturn]] void throw_overflow(const char* what);
[[noreturn]] void throw_negative_extent(const index_t* extents, std::size_t rank);
[[noreturn]] void throw_layout_overlap(const index_t* extents, const index_t* strides,
                                       std::size_t rank);
[[noreturn]] void throw_broadcast_mismatch(const index_t* a, const index_t* b, std::size_t rank,
                                           const char* op);
/// The same, from copies of the shapes: a caller whose shapes live in an expression tree keeps
/// the tree's address to itself, so that the compiler keeps the tree in registers (the fixed
/// cost of a small assignment: docs/decisions/small-assignment-fixed-cost.md).
template <std::size_t R>
[[noreturn]] LZ_NOINLINE void
throw_broadcast_mismatch_of(std::array<index_t, R> a, std::array<index_t, R> b, const char* op) {
  throw_broadcast_mismatch(a.data(), b.data(), R, op);
}

// Checked arithmetic for sizes: overflow of std::ptrdiff_t is a layout_error, never UB.
inline index_t checked_mul(index_t a, index_t b, const char* what) {
  index_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(what);
  return r;
}
inline index_t checked_add(index_t a, index_t b, const char* what) {
  index_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(what);
  return r;
}

template <std::size_t R>
std::string to_string(const shape_t<R>& s) {
  return dims_text(s.data(), R);
}

} // namespace detail

/// A strided layout: element (i0, ..., iR-1) lives at offset Σ ik·strides[k] from element 0.
/// Strides are signed (negative = reversed, 0 = broadcast). Value type; cheap to copy.
template <std::size_t R>
struct strided_layout {
  shape_t<R> extents{};
  shape_t<R> strides{};

  static constexpr std::size_t rank() noexcept { return R; }
  /// mdspan mapping vocabulary: extent(k), stride(k), is_exhaustive() (is_unique below).
  constexpr index_t extent(std::size_t k) const noexcept { return extents[k]; }
  constexpr index_t stride(std::size_t k) const noexcept { return strides[k]; }
  static constexpr bool is_always_strided() noexcept { return true; }
  static constexpr bool is_strided() noexcept { return true; }
  bool is_exhaustive() const noexcept { return is_contiguous(); }

  /// Row-major contiguous layout of `e`. @pre extents >= 0 (checked).
  static strided_layout right(const shape_t<R>& e) {
    strided_layout l;
    l.extents = e;
    index_t s = 1;
    for (std::size_t k = R; k-- > 0;) {
      l.strides[k] = s;
      s = detail::checked_mul(s, e[k] > 0 ? e[k] : 1, "tensor size");
    }
    l.check_extents();
    return l;
  }
  /// Column-major contiguous layout of `e`.
  static strided_layout left(const shape_t<R>& e) {
    strided_layout l;
    l.extents = e;
    index_t s = 1;
    for (std::size_t k = 0; k < R; ++k) {
      l.strides[k] = s;
      s = detail::checked_mul(s, e[k] > 0 ? e[k] : 1, "tensor size");
    }
    l.check_extents();
    return l;
  }
  /// Row- (or column-) major with the leading dimension rounded up to `multiple` elements.
  static strided_layout padded_layout(const shape_t<R>& e, index_t multiple, bool column_major) {
    if (R < 2 || multiple <= 1) return column_major ? left(e) : right(e);
    strided_layout l;
    l.extents = e;
    const std::size_t first = column_major ? 0 : R - 1;
    index_t s = 1;
    for (std::size_t j = 0; j < R; ++j) {
      const std::size_t k = column_major ? j : R - 1 - j;
      l.strides[k] = s;
      index_t ext = e[k] > 0 ? e[k] : 1;
      if (k == first) // (no `ext + multiple`: a multiple near INT64_MAX must not wrap)
        ext = detail::checked_mul((ext - 1) / multiple + 1, multiple, "padded row length");
      s = detail::checked_mul(s, ext, "tensor size");
    }
    l.check_extents();
    return l;
  }

  /// Number of elements (product of extents).
  index_t size() const noexcept {
    index_t n = 1;
    for (auto e : extents) n *= e;
    return n;
  }
  bool empty() const noexcept { return size() == 0; }

  /// Offset of the element with the smallest address, relative to element 0 (<= 0).
  index_t min_offset() const noexcept {
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k)
      if (strides[k] < 0 && extents[k] > 0) o += (extents[k] - 1) * strides[k];
    return o;
  }
  /// Offset of the element with the largest address, relative to element 0 (>= 0).
  index_t max_offset() const noexcept {
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k)
      if (strides[k] > 0 && extents[k] > 0) o += (extents[k] - 1) * strides[k];
    return o;
  }
  /// Length of the buffer the layout touches, in elements (0 for an empty tensor). With
  /// negative strides the buffer starts min_offset() elements before element 0.
  index_t required_span_size() const noexcept {
    return empty() ? 0 : max_offset() - min_offset() + 1;
  }

  /// Offset of a multi-index (unchecked).
  template <class... I>
  LZ_HD index_t offset(I... i) const noexcept {
    static_assert(sizeof...(I) == R);
    index_t idx[] = {static_cast<index_t>(i)...};
    index_t o = 0;
    for (std::size_t k = 0; k < R; ++k) o += idx[k] * strides[k];
    return o;
  }

  /// Row-major contiguous (strides exactly those of right(extents), ignoring extent-1 dims;
  /// like right(), an empty extent counts as 1, so right() of an empty shape is row-major).
  bool is_row_major() const noexcept {
    index_t s = 1;
    for (std::size_t k = R; k-- > 0;) {
      if (extents[k] != 1 && strides[k] != s) return false;
      s *= extents[k] > 0 ? extents[k] : 1;
    }
    return true;
  }
  /// Column-major contiguous (the strides of left(extents), extent-1 dims ignored).
  bool is_column_major() const noexcept {
    index_t s = 1;
    for (std::size_t k = 0; k < R; ++k) {
      if (extents[k] != 1 && strides[k] != s) return false;
      s *= extents[k] > 0 ? extents[k] : 1;
    }
    return true;
  }
  /// The elements exactly fill [min_offset, max_offset] once each, in some dimension order.
  bool is_contiguous() const noexcept { return is_unique() && required_span_size() == size(); }

  /// No two multi-indices share an offset: the layout can be written through. A stride of 0
  /// over an extent > 1 (broadcast) is not unique. Exact for every layout: a fast sufficient
  /// test (sorted strides nest), then an exact count for the rare interleaved cases.
  bool is_unique() const noexcept;

  /// Throws layout_error unless the layout is usable: extents >= 0, sizes within ptrdiff_t,
  /// and, when `writable`, no overlapping elements.
  void validate(bool writable) const;

  friend bool operator==(const strided_layout&, const strided_layout&) = default;

  void check_extents() const {
    index_t n = 1;
    for (std::size_t k = 0; k < R; ++k) {
      if (extents[k] < 0) detail::throw_negative_extent(extents.data(), R);
      n = detail::checked_mul(n, extents[k], "tensor size");
    }
  }
};

template <std::size_t R>
bool strided_layout<R>::is_unique() const noexcept {
  if (empty()) return true;
  // Sufficient test: sort non-trivial dims by |stride|; each stride must exceed the span of
  // the smaller ones.
  std::array<std::size_t, R> order{};
  std::size_t m = 0;
  for (std::size_t k = 0; k < R; ++k)
    if (extents[k] > 1) {
      if (strides[k] == 0) return false;
      order[m++] = k;
    }
  for (std::size_t a = 1; a < m; ++a) // insertion sort, R is tiny
    for (std::size_t b = a; b > 0; --b) {
      index_t sa = strides[order[b]] < 0 ? -strides[order[b]] : strides[order[b]];
      index_t sb = strides[order[b - 1]] < 0 ? -strides[order[b - 1]] : strides[order[b - 1]];
      if (sa < sb)
        std::swap(order[b], order[b - 1]);
      else
        break;
    }
  index_t span = 1;
  bool nested = true;
  for (std::size_t a = 0; a < m; ++a) {
    index_t s = strides[order[a]] < 0 ? -strides[order[a]] : strides[order[a]];
    if (s < span) {
      nested = false;
      break;
    }
    span = s * (extents[order[a]] - 1) + span;
  }
  if (nested) return true;
  // Interleaved strides such as (3, 2) over (2, 3): decide exactly when small enough to count.
  const index_t span_size = required_span_size();
  if (span_size > (index_t(1) << 24)) return false; // conservative for huge exotic layouts
  std::string seen(static_cast<std::size_t>(span_size), '\0');
  std::array<index_t, R> idx{};
  const index_t base = -min_offset();
  for (index_t n = size(); n-- > 0;) {
    index_t o = base;
    for (std::size_t k = 0; k < R; ++k) o += idx[k] * strides[k];
    if (seen[static_cast<std::size_t>(o)]) return false;
    seen[static_cast<std::size_t>(o)] = 1;
    for (std::size_t k = R; k-- > 0;) {
      if (++idx[k] < extents[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

/// Prints a layout as `(M,N):(sM,sN)` (CuTe's notation).
template <std::size_t R>
std::string to_string(const strided_layout<R>& l) {
  return detail::layout_text(l.extents.data(), l.strides.data(), R);
}

template <std::size_t R>
void strided_layout<R>::validate(bool writable) const {
  check_extents();
  index_t span = 0;
  for (std::size_t k = 0; k < R; ++k) {
    if (extents[k] <= 1) continue;
    if (strides[k] == std::numeric_limits<index_t>::min()) // |INT64_MIN| is no index_t
      detail::throw_overflow("layout span");
    index_t s = strides[k] < 0 ? -strides[k] : strides[k];
    span = detail::checked_add(span, detail::checked_mul(s, extents[k] - 1, "layout span"),
                               "layout span");
  }
  if (writable && !is_unique()) detail::throw_layout_overlap(extents.data(), strides.data(), R);
}

/// NumPy broadcasting of two same-rank shapes (an extent of 1 stretches); throws shape_error
/// naming both shapes and the operator.
template <std::size_t R>
shape_t<R> broadcast_shapes(const shape_t<R>& a, const shape_t<R>& b, const char* op) {
  shape_t<R> r{};
  for (std::size_t k = 0; k < R; ++k) {
    if (a[k] == b[k] || b[k] == 1)
      r[k] = a[k];
    else if (a[k] == 1)
      r[k] = b[k];
    else
      detail::throw_broadcast_mismatch_of(a, b, op);
  }
  return r;
}

/// True when `from` broadcasts to `to` (each extent equal or 1).
template <std::size_t R>
bool broadcasts_to(const shape_t<R>& from, const shape_t<R>& to) noexcept {
  for (std::size_t k = 0; k < R; ++k)
    if (from[k] != to[k] && from[k] != 1) return false;
  return true;
}

namespace detail {

/// The bytes [lo, hi) a strided block can touch (lo == hi: none). The one overlap primitive:
/// the fusion rules (touches_dst, reduces_into; the device asks the same) and the exact alias
/// analysis (kernels/common/alias.cpp) all build on it.
/// Held as addresses, not pointers: a null or one-element pointer plus an offset is undefined
/// behaviour, an address plus an offset is not.
struct byte_span {
  std::uintptr_t lo = 0;
  std::uintptr_t hi = 0; ///< one past the last byte
};
/// `esize`-byte elements at `p`, `rank` dims of extents `ext` and strides `strides` (elements).
inline byte_span span_of(const void* p, std::size_t esize, int rank, const index_t* ext,
                         const index_t* strides) noexcept {
  index_t lo = 0, hi = 0;
  for (int k = 0; k < rank; ++k) {
    if (ext[k] == 0) return {};
    if (ext[k] == 1) continue;
    const index_t span = (ext[k] - 1) * strides[k];
    (span < 0 ? lo : hi) += span;
  }
  const auto b = reinterpret_cast<std::uintptr_t>(p);
  const auto es = static_cast<index_t>(esize);
  return {b + static_cast<std::uintptr_t>(lo * es), b + static_cast<std::uintptr_t>((hi + 1) * es)};
}
template <class T, std::size_t R>
byte_span span_of(const T* p, const strided_layout<R>& l) noexcept {
  return span_of(p, sizeof(T), int(R), l.extents.data(), l.strides.data());
}
/// The two blocks share a byte.
inline bool spans_overlap(byte_span a, byte_span b) noexcept {
  return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi;
}

} // namespace detail

} // namespace lz
