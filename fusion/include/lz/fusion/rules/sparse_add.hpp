// sparse_add rule: a sparse matrix added to dense terms, with a dense result.
//   C = α·op(A) + (dense terms) + β·C   →  the dense terms written into C by one loop (or C
//   itself, in place: `C = C - 2*A` is β = 1), then ONE scatter of α·op(A)'s stored entries into
//   C (csradd): A sparse (CSR, or a CSC view: op = T), C dense with any strides; α gathers the
//   scalars around A (`D - 2*A`: α = -2), a values expression (abs(A)) is one loop into a
//   temporary of nnz values first. `A + D` builds A as the product term op(A)·I
//   (expr/sparse.hpp: sparse_identity), so the product-term walk (terms.hpp) and its lowering
//   (fusion/sparse.hpp) plan it; several sparse terms, or sparse and dense products, are the
//   sum-of-products rule's (one step each).
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct sparse_add : product_terms_rule<sparse_add> {
  static constexpr const char* name = "sparse_add";
  /// Compile time: exactly one product term, a sparse operand added as a dense term.
  template <class E>
  static constexpr bool matches = term_counts_v<E>.products == 1 && term_counts_v<E>.scatter == 1;
  static constexpr rule_id id = rule_id::sparse_add;
};

} // namespace lz::fusion::rules
