// Device sparse products: the interface a device plan's sparse steps call, mirroring
// kernels/include/lz/kernels/sparse/csr.hpp with a stream first. A's CSR arrays (int32 or int64
// indices: `index_bits`), x, y, B and C are device memory; x and y contiguous, B and C row- or
// column-major with a leading dimension (the device sink copies other layouts first).
// Implementations:
//   kernels/cuda/sparse.cpp         cuSPARSE's generic API (cusparseSpMV / cusparseSpMM), its
//                                   work buffer from the stream-ordered pool, one handle per stream
//   kernels/thrust/sparse_host.cpp  lazuli's CPU kernels on the host system's "device" memory
// Every call is recorded like a device BLAS call (blas.hpp's `call`: "dcsrmv", "dcsrmm").
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <complex>
#include <string>
#include <type_traits>

namespace lz::kernels::dev::sparse {
inline namespace LZ_DEVICE_ABI {

using lz::kernels::blas::order;
using lz::kernels::blas::trans;

/// A CSR matrix in device memory (rows × cols as stored).
template <class V>
struct csr {
  index_t rows = 0, cols = 0, nnz = 0;
  int index_bits = 32;
  const void* row_ptr = nullptr;
  const void* col_idx = nullptr;
  const V* values = nullptr;
};

namespace detail {
/// The routine name a call records: "dcsrmv" for op "csrmv" and V = double.
template <class V>
std::string routine(const char* op) {
  return std::string(1, lz::kernels::blas::type_letter<V>()) + op;
}
/// The real part of a scalar, as a recorded call keeps α and β.
template <class V>
double real_part(V v) {
  if constexpr (std::is_arithmetic_v<V>)
    return double(v);
  else
    return double(v.real());
}
} // namespace detail

/// y = alpha·op(A)·x + beta·y on `stream`; x has op(A).cols elements, y op(A).rows, both
/// contiguous. beta == 0 never reads y.
template <class V>
void spmv(void* stream, trans t, const csr<V>& A, V alpha, const V* x, V beta, V* y);

/// C = alpha·op(A)·B + beta·C on `stream`; B op(A).cols × k and C op(A).rows × k, each stored in
/// order `ob` / `oc` with leading dimension ldb / ldc.
template <class V>
void spmm(void* stream, trans t, const csr<V>& A, index_t k, V alpha, const V* B, order ob,
          index_t ldb, V beta, V* C, order oc, index_t ldc);

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::sparse
