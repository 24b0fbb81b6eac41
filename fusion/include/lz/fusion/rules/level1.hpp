// level-1 rules (BLAS 1 where it is faster than the fused loop; lz::thresholds().level1_blas):
//   axpy: y = a·x + y, y += a·x, y -= a·x   → one axpy, in place
//   scal: x = a·x, x *= a                    → one scal, in place
// Vectors with any non-zero stride, or matrices whose layout is contiguous and shared by both
// operands (they run as one flat vector). float and double only. Run by kernels/blas.
// Included first, this header pulls in the whole engine in dependency order (tensor.hpp ends
// with evaluate.hpp, which includes the fusion pass); a guard, not #pragma once, lets that
// chain define this file before the outer inclusion continues.
#include <lz/tensor.hpp>
#ifndef LZ_LZ_FUSION_RULES_LEVEL1_HPP
#define LZ_LZ_FUSION_RULES_LEVEL1_HPP

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct level1 {
  static constexpr const char* name = "level1";
  template <class E, class T>
  static constexpr bool matches_fn() {
    if constexpr (!(std::is_same_v<T, float> || std::is_same_v<T, double>))
      return false;
    else
      return lz::detail::opaque_count_v<E> == 0 && term_counts_v<E>.others <= 2;
  }
  /// Compile time: float/double, no products or reductions, at most two terms.
  template <class E, class T>
  static constexpr bool matches = matches_fn<E, T>();
};

} // namespace lz::fusion::rules

namespace lz::fusion {

namespace detail_level1 {
// A leaf (or dst) as a flat BLAS vector: rank 1 with a non-zero stride, or a contiguous layout.
template <class V, class L>
bool as_vector(const L& leaf, mat<V>& out, origin from) {
  const auto& l = leaf.layout();
  const index_t n = l.size();
  if constexpr (rank_v<L> == 1) {
    if (n > 1 && l.strides[0] == 0) return false;
    out = {const_cast<V*>(leaf.data()), n, 1, n > 1 ? l.strides[0] : 1, 1, from};
    return true;
  } else {
    if (!(l.is_row_major() || l.is_column_major())) return false;
    out = {const_cast<V*>(leaf.data()), n, 1, 1, 1, from};
    return true;
  }
}
} // namespace detail_level1

/// axpy / scal when the assignment has that exact shape and BLAS 1 is enabled for its size.
template <lz::detail::assign_op Op, class Sink, template <class, std::size_t> class View, class T,
          std::size_t R, class E>
bool lower_level1(Sink& s, View<T, R> dst, const E& e) {
  using lz::detail::assign_op;
  if constexpr (R == 0) {
    return false;
  } else {
    if (dst.size() < thresholds().level1_blas) return false;
    if constexpr (rank_v<E> == R) {
      if (dst.shape() != e.shape()) return false;
    }
    mat<T> y;
    if (!detail_level1::as_vector<T>(dst, y, s.origin_of(dst.data()))) return false;
    // Collect the terms of dst ⊕ e: a coefficient on dst, and at most one other leaf.
    T dst_coef = Op == assign_op::add || Op == assign_op::sub ? T(1) : T(0);
    T x_coef{};
    mat<T> x;
    int xs = 0;
    bool ok = Op != assign_op::div;
    if (!ok) return false;
    if (Op == assign_op::mul) { // x *= a
      if constexpr (detail_terms::is_scalar<E>()) {
        scal_step<T> g;
        g.n = y.rows, g.alpha = T(e.value), g.x = y;
        s.scal("scal", g);
        return true;
      }
      return false;
    }
    const T sign = Op == assign_op::sub ? T(-1) : T(1);
    for_each_term(e, sign, [&](const auto& term, const T& coef) {
      using X = std::remove_cvref_t<decltype(term)>;
      if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::leaf_kind> &&
                    std::is_same_v<value_t<X>, T> && rank_v<X> == R) {
        if (term.data() == dst.data() && term.layout() == dst.layout()) {
          dst_coef += coef;
        } else if (xs == 0 && (R == 1 || term.layout() == dst.layout()) &&
                   !touches_dst(dst, term) && detail_level1::as_vector<T>(term, x, origin{})) {
          x_coef = coef;
          ++xs;
        } else {
          ok = false;
        }
      } else {
        ok = false;
      }
    });
    if (!ok) return false;
    if (xs == 1 && dst_coef == T(1)) {
      axpy_step<T> g;
      g.n = y.rows, g.alpha = x_coef, g.y = y;
      g.x = {x.ptr, x.rows, 1, x.rs, 1, x.from};
      s.axpy("axpy", g);
      return true;
    }
    if (xs == 0 && Op == assign_op::set) {
      scal_step<T> g;
      g.n = y.rows, g.alpha = dst_coef, g.x = y;
      s.scal("scal", g);
      return true;
    }
    return false;
  }
}

} // namespace lz::fusion

#endif // LZ_LZ_FUSION_RULES_LEVEL1_HPP
