// sparse_apply rule: C = f(T) with T a sparse sum or product (lz::sparse_apply_expr, built by
// `lz::abs(A + B)`, `2 * lz::sqrt(A * B)`, `lz::map(g, A - B)`; functions and scalars applied to
// such a node compose into f) and C an lz::csr_matrix. T's pattern is only known once T is
// computed, so: T into new arrays as its own rule computes it (spgemm, sparse_sum), then ONE loop
// applies f to those values — in place when f keeps the element type (no second buffer), else
// into a new tensor of f's type (abs of complex values). The result has T's pattern (f should map
// 0 to 0: the entries not stored stay 0). The destination takes the arrays only once everything
// succeeded (an error, or a user function that throws, leaves it untouched). Inside a larger
// sparse term (`abs(A + B) * C`, `abs(A * B) + D`) the node is an operand read as computed
// (rules/spgemm.hpp); inside a dense expression it is settled into a CSR leaf before the tree is
// planned (fusion/sparse.hpp, sparse_computer below), except a function of a sum of two operands
// times a vector or matrix (`abs(A + B) * x`): one SpMV / SpMM over the merge (summv).
#pragma once

#include <lz/fusion/rules/sparse_sum.hpp>

#include <string>

namespace lz::fusion {

template <class V, class I, class G>
spgemm_result<V, I> run_sparse_apply(const G& g) {
  using W = typename G::term_value_type;
  spgemm_result<W, I> r = run_computed<W, I>(g.arg);
  const shape_t<1> n{r.values.size()};
  const typename G::values_view in(r.values.data(), strided_layout<1>::right(n),
                                   lz::detail::trusted);
  if constexpr (std::is_same_v<V, W>) {
    lz::detail::assign_to<lz::detail::assign_op::set>(r.values.view(), g.f(in));
    return r;
  } else {
    spgemm_result<V, I> o;
    o.values = tensor<V, 1>(n, uninitialized);
    lz::detail::assign_to<lz::detail::assign_op::set>(o.values.view(), g.f(in));
    o.row_ptr = std::move(r.row_ptr);
    o.col_idx = std::move(r.col_idx);
    return o;
  }
}

/// True when g is a function of a sum of two operands with the same pattern: assigned to a
/// csr_matrix it is ONE loop over the values, f(α·a + β·b), with that pattern (shared), as the
/// sum alone is (csr_matrix::operator=).
template <class G>
bool sparse_apply_same_pattern(const G& g) {
  if constexpr (sparse_apply_of_operand_sum<G>())
    return sparse_sum_same_pattern(g.arg);
  else
    return false;
}

template <class G>
std::string explain_computed(const shape_t<2>& dst, const G& g);

/// The steps of explain_computed(dst, g): its plan without the title and the closing line (for
/// plans that run the term as one of their steps).
template <class G>
std::string explain_computed_steps(const shape_t<2>& dst, const G& g) {
  std::string steps = explain_computed(dst, g);
  steps.erase(0, steps.find('\n') + 1);
  steps.erase(steps.rfind("  the destination takes"));
  return steps;
}

/// What assigning g (a function of a sparse sum or product) to a csr_matrix will do, as
/// lz::explain prints it: the term's own plan, then the loop.
template <class G>
std::string explain_sparse_apply(const shape_t<2>& dst, const G& g) {
  using lz::detail::cat;
  const std::string title =
      cat("plan: csr", lz::detail::to_string(dst), " = ", lz::detail::expr_text(g), "\n");
  if (sparse_apply_same_pattern(g))
    return cat(title, "  1. one loop over the values: ", lz::detail::function_text(g, "α·A + β·B"),
               ", A and B have the same pattern, which C takes (shared when it has an owner; no "
               "index merged)   [rule sparse_apply]\n");
  const std::string inner = explain_computed_steps(dst, g.arg);
  const std::string f = lz::detail::function_text(g, "C");
  constexpr bool in_place = std::is_same_v<typename G::value_type, typename G::term_value_type>;
  return cat(title, inner, "  2. one loop over C's values: ", f,
             in_place ? ", in place (C's pattern kept)" : ", into new values (C's pattern kept)",
             "   [rule sparse_apply]\n",
             "  the destination takes the new arrays once both have succeeded\n");
}

/// What assigning g (a sparse product, sum or function of one) to a csr_matrix will do.
template <class G>
std::string explain_computed(const shape_t<2>& dst, const G& g) {
  if constexpr (spgemm_expression<G>)
    return explain_spgemm(dst, g);
  else if constexpr (sparse_sum_expression<G>)
    return explain_sparse_sum(dst, g);
  else
    return explain_sparse_apply(dst, g);
}

// fusion/sparse.hpp: a computed term inside a dense tree, computed into arrays the leaf keeps.
template <class G>
settled_csr<value_t<G>, typename G::index_type> sparse_computer::operator()(const G& g) const {
  using V = value_t<G>;
  using I = typename G::index_type;
  auto r = std::make_shared<spgemm_result<V, I>>(run_computed<V, I>(g));
  lz::detail::count_temporary();
  settled_csr<V, I> leaf;
  leaf.pattern_.rows = g.shape()[0];
  leaf.pattern_.cols = g.shape()[1];
  leaf.pattern_.nnz = index_t(r->col_idx.size());
  leaf.pattern_.row_ptr = r->row_ptr.data();
  leaf.pattern_.col_idx = r->col_idx.data();
  leaf.values_ = r->values.data();
  leaf.keep = std::move(r);
  return leaf;
}

// plan.hpp: explain's settling of a computed term: one described step (the term's own plan as
// its notes) and a placeholder leaf whose entry count is unknown (printed "?").
template <class G>
auto explain_sink::settled_sparse(const G& g) {
  using lz::detail::cat;
  const int id = ntemps_++;
  step(cat("sparse tmp", std::to_string(id), " = ", lz::detail::expr_text(g),
           ": computed into new CSR arrays before the rest is planned (its pattern is known only "
           "then; nothing is written before it succeeds)"),
       spgemm_expression<G>       ? "spgemm"
       : sparse_sum_expression<G> ? "sparse_sum"
                                  : "sparse_apply");
  const std::string inner = explain_computed_steps(g.shape(), g);
  for (std::size_t at = 0; at < inner.size();) {
    const std::size_t end = inner.find('\n', at);
    note({"  ", inner.substr(at + 2, end - at - 2)});
    at = end + 1;
  }
  settled_csr<value_t<G>, typename G::index_type> leaf;
  leaf.pattern_.rows = g.shape()[0];
  leaf.pattern_.cols = g.shape()[1];
  leaf.placeholder = true;
  // A placeholder address that origin_of labels tmpN (as temp's are); never dereferenced.
  leaf.values_ = reinterpret_cast<const value_t<G>*>(alignment * (2 + id));
  return leaf;
}

} // namespace lz::fusion
