// dot rule: lz::dot(x, y) and sum(hadamard(x, y)) over two vectors → one BLAS dot, where BLAS
// is faster than the fused reduction: lengths in [thresholds().dot_blas, .dot_blas_max] (short
// dots, where the fused reduction's fixed cost shows; dot_blas = 0: never).
// float and double vectors with non-zero strides. Called by reduce_expr::compute before the
// fused SIMD reduction; run by kernels/blas.
#pragma once

#include <lz/expr/lifetime.hpp>
#include <lz/fusion/plan.hpp>
#include <lz/ops/functors.hpp>
#include <lz/ops/reduce_ops.hpp>

namespace lz::fusion {

/// Computes Σ x·y with BLAS when the reduction has that shape; returns false otherwise.
template <class Op, class Fin, class E, class V>
bool try_dot(const E& arg, V& out) {
  if constexpr (!std::is_same_v<Op, red::sum_op> || !std::is_same_v<Fin, red::identity_fin> ||
                !(std::is_same_v<V, float> || std::is_same_v<V, double>) || rank_v<E> != 1) {
    return false;
  } else if constexpr (!std::is_same_v<lz::detail::kind_t<E>, lz::detail::map_kind>) {
    return false;
  } else {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) {
      if constexpr (sizeof...(A) != 2 || !std::is_same_v<F, fn::multiplies_fn>) {
        return false;
      } else {
        const auto& a = lz::detail::get<0>(m.args);
        const auto& b = lz::detail::get<1>(m.args);
        using X = std::remove_cvref_t<decltype(a)>;
        using Y = std::remove_cvref_t<decltype(b)>;
        if constexpr (!std::is_same_v<lz::detail::kind_t<X>, lz::detail::leaf_kind> ||
                      !std::is_same_v<lz::detail::kind_t<Y>, lz::detail::leaf_kind> ||
                      !std::is_same_v<value_t<X>, V> || !std::is_same_v<value_t<Y>, V>) {
          return false;
        } else {
          const index_t n = a.shape()[0];
          const index_t dmin = thresholds().dot_blas;
          if (dmin <= 0 || n < dmin || n > thresholds().dot_blas_max || b.shape()[0] != n)
            return false;
          const index_t sx = a.layout().strides[0], sy = b.layout().strides[0];
          if (sx == 0 || sy == 0) return false;
          if constexpr (LZ_CHECKED) { // (reduce_expr::compute_now leaves it to the readers)
            lz::detail::check_lifetimes(a);
            lz::detail::check_lifetimes(b);
          }
          out =
              kernels::blas::dot(n, a.data(), sx, b.data(), sy); // views: element 0, signed stride
          return true;
        }
      }
    }(arg);
  }
}

} // namespace lz::fusion
