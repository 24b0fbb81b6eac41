// syrk rule: C = α·op(A)·op(A)ᵀ + β·C, i.e. a product whose right operand is the transpose of
// its left one (same memory, swapped strides) → one syrk (half the flops of gemm) plus a mirror
// of the written triangle. Detected inside product lowering (fusion/products.hpp); run by
// kernels/blas/cblas.cpp. Disable with lz::thresholds().use_syrk = false.
#pragma once

#include <lz/fusion/operands.hpp>

namespace lz::fusion {

/// Emits syrk and returns true when B is Aᵀ in memory and C takes a BLAS layout.
template <class V, class Sink>
bool try_syrk(Sink& s, const char* rule, const mat<const V>& A, const mat<const V>& B,
              const mat<V>& C, V alpha, V beta) {
  using namespace kernels::blas;
  if constexpr (!(std::is_same_v<V, float> || std::is_same_v<V, double>)) {
    return false;
  } else {
    (void)rule;
    if (!thresholds().use_syrk) return false;
    const bool is_transpose_pair = A.ptr == B.ptr && A.rows == B.cols && A.cols == B.rows &&
                                   A.rs == B.cs && A.cs == B.rs && A.rows > 1;
    if (!is_transpose_pair) return false;
    syrk_step<V> g;
    blas_view cv = blas_view_of(C, order::row_major);
    g.o = order::row_major;
    if (!cv.ok || cv.t != trans::none) {
      cv = blas_view_of(C, order::col_major);
      g.o = order::col_major;
    }
    const blas_view av = blas_view_of(A, g.o);
    if (!cv.ok || cv.t != trans::none || !av.ok) return false;
    g.t = av.t, g.n = A.rows, g.k = A.cols, g.alpha = alpha, g.beta = beta;
    g.A = A, g.C = C, g.lda = av.ld, g.ldc = cv.ld;
    s.syrk("syrk", g);
    return true;
  }
}

} // namespace lz::fusion
