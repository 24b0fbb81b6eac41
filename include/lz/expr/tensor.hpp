// lz::tensor (owning, value semantics, 64-byte aligned) and lz::tensor_view (non-owning,
// strided). These are the leaves of every expression tree. Assignment from an expression is
// declared (expr/fwd.hpp) and called here, and defined by the engine (evaluate.hpp); users
// include <lz/tensor.hpp>, which brings both.
#pragma once

#include <lz/config.hpp>
#include <lz/expr/fwd.hpp>
#include <lz/layout/layout.hpp>
#include <lz/layout/slice.hpp>
#include <lz/memory.hpp>

#include <complex>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace lz {

/// Tag: construct without initialising the elements.
struct uninitialized_t {};
inline constexpr uninitialized_t uninitialized{};

/// Element types lazuli stores: arithmetic types, bool and std::complex.
template <class T>
concept element = std::is_trivially_copyable_v<T> &&
    (std::is_arithmetic_v<T> || detail::is_complex_v<T>);

namespace detail {

// Error paths compiled once (kernels/common/errors.cpp).
/// shape_error: a ragged nested initializer list (`got` entries at `depth`, `expected` wanted).
[[noreturn]] void throw_ragged(index_t expected, std::size_t depth, std::size_t got);
/// layout_error: a null data pointer with a non-empty shape extents[0..rank).
[[noreturn]] void throw_null_data(const index_t* extents, std::size_t rank);

// Nested initializer lists of depth R: {{1, 2}, {3, 4}} for a matrix.
template <class T, std::size_t R>
struct nested_list {
  using type = std::initializer_list<typename nested_list<T, R - 1>::type>;
};
template <class T>
struct nested_list<T, 1> {
  using type = std::initializer_list<T>;
};
struct no_list {};
template <class T>
struct nested_list<T, 0> { // rank-0 tensors have no list constructor
  using type = no_list;
};

template <class X>
concept layout_tag = std::is_same_v<X, layout_right_t> || std::is_same_v<X, layout_left_t> ||
    std::is_same_v<X, padded>;

// (extent, ..., extent, layout tag): the argument list of tensor(m, n, lz::layout_left).
template <class... A>
inline constexpr bool extents_then_layout = [] {
  constexpr std::size_t n = sizeof...(A);
  std::size_t k = 0;
  bool ok = true;
  ((ok = ok && (++k < n ? std::is_integral_v<A> : layout_tag<A>)), ...);
  return ok;
}();

template <class T, std::size_t R, class L>
void nested_shape(const L& list, shape_t<R>& s, std::size_t depth) {
  s[depth] = static_cast<index_t>(list.size());
  if constexpr (!std::is_same_v<L, std::initializer_list<T>>) {
    if (list.size()) nested_shape<T, R>(*list.begin(), s, depth + 1);
  }
}
template <class T, std::size_t R, class L>
void nested_copy(const L& list, const shape_t<R>& s, std::size_t depth, T*& out) {
  if (static_cast<index_t>(list.size()) != s[depth]) throw_ragged(s[depth], depth, list.size());
  if constexpr (std::is_same_v<L, std::initializer_list<T>>) {
    for (const T& v : list) *out++ = v;
  } else {
    for (const auto& sub : list) nested_copy<T, R>(sub, s, depth + 1, out);
  }
}

} // namespace detail

/// Element access, shape queries and slicing shared by tensor and tensor_view (CRTP).
template <class Derived, class T, std::size_t R>
class strided_access {
  LZ_HD const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

 public:
  using value_type = std::remove_const_t<T>;
  static constexpr std::size_t rank = R;

  const shape_t<R>& shape() const noexcept { return self().layout().extents; }
  const shape_t<R>& strides() const noexcept { return self().layout().strides; }
  index_t extent(std::size_t k) const noexcept { return self().layout().extents[k]; }
  /// mdspan vocabulary (docs/interop.md): stride of dimension k in elements, the layout as the
  /// mapping, data_handle() in each class. (`rank` is a value here, lz::rank_v, not rank().)
  index_t stride(std::size_t k) const noexcept { return self().layout().strides[k]; }
  const strided_layout<R>& mapping() const noexcept { return self().layout(); }
  index_t size() const noexcept { return self().layout().size(); }
  bool empty() const noexcept { return size() == 0; }
  /// For matrices: rows() == extent(0), cols() == extent(1).
  index_t rows() const noexcept requires(R == 2) { return extent(0); }
  index_t cols() const noexcept requires(R == 2) { return extent(1); }

  /// Unchecked element access: t(i, j).
  template <std::integral... I>
  requires(sizeof...(I) == R) LZ_HD T& operator()(I... i) const noexcept {
    return self().data()[self().layout().offset(i...)];
  }

  /// Checked element access; throws std::out_of_range naming the index and extent.
  template <std::integral... I>
  requires(sizeof...(I) == R) T& at(I... i) const {
    index_t idx[] = {static_cast<index_t>(i)...};
    for (std::size_t k = 0; k < R; ++k)
      if (idx[k] < 0 || idx[k] >= extent(k)) detail::throw_index(idx[k], extent(k), k);
    return (*this)(i...);
  }

  /// Slicing view: one argument per dimension, each an index, lz::range or lz::all.
  /// `A(lz::range(0, n, 2), lz::all)` (an index drops its dimension).
  template <slice_arg... S>
  requires(sizeof...(S) == R &&
           !(std::integral<std::remove_cvref_t<S>> && ...)) tensor_view<T, sliced_rank_v<S...>>
  operator()(const S&... s) const {
    auto [off, l] = slice_layout(self().layout(), s...);
    return tensor_view<T, sliced_rank_v<S...>>(self().data() + off, l, detail::trusted,
                                               self().lz_serial());
  }
};

/// Non-owning strided view of elements of type T (const T for read-only). Copying a view is
/// cheap and shallow; assigning to a view writes its elements (as with an Eigen Block).
template <class T, std::size_t R>
class tensor_view : public strided_access<tensor_view<T, R>, T, R> {
  T* data_ = nullptr;
  strided_layout<R> layout_{};
  std::uint64_t serial_ = 0; // the viewed tensor buffer's lifetime number (0: not tracked)

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr std::size_t rank = R;
  /// The same kind of view over elements U with rank R2 (views.hpp builds views through it, so
  /// transpose/slice/broadcast of a device view stay device views).
  template <class U, std::size_t R2>
  using rebind = tensor_view<U, R2>;

  tensor_view() = default;
  tensor_view(const tensor_view&) = default;

  /// View of `data` with layout `l` (element 0 at `data`). Validates the layout; a writable
  /// view must not map two indices to one element.
  tensor_view(T* data, const strided_layout<R>& l) : data_(data), layout_(l) {
    layout_.validate(!std::is_const_v<T>);
    if (!data && !layout_.empty()) detail::throw_null_data(l.extents.data(), R);
  }
  /// Internal: a layout derived from a valid one (slices, transposes) needs no re-validation.
  tensor_view(T* data, const strided_layout<R>& l, detail::trusted_t) noexcept
      : data_(data), layout_(l) {}
  /// Internal: the same, into a tensor buffer whose lifetime number is `serial` (0: none).
  tensor_view(T* data, const strided_layout<R>& l, detail::trusted_t, std::uint64_t serial) noexcept
      : data_(data), layout_(l), serial_(serial) {}

  /// A view of mutable elements converts to a read-only view.
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
      tensor_view(const tensor_view<U, R>& v)
  noexcept : data_(v.data()), layout_(v.layout()), serial_(v.lz_serial()) {}

  LZ_HD T* data() const noexcept { return data_; }
  T* data_handle() const noexcept { return data_; }
  LZ_HD const strided_layout<R>& layout() const noexcept { return layout_; }
  tensor_view view() const noexcept { return *this; }
  /// Lifetime number of the tensor buffer viewed (0 when untracked: views of user memory, or
  /// lifetime tracking off). Checked builds test it at evaluation (docs/errors.md, "Lifetimes").
  std::uint64_t lz_serial() const noexcept { return serial_; }

  /// Writes the elements of `e` (broadcast to this shape) into the viewed memory.
  tensor_view& operator=(const tensor_view& v) requires(!std::is_const_v<T>) {
    detail::assign_to<detail::assign_op::set>(*this, v);
    return *this;
  }
  template <class E>
  requires(!std::is_const_v<T> && expression_or_scalar<E>) tensor_view& operator=(const E& e) {
    detail::assign_to<detail::assign_op::set>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator+=(const E& e) {
    detail::assign_to<detail::assign_op::add>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator-=(const E& e) {
    detail::assign_to<detail::assign_op::sub>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator*=(const E& e) {
    detail::assign_to<detail::assign_op::mul>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator/=(const E& e) {
    detail::assign_to<detail::assign_op::div>(*this, e);
    return *this;
  }
};

/// Owning tensor with value semantics: copy is deep, move is cheap, storage 64-byte aligned
/// and zero-initialised unless constructed with lz::uninitialized. Row-major by default;
/// column-major (lz::layout_left) and padded (lz::padded) on request. A tensor is a
/// contiguous range over its storage (std::span{t}, std::ranges algorithms).
template <class T, std::size_t R>
class tensor : public strided_access<tensor<T, R>, T, R> {
  static_assert(element<T>, "lz::tensor elements must be arithmetic, bool or std::complex");
  T* data_ = nullptr;
  strided_layout<R> layout_{};
  std::uint64_t serial_ = 0; // lifetime number of data_ (detail::allocate_tensor_bytes)
  // How storage is laid out when the shape changes (resize, assigning another shape): row- or
  // column-major, leading dimension padded to `multiple` (1 = none). Kept apart from the
  // strides, which cannot tell for vector-shaped or empty tensors (a 1 x n or 0 x 0
  // column-major matrix has row-major strides too).
  padded kind_{1, false};

  void allocate(const strided_layout<R>& l) {
    layout_ = l;
    const index_t span = l.required_span_size();
    detail::checked_mul(span, static_cast<index_t>(sizeof(T)), "tensor size in bytes");
    data_ = static_cast<T*>(
        detail::allocate_tensor_bytes(static_cast<std::size_t>(span) * sizeof(T), serial_));
  }
  void allocate_zero(const strided_layout<R>& l) {
    allocate(l);
    if (data_) std::memset(static_cast<void*>(data_), 0, span_bytes());
  }
  std::size_t span_bytes() const noexcept {
    return static_cast<std::size_t>(layout_.required_span_size()) * sizeof(T);
  }
  static padded kind_of(layout_right_t) noexcept { return {1, false}; }
  static padded kind_of(layout_left_t) noexcept { return {1, true}; }
  static padded kind_of(padded p) noexcept {
    const index_t m = p.multiple > 0 ? p.multiple : static_cast<index_t>(alignment / sizeof(T));
    return {m > 0 ? m : 1, p.column_major};
  }
  static padded kind_of(const strided_layout<R>& l) noexcept {
    return {1, R >= 2 && l.is_column_major() && !l.is_row_major()};
  }
  static strided_layout<R> layout_of(const shape_t<R>& s, padded k) {
    return strided_layout<R>::padded_layout(s, k.multiple, k.column_major);
  }
  template <class L>
  static strided_layout<R> make_layout(const shape_t<R>& s, L tag) {
    return layout_of(s, kind_of(tag));
  }

 public:
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  using iterator = T*;
  using const_iterator = const T*;
  static constexpr std::size_t rank = R;

  /// Empty tensor (all extents 0).
  tensor() noexcept = default;

  /// Zero-filled tensor of the given extents: `lz::matrix<double> A(m, n)`.
  template <std::integral... I>
  requires(sizeof...(I) == R) explicit tensor(I... extents)
      : tensor(shape_t<R>{static_cast<index_t>(extents)...}) {}
  /// Zero-filled with an explicit layout: `lz::matrix<double> M(m, n, lz::layout_left)`.
  template <class... A>
  requires(sizeof...(A) == R + 1 && detail::extents_then_layout<A...>) tensor(A... args) {
    shape_t<R> s{};
    std::size_t k = 0;
    strided_layout<R> l;
    (
        [&](const auto& a) {
          if constexpr (std::is_integral_v<std::remove_cvref_t<decltype(a)>>)
            s[k++] = static_cast<index_t>(a);
          else {
            l = make_layout(s, a); // the tag comes last, after every extent
            kind_ = kind_of(a);
          }
        }(args),
        ...);
    allocate_zero(l);
  }

  explicit tensor(const shape_t<R>& s) { allocate_zero(make_layout(s, layout_right)); }
  template <class L>
  requires(std::is_same_v<L, layout_right_t> || std::is_same_v<L, layout_left_t> ||
           std::is_same_v<L, padded>) tensor(const shape_t<R>& s, L l)
      : kind_(kind_of(l)) {
    allocate_zero(make_layout(s, l));
  }
  /// Filled with `value`.
  tensor(const shape_t<R>& s, T value) : tensor(s, uninitialized) { fill(value); }
  /// Storage left uninitialised (for code that writes every element next).
  tensor(const shape_t<R>& s, uninitialized_t) { allocate(make_layout(s, layout_right)); }
  template <class L>
  tensor(const shape_t<R>& s, L l, uninitialized_t) : kind_(kind_of(l)) {
    allocate(make_layout(s, l));
  }
  /// Same shape and layout as `l` (padding included), uninitialised.
  tensor(const strided_layout<R>& l, uninitialized_t) : kind_(kind_of(l)) {
    l.validate(true);
    if (l.min_offset() != 0) throw layout_error("lz: owning tensors need non-negative strides");
    allocate(l);
  }

  /// Internal: takes ownership of a buffer from lz::detail::allocate_bytes laid out as `l`
  /// (with its lifetime number, when it was a tensor's: see release()).
  tensor(detail::adopt_buffer_t, T* buffer, const strided_layout<R>& l,
         std::uint64_t serial = 0) noexcept
      : data_(buffer), layout_(l), serial_(serial), kind_(kind_of(l)) {}

  /// Nested initializer lists: `lz::matrix<double> M{{1, 2}, {3, 4}};`
  tensor(typename detail::nested_list<T, R>::type list) requires(R > 0) {
    shape_t<R> s{};
    detail::nested_shape<T, R>(list, s, 0);
    allocate(make_layout(s, layout_right));
    T* out = data_;
    try {
      detail::nested_copy<T, R>(list, s, 0, out);
    } catch (...) {
      detail::free_bytes(data_);
      data_ = nullptr;
      serial_ = 0;
      throw;
    }
  }

  /// Evaluates an expression into a new tensor (one fused pass; see evaluate.hpp). A rank
  /// mismatch is a static_assert rather than a constraint, so that `lz::matrix<double> B = x;`
  /// fails with lazuli's one-line message instead of "conversion ... requested".
  template <expression E>
  requires(!std::is_same_v<std::remove_cvref_t<E>, tensor>) tensor(const E& e) {
    static_assert(rank_v<E> == R, "lz: the expression's rank differs from the destination's rank");
    if constexpr (rank_v<E> == R) detail::construct_from(*this, e);
  }

  tensor(const tensor& o) : kind_(o.kind_) {
    allocate(o.layout_);
    if (data_) std::memcpy(static_cast<void*>(data_), o.data_, span_bytes());
  }
  tensor(tensor&& o) noexcept
      : data_(o.data_), layout_(o.layout_), serial_(o.serial_), kind_(o.kind_) {
    o.data_ = nullptr;
    o.layout_ = {};
    o.serial_ = 0;
  }
  ~tensor() { detail::free_bytes(data_); }

  tensor& operator=(tensor&& o) noexcept {
    if (this != &o) {
      detail::free_bytes(data_);
      data_ = o.data_;
      layout_ = o.layout_;
      serial_ = o.serial_;
      kind_ = o.kind_;
      o.data_ = nullptr;
      o.layout_ = {};
      o.serial_ = 0;
    }
    return *this;
  }
  /// Copy assignment: reuses the storage when the shape matches, else reallocates.
  tensor& operator=(const tensor& o) {
    if (this != &o) detail::assign_resize(*this, o);
    return *this;
  }
  /// Assigning an expression resizes to its shape (reusing storage when it matches), then
  /// evaluates it as one fused pass; aliasing (A = transpose(A) + B) is handled.
  template <class E>
  requires(expression<E> && !std::is_same_v<std::remove_cvref_t<E>, tensor>) tensor&
  operator=(const E& e) {
    detail::assign_resize(*this, e);
    return *this;
  }
  /// Assigning a scalar fills every element.
  template <class S>
  requires(scalar_like<S>) tensor& operator=(const S& s) {
    fill(static_cast<T>(s));
    return *this;
  }
  template <expression_or_scalar E>
  tensor& operator+=(const E& e) {
    detail::assign_to<detail::assign_op::add>(view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor& operator-=(const E& e) {
    detail::assign_to<detail::assign_op::sub>(view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor& operator*=(const E& e) {
    detail::assign_to<detail::assign_op::mul>(view(), e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor& operator/=(const E& e) {
    detail::assign_to<detail::assign_op::div>(view(), e);
    return *this;
  }

  LZ_HD T* data() noexcept { return data_; }
  LZ_HD const T* data() const noexcept { return data_; }
  T* data_handle() noexcept { return data_; }
  const T* data_handle() const noexcept { return data_; }
  LZ_HD const strided_layout<R>& layout() const noexcept { return layout_; }
  /// Lifetime number of the storage (0 when lifetime tracking is off; docs/errors.md).
  std::uint64_t lz_serial() const noexcept { return serial_; }

  /// Mutable and read-only views of the whole tensor. Clang warns (-Wdangling,
  /// -Wreturn-stack-address) where it sees one outlive the tensor.
  tensor_view<T, R> view() & noexcept LZ_LIFETIMEBOUND {
    return {data_, layout_, detail::trusted, serial_};
  }
  tensor_view<const T, R> view() const& noexcept LZ_LIFETIMEBOUND {
    return {data_, layout_, detail::trusted, serial_};
  }
  operator tensor_view<T, R>() & noexcept LZ_LIFETIMEBOUND { return view(); }
  operator tensor_view<const T, R>() const& noexcept LZ_LIFETIMEBOUND { return view(); }
  // A view of a temporary tensor dangles when the statement ends (its storage is freed): view(),
  // slicing and the conversion are compile errors on rvalues. Keep the tensor in a variable.
  void view() && = delete;
  void view() const&& = delete;
  operator tensor_view<T, R>() && = delete;
  operator tensor_view<const T, R>() const&& = delete;

  /// Element access through the const tensor yields const elements.
  template <std::integral... I>
  requires(sizeof...(I) == R) T& operator()(I... i) noexcept { return data_[layout_.offset(i...)]; }
  template <std::integral... I>
  requires(sizeof...(I) == R) const T& operator()(I... i) const noexcept {
    return data_[layout_.offset(i...)];
  }
  template <std::integral... I>
  requires(sizeof...(I) == R) T& at(I... i) { return view().at(i...); }
  template <std::integral... I>
  requires(sizeof...(I) == R) const T& at(I... i) const { return view().at(i...); }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
      operator()(const S&... s) &
      LZ_LIFETIMEBOUND {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) const& LZ_LIFETIMEBOUND {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) void
  operator()(const S&... s) const&& = delete; // a slice of a temporary tensor dangles

  /// Storage as a contiguous range (row-major order for the default layout; padding included
  /// for padded layouts).
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + layout_.required_span_size(); }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + layout_.required_span_size(); }

  /// Gives up ownership of the storage (free it with lz::detail::free_bytes); leaves the
  /// tensor empty. Used by plans that keep temporaries alive.
  [[nodiscard]] T* release() noexcept {
    T* p = data_;
    data_ = nullptr;
    layout_ = {};
    serial_ = 0;
    return p;
  }

  void fill(T value) noexcept {
    T* p = data_;
    for (index_t i = 0, n = layout_.required_span_size(); i < n; ++i) p[i] = value;
  }

  /// Reallocates to shape `s` (keeping this layout kind) when the shape differs; the
  /// contents are unspecified afterwards.
  void resize(const shape_t<R>& s) {
    if (s == layout_.extents) return;
    const strided_layout<R> l = layout_of(s, kind_);
    if (l.required_span_size() == layout_.required_span_size() && data_) {
      layout_ = l;
      return;
    }
    tensor t(s, kind_, uninitialized);
    *this = std::move(t);
  }

  /// How new storage is laid out when the shape changes (resize, `t = expr` of another shape):
  /// row- or column-major (`column_major`) with the leading dimension padded to `multiple`
  /// elements (1: not padded), as the tensor was constructed.
  padded layout_kind() const noexcept { return kind_; }
};

/// Vectors and matrices are tensors of rank 1 and 2.
template <class T>
using vector = tensor<T, 1>;
template <class T>
using matrix = tensor<T, 2>;
template <class T>
using vector_view = tensor_view<T, 1>;
template <class T>
using matrix_view = tensor_view<T, 2>;

} // namespace lz
