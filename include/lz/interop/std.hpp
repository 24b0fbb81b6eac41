// Zero-copy interop with the standard library: std::vector as a vector (or matrix, tensor)
// view, and any mdspan-like object (std::mdspan, Kokkos mdspan, a hand-written one) as a
// strided view; the reverse, lz::to_mdspan<M>(view). Nothing here copies elements; the adopted
// object must outlive the view. Sits beside construct.hpp's lz::adopt(ptr, shape[, strides]).
#pragma once

#include <lz/construct.hpp>
#include <lz/views.hpp>

#include <array>
#include <concepts>
#include <vector>

namespace lz {

// ---- std::vector ---------------------------------------------------------------------------

namespace detail {
template <class T, std::size_t R, class L>
tensor_view<T, R> adopt_shaped(T* data, std::size_t size, const shape_t<R>& s, L) {
  const strided_layout<R> l =
      std::is_same_v<L, layout_left_t> ? strided_layout<R>::left(s) : strided_layout<R>::right(s);
  if (l.size() != index_t(size))
    throw shape_error("lz::adopt: a vector of " + std::to_string(size) +
                      " elements cannot be viewed as shape " + to_string(s));
  return tensor_view<T, R>(data, l);
}
} // namespace detail

/// A std::vector as a vector view (writable for a non-const vector). The vector must outlive
/// the view and not reallocate meanwhile; adopting a temporary vector does not compile.
template <element T, class A>
requires(!std::is_same_v<T, bool>) tensor_view<T, 1> adopt(std::vector<T, A>& v) {
  return tensor_view<T, 1>(v.data(), strided_layout<1>::right({index_t(v.size())}));
}
template <element T, class A>
requires(!std::is_same_v<T, bool>) tensor_view<const T, 1> adopt(const std::vector<T, A>& v) {
  return tensor_view<const T, 1>(v.data(), strided_layout<1>::right({index_t(v.size())}));
}
/// A std::vector as a tensor of the given shape, row-major (or column-major with
/// lz::layout_left): `lz::adopt(v, {m, n})`. Throws shape_error unless the sizes agree.
template <element T, class A, std::size_t R, class L = layout_right_t>
requires(!std::is_same_v<T, bool> &&
         (std::is_same_v<L, layout_right_t> || std::is_same_v<L, layout_left_t>))
    tensor_view<T, R> adopt(std::vector<T, A>& v, const index_t (&shape)[R], L = {}) {
  return detail::adopt_shaped<T>(v.data(), v.size(), detail::to_shape(shape), L{});
}
template <element T, class A, std::size_t R, class L = layout_right_t>
requires(!std::is_same_v<T, bool> &&
         (std::is_same_v<L, layout_right_t> || std::is_same_v<L, layout_left_t>))
    tensor_view<const T, R> adopt(const std::vector<T, A>& v, const index_t (&shape)[R], L = {}) {
  return detail::adopt_shaped<const T>(v.data(), v.size(), detail::to_shape(shape), L{});
}
/// Adopting a temporary vector would dangle.
template <class T, class A, class... S>
void adopt(std::vector<T, A>&&, S&&...) = delete;

// ---- mdspan --------------------------------------------------------------------------------

/// What lazuli needs from an mdspan-like type M (std::mdspan with layout_right, layout_left or
/// layout_stride and the default accessor; Kokkos' mdspan; your own): a constexpr static
/// rank(), extents(), extent(r), data_handle() giving an element pointer, and a strided mapping,
/// mapping().stride(r). (C++23's std::mdspan is not in g++ 12; tests use a look-alike.)
template <class M>
concept mdspan_like = !expression<M> && requires(const M& m, std::size_t r) {
  typename M::element_type;
  {std::integral_constant<std::size_t, M::rank()>::value};
  m.extents();
  { m.extent(r) } -> std::convertible_to<index_t>;
  { m.data_handle() } -> std::convertible_to<typename M::element_type*>;
}
&&(M::rank() == 0 || requires(const M& m, std::size_t r) {
  { m.mapping().stride(r) } -> std::convertible_to<index_t>;
});

/// An mdspan-like object as a strided view with the same extents, strides and elements (const
/// element types give read-only views). A writable view of overlapping elements (layout_stride
/// with a 0 stride) is a layout_error; adopt a const mdspan for that.
template <class M>
requires mdspan_like<std::remove_cvref_t<M>>
auto adopt(M&& m) {
  using MD = std::remove_cvref_t<M>;
  using T = typename MD::element_type;
  constexpr std::size_t R = MD::rank();
  strided_layout<R> l;
  for (std::size_t k = 0; k < R; ++k) {
    l.extents[k] = static_cast<index_t>(m.extent(k));
    l.strides[k] = static_cast<index_t>(m.mapping().stride(k));
  }
  return tensor_view<T, R>(m.data_handle(), l);
}

/// The reverse: a view (or lvalue tensor) as an mdspan-like M, e.g.
/// `lz::to_mdspan<std::mdspan<double, std::dextents<std::size_t, 2>, std::layout_stride>>(v)`.
/// M is built from (data_handle, mapping); the mapping from (extents, strides) when it takes
/// them (layout_stride), else from the extents alone (layout_right/left), checked to give the
/// view's strides. Throws layout_error for negative strides (mdspan has none) or a mapping
/// whose strides differ from the view's.
template <class M, class X>
requires(mdspan_like<M>&& detail::viewable<X>) M to_mdspan(X&& x) {
  const auto v = detail::as_view(std::forward<X>(x));
  constexpr std::size_t R = M::rank();
  static_assert(R == rank_v<decltype(v)>, "lz::to_mdspan: ranks differ");
  using mapping_type = typename M::mapping_type;
  using extents_type = typename M::extents_type;
  using I = typename extents_type::index_type;
  std::array<I, R> e{}, s{};
  for (std::size_t k = 0; k < R; ++k) {
    if (v.stride(k) < 0)
      throw layout_error("lz::to_mdspan: layout " + to_string(v.layout()) +
                         " has a negative stride; mdspan strides are non-negative");
    e[k] = static_cast<I>(v.extent(k));
    s[k] = static_cast<I>(v.stride(k));
  }
  const extents_type ext(e);
  const mapping_type map = [&] {
    if constexpr (std::is_constructible_v<mapping_type, extents_type, std::array<I, R>>)
      return mapping_type(ext, s);
    else
      return mapping_type(ext);
  }();
  for (std::size_t k = 0; k < R; ++k)
    if (v.extent(k) > 1 && static_cast<index_t>(map.stride(k)) != v.stride(k))
      throw layout_error("lz::to_mdspan: layout " + to_string(v.layout()) +
                         " does not fit the mdspan's layout; use a layout_stride mdspan");
  return M(v.data(), map);
}

} // namespace lz
