// Zero-copy interop with Eigen (optional header: needs Eigen 3.3+, included first or on the
// include path). Eigen keeps its own layout: column-major by default, RowMajor on request,
// blocks and maps with their strides; lazuli views take any strides, so both directions are a
// pointer plus strides, never a copy:
//   lz::adopt(E)     Matrix / Array / Map / Ref / Block (anything with direct access)
//                    -> tensor_view<T, 2> (rank 1 for compile-time vectors), const T when E is
//                    read-only. Adopting a temporary Matrix does not compile (it would dangle).
//   lz::to_eigen(v)  rank-2 view -> Eigen::Map<Matrix<T, Dynamic, Dynamic, Order>, Unaligned,
//                    Stride<Dynamic, Dynamic>> (Order: RowMajor by default, as lazuli's
//                    tensors; ColMajor on request); rank-1 view -> Map<Matrix<T, Dynamic, 1>,
//                    Unaligned, InnerStride<Dynamic>>.
#pragma once

#if !__has_include(<Eigen/Core>)
#error                                                                                             \
    "lz/interop/eigen.hpp needs Eigen 3.3 or later (<Eigen/Core>): install libeigen3-dev, or add Eigen's include directory (find_package(Eigen3) gives Eigen3::Eigen)"
#endif

#include <Eigen/Core>

#include <lz/tensor.hpp>
#include <lz/views.hpp>

namespace lz {
namespace detail {

template <class X>
using eigen_t = std::remove_cvref_t<X>;

// Eigen objects whose elements sit in memory with a pointer and two strides.
template <class X>
concept eigen_direct = std::is_base_of_v<Eigen::DenseBase<eigen_t<X>>, eigen_t<X>> &&
                       (int(eigen_t<X>::Flags) & Eigen::DirectAccessBit) != 0;

// Eigen objects that own their elements (Matrix, Array).
template <class X>
concept eigen_owner = std::is_base_of_v<Eigen::PlainObjectBase<eigen_t<X>>, eigen_t<X>>;

} // namespace detail

/// An Eigen matrix, array, map, ref or block as a view of the same memory: element (i, j) at
/// data() + i·rowstride + j·colstride, read from Eigen's inner/outer strides and storage order.
/// Compile-time vectors (VectorXd, RowVectorXd, a column or row) give rank-1 views.
template <class X>
requires detail::eigen_direct<X> &&
    (!(detail::eigen_owner<X> && std::is_rvalue_reference_v<X&&>)) auto adopt(X&& x) {
  using E = detail::eigen_t<X>;
  using T = std::remove_pointer_t<decltype(x.data())>; // const Scalar when read-only
  const index_t inner = x.innerStride(), outer = x.outerStride();
  if constexpr (E::IsVectorAtCompileTime) {
    return tensor_view<T, 1>(x.data(), strided_layout<1>{{index_t(x.size())}, {inner}});
  } else {
    strided_layout<2> l;
    l.extents = {index_t(x.rows()), index_t(x.cols())};
    l.strides = E::IsRowMajor ? shape_t<2>{outer, inner} : shape_t<2>{inner, outer};
    return tensor_view<T, 2>(x.data(), l);
  }
}

/// Eigen's Map over a view (or an lvalue tensor) of rank 1 or 2: same pointer, same strides
/// (negative and 0 strides included), writable unless the view is read-only.
template <int Order = Eigen::RowMajor, class X>
requires(detail::viewable<X> && (rank_v<X> == 1 || rank_v<X> == 2)) auto to_eigen(X&& x) {
  const auto v = detail::as_view(std::forward<X>(x));
  using T = typename decltype(v)::element_type;
  using S = std::remove_const_t<T>;
  constexpr auto R = rank_v<X>;
  if constexpr (R == 1) {
    using M = Eigen::Matrix<S, Eigen::Dynamic, 1>;
    using Map = Eigen::Map<std::conditional_t<std::is_const_v<T>, const M, M>, Eigen::Unaligned,
                           Eigen::InnerStride<Eigen::Dynamic>>;
    return Map(v.data(), v.extent(0), Eigen::InnerStride<Eigen::Dynamic>(v.stride(0)));
  } else {
    static_assert(Order == Eigen::RowMajor || Order == Eigen::ColMajor);
    using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Order>;
    using Map = Eigen::Map<std::conditional_t<std::is_const_v<T>, const M, M>, Eigen::Unaligned,
                           Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
    // Eigen's outer stride steps along rows (RowMajor) or columns (ColMajor).
    const index_t outer = Order == Eigen::RowMajor ? v.stride(0) : v.stride(1);
    const index_t inner = Order == Eigen::RowMajor ? v.stride(1) : v.stride(0);
    return Map(v.data(), v.extent(0), v.extent(1),
               Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(outer, inner));
  }
}

} // namespace lz
