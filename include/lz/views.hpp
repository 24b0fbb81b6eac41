// Views that never copy: transpose/permute, slice/row/col/diagonal, broadcast_to, reshape.
// On a tensor (lvalue) or a view they return a tensor_view (writable when the tensor is);
// on an rvalue tensor or an expression tree they return a node that owns/holds its operand,
// so `auto e = lz::transpose(lz::eval(a + b));` never dangles.
#pragma once

#include <lz/expr/nodes.hpp>
#include <lz/layout/slice.hpp>
#include <lz/tensor.hpp>

namespace lz {
namespace detail {

// Lvalue tensors and views of any kind: these become views.
template <class X>
struct as_view_t {
  static constexpr bool ok = false;
};
template <class T, std::size_t R>
struct as_view_t<tensor<T, R>&> {
  static constexpr bool ok = true;
  using type = tensor_view<T, R>;
};
template <class T, std::size_t R>
struct as_view_t<const tensor<T, R>&> {
  static constexpr bool ok = true;
  using type = tensor_view<const T, R>;
};
template <class X>
requires requires {
  typename std::remove_cvref_t<X>::element_type;
} && std::is_same_v<
    std::remove_cvref_t<X>,
    tensor_view<typename std::remove_cvref_t<X>::element_type, std::remove_cvref_t<X>::rank>>
struct as_view_t<X> {
  static constexpr bool ok = true;
  using type = std::remove_cvref_t<X>;
};

template <class X>
concept viewable = as_view_t<X&&>::ok;

template <class X>
auto as_view(X&& x) {
  return typename as_view_t<X&&>::type(x.view());
}

/// A view W of v's memory at `p` laid out as `l`, carrying v's lifetime number where v has one
/// (host views; checked builds test it at evaluation).
template <class W, class V, class P, std::size_t R2>
W derived_view(const V& v, P* p, const strided_layout<R2>& l) {
  if constexpr (requires { v.lz_serial(); })
    return W(p, l, trusted, v.lz_serial());
  else
    return W(p, l, trusted);
}

template <class V, std::size_t R2>
auto with_layout(const V& v, const strided_layout<R2>& l, index_t offset = 0) {
  return derived_view<typename V::template rebind<typename V::element_type, R2>>(
      v, v.data() + offset, l);
}

template <std::size_t R>
std::array<std::size_t, R> reversed_dims() {
  std::array<std::size_t, R> p{};
  for (std::size_t k = 0; k < R; ++k) p[k] = R - 1 - k;
  return p;
}

} // namespace detail

/// Reorders dimensions: result dim k is input dim perm[k]. A view for tensors and views.
template <class X>
requires expression<X>
auto permute(X&& x, const std::array<std::size_t, rank_v<X>>& perm) {
  if constexpr (detail::viewable<X>) {
    auto v = detail::as_view(std::forward<X>(x));
    return detail::with_layout(v, permute_layout(v.layout(), perm));
  } else {
    constexpr std::size_t R = rank_v<X>;
    const auto s = x.shape();
    shape_t<R> ps{};
    (void)permute_layout(strided_layout<R>{s, {}}, perm); // validates perm
    for (std::size_t k = 0; k < R; ++k) ps[k] = s[perm[k]];
    return permute_expr<closure_t<X&&>>{make_closure(std::forward<X>(x)), perm, ps};
  }
}

/// Inserts a dimension of extent 1 before dimension `axis` (0 <= axis <= rank; NumPy's
/// expand_dims, `x[:, None]` for axis 1): a view for tensors and views, a node for trees.
/// `lz::expand_dims(v, 1)` of a vector of n is an n x 1 column that broadcasts across columns.
template <expression X>
auto expand_dims(X&& x, std::size_t axis) {
  constexpr std::size_t R = rank_v<X>;
  if constexpr (detail::viewable<X>) {
    if (axis > R) detail::throw_bad_axis("expand_dims", axis, R + 1);
    auto v = detail::as_view(std::forward<X>(x));
    strided_layout<R + 1> l;
    for (std::size_t k = 0, j = 0; k <= R; ++k) {
      const bool fresh = k == axis;
      l.extents[k] = fresh ? 1 : v.layout().extents[j];
      l.strides[k] = fresh ? 0 : v.layout().strides[j++];
    }
    return detail::with_layout(v, l);
  } else {
    return detail::expand_dims_expr(std::forward<X>(x), axis);
  }
}

/// Transpose: reverses the dimensions (rows <-> columns for a matrix). Never copies.
template <expression X>
auto transpose(X&& x) {
  return permute(std::forward<X>(x), detail::reversed_dims<rank_v<X>>());
}

/// Transpose of a fixed-size tensor or fixed view: a fixed view with the layout reversed at
/// compile time (so `lz::transpose(A) * B` stays a fixed-size tree, evaluated inline).
template <expression X>
requires detail::fixed_leaf<X>
auto transpose(X&& x LZ_LIFETIMEBOUND) {
  using L = std::remove_cvref_t<X>;
  constexpr std::size_t R = rank_v<L>;
  using T = std::remove_pointer_t<decltype(x.data())>;
  return fixed_view<T, R, detail::reversed(L::static_layout.extents),
                    detail::reversed(L::static_layout.strides)>(x.data());
}

/// Slicing view: one argument per dimension (index, lz::range, lz::all).
template <expression X, slice_arg... S>
requires(sizeof...(S) == rank_v<X>) auto slice(X&& x, const S&... s) {
  static_assert(detail::viewable<X>,
                "lz::slice needs a tensor or a view; evaluate an expression first (lz::eval)");
  auto v = detail::as_view(std::forward<X>(x));
  auto [off, l] = slice_layout(v.layout(), s...);
  return detail::with_layout(v, l, off);
}

/// Row i of a matrix, as a vector view.
template <matrix_expression X>
auto row(X&& x, index_t i) {
  return slice(std::forward<X>(x), i, all);
}
/// Column j of a matrix, as a (strided) vector view.
template <matrix_expression X>
auto col(X&& x, index_t j) {
  return slice(std::forward<X>(x), all, j);
}
/// Main diagonal of a matrix, as a vector view with stride s0 + s1.
template <matrix_expression X>
auto diagonal(X&& x) {
  static_assert(detail::viewable<X>, "lz::diagonal needs a tensor or a view");
  auto v = detail::as_view(std::forward<X>(x));
  const auto& l = v.layout();
  strided_layout<1> d;
  d.extents[0] = l.extents[0] < l.extents[1] ? l.extents[0] : l.extents[1];
  d.strides[0] = l.strides[0] + l.strides[1];
  return detail::with_layout(v, d);
}

/// Broadcasts to `shape` (NumPy: trailing dims align; extent-1 and new dims get stride 0).
/// On tensors and views: a read-only view. `lz::broadcast_to(bias, {m, n})`.
template <expression X, std::size_t R2>
auto broadcast_to(X&& x, const shape_t<R2>& to) {
  constexpr std::size_t R = rank_v<X>;
  static_assert(R2 >= R, "lz::broadcast_to cannot lower the rank");
  if constexpr (detail::viewable<X>) {
    auto v = detail::as_view(std::forward<X>(x));
    using T = std::remove_const_t<typename decltype(v)::element_type>;
    using W = typename decltype(v)::template rebind<const T, R2>;
    return detail::derived_view<W>(v, v.data(), broadcast_layout(v.layout(), to));
  } else {
    (void)broadcast_layout(strided_layout<R>{x.shape(), {}}, to); // checks compatibility
    return broadcast_expr<closure_t<X&&>, R2>{make_closure(std::forward<X>(x)), to};
  }
}
template <expression X, std::size_t R2>
auto broadcast_to(X&& x, const index_t (&to)[R2]) {
  shape_t<R2> s{};
  for (std::size_t k = 0; k < R2; ++k) s[k] = to[k];
  return broadcast_to(std::forward<X>(x), s);
}

/// Reshape without copying; throws layout_error when the layout cannot be reshaped (evaluate
/// first, `lz::reshape(lz::eval(x), ...)`, which moves rather than copies).
template <expression X, std::size_t R2>
auto reshape(X&& x, const shape_t<R2>& to) {
  if constexpr (detail::viewable<X>) {
    auto v = detail::as_view(std::forward<X>(x));
    return detail::with_layout(v, reshape_layout(v.layout(), to));
  } else {
    static_assert(std::is_same_v<std::remove_cvref_t<X>, tensor<value_t<X>, rank_v<X>>> &&
                      !std::is_lvalue_reference_v<X>,
                  "lz::reshape needs a tensor or a view; evaluate an expression first");
    auto l = reshape_layout(x.layout(), to);
    const std::uint64_t serial = x.lz_serial();
    return tensor<value_t<X>, R2>(detail::adopt_buffer, x.release(), l, serial);
  }
}
template <expression X, std::size_t R2>
auto reshape(X&& x, const index_t (&to)[R2]) {
  shape_t<R2> s{};
  for (std::size_t k = 0; k < R2; ++k) s[k] = to[k];
  return reshape(std::forward<X>(x), s);
}

} // namespace lz
