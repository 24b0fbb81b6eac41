// Device sparse products on the host system: the interface of
// kernels/include/lz/kernels/cuda/sparse.hpp over lazuli's CPU CSR kernels (kernels/sparse),
// because the host system's "device" memory is host memory. Lets the device plans' sparse steps
// run (and be tested) on every machine; kernels/cuda/sparse.cpp is the GPU one (cuSPARSE).
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/sparse.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace lz::kernels::dev::sparse {
inline namespace LZ_DEVICE_ABI {
namespace {

// Calls f with the host kernels' view of A, for its index type.
template <class V, class F>
void with_csr(const csr<V>& A, F&& f) {
  if (A.index_bits == 64)
    f(kernels::sparse::csr<V, std::int64_t>{A.rows, A.cols, A.nnz,
                                            static_cast<const std::int64_t*>(A.row_ptr),
                                            static_cast<const std::int64_t*>(A.col_idx), A.values});
  else
    f(kernels::sparse::csr<V, std::int32_t>{A.rows, A.cols, A.nnz,
                                            static_cast<const std::int32_t*>(A.row_ptr),
                                            static_cast<const std::int32_t*>(A.col_idx), A.values});
}

} // namespace

template <class V>
void spmv(void*, trans t, const csr<V>& A, V alpha, const V* x, V beta, V* y) {
  blas::record({detail::routine<V>("csrmv"), order::row_major, t, trans::none, A.rows, A.cols,
                A.nnz, 0, 1, 1, detail::real_part(alpha), detail::real_part(beta)});
  with_csr(A, [&](const auto& a) { kernels::sparse::spmv(t, a, alpha, x, 1, beta, y, 1, true); });
}

template <class V>
void spmm(void*, trans t, const csr<V>& A, index_t k, V alpha, const V* B, order ob, index_t ldb,
          V beta, V* C, order oc, index_t ldc) {
  blas::record({detail::routine<V>("csrmm"), oc, t, trans::none, A.rows, A.cols, k, A.nnz, ldb, ldc,
                detail::real_part(alpha), detail::real_part(beta)});
  const bool rb = ob == order::row_major, rc = oc == order::row_major;
  with_csr(A, [&](const auto& a) {
    kernels::sparse::spmm(t, a, k, alpha, B, rb ? ldb : 1, rb ? 1 : ldb, beta, C, rc ? ldc : 1,
                          rc ? 1 : ldc, true);
  });
}

#define LZ_DEV_SPARSE(V)                                                                           \
  template void spmv<V>(void*, trans, const csr<V>&, V, const V*, V, V*);                          \
  template void spmm<V>(void*, trans, const csr<V>&, index_t, V, const V*, order, index_t, V, V*,  \
                        order, index_t);
LZ_DEV_SPARSE(float)
LZ_DEV_SPARSE(double)
LZ_DEV_SPARSE(std::complex<float>)
LZ_DEV_SPARSE(std::complex<double>)
#undef LZ_DEV_SPARSE

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::sparse
