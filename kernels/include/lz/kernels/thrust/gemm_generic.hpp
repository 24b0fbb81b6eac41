// Own device gemm/gemv kernels: C = α·A·B + β·C and y = α·A·x + β·y over ANY strides and any
// arithmetic element type, one thrust::for_each_n with one output element per index. The device
// plan's `generic` steps (fusion/products.hpp decides them: integer elements, or small products
// whose strides no BLAS layout expresses) run here, as kernels/blas/gemm_generic.cpp runs them on
// the CPU. Simple on purpose (no tiling): integer products and small awkward ones only; every
// large float/double product goes to cuBLAS (or a copy into a BLAS layout first).
// Instantiates Thrust: compiled by nvcc in a CUDA build (like launch.hpp).
#pragma once

#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/thrust/launch.hpp>

namespace lz::kernels::dev {

/// One output element of C = α·A·B + β·C (β = 0: C is not read, as in BLAS).
template <class V>
struct gemm_generic_fn {
  index_t n, k;
  V alpha, beta;
  const V* A;
  index_t ars, acs;
  const V* B;
  index_t brs, bcs;
  V* C;
  index_t crs, ccs;
  LZ_HD void operator()(index_t t) const {
    const index_t i = t / n, j = t - i * n;
    V acc{};
    for (index_t p = 0; p < k; ++p) acc += A[i * ars + p * acs] * B[p * brs + j * bcs];
    V& c = C[i * crs + j * ccs];
    c = beta == V(0) ? static_cast<V>(alpha * acc) : static_cast<V>(alpha * acc + beta * c);
  }
};

/// C (m×n) = alpha·A (m×k)·B (k×n) + beta·C, element (i, j) of X at X[i*rs + j*cs].
template <class V>
void gemm_generic(const exec& ex, index_t m, index_t n, index_t k, V alpha, const V* A, index_t ars,
                  index_t acs, const V* B, index_t brs, index_t bcs, V beta, V* C, index_t crs,
                  index_t ccs) {
  if (m == 0 || n == 0) return;
  blas::record({"gemm_generic", blas::order::row_major, blas::trans::none, blas::trans::none, m, n,
                k, 0, 0, 0, double(alpha), double(beta)});
  with_policy(ex, "thrust::for_each_n (device gemm_generic)", [&](auto&& pol) {
    ::thrust::for_each_n(
        pol, ::thrust::counting_iterator<index_t>(0), m * n,
        gemm_generic_fn<V>{n, k, alpha, beta, A, ars, acs, B, brs, bcs, C, crs, ccs});
  });
  count_launch();
  check_launch("device gemm_generic launch");
}

/// y (m) = alpha·A (m×n)·x (n) + beta·y; any strides (x's may be 0: a broadcast vector).
template <class V>
void gemv_generic(const exec& ex, index_t m, index_t n, V alpha, const V* A, index_t ars,
                  index_t acs, const V* x, index_t xs, V beta, V* y, index_t ys) {
  if (m == 0) return;
  blas::record({"gemv_generic", blas::order::row_major, blas::trans::none, blas::trans::none, m, n,
                0, 0, 0, 0, double(alpha), double(beta)});
  // A gemv is a gemm with one column: x as an n×1 matrix, y as m×1.
  with_policy(ex, "thrust::for_each_n (device gemv_generic)", [&](auto&& pol) {
    ::thrust::for_each_n(pol, ::thrust::counting_iterator<index_t>(0), m,
                         gemm_generic_fn<V>{1, n, alpha, beta, A, ars, acs, x, xs, 0, y, ys, 0});
  });
  count_launch();
  check_launch("device gemv_generic launch");
}

} // namespace lz::kernels::dev
