// Operands of BLAS steps: peel scalar factors and transposes off a product operand (Eigen's
// blas_traits idea) so `2*(A*(3*Bᵀ))` reaches dgemm as α=6, B with trans=T, no copy; turn what
// remains into a strided `mat`; derive CBLAS order/trans/ld from strides (trans flags come from
// the layout, never from a copy); and, when a layout cannot go to BLAS, decide between lazuli's
// own any-stride kernel (small products, integer types) and a copy into a BLAS layout.
#pragma once

#include <lz/fusion/plan.hpp>

namespace lz::fusion {

namespace detail_operands {

template <class E>
using K = lz::detail::kind_t<E>;

template <class E>
constexpr bool is_scalar() {
  return std::is_same_v<K<E>, lz::detail::scalar_kind>;
}

// The scalar factors and transposes peeled off an operand, and what is left.
template <class E, class V>
const auto& peel(const E& e, V& scale, bool& trans) {
  if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) -> const auto& {
      if constexpr (sizeof...(A) == 2) {
        using A0 = std::tuple_element_t<0, std::tuple<A...>>;
        using A1 = std::tuple_element_t<1, std::tuple<A...>>;
        if constexpr (std::is_same_v<F, fn::multiplies_fn> && is_scalar<A0>() && !is_scalar<A1>()) {
          scale = scale * V(lz::detail::get<0>(m.args).value);
          return peel(lz::detail::get<1>(m.args), scale, trans);
        } else if constexpr (std::is_same_v<F, fn::multiplies_fn> && is_scalar<A1>() &&
                             !is_scalar<A0>()) {
          scale = scale * V(lz::detail::get<1>(m.args).value);
          return peel(lz::detail::get<0>(m.args), scale, trans);
        } else if constexpr (std::is_same_v<F, fn::divides_fn> && is_scalar<A1>() &&
                             !is_scalar<A0>() && !std::is_integral_v<V>) {
          scale = scale / V(lz::detail::get<1>(m.args).value);
          return peel(lz::detail::get<0>(m.args), scale, trans);
        } else {
          return m;
        }
      } else if constexpr (sizeof...(A) == 1 && std::is_same_v<F, fn::negate_fn>) {
        scale = -scale;
        return peel(lz::detail::get<0>(m.args), scale, trans);
      } else {
        return m;
      }
    }
    (e);
  } else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind> && rank_v<E> == 2) {
    if (e.perm[0] == 1) trans = !trans;
    return peel(e.arg, scale, trans);
  } else {
    return e;
  }
}

template <class E>
using peeled_t = std::remove_cvref_t<decltype(peel(
    std::declval<const E&>(), std::declval<double&>(), std::declval<bool&>()))>;

} // namespace detail_operands

/// A view as a mat (a vector becomes a column: rows = n, cols = 1).
template <class V, class L>
mat<const V> mat_of(const L& leaf, origin from = {}) {
  const auto& l = leaf.layout();
  if constexpr (rank_v<L> == 2)
    return {leaf.data(), l.extents[0], l.extents[1], l.strides[0], l.strides[1], from};
  else
    return {leaf.data(), l.extents[0], 1, l.strides[0], 1, from};
}

/// A mat as a read-only view of rank R (for copy loops), of the sink's view kind.
template <std::size_t R, class Sink, class V>
auto view_of(const Sink&, const mat<V>& m) {
  strided_layout<R> l;
  l.extents[0] = m.rows;
  l.strides[0] = m.rs;
  if constexpr (R == 2) {
    l.extents[1] = m.cols;
    l.strides[1] = m.cs;
  }
  return typename Sink::template view<const V, R>(m.ptr, l, lz::detail::trusted);
}

/// Writable mat of a destination view.
template <template <class, std::size_t> class View, class V, std::size_t R>
mat<V> mat_of_dst(View<V, R> d, origin from) {
  const auto& l = d.layout();
  if constexpr (R == 2)
    return {d.data(), l.extents[0], l.extents[1], l.strides[0], l.strides[1], from};
  else
    return {d.data(), l.extents[0], 1, l.strides[0], 1, from};
}

/// An evaluated operand: its scale and its strided memory (a user view or a temporary).
template <class V>
struct operand_ref {
  V scale{1};
  mat<const V> m;
};

/// Makes a product operand BLAS-ready: peels scalars and transposes; evaluates whatever else
/// (sums, functions, other element types) into a temporary of type V with one planned step.
template <class V, class Sink, class P, class E>
operand_ref<V> prepare_operand(Sink& s, const P& pol, const E& e, const char* rule) {
  operand_ref<V> r;
  bool trans = false;
  const auto& core = detail_operands::peel(e, r.scale, trans);
  using C = std::remove_cvref_t<decltype(core)>;
  if constexpr (std::is_same_v<detail_operands::K<C>, lz::detail::leaf_kind> &&
                std::is_same_v<value_t<C>, V>) {
    r.m = mat_of<V>(core, s.origin_of(core.data()));
  } else {
    if (s.noting())
      s.note({rule, ": operand of shape ", core.shape(),
              std::is_same_v<detail_operands::K<C>, lz::detail::leaf_kind>
                  ? " has another element type; converting it into a temporary"
                  : " is an expression; evaluating it into a temporary"});
    auto t = s.template temp<V, rank_v<C>>(core.shape(), "product operand");
    const int id = s.last_temp();
    plan_assign<lz::detail::assign_op::set>(s, pol, t, core);
    r.m = mat_of<V>(t, origin{id});
  }
  if (trans) r.m = r.m.transposed();
  return r;
}

/// CBLAS view of a matrix operand in a call of order `o`: trans flag and leading dimension,
/// or nothing when the strides cannot be expressed (non-unit in both directions, negative).
struct blas_view {
  bool ok = false;
  kernels::blas::trans t = kernels::blas::trans::none;
  index_t ld = 0;
};

namespace detail_operands {
// Leading dimension for "inner dim contiguous, outer dim at ld", or 0 when impossible. Extent-1
// dims impose nothing, so their strides never block BLAS.
inline index_t fits(index_t inner_stride, index_t outer_stride, index_t inner_ext,
                    index_t outer_ext) {
  if (inner_ext > 1 && inner_stride != 1) return 0;
  const index_t need = inner_ext > 1 ? inner_ext : 1;
  if (outer_ext <= 1) return need;
  return outer_stride >= need ? outer_stride : 0;
}
} // namespace detail_operands

template <class V>
blas_view blas_view_of(const mat<V>& a, kernels::blas::order o) {
  using detail_operands::fits;
  using kernels::blas::trans;
  const bool row = o == kernels::blas::order::row_major;
  // As stored (no transpose): row-major wants contiguous rows, column-major contiguous columns.
  if (index_t ld = row ? fits(a.cs, a.rs, a.cols, a.rows) : fits(a.rs, a.cs, a.rows, a.cols))
    return {true, trans::none, ld};
  if (index_t ld = row ? fits(a.rs, a.cs, a.rows, a.cols) : fits(a.cs, a.rs, a.cols, a.rows))
    return {true, trans::transpose, ld};
  return {};
}

/// Copies `m` into a fresh row-major temporary (one planned loop) and returns the copy.
template <class V, class Sink, class P>
mat<const V> copy_to_blas_layout(Sink& s, const P& pol, const mat<const V>& m, const char* what,
                                 const char* rule) {
  if (s.noting())
    s.note({rule, ": ", what, " has strides (", m.rs, ",", m.cs, ") BLAS cannot take; copying it (",
            detail_plan::byte_count{std::size_t(m.rows * m.cols) * sizeof(V)}, ") into row-major"});
  auto t = s.template temp<V, 2>({m.rows, m.cols}, what);
  const int id = s.last_temp();
  plan_assign<lz::detail::assign_op::set>(s, pol, t, view_of<2>(s, m));
  return mat_of<V>(t, origin{id});
}

} // namespace lz::fusion
