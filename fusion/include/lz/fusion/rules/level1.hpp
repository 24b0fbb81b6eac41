// level-1 rules (BLAS 1 where it is faster than the fused loop; lz::thresholds().level1_blas):
//   axpy: y = a·x + y, y += a·x, y -= a·x   → one axpy, in place
//   scal: x = a·x, x *= a                    → one scal, in place
// Vectors with any non-zero stride, or matrices whose layout is contiguous and shared by both
// operands (they run as one flat vector). float and double only. Run by kernels/blas.
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct level1 {
  static constexpr const char* name = "level1";
  template <class E, class T>
  static constexpr bool matches_fn() {
    if constexpr (!(std::is_same_v<T, float> || std::is_same_v<T, double>))
      return false;
    else
      return detail_terms::is_scalar<E>() || // x *= a
             (term_counts_v<E>.others <= 2 && term_counts_v<E>.leaves == term_counts_v<E>.others);
  }
  /// Compile time: float/double, at most two terms, each a scaled memory leaf (or x *= a).
  template <class E, class T>
  static constexpr bool matches = matches_fn<E, T>();
  static constexpr rule_id id = rule_id::level1;
  static constexpr bool always = false; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = matches<E, T>;
  /// axpy / scal in place, where the measured thresholds say BLAS is faster.
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e);
};

} // namespace lz::fusion::rules

namespace lz::fusion {

namespace detail_level1 {

/// A destination or an additive term (coef · leaf) as the compiled chooser sees it
/// (extents/strides of `rank` dims). Copies of the geometry, not pointers into the leaf: a
/// tree whose address is never taken stays in registers (the fixed cost of the loop when BLAS 1
/// is not taken, docs/decisions/small-assignment-fixed-cost.md).
template <class T>
struct term {
  const T* ptr = nullptr;
  index_t extents[max_rank];
  index_t strides[max_rank];
  T coef{};
};

/// The term of a leaf (or destination) at ptr with layout l, scaled by coef.
template <class T, class L>
LZ_INLINE void set_term(term<T>& t, const T* ptr, const L& l, T coef) {
  t.ptr = ptr;
  for (std::size_t k = 0; k < l.rank(); ++k) {
    t.extents[k] = l.extents[k];
    t.strides[k] = l.strides[k];
  }
  t.coef = coef;
}

/// The BLAS 1 call dst ⊕= e becomes, if any: y ← alpha·x + y (axpy) or y ← alpha·y (scal),
/// n elements, y at the destination with stride incy.
template <class T>
struct choice {
  enum kind_t { none, axpy, scal } kind = none;
  index_t n = 0, incx = 0, incy = 0;
  const T* x = nullptr;
  T alpha{};
};

/// Compiled once for float and double (kernels/common/level1.cpp): the terms' geometry
/// decides. `terms` holds the `count` additive terms of e, each a leaf of the destination's
/// type and rank with its coefficient (the sign of -= folded in); for *= the one term is the
/// destination scaled by the scalar.
template <class T>
choice<T> choose(lz::detail::assign_op op, int rank, const term<T>& dst, const term<T>* terms,
                 int count);

/// The chosen call as a plan step on the sink (per sink and element type, not per tree).
template <class Sink, class T>
bool emit(Sink& s, const choice<T>& c, T* y) {
  const origin from = s.origin_of(y);
  if (c.kind == choice<T>::axpy) {
    axpy_step<T> g;
    g.n = c.n, g.alpha = c.alpha;
    g.y = {y, c.n, 1, c.incy, 1, from};
    g.x = {const_cast<T*>(c.x), c.n, 1, c.incx, 1, origin{}};
    s.axpy("axpy", g);
    return true;
  }
  if (c.kind == choice<T>::scal) {
    scal_step<T> g;
    g.n = c.n, g.alpha = c.alpha;
    g.x = {y, c.n, 1, c.incy, 1, from};
    s.scal("scal", g);
    return true;
  }
  return false;
}

} // namespace detail_level1

namespace detail_level1 {

/// The additive terms of dst ⊕= e as the chooser sees them (the sign of -= folded in; for *=
/// the destination scaled): their count, or more than 2 when e is not a sum of at most two
/// scaled leaves of the destination's type and rank (no BLAS 1 call then).
template <lz::detail::assign_op Op, template <class, std::size_t> class View, class T,
          std::size_t R, class E>
int gather(const View<T, R>& dst, const E& e, term<T>& y, term<T> (&terms)[2]) {
  using lz::detail::assign_op;
  set_term(y, static_cast<const T*>(dst.data()), dst.layout(), T(0));
  int count = 0;
  if constexpr (Op == assign_op::mul) { // x *= a: the destination, scaled
    if constexpr (!detail_terms::is_scalar<E>()) {
      return 3;
    } else {
      terms[0] = y;
      terms[0].coef = T(e.value);
      return 1;
    }
  } else {
    for_each_term(e, Op == assign_op::sub ? T(-1) : T(1), [&](const auto& t, const T& coef) {
      using X = std::remove_cvref_t<decltype(t)>;
      if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::leaf_kind> &&
                    std::is_same_v<value_t<X>, T> && rank_v<X> == R) {
        if (count < 2) set_term(terms[count], t.data(), t.layout(), coef);
        ++count;
      } else {
        count = 3; // not a scaled leaf: no BLAS 1 call
      }
    });
    return count;
  }
}

// Every additive term of E is a memory leaf of type T and rank R.
template <class T, std::size_t R, class E>
constexpr bool leaf_terms() {
  using namespace detail_terms;
  constexpr shape_kind k = shape_of<E>();
  if constexpr (k == shape_kind::sum || k == shape_kind::difference)
    return leaf_terms<T, R, arg_t<E, 0>>() && leaf_terms<T, R, arg_t<E, 1>>();
  else if constexpr (k == shape_kind::negation || k == shape_kind::scaled_right ||
                     k == shape_kind::divided)
    return leaf_terms<T, R, arg_t<E, 0>>();
  else if constexpr (k == shape_kind::scaled_left)
    return leaf_terms<T, R, arg_t<E, 1>>();
  else
    return std::is_same_v<K<E>, lz::detail::leaf_kind> && std::is_same_v<value_t<E>, T> &&
           rank_v<E> == R;
}

} // namespace detail_level1

/// True when dst (T, R) ⊕= e is a sum of one or two scaled leaves of the destination's type and
/// rank, ⊕ one of =, +=, -= (`y = a*x + y`, `y -= x / 2`), or x *= a: the trees whose loop asks
/// the compiled detail_level1::try_call first (run_map<Op, true>), which needs no per-tree code
/// beyond the loop's: it takes the leaves' addresses and strides from the flattened operands
/// and their coefficients from the tree's own kernel.
template <lz::detail::assign_op Op, class T, std::size_t R, class E>
inline constexpr bool level1_candidate_v = [] {
  using lz::detail::assign_op;
  if constexpr (R == 0 || Op == assign_op::div ||
                !(std::is_same_v<T, float> || std::is_same_v<T, double>))
    return false;
  else if constexpr (Op == assign_op::mul || detail_terms::is_scalar<E>())
    return Op == assign_op::mul && detail_terms::is_scalar<E>();
  else
    return term_counts_v<E>.others <= 2 && detail_level1::leaf_terms<T, R, E>();
}();

/// axpy / scal when the assignment has that exact shape and BLAS 1 is enabled for its size.
/// Per tree only the terms are gathered; the decision is compiled once (detail_level1::choose).
template <lz::detail::assign_op Op, class Sink, template <class, std::size_t> class View, class T,
          std::size_t R, class E>
bool lower_level1(Sink& s, View<T, R> dst, const E& e) {
  if constexpr (R == 0 || Op == lz::detail::assign_op::div) {
    return false;
  } else {
    if (dst.size() < thresholds().level1_blas) return false;
    detail_level1::term<T> y, terms[2];
    const int count = detail_level1::gather<Op>(dst, e, y, terms);
    if (count > 2) return false;
    return detail_level1::emit(s, detail_level1::choose<T>(Op, int(R), y, terms, count),
                               dst.data());
  }
}

} // namespace lz::fusion

namespace lz::fusion::rules {
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
bool level1::apply(Sink& s, const P&, View<T, R> dst, const E& e) {
  return lower_level1<Op>(s, dst, e);
}
} // namespace lz::fusion::rules
