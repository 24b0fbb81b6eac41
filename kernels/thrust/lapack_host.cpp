// Device LAPACK on the host system: the interface of kernels/include/lz/kernels/cuda/lapack.hpp
// over lazuli's LAPACK door (kernels/lapack), because the host system's "device" memory is host
// memory. Lets device plans with solves run (and be tested) on every machine;
// kernels/cuda/lapack.cpp is the GPU one (cuSOLVER).
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/lapack.hpp>
#include <lz/kernels/lapack/lapack.hpp>

#include <string>

namespace lz::kernels::dev::lapack {
inline namespace LZ_DEVICE_ABI {
namespace {
namespace cpu = lz::kernels::lapack;
using blas::order;

template <class V>
void note(const char* op, trans t, index_t m, index_t n, index_t k, index_t lda, index_t ldb) {
  blas::record({std::string(1, kernels::blas::type_letter<V>()) + op, order::col_major, t,
                trans::none, m, n, k, lda, ldb, 0, 1.0, 0.0});
}
} // namespace

template <class V>
int getrf(void*, index_t m, index_t n, V* a, index_t lda, int* ipiv) {
  note<V>("getrf", trans::none, m, n, 0, lda, 0);
  return cpu::getrf(m, n, a, lda, ipiv);
}
template <class V>
void getrs(void*, trans t, index_t n, index_t nrhs, const V* a, index_t lda, const int* ipiv, V* b,
           index_t ldb) {
  note<V>("getrs", t, n, n, nrhs, lda, ldb);
  cpu::getrs(t, n, nrhs, a, lda, ipiv, b, ldb);
}
template <class V>
int getri(void*, index_t n, V* a, index_t lda, const int* ipiv) {
  note<V>("getri", trans::none, n, n, 0, lda, 0);
  return cpu::getri(n, a, lda, ipiv);
}
template <class V>
int potrf(void*, uplo u, index_t n, V* a, index_t lda) {
  note<V>("potrf", trans::none, n, n, 0, lda, 0);
  return cpu::potrf(u, n, a, lda);
}
template <class V>
void potrs(void*, uplo u, index_t n, index_t nrhs, const V* a, index_t lda, V* b, index_t ldb) {
  note<V>("potrs", trans::none, n, n, nrhs, lda, ldb);
  cpu::potrs(u, n, nrhs, a, lda, b, ldb);
}
template <class V>
int trtrs(void*, uplo u, trans t, index_t n, index_t nrhs, const V* a, index_t lda, V* b,
          index_t ldb) {
  note<V>("trtrs", t, n, n, nrhs, lda, ldb);
  return cpu::trtrs(u, t, cpu::diag::non_unit, n, nrhs, a, lda, b, ldb);
}
template <class V>
int trcheck(void*, index_t n, const V* a, index_t lda) {
  for (index_t i = 0; i < n; ++i)
    if (a[i * (lda + 1)] == V(0)) return int(i + 1);
  return 0;
}
template <class V>
int gels(void*, trans t, index_t m, index_t n, index_t nrhs, V* a, index_t lda, V* b, index_t ldb) {
  note<V>("gels", t, m, n, nrhs, lda, ldb);
  return cpu::gels(t, m, n, nrhs, a, lda, b, ldb);
}

const char* name() noexcept { return "LAPACK (host system)"; }

LZ_DEV_LAPACK_INSTANCES(float)
LZ_DEV_LAPACK_INSTANCES(double)

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::lapack
