// nested rule: products and reductions inside an elementwise tree.
//   relu(A·B + bias)  →  gemm(β=0) into dst;  dst = relu(dst + bias)   (one in-place pass)
// Each "group" — the largest additive subtree holding products (Σ coef·products + other terms),
// a product under a function, or a reduction — is planned on its own: into the destination when
// nothing in the tree reads the destination (the first group of the destination's shape and
// type), else into a temporary. A group's products of its own element type go straight to BLAS
// steps (the first with β = 0, the rest accumulating) and its other terms stay in the tree
// (`split_v`): the epilogue of a dense layer costs one pass, not a copy before the gemm and a
// pass after it. Any other group goes through the rule list. The tree, with each group replaced
// by a view of where it landed (plus the group's other terms), is then ONE in-place elementwise
// loop (map rule).
#pragma once

#include <lz/fusion/rules/gemm.hpp>
#include <lz/fusion/rules/gemv.hpp>
#include <lz/fusion/rules/sparse_add.hpp>
#include <lz/fusion/rules/spmm.hpp>
#include <lz/fusion/rules/spmv.hpp>
#include <lz/fusion/rules/sum_of_products.hpp>
#include <lz/fusion/terms.hpp>

namespace lz::fusion {
namespace detail_nested {

template <class E>
using K = lz::detail::kind_t<E>;

// Group: a node planned on its own (see the header).
template <class E>
constexpr bool is_group() {
  if constexpr (std::is_same_v<K<E>, lz::detail::opaque_kind>)
    return true;
  else if constexpr (detail_terms::is_product_term<E>())
    return true;
  else if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>)
    return detail_terms::shape_of<E>() != detail_terms::shape_kind::term &&
           term_counts_v<E>.products > 0;
  else
    return false;
}

// Top: E is the whole tree handed to lower_nested. A whole tree that is an elementwise group
// (a sum of products no product rule took: mixed element types, aliasing, layouts) is not its
// own group: planning it as one would hand it straight back here, forever. Its children are
// searched instead (its product terms become the groups).
template <class E, bool Top>
constexpr bool is_group_at() {
  return is_group<E>() && !(Top && std::is_same_v<K<E>, lz::detail::map_kind>);
}

// A group whose product terms go straight to BLAS steps while its other terms stay in the
// elementwise tree: an additive group (not a lone product) with other terms, whose products all
// have the group's element type and rank ≥ 1.
template <class E>
constexpr bool split_group() {
  if constexpr (!std::is_same_v<K<E>, lz::detail::map_kind> ||
                detail_terms::shape_of<E>() == detail_terms::shape_kind::term) {
    return false;
  } else {
    constexpr auto c = term_counts_v<E>;
    return c.products > 0 && c.others > 0 && c.product_rank > 0 &&
           detail_terms::products_of_type<value_t<E>, E>();
  }
}
template <class E>
inline constexpr bool split_v = split_group<std::remove_cvref_t<E>>();

template <class E, bool Top = false>
constexpr std::size_t count_groups() {
  if constexpr (is_group_at<E, Top>())
    return 1;
  else if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (std::size_t(0) + ... + count_groups<A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind> ||
                     std::is_same_v<K<E>, lz::detail::broadcast_kind>)
    return count_groups<decltype(std::declval<E>().arg)>();
  else
    return 0;
}

template <bool Top = false, class E, class F>
void for_each_group(const E& e, F&& f) {
  if constexpr (is_group_at<E, Top>())
    f(e);
  else if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>)
    for_each_arg(e, [&](const auto& c) { for_each_group(c, f); });
  else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind> ||
                     std::is_same_v<K<E>, lz::detail::broadcast_kind>)
    for_each_group(e.arg, f);
}

struct raw_view {
  const void* ptr = nullptr;
  index_t strides[max_rank] = {};
};

// e with group i replaced by a read-only view (of the sink's kind) of slots[i] (in
// for_each_group order).
template <class Sink, bool Top = false, class E>
auto substitute(const E& e, const raw_view* slots, std::size_t& i) {
  if constexpr (is_group_at<E, Top>()) {
    constexpr std::size_t R = rank_v<E>;
    const raw_view& r = slots[i++];
    strided_layout<R> l;
    for (std::size_t k = 0; k < R; ++k) {
      l.extents[k] = e.shape()[k];
      l.strides[k] = r.strides[k];
    }
    using V = value_t<E>;
    typename Sink::template view<const V, R> v(static_cast<const V*>(r.ptr), l,
                                               lz::detail::trusted);
    if constexpr (split_v<E>)
      return make_map("+", fn::plus_fn{}, std::move(v), other_terms(e));
    else
      return v;
  } else if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) {
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        using M = map_expr<F, decltype(substitute<Sink>(lz::detail::get<J>(m.args), slots, i))...>;
        return M{m.f, {{substitute<Sink>(lz::detail::get<J>(m.args), slots, i)}...}, m.shape_};
      }
      (std::index_sequence_for<A...>{});
    }(e);
  } else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind>) {
    auto a = substitute<Sink>(e.arg, slots, i);
    return permute_expr<decltype(a)>{std::move(a), e.perm, e.shape_};
  } else if constexpr (std::is_same_v<K<E>, lz::detail::broadcast_kind>) {
    auto a = substitute<Sink>(e.arg, slots, i);
    return broadcast_expr<decltype(a), rank_v<E>>{std::move(a), e.shape_};
  } else {
    return e;
  }
}

} // namespace detail_nested

/// Products/reductions anywhere in the tree: each group planned first, then one loop.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void lower_nested(Sink& s, const P& pol, View<T, R> dst, const E& e) {
  using namespace detail_nested;
  constexpr std::size_t N = count_groups<E, true>();
  raw_view slots[N];
  // The destination may hold one group when nothing in the tree reads it.
  bool dst_free = Op == lz::detail::assign_op::set && !touches_dst(dst, e);
  std::size_t i = 0;
  for_each_group<true>(e, [&](const auto& g) {
    using G = std::remove_cvref_t<decltype(g)>;
    using V = value_t<G>;
    constexpr std::size_t RG = rank_v<G>;
    bool into_dst = false;
    if constexpr (std::is_same_v<V, T> && RG == R) {
      into_dst = dst_free && g.shape() == dst.shape();
      dst_free = dst_free && !into_dst;
    }
    // (a view's operator= writes elements, so the view is initialised, never rebound.)
    using target_view = typename Sink::template view<V, RG>;
    const target_view target = [&] {
      if constexpr (std::is_same_v<V, T> && RG == R)
        if (into_dst) return target_view(dst.data(), dst.layout(), lz::detail::trusted);
      return s.template temp<V, RG>(g.shape(), "nested product/reduction");
    }();
    if (s.noting())
      s.note({"nested: ",
              into_dst ? "a group lands in the destination" : "a group lands in a temporary",
              " of shape ", g.shape()});
    if constexpr (split_v<G>) {
      // The group's products into the target (β = 0, then accumulating); its other terms are
      // added by the loop below (substitute).
      const mat<V> C = mat_of_dst(target, s.origin_of(target.data()));
      constexpr auto c = term_counts_v<G>;
      constexpr const char* rule = c.products > 1 ? rules::sum_of_products::name
                                   : c.scatter    ? rules::sparse_add::name
                                   : c.sparse ? (RG == 2 ? rules::spmm::name : rules::spmv::name)
                                   : RG == 2  ? rules::gemm::name
                                              : rules::gemv::name;
      if (s.noting())
        s.note({"nested: the group's other terms join the elementwise pass (product β = 0)"});
      V beta = V(0);
      for_each_term(g, V(1), [&](const auto& term, const V& coef) {
        if constexpr (detail_terms::is_product_term<std::remove_cvref_t<decltype(term)>>()) {
          lower_product<V>(s, pol, rule, term, C, coef, beta);
          beta = V(1);
        }
      });
    } else {
      plan_assign<lz::detail::assign_op::set>(s, pol, target, g);
    }
    raw_view& r = slots[i++];
    r.ptr = target.data();
    for (std::size_t k = 0; k < RG; ++k) r.strides[k] = target.layout().strides[k];
  });
  std::size_t j = 0;
  const auto e2 = substitute<Sink, true>(e, slots, j);
  plan_assign<Op>(s, pol, dst, e2);
}

namespace rules {
struct nested {
  static constexpr const char* name = "nested";
  static constexpr rule_id id = rule_id::nested;
  static constexpr bool always = true; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = detail_nested::count_groups<E>() > 0;
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    lower_nested<Op>(s, pol, dst, e);
    return true;
  }
};
} // namespace rules

} // namespace lz::fusion
