// transpose rule (algebra, no steps of its own):
//   transpose(transpose(A)) → A        views compose: the layout's strides swap back
//   transpose(A·B)          → Bᵀ·Aᵀ    one gemm with swapped operands and flipped trans flags
//   transpose(A·B·C)        → Cᵀ·Bᵀ·Aᵀ a chain, ordered by rules/chain.hpp
// Applied while product factors are collected (fusion/products.hpp, detail_products::collect).
// Included first, this header pulls in the whole engine in dependency order (tensor.hpp ends
// with evaluate.hpp, which includes the fusion pass); a guard, not #pragma once, lets that
// chain define this file before the outer inclusion continues.
#include <lz/tensor.hpp>
#ifndef LZ_LZ_FUSION_RULES_TRANSPOSE_HPP
#define LZ_LZ_FUSION_RULES_TRANSPOSE_HPP

#include <lz/fusion/products.hpp>

#endif // LZ_LZ_FUSION_RULES_TRANSPOSE_HPP
