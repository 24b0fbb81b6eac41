// Ways to make tensors: zeros/ones/full/iota/linspace, seeded counter-based random tensors
// (identical whatever the thread count), and zero-copy adoption of memory the user owns.
#pragma once

#include <lz/kernels/cpu/parallel.hpp>
#include <lz/tensor.hpp>

#include <cmath>
#include <span>

namespace lz {
namespace detail {
template <std::size_t R>
shape_t<R> to_shape(const index_t (&s)[R]) {
  shape_t<R> out{};
  for (std::size_t k = 0; k < R; ++k) out[k] = s[k];
  return out;
}
} // namespace detail

/// Zero-filled tensor: `lz::zeros<double>({m, n})`.
template <class T, std::size_t R>
tensor<T, R> zeros(const index_t (&shape)[R]) {
  return tensor<T, R>(detail::to_shape(shape));
}
template <class T, std::size_t R>
tensor<T, R> zeros(const shape_t<R>& shape) {
  return tensor<T, R>(shape);
}
/// Tensor filled with ones.
template <class T, std::size_t R>
tensor<T, R> ones(const index_t (&shape)[R]) {
  return tensor<T, R>(detail::to_shape(shape), T(1));
}
template <class T, std::size_t R>
tensor<T, R> ones(const shape_t<R>& shape) {
  return tensor<T, R>(shape, T(1));
}
/// Tensor filled with `value`.
template <class T, std::size_t R>
tensor<T, R> full(const index_t (&shape)[R], T value) {
  return tensor<T, R>(detail::to_shape(shape), value);
}
template <class T, std::size_t R>
tensor<T, R> full(const shape_t<R>& shape, T value) {
  return tensor<T, R>(shape, value);
}

/// start, start + step, ... (n values).
template <class T>
vector<T> iota(index_t n, T start = T(0), T step = T(1)) {
  vector<T> v(shape_t<1>{n}, uninitialized);
  for (index_t i = 0; i < n; ++i) v(i) = static_cast<T>(start + static_cast<T>(i) * step);
  return v;
}

/// n values evenly spaced over [start, stop] (stop included unless endpoint is false).
template <class T>
vector<T> linspace(T start, T stop, index_t n, bool endpoint = true) {
  vector<T> v(shape_t<1>{n}, uninitialized);
  const index_t div = endpoint ? n - 1 : n;
  const double step = div > 0 ? (double(stop) - double(start)) / double(div) : 0.0;
  for (index_t i = 0; i < n; ++i) v(i) = static_cast<T>(double(start) + double(i) * step);
  if (endpoint && n > 1) v(n - 1) = stop;
  return v;
}

/// Distributions for lz::random.
struct uniform {
  double low = 0.0, high = 1.0; ///< [low, high)
};
struct normal {
  double mean = 0.0, stddev = 1.0;
};
struct integers {
  std::int64_t low = 0, high = 100; ///< [low, high)
};

namespace detail {

// Counter-based generator: element i of stream `seed` is a strong 64-bit mix of (seed, i),
// so any element can be produced independently: same tensor on 1 thread or 64.
LZ_HD constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
LZ_HD constexpr std::uint64_t counter_bits(std::uint64_t seed, std::uint64_t i) noexcept {
  return mix64(mix64(seed + 0x9e3779b97f4a7c15ULL) ^ (i * 0xd1b54a32d192ed03ULL + 1));
}
LZ_HD constexpr double unit_double(std::uint64_t bits) noexcept { // [0, 1)
  return double(bits >> 11) * 0x1.0p-53;
}

template <class T>
T draw(const uniform& d, std::uint64_t seed, std::uint64_t i) {
  const T v = static_cast<T>(d.low + (d.high - d.low) * unit_double(counter_bits(seed, i)));
  if constexpr (std::is_floating_point_v<T>) // a draw just below high can round up to high
    if (v >= static_cast<T>(d.high) && d.high > d.low)
      return std::nextafter(static_cast<T>(d.high), static_cast<T>(d.low));
  return v;
}
template <class T>
T draw(const normal& d, std::uint64_t seed, std::uint64_t i) { // Box-Muller, one per element
  const double u1 = 1.0 - unit_double(counter_bits(seed, 2 * i));
  const double u2 = unit_double(counter_bits(seed, 2 * i + 1));
  return static_cast<T>(d.mean + d.stddev * std::sqrt(-2.0 * std::log(u1)) *
                                     std::cos(6.283185307179586 * u2));
}
template <class T>
T draw(const integers& d, std::uint64_t seed, std::uint64_t i) { // Lemire's multiply-shift
  // In unsigned arithmetic: [INT64_MIN, INT64_MAX) is a valid range whose width overflows int64.
  const std::uint64_t range = std::uint64_t(d.high) - std::uint64_t(d.low);
  const std::uint64_t offset = mul_hi(counter_bits(seed, i), range);
  return static_cast<T>(std::int64_t(std::uint64_t(d.low) + offset));
}

} // namespace detail

/// Seeded random tensor, element i (row-major order) drawn from `dist` by a counter-based
/// generator: the same seed gives the same tensor whatever the thread count.
/// `lz::random<double>({m, n}, 42)`, `lz::random<float>({n}, 7, lz::normal{0, 1})`.
template <class T, std::size_t R, class Dist = uniform>
tensor<T, R> random(const shape_t<R>& shape, std::uint64_t seed, Dist dist = {}) {
  if constexpr (std::is_same_v<Dist, integers>)
    if (dist.high <= dist.low) throw std::invalid_argument("lz::random: integers needs low < high");
  tensor<T, R> t(shape, uninitialized);
  T* p = t.data();
  kernels::cpu::parallel_for(t.size(), 65536, [&](index_t b, index_t e) {
    for (index_t i = b; i < e; ++i) p[i] = detail::draw<T>(dist, seed, std::uint64_t(i));
  });
  return t;
}
template <class T, std::size_t R, class Dist = uniform>
tensor<T, R> random(const index_t (&shape)[R], std::uint64_t seed, Dist dist = {}) {
  return random<T, R, Dist>(detail::to_shape(shape), seed, dist);
}

/// Zero-copy view of memory the caller owns, row-major: `lz::adopt(ptr, {m, n})`.
template <class T, std::size_t R>
tensor_view<T, R> adopt(T* data, const shape_t<R>& shape) {
  return tensor_view<T, R>(data, strided_layout<R>::right(shape));
}
template <class T, std::size_t R>
tensor_view<T, R> adopt(T* data, const index_t (&shape)[R]) {
  return adopt(data, detail::to_shape(shape));
}
/// ... with explicit strides in elements (negative and, for read-only data, 0 allowed).
/// Writable views whose elements overlap are rejected with layout_error.
template <class T, std::size_t R>
tensor_view<T, R> adopt(T* data, const shape_t<R>& shape, const shape_t<R>& strides) {
  return tensor_view<T, R>(data, strided_layout<R>{shape, strides});
}
template <class T, std::size_t R>
tensor_view<T, R> adopt(T* data, const index_t (&shape)[R], const index_t (&strides)[R]) {
  return adopt(data, detail::to_shape(shape), detail::to_shape(strides));
}
/// A contiguous span as a vector view.
template <class T, std::size_t N>
tensor_view<T, 1> adopt(std::span<T, N> s) {
  return tensor_view<T, 1>(s.data(), strided_layout<1>::right({index_t(s.size())}));
}

} // namespace lz
