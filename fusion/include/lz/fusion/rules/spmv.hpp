// spmv rule: a sparse matrix times a dense vector, with the surrounding scalars and destination.
//   y = α·op(A)·x + β·y   →  ONE SpMV (csrmv): A sparse (CSR, or a CSC view: op = T), x and y
//   dense with any strides; α gathers every scalar (2*A*x, -(A*x), (A*x)/4, 2*(3*A)*x); β is the
//   destination term (`y = A*x - 3*y`: β = -3, in place) or 1 after the other terms were
//   written (`y = A*x + b`: y = b, then SpMV with β = 1); `y += A*x` is β = 1.
// f(a·A + b·B)·x (lazuli's own f, A and B sparse operands) is ONE summv step instead: the
// operands' rows merged a block at a time, f applied, then summed against x (no sum formed).
// A product that reads the destination (y = A*y) is declined: via_temp computes it into a
// temporary. The lowering is fusion/sparse.hpp's, through the product-term walk (terms.hpp).
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct spmv : product_terms_rule<spmv> {
  static constexpr const char* name = "spmv";
  /// Compile time: exactly one product term, sparse, with a vector result (plus any other terms).
  template <class E>
  static constexpr bool matches = term_counts_v<E>.products == 1 && term_counts_v<E>.sparse == 1 &&
                                  term_counts_v<E>.product_rank == 1;
  static constexpr rule_id id = rule_id::spmv;
};

} // namespace lz::fusion::rules
