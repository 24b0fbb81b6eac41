// gemv rule: y = α·op(A)·x [+ β·y]  → ONE gemv; `y = A*x + y` is one in-place gemv(β=1), no
//   temporary. Scalars and transposes fold as in the gemm rule; x may have any non-zero
//   stride (negative too); a zero-stride (broadcast) x goes through the own kernel or a copy.
// Lowered by fusion/terms.hpp and fusion/products.hpp; run by kernels/blas.
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct gemv : product_terms_rule<gemv> {
  static constexpr const char* name = "gemv";
  /// Compile time: exactly one matrix-vector product term.
  template <class E>
  static constexpr bool matches = term_counts_v<E>.products == 1 && term_counts_v<E>.sparse == 0 &&
                                  term_counts_v<E>.product_rank == 1;
  static constexpr rule_id id = rule_id::gemv;
};

} // namespace lz::fusion::rules
