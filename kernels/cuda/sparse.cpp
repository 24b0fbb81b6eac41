// Device sparse products on cuSPARSE's generic API: see kernels/include/lz/kernels/cuda/sparse.hpp.
// Host-compiled (no nvcc). One cuSPARSE handle per stream, created on first use and released with
// the stream; each call describes its operands (descriptors are cheap host objects), asks for the
// work buffer's size and takes it from the stream-ordered pool. α and β are host scalars.
#include "per_stream.hpp"
#include <lz/errors.hpp>

#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/kernels/cuda/sparse.hpp>
#include <lz/log.hpp>

#include <cuda_runtime.h>
#include <cusparse.h>

#include <complex>
#include <string>
#include <type_traits>

namespace lz::kernels::dev::sparse {
inline namespace LZ_DEVICE_ABI {
namespace {

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw device_error(std::string("lz: ") + what + " failed: " + cusparseGetErrorName(s) + ": " +
                           cusparseGetErrorString(s),
                       int(s), cusparseGetErrorName(s));
}

// cuSPARSE's handle per stream (per_stream.hpp).
struct cusparse_lib {
  using handle = cusparseHandle_t;
  static handle create(void* stream) {
    require_device();
    cusparseHandle_t h = nullptr;
    check(cusparseCreate(&h), "cusparseCreate");
    if (const cusparseStatus_t s = cusparseSetStream(h, static_cast<cudaStream_t>(stream));
        s != CUSPARSE_STATUS_SUCCESS) {
      (void)cusparseDestroy(h);
      check(s, "cusparseSetStream");
    }
    return h;
  }
  static void destroy(handle h) noexcept { (void)cusparseDestroy(h); }
};
cusparseHandle_t handle_for(void* stream) {
  return lz::kernels::dev::detail::per_stream<cusparse_lib>::get(stream);
}

template <class V>
cudaDataType data_type() {
  if constexpr (std::is_same_v<V, float>)
    return CUDA_R_32F;
  else if constexpr (std::is_same_v<V, double>)
    return CUDA_R_64F;
  else if constexpr (std::is_same_v<V, std::complex<float>>)
    return CUDA_C_32F;
  else
    return CUDA_C_64F;
}
cusparseOperation_t op_of(trans t, bool complex) {
  if (t == trans::none) return CUSPARSE_OPERATION_NON_TRANSPOSE;
  return t == trans::conj_transpose && complex ? CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE
                                               : CUSPARSE_OPERATION_TRANSPOSE;
}
cusparseOrder_t order_of(order o) {
  return o == order::row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
}

// The descriptors of one call, destroyed with it; the work buffer returned to the pool.
struct call_state {
  cusparseConstSpMatDescr_t A = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  cusparseConstDnMatDescr_t B = nullptr;
  cusparseDnMatDescr_t C = nullptr;
  void* buffer = nullptr;
  std::size_t bytes = 0;
  void* stream = nullptr;
  ~call_state() {
    if (buffer) pool_deallocate(buffer, bytes, stream);
    if (A) (void)cusparseDestroySpMat(A);
    if (x) (void)cusparseDestroyDnVec(x);
    if (y) (void)cusparseDestroyDnVec(y);
    if (B) (void)cusparseDestroyDnMat(B);
    if (C) (void)cusparseDestroyDnMat(C);
  }
};

template <class V>
void describe(call_state& s, const csr<V>& A) {
  const cusparseIndexType_t it = A.index_bits == 64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  check(cusparseCreateConstCsr(&s.A, A.rows, A.cols, A.nnz, A.row_ptr, A.col_idx, A.values, it, it,
                               CUSPARSE_INDEX_BASE_ZERO, data_type<V>()),
        "cusparseCreateConstCsr");
}

void trace(const std::string& routine, trans t, index_t m, index_t n, index_t nnz, index_t k) {
  if (logging::on(logging::blas))
    logging::write(logging::blas, routine + " (cuSPARSE) " + char(t) + " " + std::to_string(m) +
                                      "x" + std::to_string(n) + " nnz=" + std::to_string(nnz) +
                                      " k=" + std::to_string(k));
}

} // namespace

template <class V>
void spmv(void* stream, trans t, const csr<V>& A, V alpha, const V* x, V beta, V* y) {
  blas::record({detail::routine<V>("csrmv"), order::row_major, t, trans::none, A.rows, A.cols,
                A.nnz, 0, 1, 1, detail::real_part(alpha), detail::real_part(beta)});
  trace(detail::routine<V>("csrmv"), t, A.rows, A.cols, A.nnz, 1);
  const bool tr = t != trans::none;
  const index_t nx = tr ? A.rows : A.cols, ny = tr ? A.cols : A.rows;
  if (ny == 0) return;
  cusparseHandle_t h = handle_for(stream);
  call_state s;
  s.stream = stream;
  describe(s, A);
  check(cusparseCreateConstDnVec(&s.x, nx, x, data_type<V>()), "cusparseCreateConstDnVec");
  check(cusparseCreateDnVec(&s.y, ny, y, data_type<V>()), "cusparseCreateDnVec");
  const cusparseOperation_t op = op_of(t, !std::is_arithmetic_v<V>);
  check(cusparseSpMV_bufferSize(h, op, &alpha, s.A, s.x, &beta, s.y, data_type<V>(),
                                CUSPARSE_SPMV_ALG_DEFAULT, &s.bytes),
        "cusparseSpMV_bufferSize");
  if (s.bytes) s.buffer = pool_allocate(s.bytes, stream);
  check(cusparseSpMV(h, op, &alpha, s.A, s.x, &beta, s.y, data_type<V>(), CUSPARSE_SPMV_ALG_DEFAULT,
                     s.buffer),
        "cusparseSpMV");
}

template <class V>
void spmm(void* stream, trans t, const csr<V>& A, index_t k, V alpha, const V* B, order ob,
          index_t ldb, V beta, V* C, order oc, index_t ldc) {
  blas::record({detail::routine<V>("csrmm"), oc, t, trans::none, A.rows, A.cols, k, A.nnz, ldb, ldc,
                detail::real_part(alpha), detail::real_part(beta)});
  trace(detail::routine<V>("csrmm"), t, A.rows, A.cols, A.nnz, k);
  const bool tr = t != trans::none;
  const index_t nb = tr ? A.rows : A.cols, nc = tr ? A.cols : A.rows;
  if (nc == 0 || k == 0) return;
  cusparseHandle_t h = handle_for(stream);
  call_state s;
  s.stream = stream;
  describe(s, A);
  check(cusparseCreateConstDnMat(&s.B, nb, k, ldb, B, data_type<V>(), order_of(ob)),
        "cusparseCreateConstDnMat");
  check(cusparseCreateDnMat(&s.C, nc, k, ldc, C, data_type<V>(), order_of(oc)),
        "cusparseCreateDnMat");
  const cusparseOperation_t op = op_of(t, !std::is_arithmetic_v<V>);
  check(cusparseSpMM_bufferSize(h, op, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A, s.B, &beta,
                                s.C, data_type<V>(), CUSPARSE_SPMM_ALG_DEFAULT, &s.bytes),
        "cusparseSpMM_bufferSize");
  if (s.bytes) s.buffer = pool_allocate(s.bytes, stream);
  check(cusparseSpMM(h, op, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.A, s.B, &beta, s.C,
                     data_type<V>(), CUSPARSE_SPMM_ALG_DEFAULT, s.buffer),
        "cusparseSpMM");
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
