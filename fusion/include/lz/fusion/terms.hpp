// Additive term analysis shared by the product rules (gemm, gemv, sum of products):
//   e = Σ coefᵢ·termᵢ   through +, -, unary -, and scalar * or / (scalars gathered from
//   anywhere: 2*(A*(3*B)), -(A*B), (A*B)/4). A product term is a matmul node or the transpose
//   of one, or a sparse product (spmul: lowered by sparse.hpp; `A + D` makes A one too, op(A)·I).
//   `lower_terms` then writes the non-product terms into the destination first (or folds a lone
//   `c·dst` term into β, in place), and every product with β = 1 after the first: C = 2·A·B + 3·C
//   is ONE gemm(α=2, β=3); A·B + D·E
//   + C is gemm(β=1) twice after one copy.
#pragma once

#include <lz/fusion/sparse.hpp>

namespace lz::fusion {
namespace detail_terms {

template <class E>
using K = lz::detail::kind_t<E>;

template <class E>
constexpr bool is_product_term() {
  if constexpr (is_matmul_v<std::remove_cvref_t<E>> || is_spmul_v<std::remove_cvref_t<E>>)
    return true;
  else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind>)
    return is_matmul_v<std::remove_cvref_t<decltype(std::declval<E>().arg)>>;
  else
    return false;
}

// A sparse operand added as a dense term (`A + D`): op(A)·I.
template <class E>
constexpr bool is_sparse_add_term() {
  if constexpr (is_spmul_v<std::remove_cvref_t<E>>)
    return is_sparse_identity_v<std::remove_cvref_t<decltype(std::declval<E>().rhs)>>;
  else
    return false;
}

template <class F, class E>
constexpr bool is_map_of() {
  if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>)
    return []<class G, class... A>(const map_expr<G, A...>*) {
      return std::is_same_v<G, F>;
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else
    return false;
}

template <class E, std::size_t I>
using arg_t = std::remove_cvref_t<decltype(lz::detail::get<I>(std::declval<E>().args))>;

template <class E>
constexpr bool is_scalar() {
  return std::is_same_v<K<E>, lz::detail::scalar_kind>;
}

// Which additive shape a node has (for both the compile-time counts and the run-time walk).
enum class shape_kind { sum, difference, negation, scaled_left, scaled_right, divided, term };

template <class E>
constexpr shape_kind shape_of() {
  if constexpr (is_map_of<fn::plus_fn, E>())
    return shape_kind::sum;
  else if constexpr (is_map_of<fn::minus_fn, E>())
    return shape_kind::difference;
  else if constexpr (is_map_of<fn::negate_fn, E>())
    return shape_kind::negation;
  else if constexpr (is_map_of<fn::multiplies_fn, E>()) {
    if constexpr (is_scalar<arg_t<E, 0>>() && !is_scalar<arg_t<E, 1>>())
      return shape_kind::scaled_left;
    else if constexpr (is_scalar<arg_t<E, 1>>() && !is_scalar<arg_t<E, 0>>())
      return shape_kind::scaled_right;
    else
      return shape_kind::term;
  } else if constexpr (is_map_of<fn::divides_fn, E>()) {
    if constexpr (is_scalar<arg_t<E, 1>>() && !is_scalar<arg_t<E, 0>>() &&
                  !std::is_integral_v<value_t<E>>)
      return shape_kind::divided;
    else
      return shape_kind::term;
  } else
    return shape_kind::term;
}

struct counts {
  int products = 0, others = 0, product_rank = 0;
  int leaves = 0;  // other terms that are memory leaves
  int sparse = 0;  // products with a sparse operand (counted in `products` too)
  int scatter = 0; // sparse operands added as dense terms (op(A)·I; counted in `sparse` too)
};

template <class E>
constexpr counts count() {
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum || k == shape_kind::difference) {
    constexpr counts a = count<arg_t<E, 0>>(), b = count<arg_t<E, 1>>();
    return {a.products + b.products,
            a.others + b.others,
            a.product_rank ? a.product_rank : b.product_rank,
            a.leaves + b.leaves,
            a.sparse + b.sparse,
            a.scatter + b.scatter};
  } else if constexpr (k == shape_kind::negation || k == shape_kind::scaled_right ||
                       k == shape_kind::divided)
    return count<arg_t<E, 0>>();
  else if constexpr (k == shape_kind::scaled_left)
    return count<arg_t<E, 1>>();
  else if constexpr (is_product_term<E>())
    return {1,
            0,
            int(rank_v<E>),
            0,
            is_spmul_v<std::remove_cvref_t<E>> ? 1 : 0,
            is_sparse_add_term<E>() ? 1 : 0};
  else
    return {0, 1, 0, std::is_same_v<K<E>, lz::detail::leaf_kind> ? 1 : 0};
}

/// Every product term of E's additive structure has element type V.
template <class V, class E>
constexpr bool products_of_type() {
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum || k == shape_kind::difference)
    return products_of_type<V, arg_t<E, 0>>() && products_of_type<V, arg_t<E, 1>>();
  else if constexpr (k == shape_kind::negation || k == shape_kind::scaled_right ||
                     k == shape_kind::divided)
    return products_of_type<V, arg_t<E, 0>>();
  else if constexpr (k == shape_kind::scaled_left)
    return products_of_type<V, arg_t<E, 1>>();
  else if constexpr (is_product_term<E>())
    return std::is_same_v<value_t<E>, V>;
  else
    return true;
}

} // namespace detail_terms

/// Product terms in e's additive structure, other terms, and the rank of the products.
template <class E>
inline constexpr detail_terms::counts term_counts_v = detail_terms::count<E>();

/// Calls f(term, coef) for each additive term of e.
template <class V, class E, class F>
void for_each_term(const E& e, const V& coef, F&& f) {
  using namespace detail_terms;
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum) {
    for_each_term(lz::detail::get<0>(e.args), coef, f);
    for_each_term(lz::detail::get<1>(e.args), coef, f);
  } else if constexpr (k == shape_kind::difference) {
    for_each_term(lz::detail::get<0>(e.args), coef, f);
    for_each_term(lz::detail::get<1>(e.args), V(-coef), f);
  } else if constexpr (k == shape_kind::negation) {
    for_each_term(lz::detail::get<0>(e.args), V(-coef), f);
  } else if constexpr (k == shape_kind::scaled_left) {
    for_each_term(lz::detail::get<1>(e.args), V(coef * V(lz::detail::get<0>(e.args).value)), f);
  } else if constexpr (k == shape_kind::scaled_right) {
    for_each_term(lz::detail::get<0>(e.args), V(coef * V(lz::detail::get<1>(e.args).value)), f);
  } else if constexpr (k == shape_kind::divided) {
    for_each_term(lz::detail::get<0>(e.args), V(coef / V(lz::detail::get<1>(e.args).value)), f);
  } else {
    f(e, coef);
  }
}

/// The sum of e's non-product terms, with their coefficients, as an expression (a product-free
/// tree of e's shape). @pre term_counts_v<E>.others > 0.
template <class E>
auto other_terms(const E& e) {
  using namespace detail_terms;
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum || k == shape_kind::difference) {
    constexpr bool left = count<arg_t<E, 0>>().others > 0;
    constexpr bool right = count<arg_t<E, 1>>().others > 0;
    if constexpr (left && right) {
      using F = std::conditional_t<k == shape_kind::sum, fn::plus_fn, fn::minus_fn>;
      return make_map(F::name, F{}, other_terms(lz::detail::get<0>(e.args)),
                      other_terms(lz::detail::get<1>(e.args)));
    } else if constexpr (left) {
      return other_terms(lz::detail::get<0>(e.args));
    } else if constexpr (k == shape_kind::sum) {
      return other_terms(lz::detail::get<1>(e.args));
    } else {
      return make_map("-", fn::negate_fn{}, other_terms(lz::detail::get<1>(e.args)));
    }
  } else if constexpr (k == shape_kind::negation) {
    return make_map("-", fn::negate_fn{}, other_terms(lz::detail::get<0>(e.args)));
  } else if constexpr (k == shape_kind::scaled_left) {
    return make_map("*", fn::multiplies_fn{}, lz::detail::get<0>(e.args),
                    other_terms(lz::detail::get<1>(e.args)));
  } else if constexpr (k == shape_kind::scaled_right || k == shape_kind::divided) {
    using F = std::conditional_t<k == shape_kind::divided, fn::divides_fn, fn::multiplies_fn>;
    return make_map(F::name, F{}, other_terms(lz::detail::get<0>(e.args)),
                    lz::detail::get<1>(e.args));
  } else {
    static_assert(!is_product_term<E>(), "other_terms: e has no other terms");
    return e;
  }
}

/// Calls v(leaf) for every memory leaf under e, descending into products and reductions.
template <class E, class F>
void for_each_leaf_deep(const E& e, F&& v) {
  using K = lz::detail::kind_t<E>;
  if constexpr (std::is_same_v<K, lz::detail::leaf_kind>)
    v(e);
  else if constexpr (std::is_same_v<K, lz::detail::map_kind>)
    for_each_arg(e, [&](const auto& c) { for_each_leaf_deep(c, v); });
  else if constexpr (std::is_same_v<K, lz::detail::sparse_kind>) // a sparse operand's values
    for_each_leaf_deep(e.values_expr(), v);
  else if constexpr (requires { e.lhs, e.rhs; }) { // products, solves
    for_each_leaf_deep(e.lhs, v);
    for_each_leaf_deep(e.rhs, v);
  } else if constexpr (requires { e.arg; })
    for_each_leaf_deep(e.arg, v);
}

/// Any memory leaf under e shares bytes with dst.
template <template <class, std::size_t> class View, class T, std::size_t R, class E>
bool touches_dst(View<T, R> dst, const E& e) {
  const lz::detail::byte_span d = lz::detail::span_of(dst.data(), dst.layout());
  bool hit = false;
  for_each_leaf_deep(e, [&](const auto& leaf) {
    hit = hit || lz::detail::spans_overlap(d, lz::detail::span_of(leaf.data(), leaf.layout()));
  });
  return hit;
}

/// Lowers dst ⊕= e (⊕ ∈ {=, +=, -=}; e a sum of product terms and other terms) into
/// gemm/gemv/syrk steps and at most one loop. Returns false, doing nothing, when it does not
/// apply (products that read the destination, other element types, a broadcast result); the
/// nested rule then takes over.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
bool lower_terms(Sink& s, const P& pol, View<T, R> dst, const E& e, const char* rule) {
  using lz::detail::assign_op;
  if constexpr (R == 0 || !(Op == assign_op::set || Op == assign_op::add || Op == assign_op::sub)) {
    return false;
  } else {
    if (dst.shape() != e.shape()) return false;
    const T sign = Op == assign_op::sub ? T(-1) : T(1);
    bool ok = true;
    int others = 0;        // non-product terms of e
    bool dst_term = false; // one of them is c·dst, at the same position
    T beta{};
    for_each_term(e, sign, [&](const auto& term, const T& coef) {
      using X = std::remove_cvref_t<decltype(term)>;
      if constexpr (detail_terms::is_product_term<X>()) {
        if (!std::is_same_v<value_t<X>, T> || touches_dst(dst, term)) {
          if (s.noting())
            s.note({rule, " rule skipped: ",
                    std::is_same_v<value_t<X>, T>
                        ? "a product operand overlaps the destination"
                        : "the product's element type differs from the destination's"});
          ok = false;
        }
      } else {
        ++others;
        if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::leaf_kind> &&
                      std::is_same_v<value_t<X>, T>) {
          if (term.data() == dst.data() && term.layout() == dst.layout()) {
            dst_term = true;
            beta = coef;
          }
        }
      }
    });
    if (!ok) return false;
    const mat<T> C = mat_of_dst(dst, s.origin_of(dst.data()));
    if (Op != assign_op::set && others == 0) {
      beta = T(1); // C ⊕= products: accumulate in place
    } else if (Op == assign_op::set && others == 1 && dst_term) {
      if (s.noting()) s.note({rule, ": the destination term folds into beta (in place)"});
    } else if (others > 0) {
      // Write the other terms first (one loop; aliasing handled there), then accumulate.
      if constexpr (term_counts_v<E>.others > 0) plan_assign<Op>(s, pol, dst, other_terms(e));
      beta = T(1);
    } else {
      beta = T(0);
    }
    for_each_term(e, sign, [&](const auto& term, const T& coef) {
      using X = std::remove_cvref_t<decltype(term)>;
      if constexpr (detail_terms::is_product_term<X>()) {
        lower_product<T>(s, pol, rule, term, C, coef, beta);
        beta = T(1);
      }
    });
    return true;
  }
}

namespace rules {
/// What the product-term rules (gemm, gemv, sum of products) share: each selects a tree by its
/// own `matches<E>` and lowers it through lower_terms under its own name.
template <class Rule>
struct product_terms_rule {
  static constexpr bool always = false; ///< apply declines when lower_terms does
  template <class T, std::size_t R, class E>
  static constexpr bool selects = Rule::template matches<E>;
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    return lower_terms<Op>(s, pol, dst, e, Rule::name);
  }
};
} // namespace rules

} // namespace lz::fusion
