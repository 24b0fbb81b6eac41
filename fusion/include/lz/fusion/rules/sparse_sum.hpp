// sparse_sum rule: C = α·L + β·R with L, R sparse terms of one shape (sparse operands, sums,
// sparse × sparse products) and C an lz::csr_matrix. The result's pattern is the union of the
// terms' patterns:
//   - two sparse operands with the same pattern (the same arrays, or equal ones; decided at run
//     time): ONE loop over the values, and C takes that pattern (shared when it has an owner:
//     no index copied or merged) — csr_matrix::operator= (sparse.hpp) runs it;
//   - a term that is a product, `α·A·B + β·D` (either side): ONE SpGEMM whose rows are merged
//     with β·D's row as they are written (kernels::sparse::spgemm with an addend): the product
//     is never stored on its own (a second product term is computed first);
//   - otherwise ONE `?csrgeam` (kernels::sparse::add): the two sorted rows merged, in two passes.
// Each operand is read as the spgemm rule reads it (rules/spgemm.hpp): in place, c·leaf with c in
// α or β, transposed into CSR once, a values expression through one loop into a copy, a nested
// sum computed first. The result is new arrays, which the destination takes only after the call
// succeeded (an error leaves it untouched; `A = A + B` needs no special case). Outside the dense
// sinks for the reason the spgemm rule is (docs/decisions/spgemm-outside-the-dense-sinks.md).
#pragma once

#include <lz/fusion/rules/spgemm.hpp>

#include <string>

namespace lz::fusion {

/// How the sparse_sum rule computes a sum, decided at compile time: operands whose patterns are
/// compared at run time (one loop over the values when they are the same, else a merge), one
/// SpGEMM with an addend, or a merge.
enum class sparse_sum_plan { values_or_merge, spgemm_addend, merge };

template <class G>
inline constexpr sparse_sum_plan sparse_sum_plan_v = [] {
  using L = decltype(std::declval<const G&>().lhs);
  using R = decltype(std::declval<const G&>().rhs);
  if constexpr (spgemm_expression<L> || spgemm_expression<R>)
    return sparse_sum_plan::spgemm_addend;
  else if constexpr (sparse_expression<L> && sparse_expression<R>)
    return sparse_sum_plan::values_or_merge;
  else
    return sparse_sum_plan::merge;
}();

/// True when g's two operands are sparse operands with the same pattern (the values path).
template <class G>
bool sparse_sum_same_pattern(const G& g) {
  if constexpr (sparse_sum_plan_v<G> == sparse_sum_plan::values_or_merge)
    return g.lhs.pattern().same_as(g.rhs.pattern());
  else
    return false;
}

namespace detail_sparse_sum {
// sp·(P = α·A·B) + so·D: one SpGEMM, each row merged with D's.
template <class V, class I, class P, class D>
spgemm_result<V, I> product_plus(const P& prod, V sp, const D& other, V so) {
  const auto a = detail_spgemm::prepare<V, I>(prod.lhs);
  const auto b = detail_spgemm::prepare<V, I>(prod.rhs);
  const auto d = detail_spgemm::prepare<V, I>(other);
  spgemm_result<V, I> r;
  kernels::sparse::spgemm<V, I>(a.m, b.m, sp * prod.alpha * a.scale * b.scale, &d.m, so * d.scale,
                                r.row_ptr, r.col_idx, r.value_sink(), true);
  return r;
}
} // namespace detail_sparse_sum

/// Computes g (an lz::sparse_sum_expr) into new CSR arrays: one SpGEMM with an addend when a
/// term is a product, else one merge (kernels::sparse::add). (The values path for equal
/// patterns is the destination's: csr_matrix::operator=.)
template <class V, class I, class G>
spgemm_result<V, I> run_sparse_sum(const G& g) {
  using L = decltype(g.lhs);
  if constexpr (sparse_sum_plan_v<G> == sparse_sum_plan::spgemm_addend) {
    if constexpr (spgemm_expression<L>)
      return detail_sparse_sum::product_plus<V, I>(g.lhs, g.alpha, g.rhs, g.beta);
    else
      return detail_sparse_sum::product_plus<V, I>(g.rhs, g.beta, g.lhs, g.alpha);
  } else {
    const auto a = detail_spgemm::prepare<V, I>(g.lhs);
    const auto b = detail_spgemm::prepare<V, I>(g.rhs);
    spgemm_result<V, I> r;
    kernels::sparse::add<V, I>(a.m, g.alpha * a.scale, b.m, g.beta * b.scale, r.row_ptr, r.col_idx,
                               r.value_sink(), true);
    return r;
  }
}

/// What assigning g to a csr_matrix will do, as lz::explain prints it.
template <class G>
std::string explain_sparse_sum(const shape_t<2>& dst, const G& g) {
  using detail_spgemm::read_text;
  using lz::detail::cat;
  std::string s =
      cat("plan: csr", lz::detail::to_string(dst), " = ", lz::detail::expr_text(g), "\n");
  constexpr sparse_sum_plan plan = sparse_sum_plan_v<G>;
  if (sparse_sum_same_pattern(g)) {
    s += "  1. one loop over the values: α·A + β·B, A and B have the same pattern, which C takes "
         "(shared when it has an owner; no index merged)   [rule sparse_sum]\n";
    return s;
  }
  if constexpr (plan == sparse_sum_plan::spgemm_addend) {
    s += "  1. spgemm C = α·A·B + β·D: Gustavson, two passes over A's rows (count, then fill), "
         "each row's products merged with β·D's row as it is written; rows split over threads by "
         "their multiply-adds; C's pattern is new   [rule sparse_sum]\n";
    const auto parts = [&](const auto& prod, const auto& other) {
      s += read_text("A", prod.lhs);
      s += read_text("B", prod.rhs);
      s += read_text("D", other, "β");
    };
    if constexpr (spgemm_expression<decltype(g.lhs)>)
      parts(g.lhs, g.rhs);
    else
      parts(g.rhs, g.lhs);
  } else {
    s += "  1. csrgeam C = α·A + β·B: the union of the two patterns, each row's two sorted rows "
         "merged in two passes (count, then write); rows split over threads by their entries; "
         "C's pattern is new   [rule sparse_sum]\n";
    s += read_text("A", g.lhs);
    s += read_text("B", g.rhs, "β");
  }
  s += "  the destination takes the new arrays once the call has succeeded\n";
  return s;
}

} // namespace lz::fusion
