// Device LAPACK on cuSOLVER's dense API: see kernels/include/lz/kernels/cuda/lapack.hpp.
// Host-compiled (no nvcc). One cuSOLVER handle per stream, created on first use and released
// with the stream; workspaces, tau and the info word come from the stream-ordered pool; info is
// copied back (which waits for the call) only where a step can fail numerically.
#include "per_stream.hpp"

#include <lz/errors.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/lapack.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/log.hpp>

#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <climits>
#include <string>
#include <type_traits>
#include <vector>

namespace lz::kernels::dev::lapack {
inline namespace LZ_DEVICE_ABI {
namespace {

using blas::order;

const char* status_name(cusolverStatus_t s) {
  switch (s) {
  case CUSOLVER_STATUS_NOT_INITIALIZED:
    return "CUSOLVER_STATUS_NOT_INITIALIZED";
  case CUSOLVER_STATUS_ALLOC_FAILED:
    return "CUSOLVER_STATUS_ALLOC_FAILED";
  case CUSOLVER_STATUS_INVALID_VALUE:
    return "CUSOLVER_STATUS_INVALID_VALUE";
  case CUSOLVER_STATUS_ARCH_MISMATCH:
    return "CUSOLVER_STATUS_ARCH_MISMATCH";
  case CUSOLVER_STATUS_EXECUTION_FAILED:
    return "CUSOLVER_STATUS_EXECUTION_FAILED";
  case CUSOLVER_STATUS_INTERNAL_ERROR:
    return "CUSOLVER_STATUS_INTERNAL_ERROR";
  default:
    return "cusolverStatus_t error";
  }
}
void check(cusolverStatus_t s, const char* what) {
  if (s != CUSOLVER_STATUS_SUCCESS)
    throw device_error(std::string("lz: ") + what + " failed: " + status_name(s), int(s),
                       status_name(s));
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw device_error(std::string("lz: ") + what + " failed: " + cudaGetErrorName(e) + ": " +
                           cudaGetErrorString(e),
                       int(e), cudaGetErrorName(e));
}
// cuSOLVER's legacy dense API takes int sizes.
int to_int(index_t v, const char* what) {
  if (v > INT_MAX || v < 0)
    throw device_error(
        std::string("lz: ") + what + " = " + std::to_string(v) + " exceeds cuSOLVER's int", 0, "");
  return int(v);
}

// cuSOLVER's handle per stream (per_stream.hpp).
struct cusolver_lib {
  using handle = cusolverDnHandle_t;
  static handle create(void* stream) {
    require_device();
    cusolverDnHandle_t h = nullptr;
    check(cusolverDnCreate(&h), "cusolverDnCreate");
    if (const cusolverStatus_t s = cusolverDnSetStream(h, static_cast<cudaStream_t>(stream));
        s != CUSOLVER_STATUS_SUCCESS) {
      (void)cusolverDnDestroy(h);
      check(s, "cusolverDnSetStream");
    }
    return h;
  }
  static void destroy(handle h) noexcept { (void)cusolverDnDestroy(h); }
};
cusolverDnHandle_t handle_for(void* stream) {
  return lz::kernels::dev::detail::per_stream<cusolver_lib>::get(stream);
}

// Pool memory for one call, returned with it.
struct scratch {
  void* stream;
  std::vector<std::pair<void*, std::size_t>> blocks;
  explicit scratch(void* s) : stream(s) {}
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  ~scratch() {
    for (auto& [p, n] : blocks) pool_deallocate(p, n, stream);
  }
  template <class T>
  T* get(index_t count) {
    const std::size_t n = std::size_t(count > 0 ? count : 1) * sizeof(T);
    void* p = pool_allocate(n, stream);
    blocks.emplace_back(p, n);
    return static_cast<T*>(p);
  }
};
// The info word after the work enqueued on `stream` (the copy waits for it).
int info_of(const int* dev_info, void* stream) {
  int info = 0;
  copy(&info, dev_info, sizeof info, copy_kind::device_to_host, stream);
  return info;
}
// 1-based index of the first zero on the diagonal of the n×n column-major a, 0 when none.
template <class V>
int zero_on_diagonal(const V* a, index_t n, index_t lda, void* stream) {
  if (n == 0) return 0;
  std::vector<V> d(static_cast<std::size_t>(n));
  check(cudaMemcpy2DAsync(d.data(), sizeof(V), a, std::size_t(lda + 1) * sizeof(V), sizeof(V),
                          std::size_t(n), cudaMemcpyDeviceToHost,
                          static_cast<cudaStream_t>(stream)),
        "cudaMemcpy2DAsync (diagonal)");
  stream_sync(stream);
  for (index_t i = 0; i < n; ++i)
    if (d[std::size_t(i)] == V(0)) return int(i + 1);
  return 0;
}
template <class V>
void note(const char* op, trans t, index_t m, index_t n, index_t k, index_t lda, index_t ldb) {
  blas::record({std::string(1, kernels::blas::type_letter<V>()) + op, order::col_major, t,
                trans::none, m, n, k, lda, ldb, 0, 1.0, 0.0});
  if (logging::on(logging::blas))
    logging::write(logging::blas, std::string(1, kernels::blas::type_letter<V>()) + op +
                                      " (cuSOLVER) " + char(t) + " m=" + std::to_string(m) +
                                      " n=" + std::to_string(n) + " nrhs=" + std::to_string(k));
}
cublasOperation_t op_of(trans t) { return t == trans::none ? CUBLAS_OP_N : CUBLAS_OP_T; }
cublasFillMode_t fill_of(uplo u) {
  return u == uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
}

// The typed cuSOLVER entry points.
template <class V>
struct cs;
#define LZ_CUSOLVER_TABLE(V, L, OR)                                                                \
  template <>                                                                                      \
  struct cs<V> {                                                                                   \
    static constexpr auto getrf_size = cusolverDn##L##getrf_bufferSize;                            \
    static constexpr auto getrf = cusolverDn##L##getrf;                                            \
    static constexpr auto getrs = cusolverDn##L##getrs;                                            \
    static constexpr auto potrf_size = cusolverDn##L##potrf_bufferSize;                            \
    static constexpr auto potrf = cusolverDn##L##potrf;                                            \
    static constexpr auto potrs = cusolverDn##L##potrs;                                            \
    static constexpr auto geqrf_size = cusolverDn##L##geqrf_bufferSize;                            \
    static constexpr auto geqrf = cusolverDn##L##geqrf;                                            \
    static constexpr auto ormqr_size = cusolverDn##L##OR##_bufferSize;                             \
    static constexpr auto ormqr = cusolverDn##L##OR;                                               \
  };
LZ_CUSOLVER_TABLE(float, S, ormqr)
LZ_CUSOLVER_TABLE(double, D, ormqr)
#undef LZ_CUSOLVER_TABLE

} // namespace

template <class V>
int getrf(void* stream, index_t m, index_t n, V* a, index_t lda, int* ipiv) {
  note<V>("getrf", trans::none, m, n, 0, lda, 0);
  if (m == 0 || n == 0) return 0;
  cusolverDnHandle_t h = handle_for(stream);
  scratch w(stream);
  int lwork = 0;
  const int mi = to_int(m, "m"), ni = to_int(n, "n"), ld = to_int(lda, "lda");
  check(cs<V>::getrf_size(h, mi, ni, a, ld, &lwork), "cusolverDn?getrf_bufferSize");
  int* dinfo = w.get<int>(1);
  check(cs<V>::getrf(h, mi, ni, a, ld, w.get<V>(lwork), ipiv, dinfo), "cusolverDn?getrf");
  return info_of(dinfo, stream);
}

template <class V>
void getrs(void* stream, trans t, index_t n, index_t nrhs, const V* a, index_t lda, const int* ipiv,
           V* b, index_t ldb) {
  note<V>("getrs", t, n, n, nrhs, lda, ldb);
  if (n == 0 || nrhs == 0) return;
  scratch w(stream);
  check(cs<V>::getrs(handle_for(stream), op_of(t), to_int(n, "n"), to_int(nrhs, "nrhs"), a,
                     to_int(lda, "lda"), ipiv, b, to_int(ldb, "ldb"), w.get<int>(1)),
        "cusolverDn?getrs");
}

template <class V>
int getri(void* stream, index_t n, V* a, index_t lda, const int* ipiv) {
  note<V>("getri", trans::none, n, n, 0, lda, 0);
  if (n == 0) return 0;
  if (const int z = zero_on_diagonal(a, n, lda, stream)) return z; // U singular: A untouched
  // A⁻¹ = the solve of A·X = I (cuSOLVER has no getri), then copied over A.
  scratch w(stream);
  V* x = w.get<V>(n * n);
  const auto cs_ = static_cast<cudaStream_t>(stream);
  check(cudaMemsetAsync(x, 0, std::size_t(n * n) * sizeof(V), cs_), "cudaMemsetAsync");
  const std::vector<V> ones(static_cast<std::size_t>(n), V(1));
  check(cudaMemcpy2DAsync(x, std::size_t(n + 1) * sizeof(V), ones.data(), sizeof(V), sizeof(V),
                          std::size_t(n), cudaMemcpyHostToDevice, cs_),
        "cudaMemcpy2DAsync (identity)");
  stream_sync(stream); // (`ones` is pageable host memory)
  getrs<V>(stream, trans::none, n, n, a, lda, ipiv, x, n);
  check(cudaMemcpy2DAsync(a, std::size_t(lda) * sizeof(V), x, std::size_t(n) * sizeof(V),
                          std::size_t(n) * sizeof(V), std::size_t(n), cudaMemcpyDeviceToDevice,
                          cs_),
        "cudaMemcpy2DAsync (inverse)");
  return 0;
}

template <class V>
int potrf(void* stream, uplo u, index_t n, V* a, index_t lda) {
  note<V>("potrf", trans::none, n, n, 0, lda, 0);
  if (n == 0) return 0;
  cusolverDnHandle_t h = handle_for(stream);
  scratch w(stream);
  int lwork = 0;
  const int ni = to_int(n, "n"), ld = to_int(lda, "lda");
  check(cs<V>::potrf_size(h, fill_of(u), ni, a, ld, &lwork), "cusolverDn?potrf_bufferSize");
  int* dinfo = w.get<int>(1);
  check(cs<V>::potrf(h, fill_of(u), ni, a, ld, w.get<V>(lwork), lwork, dinfo), "cusolverDn?potrf");
  return info_of(dinfo, stream);
}

template <class V>
void potrs(void* stream, uplo u, index_t n, index_t nrhs, const V* a, index_t lda, V* b,
           index_t ldb) {
  note<V>("potrs", trans::none, n, n, nrhs, lda, ldb);
  if (n == 0 || nrhs == 0) return;
  scratch w(stream);
  check(cs<V>::potrs(handle_for(stream), fill_of(u), to_int(n, "n"), to_int(nrhs, "nrhs"), a,
                     to_int(lda, "lda"), b, to_int(ldb, "ldb"), w.get<int>(1)),
        "cusolverDn?potrs");
}

template <class V>
int trtrs(void* stream, uplo u, trans t, index_t n, index_t nrhs, const V* a, index_t lda, V* b,
          index_t ldb) {
  note<V>("trtrs", t, n, n, nrhs, lda, ldb);
  if (n == 0) return 0;
  if (const int z = zero_on_diagonal(a, n, lda, stream)) return z; // B untouched
  blas::trsm(stream, u, t, n, nrhs, V(1), a, lda, b, ldb);
  return 0;
}

template <class V>
int trcheck(void* stream, index_t n, const V* a, index_t lda) {
  return zero_on_diagonal(a, n, lda, stream);
}

template <class V>
int gels(void* stream, trans t, index_t m, index_t n, index_t nrhs, V* a, index_t lda, V* b,
         index_t ldb) {
  note<V>("gels", t, m, n, nrhs, lda, ldb);
  // op(A) is r×c; QR of the tall one of op(A) and op(A)ᵀ: M (p×q, p ≥ q), column-major.
  const bool none = t == trans::none;
  const index_t r = none ? m : n, c = none ? n : m;
  const bool tall = r >= c;
  const index_t p = std::max(r, c), q = std::min(r, c);
  if (q == 0 || nrhs == 0) return 0;
  scratch w(stream);
  V* M = a;
  index_t ldm = lda;
  if (tall != none) { // M = Aᵀ (m×n → n×m)
    M = w.get<V>(p * q);
    ldm = p;
    blas::transpose(stream, m, n, a, lda, M, ldm);
  }
  cusolverDnHandle_t h = handle_for(stream);
  const int pi = to_int(p, "rows"), qi = to_int(q, "columns"), ld = to_int(ldm, "lda"),
            k = to_int(nrhs, "nrhs"), ldbi = to_int(ldb, "ldb");
  V* tau = w.get<V>(q);
  int* dinfo = w.get<int>(1);
  int lwork = 0;
  check(cs<V>::geqrf_size(h, pi, qi, M, ld, &lwork), "cusolverDn?geqrf_bufferSize");
  check(cs<V>::geqrf(h, pi, qi, M, ld, tau, w.get<V>(lwork), lwork, dinfo), "cusolverDn?geqrf");
  if (const int z = zero_on_diagonal(M, q, ldm, stream)) return z; // R singular
  const cublasOperation_t qop = tall ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto apply_q = [&] {
    int lw = 0;
    check(cs<V>::ormqr_size(h, CUBLAS_SIDE_LEFT, qop, pi, k, qi, M, ld, tau, b, ldbi, &lw),
          "cusolverDn?ormqr_bufferSize");
    check(cs<V>::ormqr(h, CUBLAS_SIDE_LEFT, qop, pi, k, qi, M, ld, tau, b, ldbi, w.get<V>(lw), lw,
                       dinfo),
          "cusolverDn?ormqr");
  };
  if (tall) { // op(A) = Q·R: X = R⁻¹·(Qᵀ·B)
    apply_q();
    blas::trsm(stream, uplo::upper, trans::none, q, nrhs, V(1), M, ldm, b, ldb);
  } else { // op(A) = Rᵀ·Qᵀ (wide): X = Q·[R⁻ᵀ·B; 0]
    blas::trsm(stream, uplo::upper, trans::transpose, q, nrhs, V(1), M, ldm, b, ldb);
    check(cudaMemset2DAsync(b + q, std::size_t(ldb) * sizeof(V), 0, std::size_t(p - q) * sizeof(V),
                            std::size_t(nrhs), static_cast<cudaStream_t>(stream)),
          "cudaMemset2DAsync");
    apply_q();
  }
  return 0;
}

const char* name() noexcept { return "cuSOLVER"; }

LZ_DEV_LAPACK_INSTANCES(float)
LZ_DEV_LAPACK_INSTANCES(double)

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::lapack
