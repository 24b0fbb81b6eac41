// Device memory: lz::device_tensor<T, R> (owning, value semantics: copy = device-to-device deep
// copy) and lz::device_view<T, R> (non-owning, strided). They are expression leaves like
// lz::tensor and lz::tensor_view, with memory_space::device: mixing them with host operands in
// one expression is a compile error, and host element access is a compile error (copy with
// lz::to_host first). Views of device tensors (transpose, slice, broadcast_to, diagonal, row,
// col, reshape) are device views. Printing is the one implicit transfer: it copies the viewed
// span back. Thrust-free: g++ files of a CUDA build can allocate, view and raw-copy device
// tensors; evaluation (operator=, lz::assign, lz::eval) needs <lz/device/evaluate.hpp> (nvcc in
// a CUDA build). Why separate types rather than a memory-space parameter on lz::tensor:
// docs/architecture-device.md.
#pragma once

#include <lz/device/config.hpp>
#include <lz/device/policy.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/log.hpp>
#include <lz/lz.hpp>

#include <memory>
#include <type_traits>

namespace lz {

template <class T, std::size_t R>
class device_view;
template <class T, std::size_t R>
class device_tensor;

namespace detail {
template <class X>
inline constexpr bool is_device_view_v = false;
template <class T, std::size_t R>
inline constexpr bool is_device_view_v<device_view<T, R>> = true;
template <class X>
inline constexpr bool is_device_tensor_v = false;
template <class T, std::size_t R>
inline constexpr bool is_device_tensor_v<device_tensor<T, R>> = true;

// Defined in device/evaluate.hpp (they instantiate Thrust).
template <assign_op Op, class T, std::size_t R, class E>
void device_assign_with(const device_policy& pol, device_view<T, R> dst, const E& e);
template <class T, std::size_t R, class E>
void device_assign_resize(device_tensor<T, R>& dst, const E& e);

inline std::size_t device_bytes(index_t span, std::size_t esize) {
  return static_cast<std::size_t>(
      checked_mul(span, static_cast<index_t>(esize), "device tensor size in bytes"));
}
} // namespace detail

/// A destination the device backend writes: a device tensor or a mutable device view.
template <class D>
concept device_destination = detail::is_device_tensor_v<std::remove_cvref_t<D>> ||
    detail::is_device_view_v<std::remove_cvref_t<D>>;

/// An expression whose memory is on the device.
template <class E>
concept device_expression = expression<E> &&(space_v<E> == memory_space::device);

/// Non-owning strided view of device memory (elements T, const T for read-only).
template <class T, std::size_t R>
class device_view {
  T* data_ = nullptr;
  strided_layout<R> layout_{};

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr memory_space lz_space = memory_space::device;
  static constexpr std::size_t rank = R;
  template <class U, std::size_t R2>
  using rebind = device_view<U, R2>;

  device_view() = default;
  device_view(const device_view&) = default;
  /// View of device memory `data` (element 0) with layout `l`; validated like tensor_view.
  device_view(T* data, const strided_layout<R>& l) : data_(data), layout_(l) {
    layout_.validate(!std::is_const_v<T>);
    if (!data && !layout_.empty())
      throw layout_error("lz: null device pointer with non-empty shape " +
                         detail::to_string(l.extents));
  }
  device_view(T* data, const strided_layout<R>& l, detail::trusted_t) noexcept
      : data_(data), layout_(l) {}
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
      device_view(const device_view<U, R>& v)
  noexcept : data_(v.data()), layout_(v.layout()) {}

  T* data() const noexcept { return data_; }
  const strided_layout<R>& layout() const noexcept { return layout_; }
  const shape_t<R>& shape() const noexcept { return layout_.extents; }
  const shape_t<R>& strides() const noexcept { return layout_.strides; }
  index_t extent(std::size_t k) const noexcept { return layout_.extents[k]; }
  index_t size() const noexcept { return layout_.size(); }
  bool empty() const noexcept { return size() == 0; }
  index_t rows() const noexcept requires(R == 2) { return extent(0); }
  index_t cols() const noexcept requires(R == 2) { return extent(1); }
  device_view view() const noexcept { return *this; }

  /// Device memory has no host element access: copy to the host first.
  template <std::integral... I>
  requires(sizeof...(I) == R) void operator()(I...) const {
    static_assert(detail::dependent_false<T>,
                  "lz: device memory has no host element access; copy it with lz::to_host(d)");
  }
  /// Slicing: a device view, `d(lz::range(0, n, 2), lz::all)`.
  template <slice_arg... S>
  requires(sizeof...(S) == R &&
           !(std::integral<std::remove_cvref_t<S>> && ...)) device_view<T, sliced_rank_v<S...>>
  operator()(const S&... s) const {
    auto [off, l] = slice_layout(layout_, s...);
    return device_view<T, sliced_rank_v<S...>>(data_ + off, l, detail::trusted);
  }

  /// Writes `e` (evaluated on the device, synchronously) into the viewed memory.
  device_view& operator=(const device_view& v) requires(!std::is_const_v<T>) {
    detail::device_assign_with<detail::assign_op::set>(device, *this, v);
    return *this;
  }
  template <class E>
  requires(!std::is_const_v<T> && expression_or_scalar<E>) device_view& operator=(const E& e) {
    detail::device_assign_with<detail::assign_op::set>(device, *this, e);
    return *this;
  }
  template <expression_or_scalar E>
  device_view& operator+=(const E& e) {
    detail::device_assign_with<detail::assign_op::add>(device, *this, e);
    return *this;
  }
  template <expression_or_scalar E>
  device_view& operator-=(const E& e) {
    detail::device_assign_with<detail::assign_op::sub>(device, *this, e);
    return *this;
  }
  template <expression_or_scalar E>
  device_view& operator*=(const E& e) {
    detail::device_assign_with<detail::assign_op::mul>(device, *this, e);
    return *this;
  }
  template <expression_or_scalar E>
  device_view& operator/=(const E& e) {
    detail::device_assign_with<detail::assign_op::div>(device, *this, e);
    return *this;
  }
};

/// Owning device tensor: zero-filled unless constructed with lz::uninitialized, row-major by
/// default (lz::layout_left, lz::padded on request), storage from cudaMalloc (256-byte aligned).
/// Copy is a device-to-device deep copy; move is cheap. Assigning an expression evaluates it on
/// the device (lz::device, synchronous).
template <class T, std::size_t R>
class device_tensor {
  static_assert(std::is_arithmetic_v<T>,
                "lz::device_tensor elements must be arithmetic (bool, integers, float, double); "
                "complex elements are not supported on the device yet");
  T* data_ = nullptr;
  strided_layout<R> layout_{};

  void allocate(const strided_layout<R>& l) {
    const std::size_t bytes = detail::device_bytes(l.required_span_size(), sizeof(T));
    data_ = static_cast<T*>(kernels::dev::allocate(bytes));
    layout_ = l;
  }
  void allocate_zero(const strided_layout<R>& l) {
    allocate(l);
    kernels::dev::fill_zero(data_, span_bytes(), nullptr);
    kernels::dev::stream_sync(nullptr); // the default stream may not order with user streams
  }
  std::size_t span_bytes() const noexcept {
    return static_cast<std::size_t>(layout_.required_span_size()) * sizeof(T);
  }
  static strided_layout<R> make_layout(const shape_t<R>& s, layout_right_t) {
    return strided_layout<R>::right(s);
  }
  static strided_layout<R> make_layout(const shape_t<R>& s, layout_left_t) {
    return strided_layout<R>::left(s);
  }
  static strided_layout<R> make_layout(const shape_t<R>& s, padded p) {
    const index_t m = p.multiple > 0 ? p.multiple : index_t(256 / sizeof(T)); // 256 B rows
    return strided_layout<R>::padded_layout(s, m > 0 ? m : 1, p.column_major);
  }

 public:
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr memory_space lz_space = memory_space::device;
  static constexpr std::size_t rank = R;
  template <class U, std::size_t R2>
  using rebind = device_view<U, R2>;

  /// Empty tensor (no storage).
  device_tensor() noexcept = default;
  /// Zero-filled: `lz::device_tensor<double, 2> A(m, n)`.
  template <std::integral... I>
  requires(sizeof...(I) == R && R > 0) explicit device_tensor(I... extents)
      : device_tensor(shape_t<R>{static_cast<index_t>(extents)...}) {}
  explicit device_tensor(const shape_t<R>& s) { allocate_zero(make_layout(s, layout_right)); }
  template <class L>
  requires(std::is_same_v<L, layout_right_t> || std::is_same_v<L, layout_left_t> ||
           std::is_same_v<L, padded>) device_tensor(const shape_t<R>& s, L l) {
    allocate_zero(make_layout(s, l));
  }
  /// Storage left uninitialized.
  device_tensor(const shape_t<R>& s, uninitialized_t) { allocate(make_layout(s, layout_right)); }
  template <class L>
  device_tensor(const shape_t<R>& s, L l, uninitialized_t) {
    allocate(make_layout(s, l));
  }
  device_tensor(const strided_layout<R>& l, uninitialized_t) {
    l.validate(true);
    if (l.min_offset() != 0) throw layout_error("lz: owning tensors need non-negative strides");
    allocate(l);
  }
  /// Evaluates a device expression on the device: `lz::device_tensor<double, 1> z = 2.0 * x;`
  template <expression E>
  requires(!std::is_same_v<std::remove_cvref_t<E>, device_tensor> && rank_v<E> == R)
      device_tensor(const E& e) {
    static_assert(space_v<E> != memory_space::host,
                  "lz: a device tensor cannot be built from host memory implicitly; copy it "
                  "with lz::to_device(x)");
    device_tensor t(e.shape(), uninitialized);
    detail::device_assign_with<detail::assign_op::set>(device, t.view(), e);
    *this = std::move(t);
  }

  device_tensor(const device_tensor& o) {
    allocate(o.layout_);
    kernels::dev::copy(data_, o.data_, span_bytes(), kernels::dev::copy_kind::device_to_device,
                       nullptr);
    kernels::dev::stream_sync(nullptr); // usable from any stream when the constructor returns
  }
  device_tensor(device_tensor&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), layout_(std::exchange(o.layout_, {})) {}
  ~device_tensor() { kernels::dev::deallocate(data_); }

  device_tensor& operator=(device_tensor&& o) noexcept {
    if (this != &o) {
      kernels::dev::deallocate(data_);
      data_ = std::exchange(o.data_, nullptr);
      layout_ = std::exchange(o.layout_, {});
    }
    return *this;
  }
  device_tensor& operator=(const device_tensor& o) {
    if (this != &o) {
      if (layout_ == o.layout_ && data_) {
        kernels::dev::copy(data_, o.data_, span_bytes(), kernels::dev::copy_kind::device_to_device,
                           nullptr);
        kernels::dev::stream_sync(nullptr);
      } else {
        device_tensor t(o);
        *this = std::move(t);
      }
    }
    return *this;
  }
  /// Evaluates `e` on the device into this tensor (resized to e's shape when it differs).
  template <class E>
  requires(expression<E> && !std::is_same_v<std::remove_cvref_t<E>, device_tensor>) device_tensor&
  operator=(const E& e) {
    detail::device_assign_resize(*this, e);
    return *this;
  }
  /// Fills every element with a scalar (on the device).
  template <class S>
  requires(scalar_like<S>) device_tensor& operator=(const S& s) {
    detail::device_assign_with<detail::assign_op::set>(device, view(), static_cast<T>(s));
    return *this;
  }
  template <expression_or_scalar E>
  device_tensor& operator+=(const E& e) {
    detail::device_assign_with<detail::assign_op::add>(device, view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  device_tensor& operator-=(const E& e) {
    detail::device_assign_with<detail::assign_op::sub>(device, view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  device_tensor& operator*=(const E& e) {
    detail::device_assign_with<detail::assign_op::mul>(device, view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  device_tensor& operator/=(const E& e) {
    detail::device_assign_with<detail::assign_op::div>(device, view(), e);
    return *this;
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  const strided_layout<R>& layout() const noexcept { return layout_; }
  const shape_t<R>& shape() const noexcept { return layout_.extents; }
  const shape_t<R>& strides() const noexcept { return layout_.strides; }
  index_t extent(std::size_t k) const noexcept { return layout_.extents[k]; }
  index_t size() const noexcept { return layout_.size(); }
  bool empty() const noexcept { return size() == 0; }
  index_t rows() const noexcept requires(R == 2) { return extent(0); }
  index_t cols() const noexcept requires(R == 2) { return extent(1); }

  device_view<T, R> view() & noexcept { return {data_, layout_, detail::trusted}; }
  device_view<const T, R> view() const& noexcept { return {data_, layout_, detail::trusted}; }
  operator device_view<T, R>() & noexcept { return view(); }
  operator device_view<const T, R>() const& noexcept { return view(); }
  // A view of a temporary tensor dangles when the statement ends (its storage is freed): view(),
  // slicing and the conversion are compile errors on rvalues. Keep the tensor in a variable.
  void view() && = delete;
  void view() const&& = delete;
  operator device_view<T, R>() && = delete;
  operator device_view<const T, R>() const&& = delete;

  template <std::integral... I>
  requires(sizeof...(I) == R) void operator()(I...) const {
    static_assert(detail::dependent_false<T>,
                  "lz: device memory has no host element access; copy it with lz::to_host(d)");
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) & {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) const& {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) void
  operator()(const S&... s) const&& = delete; // a slice of a temporary tensor dangles

  /// Raw transfers of the whole storage (layout().required_span_size() elements, in storage
  /// order, padding included): the cudaMemcpy of lazuli. Shaped copies: lz::to_device,
  /// lz::to_host, lz::copy (device/copy.hpp).
  void copy_from_host(const T* src) {
    kernels::dev::copy(data_, src, span_bytes(), kernels::dev::copy_kind::host_to_device, nullptr);
  }
  void copy_to_host(T* dst) const {
    kernels::dev::copy(dst, data_, span_bytes(), kernels::dev::copy_kind::device_to_host, nullptr);
  }

  /// Reallocates to shape `s` (row-major) when the shape differs; contents unspecified after.
  void resize(const shape_t<R>& s) {
    if (s == layout_.extents && (data_ || layout_.empty())) return;
    device_tensor t(s, uninitialized);
    *this = std::move(t);
  }
  /// Gives up ownership (free with lz::kernels::dev::deallocate); leaves the tensor empty.
  [[nodiscard]] T* release() noexcept {
    layout_ = {};
    return std::exchange(data_, nullptr);
  }
};

template <class T>
using device_vector = device_tensor<T, 1>;
template <class T>
using device_matrix = device_tensor<T, 2>;

namespace detail {

// Closure rule for device leaves (see expr/nodes.hpp): lvalues are viewed, rvalues moved in.
template <class T, std::size_t R>
struct closure<device_tensor<T, R>&> {
  using type = device_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<const device_tensor<T, R>&> {
  using type = device_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<device_tensor<T, R>> {
  using type = device_tensor<T, R>;
};
template <class T, std::size_t R>
struct closure<const device_tensor<T, R>> {
  using type = device_view<const T, R>;
};
template <class X>
requires is_device_view_v<std::remove_cvref_t<X>>
struct closure<X> {
  using type =
      device_view<const typename std::remove_cvref_t<X>::value_type, std::remove_cvref_t<X>::rank>;
};

// Views of device tensors are device views (views.hpp).
template <class T, std::size_t R>
struct as_view_t<device_tensor<T, R>&> {
  static constexpr bool ok = true;
  using type = device_view<T, R>;
};
template <class T, std::size_t R>
struct as_view_t<const device_tensor<T, R>&> {
  static constexpr bool ok = true;
  using type = device_view<const T, R>;
};
template <class X>
requires is_device_view_v<std::remove_cvref_t<X>>
struct as_view_t<X> {
  static constexpr bool ok = true;
  using type = std::remove_cvref_t<X>;
};

} // namespace detail

/// Prints a device view NumPy-style. The one implicit transfer: the viewed span is copied back
/// (traced under LZ_LOG=copy).
template <class T, std::size_t R>
std::ostream& operator<<(std::ostream& os, const device_view<T, R>& v) {
  using V = std::remove_const_t<T>;
  const auto& l = v.layout();
  const index_t span = l.required_span_size();
  std::unique_ptr<V[]> buf(new V[static_cast<std::size_t>(span > 0 ? span : 1)]);
  if (span > 0)
    kernels::dev::copy(buf.get(), v.data() + l.min_offset(), std::size_t(span) * sizeof(V),
                       kernels::dev::copy_kind::device_to_host, nullptr);
  if (logging::on(logging::copy))
    logging::write(logging::copy, "d2h " + std::to_string(span * index_t(sizeof(V))) +
                                      " B to print " + to_string(l));
  detail::print_array(os, buf.get() - l.min_offset(), detail::dtype_of<V>(), int(R),
                      l.extents.data(), l.strides.data(), printoptions());
  return os;
}
template <class T, std::size_t R>
std::ostream& operator<<(std::ostream& os, const device_tensor<T, R>& t) {
  return os << t.view();
}

} // namespace lz
