// Test-input generators shared by every suite: a portable seeded RNG, interesting extents and
// shapes, values with specials (NaN, ±Inf, denormals, ±0), and views with random layouts
// (row/column-major, padded, strided, reversed, permuted, stride-0 broadcast, unaligned) over
// buffers whose gaps hold a sentinel, so a test can check that nothing outside a view was written.
#pragma once

#include <support/reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace lz_test {

/// splitmix64: tiny, fast and identical on every platform (std distributions are not).
struct rng {
  std::uint64_t state;
  explicit rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform integer in [lo, hi].
  index_t between(index_t lo, index_t hi) {
    return lo + index_t(next() % std::uint64_t(hi - lo + 1));
  }
  /// Uniform double in [0, 1).
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
  template <class T, std::size_t N>
  const T& pick(const T (&a)[N]) {
    return a[next() % N];
  }
};

/// Extents that catch loop edge cases: empty, single, primes, around SIMD widths and unroll
/// factors (4 batches of 8 floats = 32).
inline index_t interesting_extent(rng& r, index_t max = 128) {
  static constexpr index_t list[] = {0,  1,  1,  2,  3,  4,  5,  7,  8,  9,  11,  13, 16,
                                     17, 23, 31, 32, 33, 37, 61, 64, 65, 97, 127, 128};
  for (;;) {
    const index_t e = r.chance(0.8) ? r.pick(list) : r.between(1, max);
    if (e <= max) return e;
  }
}

/// A shape of rank R with at most `max_size` elements (0 counts as small).
template <std::size_t R>
lz::shape_t<R> random_shape(rng& r, index_t max_size, bool allow_empty = true) {
  const index_t cap = R <= 2 ? 128 : R == 3 ? 33 : 7; // keeps rejection sampling quick
  for (;;) {
    lz::shape_t<R> s{};
    index_t n = 1;
    for (std::size_t k = 0; k < R; ++k) {
      s[k] = interesting_extent(r, cap);
      n *= s[k] > 0 ? s[k] : 1;
    }
    const bool empty = std::find(s.begin(), s.end(), index_t(0)) != s.end();
    if (n <= max_size && (allow_empty || !empty)) return s;
  }
}

/// What kind of values a buffer holds.
enum class values {
  plain,    ///< floats uniform in [-10, 10); integers in [-100, 100]
  special,  ///< plain plus ~20% NaN, ±Inf, ±0, denormals, huge and tiny numbers
  positive, ///< floats in (0, 10]; integers in [1, 100] (safe divisors)
  wide,     ///< floats ±2^[-60, 60) (reductions over mixed magnitudes); integers as plain
  small,    ///< floats and integers in [-3, 3] (products that must not overflow)
  boolean,  ///< 0 or 1
  whole     ///< whole numbers in [-4, 4] for every type (sums and products of them are exact)
};

template <class T>
T special_value(rng& r) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    const T list[] = {L::quiet_NaN(),
                      L::infinity(),
                      -L::infinity(),
                      T(0),
                      -T(0),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::min() / T(3),
                      -L::min() / T(7),
                      L::max(),
                      L::lowest(),
                      L::min(),
                      T(1e30),
                      T(-1e-30),
                      L::epsilon(),
                      T(0.5),
                      T(-2.5),
                      T(1) - L::epsilon() / 2};
    return r.pick(list);
  } else {
    const T list[] = {T(0), T(1), T(-1), T(2), T(-100), T(100)};
    return r.pick(list);
  }
}

template <class T>
T random_value(rng& r, values kind) {
  if constexpr (std::is_same_v<T, bool>) {
    return r.chance(0.5);
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (kind) {
    case values::special:
      if (r.chance(0.2)) return special_value<T>(r);
      [[fallthrough]];
    case values::plain:
      return T(-10 + 20 * r.unit());
    case values::positive:
      return T(10 * (1 - r.unit()));
    case values::wide: {
      const T m = T(std::ldexp(1 + r.unit(), int(r.between(-60, 59))));
      return r.chance(0.5) ? m : -m;
    }
    case values::small:
      return T(-3 + 6 * r.unit());
    case values::boolean:
      return T(r.between(0, 1));
    case values::whole:
      return T(r.between(-4, 4));
    }
    return T(0);
  } else {
    switch (kind) {
    case values::special:
      if (r.chance(0.2)) return special_value<T>(r);
      [[fallthrough]];
    case values::plain:
    case values::wide:
      return T(r.between(-100, 100));
    case values::positive:
      return T(r.between(1, 100));
    case values::small:
      return T(r.between(-3, 3));
    case values::boolean:
      return T(r.between(0, 1));
    case values::whole:
      return T(r.between(-4, 4));
    }
    return T(0);
  }
}

/// How a view lays out its elements in its buffer. Shape-independent, so a failing case can be
/// re-made at a smaller shape (shrinking) with the same layout.
template <std::size_t R>
struct layout_spec {
  std::array<int, R> order{};    ///< dims from innermost (order[0]) to outermost in memory
  std::array<index_t, R> step{}; ///< stride multiplier per dim (1 = dense)
  unsigned reversed = 0;         ///< dims walked backwards (negative strides)
  unsigned zero_stride = 0;      ///< dims broadcast with stride 0 (read-only views only)
  index_t pad = 0;               ///< extra elements after the innermost dim (leading-dim padding)
  index_t offset = 0;            ///< elements before the view's lowest address (0 = 64B aligned)

  static layout_spec row_major() {
    layout_spec s;
    for (std::size_t k = 0; k < R; ++k) s.order[k] = int(R - 1 - k), s.step[k] = 1;
    return s;
  }
  static layout_spec column_major() {
    layout_spec s;
    for (std::size_t k = 0; k < R; ++k) s.order[k] = int(k), s.step[k] = 1;
    return s;
  }
  bool is_plain_row_major() const {
    layout_spec p = row_major();
    return order == p.order && step == p.step && !reversed && !zero_stride && !pad && !offset;
  }
};

/// Named layout families (the list); `general` mixes all of them at random.
enum class layout_kind {
  row,
  column,
  padded,
  strided,
  reversed,
  permuted,
  broadcast,
  unaligned,
  general
};
inline constexpr layout_kind all_layout_kinds[] = {
    layout_kind::row,       layout_kind::column,    layout_kind::padded,
    layout_kind::strided,   layout_kind::reversed,  layout_kind::permuted,
    layout_kind::broadcast, layout_kind::unaligned, layout_kind::general};

inline const char* to_string(layout_kind k) {
  static const char* names[] = {"row",      "column",    "padded",    "strided", "reversed",
                                "permuted", "broadcast", "unaligned", "general"};
  return names[int(k)];
}

template <std::size_t R>
layout_spec<R> random_layout(rng& r, layout_kind kind, bool writable) {
  layout_spec<R> s = layout_spec<R>::row_major();
  auto shuffle = [&] {
    for (std::size_t k = R; k > 1; --k) std::swap(s.order[k - 1], s.order[r.next() % k]);
  };
  switch (kind) {
  case layout_kind::row:
    break;
  case layout_kind::column:
    s = layout_spec<R>::column_major();
    break;
  case layout_kind::padded:
    if (r.chance(0.5)) s = layout_spec<R>::column_major();
    s.pad = r.between(1, 9);
    break;
  case layout_kind::strided:
    for (std::size_t k = 0; k < R; ++k) s.step[k] = r.between(1, 3);
    if (R > 0 && s.step == layout_spec<R>::row_major().step) s.step[r.next() % R] = 2;
    break;
  case layout_kind::reversed:
    s.reversed = R ? unsigned(r.between(1, (1 << R) - 1)) : 0;
    break;
  case layout_kind::permuted:
    shuffle();
    break;
  case layout_kind::broadcast:
    if (!writable && R) s.zero_stride = unsigned(r.between(1, (1 << R) - 1));
    break;
  case layout_kind::unaligned:
    s.offset = r.between(1, 7);
    break;
  case layout_kind::general:
    shuffle();
    for (std::size_t k = 0; k < R; ++k) s.step[k] = r.chance(0.3) ? r.between(2, 3) : 1;
    s.reversed = R ? unsigned(r.next() & ((1u << R) - 1)) : 0;
    if (!writable && R && r.chance(0.2)) s.zero_stride = unsigned(r.next() & ((1u << R) - 1));
    s.pad = r.chance(0.3) ? r.between(1, 5) : 0;
    s.offset = r.chance(0.5) ? r.between(0, 7) : 0;
    break;
  }
  return s;
}

template <class T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>)
    return T(-7.75e3); // distinctive, finite, exactly representable
  else if constexpr (std::is_same_v<T, bool>)
    return true;
  else
    return T(-77);
}

/// A buffer with a view into it. The buffer's gaps (padding, skipped strides, slack) hold
/// sentinel(), so `untouched_outside()` can prove an assignment wrote only its view.
template <class T, std::size_t R>
struct viewed_buffer {
  std::shared_ptr<T[]> buf; // not std::vector: vector<bool> has no data()
  std::size_t size = 0;
  lz::tensor_view<T, R> view; // writable unless the layout broadcasts (then trusted, read only)
  layout_spec<R> spec;
  std::vector<unsigned char> before; // snapshot for untouched_outside()

  /// Offset of the view's element 0 in buf.
  index_t origin() const { return index_t(view.data() - buf.get()); }
  /// The view, read only (how an operand enters a tree).
  lz::tensor_view<const T, R> cview() const { return view; }

  void snapshot() {
    before.resize(size * sizeof(T));
    std::memcpy(before.data(), buf.get(), size * sizeof(T));
  }
  /// Every buffer element outside the view still holds its snapshot value.
  bool untouched_outside() const {
    std::vector<char> inside(size, 0);
    detail::for_each_index(view, [&](const auto& i) {
      index_t off = origin();
      for (std::size_t k = 0; k < R; ++k) off += i[k] * view.layout().strides[k];
      inside[std::size_t(off)] = 1;
    });
    for (std::size_t j = 0; j < size; ++j)
      if (!inside[j] && std::memcmp(&buf[j], &before[j * sizeof(T)], sizeof(T)) != 0) return false;
    return true;
  }
};

/// Strides and buffer size for `spec` at `shape`; element 0 at `origin` in the buffer.
template <std::size_t R>
lz::strided_layout<R> layout_for(const layout_spec<R>& spec, const lz::shape_t<R>& shape,
                                 index_t& origin, index_t& buffer_size) {
  lz::strided_layout<R> l;
  l.extents = shape;
  index_t s = 1;
  for (std::size_t j = 0; j < R; ++j) {
    const int k = spec.order[j];
    if (spec.zero_stride >> k & 1u) {
      l.strides[k] = 0;
      continue;
    }
    l.strides[k] = s * spec.step[k]; // a step > 1 skips elements along dim k
    index_t ext = shape[k] > 0 ? shape[k] : 1;
    s = l.strides[k] * ext;
    if (j == 0) s += spec.pad;
  }
  for (std::size_t k = 0; k < R; ++k)
    if (spec.reversed >> k & 1u) l.strides[k] = -l.strides[k];
  origin = spec.offset - l.min_offset();
  buffer_size = spec.offset + l.required_span_size() + 8; // slack after the view
  return l;
}

/// Makes a buffer holding a view of `shape` laid out by `spec`, elements drawn from `kind`.
/// `tracked`: the buffer is a lazuli tensor's storage and the view carries its lifetime number
/// (checked builds test it at evaluation; tests/reliability's checked fuzz batch); otherwise
/// plain user memory, as through lz::adopt.
template <class T, std::size_t R>
viewed_buffer<T, R> make_viewed(const lz::shape_t<R>& shape, const layout_spec<R>& spec,
                                std::uint64_t seed, values kind, bool tracked = false) {
  index_t origin = 0, size = 0;
  const lz::strided_layout<R> l = layout_for(spec, shape, origin, size);
  // (Built in one go: assigning to a tensor_view writes elements, it never rebinds.)
  std::shared_ptr<T[]> buf;
  std::uint64_t serial = 0;
  if (tracked) {
    auto t = std::make_shared<lz::tensor<T, 1>>(lz::shape_t<1>{size}, lz::uninitialized);
    serial = t->lz_serial();
    buf = std::shared_ptr<T[]>(t, t->data()); // shares ownership of the tensor
  } else {
    buf.reset(new T[std::size_t(size)]);
  }
  std::fill(buf.get(), buf.get() + size, sentinel<T>());
  lz::tensor_view<T, R> view(buf.get() + origin, l, lz::detail::trusted, serial);
  viewed_buffer<T, R> vb{std::move(buf), std::size_t(size), view, spec, {}};
  rng r(seed);
  detail::for_each_index(vb.view, [&](const auto& i) {
    index_t off = 0;
    for (std::size_t k = 0; k < R; ++k) off += i[k] * l.strides[k];
    vb.view.data()[off] = random_value<T>(r, kind);
  });
  vb.snapshot();
  return vb;
}

/// A fresh row-major tensor with random values (a plain operand).
template <class T, std::size_t R>
lz::tensor<T, R> random_tensor(const lz::shape_t<R>& shape, std::uint64_t seed,
                               values kind = values::plain) {
  lz::tensor<T, R> t(shape);
  rng r(seed);
  for (index_t i = 0; i < t.size(); ++i) t.data()[i] = random_value<T>(r, kind);
  return t;
}

/// `{5, 7}`: an index list as C++ source.
template <std::size_t R>
std::string braced(const std::array<index_t, R>& a) {
  std::string out = "{";
  for (std::size_t k = 0; k < R; ++k) out += (k ? ", " : "") + std::to_string(a[k]);
  return out + "}";
}

/// `lz::adopt(buf + 3, {5, 7}, {-1, 5})`: how a view is made, for failure messages.
template <class T, std::size_t R>
std::string describe(const viewed_buffer<T, R>& vb, const std::string& buffer_name) {
  return "lz::adopt(" + buffer_name + " + " + std::to_string(vb.origin()) + ", " +
         braced(vb.view.shape()) + ", " + braced(vb.view.strides()) + ")";
}

/// Same elements bit for bit, NaN matching NaN, -0 matching +0 (max_ulp == 0 is the same test).
template <class A, class B>
bool same_values(const A& a, const B& b) {
  return a.shape() == b.shape() && max_ulp(a, b) == 0;
}

} // namespace lz_test
