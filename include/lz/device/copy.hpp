// Explicit transfers between host and device: lz::to_device, lz::to_host, lz::copy. These are the
// only calls that move data between the two memories (plus printing, which copies back to
// show). A strided side is packed where it lives (on the host by the CPU loop, on the device by
// the device loop) so that exactly one contiguous transfer crosses the bus. Traced under
// LZ_LOG=copy, counted in lz::device_stats().
#pragma once

#include <lz/device/plan.hpp>

namespace lz {
namespace detail {

template <std::size_t R>
bool is_dense_row_major(const strided_layout<R>& l) {
  return l.is_row_major() && l.min_offset() == 0;
}

inline void log_copy(const char* dir, std::size_t bytes, const std::string& what) {
  if (logging::on(logging::copy))
    logging::write(logging::copy, std::string(dir) + " " + std::to_string(bytes) + " B " + what);
}

// Host side of a transfer: a dense row-major host buffer holding the value of host expression x
// (x itself when it already is one, else packed by the CPU loop into `hold`).
template <class X, class T, std::size_t R>
const T* host_dense(const X& x, tensor<T, R>& hold) {
  if constexpr (is_kind_v<X, leaf_kind>)
    if (is_dense_row_major(x.layout())) return x.data();
  hold = tensor<T, R>(x.shape(), uninitialized);
  lz::assign(hold, x);
  return hold.data();
}

} // namespace detail

/// Copies host memory (a tensor, view or host expression, evaluated on the host) to a new
/// row-major device tensor: one host-to-device transfer.
template <expression X>
auto to_device(const X& x) {
  static_assert(space_v<X> != memory_space::device,
                "lz::to_device: already on the device (lz::eval(lz::device, e) evaluates there)");
  using T = value_t<X>;
  constexpr std::size_t R = rank_v<X>;
  tensor<T, R> hold;
  const T* src = detail::host_dense(x, hold);
  device_tensor<T, R> d(x.shape(), uninitialized);
  const std::size_t bytes = detail::device_bytes(d.size(), sizeof(T));
  kernels::dev::copy(d.data(), src, bytes, kernels::dev::copy_kind::host_to_device, nullptr);
  detail::log_copy("h2d", bytes, "to_device " + detail::to_string(x.shape()));
  return d;
}

/// Copies device memory (a device tensor, view or expression, evaluated on the device) to a new
/// row-major host tensor: one device-to-host transfer.
template <expression X>
auto to_host(const X& x) {
  static_assert(space_v<X> == memory_space::device,
                "lz::to_host: the operand is not on the device");
  using T = value_t<X>;
  constexpr std::size_t R = rank_v<X>;
  tensor<T, R> h(x.shape(), uninitialized);
  const std::size_t bytes = detail::device_bytes(h.size(), sizeof(T));
  const T* src = nullptr;
  device_tensor<T, R> packed;
  if constexpr (detail::is_kind_v<X, detail::leaf_kind>)
    if (detail::is_dense_row_major(x.layout())) src = x.data();
  if (!src) { // pack on the device first (a strided view or an expression)
    packed = eval(device, x);
    src = packed.data();
  }
  kernels::dev::copy(h.data(), src, bytes, kernels::dev::copy_kind::device_to_host, nullptr);
  detail::log_copy("d2h", bytes, "to_host " + detail::to_string(x.shape()));
  return h;
}

/// Copies `src` into `dst` of the same shape, in any direction: host → device, device → host,
/// device → device (a device loop), host → host (lz::assign). Strided destinations are filled
/// where they live; one contiguous transfer crosses between host and device.
template <expression S, class D>
void copy(const S& src, D&& dst) {
  using DV = decltype(dst.view());
  using T = typename DV::value_type;
  constexpr std::size_t R = DV::rank;
  static_assert(rank_v<S> == R, "lz::copy: source and destination ranks differ");
  if (src.shape() != dst.shape())
    throw shape_error("lz::copy: shapes " + detail::to_string(src.shape()) + " and " +
                      detail::to_string(dst.shape()) + " differ");
  constexpr bool src_dev = space_v<S> == memory_space::device;
  constexpr bool dst_dev = space_v<D> == memory_space::device;
  const std::size_t bytes = detail::device_bytes(dst.size(), sizeof(T));
  if constexpr (src_dev && dst_dev) {
    detail::device_assign_with<detail::assign_op::set>(device, device_view{dst.view()}, src);
  } else if constexpr (!src_dev && !dst_dev) {
    lz::assign(dst, src);
  } else if constexpr (dst_dev) { // host → device
    tensor<T, R> hold;
    const T* h = nullptr;
    if constexpr (std::is_same_v<value_t<S>, T>)
      h = detail::host_dense(src, hold);
    else
      h = detail::host_dense(lz::cast<T>(src), hold);
    auto dv = device_view{dst.view()};
    if (detail::is_dense_row_major(dv.layout())) {
      kernels::dev::copy(dv.data(), h, bytes, kernels::dev::copy_kind::host_to_device, nullptr);
    } else { // one transfer into a pooled temporary, then a device loop scatters it
      detail::device_temps temps(nullptr);
      T* t = static_cast<T*>(temps.get(bytes));
      kernels::dev::copy(t, h, bytes, kernels::dev::copy_kind::host_to_device, nullptr);
      detail::device_assign_with<detail::assign_op::set>(
          device, dv,
          device_view<const T, R>(t, strided_layout<R>::right(dst.shape()), detail::trusted));
    }
    detail::log_copy("h2d", bytes, "copy into " + to_string(dv.layout()));
  } else { // device → host
    const T* s = nullptr;
    device_tensor<T, R> packed;
    if constexpr (detail::is_kind_v<S, detail::leaf_kind> && std::is_same_v<value_t<S>, T>)
      if (detail::is_dense_row_major(src.layout())) s = src.data();
    if (!s) {
      packed = device_tensor<T, R>(lz::cast<T>(src));
      s = packed.data();
    }
    auto hv = tensor_view{dst.view()};
    if (detail::is_dense_row_major(hv.layout())) {
      kernels::dev::copy(hv.data(), s, bytes, kernels::dev::copy_kind::device_to_host, nullptr);
    } else {
      tensor<T, R> h(dst.shape(), uninitialized);
      kernels::dev::copy(h.data(), s, bytes, kernels::dev::copy_kind::device_to_host, nullptr);
      lz::assign(hv, h);
    }
    detail::log_copy("d2h", bytes, "copy into " + to_string(hv.layout()));
  }
}

} // namespace lz
