// Batches of fixed-size tensors in device memory: lz::device_batch<T, N...>, the device twin of
// lz::fixed_batch (lz/batch.hpp), element-major the same way. `Q = M * P;` over device batches is
// ONE kernel: a thread per item runs the item's fixed tree (expr/fixed.hpp, the `item` context),
// every element computed into registers before any is stored. Fixed tensors and scalars in the
// tree are copied into the kernel by value; reductions of fixed operands are computed on the host
// first. lz::to_device / lz::to_host copy whole batches.
#pragma once

#include <lz/batch.hpp>
#include <lz/device/copy.hpp>
#include <lz/device/tensor.hpp>
#include <lz/kernels/thrust/launch.hpp>

namespace lz {

template <class T, index_t... N>
class device_batch;

namespace detail::batch_eval {

/// One item per device thread: dst ⊕= tree for item b.
template <assign_op Op, class Shape, class T, class Tree> // (no array template arguments:
struct item_fn {                                          //  the type names a kernel)
  T* dst;
  index_t ps;
  Tree tree;
  LZ_HD void operator()(index_t b) const {
    items<Op, Shape::rank, Shape::extents>(dst, ps, tree, item{b});
  }
};

/// dst ⊕= e for the n items (of shape Shape, a fixed_shape) of a device batch: one
/// thrust::for_each_n over the items.
template <assign_op Op, class Shape, class T, class E>
void device_assign(const device_policy& pol, T* dst, index_t ps, index_t n, const E& e) {
  const auto tree = fixed_eval::capture(e);
  using Tree = std::remove_cvref_t<decltype(tree)>;
  static_assert(std::is_trivially_copyable_v<Tree>,
                "lz: internal: a device batch tree must be trivially copyable");
  if (n == 0) return;
  kernels::dev::with_policy(kernels::dev::exec{pol.stream}, "thrust::for_each_n (device batch)",
                            [&](auto&& p) {
                              ::thrust::for_each_n(p, ::thrust::counting_iterator<index_t>(0), n,
                                                   item_fn<Op, Shape, T, Tree>{dst, ps, tree});
                            });
  kernels::dev::count_launch();
  kernels::dev::check_launch("device batch launch");
  if (!pol.async) kernels::dev::stream_sync(pol.stream);
}

} // namespace detail::batch_eval

/// n fixed-size tensors of shape N... in device memory, element-major (element k of every item is
/// one contiguous plane). `Q = M * P;` runs one kernel, a thread per item; operands are device
/// batches of the same size, fixed tensors and scalars (copied into the kernel).
template <class T, index_t... N>
class device_batch : public detail::compound_assign<device_batch<T, N...>> {
  static_assert(element<T>, "lz::device_batch: the element type must be arithmetic or complex");

 public:
  using item_type = fixed_tensor<T, N...>;
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr memory_space lz_space = memory_space::device;
  static constexpr std::size_t rank = sizeof...(N);
  static constexpr shape_t<rank> static_extents{N...};
  static constexpr strided_layout<rank> static_layout = item_type::static_layout;
  using view_type =
      batch_view<T, fixed_shape<N...>, detail::right_strides_t<N...>, memory_space::device>;
  using const_view_type =
      batch_view<const T, fixed_shape<N...>, detail::right_strides_t<N...>, memory_space::device>;

  device_batch() : device_batch(0) {}
  /// n items, zeros.
  explicit device_batch(index_t n) : planes_(shape_t<2>{item_type::static_size, n}, padded()) {}
  /// n items left uninitialised.
  device_batch(index_t n, uninitialized_t)
      : planes_(shape_t<2>{item_type::static_size, n}, padded(), uninitialized) {}

  /// Evaluates `e` for every item on the device (lz::device: waits for the kernel).
  template <class E>
  requires(expression_or_scalar<E> &&
           !std::is_same_v<std::remove_cvref_t<E>, device_batch>) device_batch&
  operator=(const E& e) {
    assign<detail::assign_op::set>(device, e);
    return *this;
  }
  /// dst ⊕= e on lz::device (`+=`, `-=`, `*=`, `/=` call it).
  template <detail::assign_op Op, class E>
  device_batch& assign_by(const E& e) {
    assign<Op>(device, e);
    return *this;
  }
  /// The same under a policy (lz::device.on(stream) enqueues without waiting).
  template <detail::assign_op Op = detail::assign_op::set, class E>
  void assign(const device_policy& pol, const E& e) {
    if constexpr (scalar_like<E>) {
      detail::batch_eval::device_assign<Op, fixed_shape<N...>>(pol, data(), plane_stride(), size(),
                                                               scalar_expr<T>{static_cast<T>(e)});
    } else {
      static_assert(detail::static_shaped_v<E>,
                    "lz::device_batch: the expression must be over device batches, fixed-size "
                    "tensors and scalars only");
      static_assert(space_v<E> != memory_space::host,
                    "lz: a device batch expression reads a host batch; copy it with "
                    "lz::to_device(b)");
      detail::check_fixed_assignment<T, E, N...>();
      if constexpr (detail::fixed_assignable<T, E, N...>()) {
        detail::batch_eval::check_sizes(e, size());
        detail::batch_eval::device_assign<Op, fixed_shape<N...>>(pol, data(), plane_stride(),
                                                                 size(), e);
      }
    }
  }

  /// Items in the batch.
  index_t size() const noexcept { return planes_.extent(1); }
  static constexpr const shape_t<rank>& shape() noexcept { return static_extents; }
  static constexpr const strided_layout<rank>& layout() noexcept { return static_layout; }
  T* data() noexcept { return planes_.data(); }
  const T* data() const noexcept { return planes_.data(); }
  index_t plane_stride() const noexcept { return planes_.view().strides()[0]; }
  std::uint64_t lz_serial() const noexcept { return 0; }
  /// The storage: element k of item b is planes()(k, b) (a device matrix).
  device_view<T, 2> planes() noexcept { return planes_.view(); }
  device_view<const T, 2> planes() const noexcept { return planes_.view(); }

  view_type batch() noexcept { return view_type(data(), size(), plane_stride(), 0); }
  const_view_type batch() const noexcept {
    return const_view_type(data(), size(), plane_stride(), 0);
  }
  operator const_view_type() const noexcept { return batch(); }

 private:
  device_tensor<T, 2> planes_;
};

namespace detail {
template <class T, index_t... N>
struct static_shape_of<device_batch<T, N...>> : static_shape_of<fixed_batch<T, N...>> {};
template <class T, index_t... N>
struct closure<device_batch<T, N...>&> {
  using type = typename device_batch<T, N...>::const_view_type;
};
template <class T, index_t... N>
struct closure<const device_batch<T, N...>&> {
  using type = typename device_batch<T, N...>::const_view_type;
};
} // namespace detail

/// A host batch copied to the device (the planes, as they are).
template <class T, index_t... N>
device_batch<T, N...> to_device(const fixed_batch<T, N...>& b) {
  device_batch<T, N...> d(b.size(), uninitialized);
  copy(b.planes(), d.planes());
  return d;
}
/// A device batch copied to the host.
template <class T, index_t... N>
fixed_batch<T, N...> to_host(const device_batch<T, N...>& d) {
  fixed_batch<T, N...> b(d.size(), uninitialized);
  copy(d.planes(), b.planes());
  return b;
}

} // namespace lz
