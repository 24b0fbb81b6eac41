// transpose rule (algebra, no steps of its own):
//   transpose(transpose(A)) → A        views compose: the layout's strides swap back
//   transpose(A·B)          → Bᵀ·Aᵀ    one gemm with swapped operands and flipped trans flags
//   transpose(A·B·C)        → Cᵀ·Bᵀ·Aᵀ a chain, ordered by rules/chain.hpp
// Applied while product factors are collected (fusion/products.hpp, detail_products::collect).
#pragma once

#include <lz/fusion/products.hpp>
