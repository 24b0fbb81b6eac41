// gemm rule: C = α·op(A)·op(B) [+ β·C], op ∈ {identity, transpose}
//   → ONE gemm: α gathered from scalars anywhere in the term (2*(A*(3*B)), -(A*B), (A*B)/4), any
//   β (not only 0 and 1), trans flags from the layouts (row-major, column-major, padded, strided
//   views with one unit stride), C copied into the destination only when it is not the
//   destination. transpose(A*B) is the same call with swapped operands (rules/transpose.hpp).
//   C += A*B and C -= A*B are β = 1 with α = ±1.
// Lowered by fusion/terms.hpp (lower_terms) and fusion/products.hpp; run by kernels/blas.
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct gemm : product_terms_rule<gemm> {
  static constexpr const char* name = "gemm";
  /// Compile time: exactly one matrix-product term (plus any other terms).
  template <class E>
  static constexpr bool matches = term_counts_v<E>.products == 1 && term_counts_v<E>.sparse == 0 &&
                                  term_counts_v<E>.product_rank == 2;
  static constexpr rule_id id = rule_id::gemm;
};

} // namespace lz::fusion::rules
