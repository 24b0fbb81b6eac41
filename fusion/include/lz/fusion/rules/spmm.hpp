// spmm rule: a sparse matrix times a dense matrix, with the surrounding scalars and destination.
//   C = α·op(A)·B + β·C   →  ONE SpMM (csrmm): A sparse (CSR, or a CSC view: op = T), B and C
//   dense with any strides (row-major B is the kernel's fast case); α and β as the SpMV rule.
// f(a·A + b·B)·X is ONE summv step over the operands' merged rows instead (as for the SpMV).
// A product that reads the destination (y = A*y) is declined: via_temp computes it into a
// temporary. The lowering is fusion/sparse.hpp's, through the product-term walk (terms.hpp).
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct spmm : product_terms_rule<spmm> {
  static constexpr const char* name = "spmm";
  /// Compile time: exactly one product term, sparse, with a matrix result (plus any other terms).
  template <class E>
  static constexpr bool matches =
      term_counts_v<E>.products == 1 && term_counts_v<E>.sparse == 1 &&
      term_counts_v<E>.product_rank == 2 && term_counts_v<E>.scatter == 0;
  static constexpr rule_id id = rule_id::spmm;
};

} // namespace lz::fusion::rules
