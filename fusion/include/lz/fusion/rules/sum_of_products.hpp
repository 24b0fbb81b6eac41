// sum-of-products rule: C = A·B + D·E + … + β·C  → a chain of gemm (or gemv) calls accumulating
//   into the destination: the first with the β of the C-term (or 0), every later one with β = 1.
//   No temporaries. Other terms (broadcast biases, other tensors) are written into the
//   destination first by one loop, then every product accumulates with β = 1.
// Lowered by fusion/terms.hpp; run by kernels/blas.
#pragma once

#include <lz/fusion/terms.hpp>

namespace lz::fusion::rules {

struct sum_of_products : product_terms_rule<sum_of_products> {
  static constexpr const char* name = "sum of products";
  template <class E>
  static constexpr bool matches = term_counts_v<E>.products >= 2;
  static constexpr rule_id id = rule_id::sum_of_products;
};

} // namespace lz::fusion::rules
