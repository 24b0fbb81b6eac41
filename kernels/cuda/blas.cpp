// Device BLAS on cuBLAS (64-bit API) and cuBLASLt: see kernels/include/lz/kernels/cuda/blas.hpp.
// Host-compiled (no nvcc). One cuBLAS handle and one cuBLASLt workspace per stream, created on
// first use and released with the stream; one cuBLASLt handle per process. Row-major calls are the
// column-major call on the transposed problem: C = op(A)·op(B) is computed as Cᵀ = op(B)ᵀ·op(A)ᵀ,
// operands swapped, flags unchanged (a row-major buffer read column-major IS the transpose).
#include <lz/errors.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/log.hpp>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <string>
#include <type_traits>

namespace lz::kernels::dev::blas {
inline namespace LZ_DEVICE_ABI {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw device_error(std::string("lz: ") + what + " failed: " + cublasGetStatusName(s) + ": " +
                           cublasGetStatusString(s),
                       int(s), cublasGetStatusName(s));
}

// What each stream keeps: its cuBLAS handle and cuBLASLt's workspace for calls on it (kept like
// cuBLAS keeps its own, so an epilogue call takes no temporary; grown when a call needs more).
struct stream_blas {
  cublasHandle_t handle = nullptr;
  void* lt_workspace = nullptr;
  std::size_t lt_bytes = 0;
};
std::mutex g_mutex;
std::map<void*, stream_blas>& handles() {
  static auto* m = new std::map<void*, stream_blas>; // outlives static destructors
  return *m;
}
void release_stream(void* stream) {
  std::lock_guard lock(g_mutex);
  auto it = handles().find(stream);
  if (it != handles().end()) {
    (void)cublasDestroy(it->second.handle);
    deallocate(it->second.lt_workspace); // cudaFree waits for the work still using it
    handles().erase(it);
  }
}

// The entry of `stream`, its cuBLAS handle bound to it (cuBLAS calls are then ordered on it).
// @pre g_mutex is held.
stream_blas& entry_for(void* stream) {
  static const bool registered = (on_stream_destroy(&release_stream), true);
  (void)registered;
  auto it = handles().find(stream);
  if (it != handles().end()) return it->second;
  require_device();
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h), "cublasCreate");
  if (const cublasStatus_t s = cublasSetStream(h, static_cast<cudaStream_t>(stream));
      s != CUBLAS_STATUS_SUCCESS) {
    (void)cublasDestroy(h);
    check(s, "cublasSetStream");
  }
  return handles().emplace(stream, stream_blas{h, nullptr, 0}).first->second;
}

cublasHandle_t handle_for(void* stream) {
  std::lock_guard lock(g_mutex);
  return entry_for(stream).handle;
}

// cuBLASLt's workspace for calls on `stream`, at least `bytes` long.
void* lt_workspace_for(void* stream, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  std::lock_guard lock(g_mutex);
  stream_blas& e = entry_for(stream);
  if (e.lt_bytes < bytes) {
    void* fresh = allocate(bytes); // throws (out of memory) before the old one is given up
    deallocate(e.lt_workspace);    // cudaFree: waits for the calls still using it
    e.lt_workspace = fresh;
    e.lt_bytes = bytes;
  }
  return e.lt_workspace;
}

cublasLtHandle_t lt_handle() {
  static std::once_flag once;
  static cublasLtHandle_t h = nullptr;
  std::call_once(once, [] {
    require_device();
    check(cublasLtCreate(&h), "cublasLtCreate");
  });
  return h;
}

// Real types: conj_transpose is transpose.
cublasOperation_t op_of(trans t) { return t == trans::none ? CUBLAS_OP_N : CUBLAS_OP_T; }
cublasOperation_t flipped(trans t) { return t == trans::none ? CUBLAS_OP_T : CUBLAS_OP_N; }

// BLAS walks a negative increment from the lowest address; lazuli's pointer is element 0.
template <class T>
T* first_in_memory(T* p, index_t n, index_t inc) {
  return inc < 0 && n > 0 ? p + (n - 1) * inc : p;
}

void trace(const char* routine, order o, trans ta, trans tb, index_t m, index_t n, index_t k,
           double alpha, double beta) {
  if (logging::on(logging::blas))
    logging::write(logging::blas,
                   std::string(routine) + " " + (o == order::row_major ? "row" : "col") + " " +
                       char(ta) + char(tb) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                       " k=" + std::to_string(k) + " alpha=" + std::to_string(alpha) +
                       " beta=" + std::to_string(beta));
}

template <class T>
void note(const char* op, order o, trans ta, trans tb, index_t m, index_t n, index_t k, index_t lda,
          index_t ldb, index_t ldc, T alpha, T beta) {
  record({(std::is_same_v<T, float> ? "s" : "d") + std::string(op), o, ta, tb, m, n, k, lda, ldb,
          ldc, double(alpha), double(beta)});
}

template <class T, class F>
void gemm_impl(F fn, const char* name, void* stream, order o, trans ta, trans tb, index_t m,
               index_t n, index_t k, T alpha, const T* A, index_t lda, const T* B, index_t ldb,
               T beta, T* C, index_t ldc) {
  trace(name, o, ta, tb, m, n, k, double(alpha), double(beta));
  note("gemm", o, ta, tb, m, n, k, lda, ldb, ldc, alpha, beta);
  cublasHandle_t h = handle_for(stream);
  if (o == order::col_major)
    check(fn(h, op_of(ta), op_of(tb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc), name);
  else
    check(fn(h, op_of(tb), op_of(ta), n, m, k, &alpha, B, ldb, A, lda, &beta, C, ldc), name);
  check_launch(name);
}

template <class T, class F>
void gemv_impl(F fn, const char* name, void* stream, order o, trans t, index_t m, index_t n,
               T alpha, const T* A, index_t lda, const T* x, index_t incx, T beta, T* y,
               index_t incy) {
  trace(name, o, t, trans::none, m, n, 0, double(alpha), double(beta));
  note("gemv", o, t, trans::none, m, n, 0, lda, incx, incy, alpha, beta);
  cublasHandle_t h = handle_for(stream);
  const index_t nx = t == trans::none ? n : m, ny = t == trans::none ? m : n;
  x = first_in_memory(x, nx, incx);
  y = first_in_memory(y, ny, incy);
  if (o == order::col_major)
    check(fn(h, op_of(t), m, n, &alpha, A, lda, x, incx, &beta, y, incy), name);
  else // a row-major m×n A is the column-major n×m Aᵀ
    check(fn(h, flipped(t), n, m, &alpha, A, lda, x, incx, &beta, y, incy), name);
  check_launch(name);
}

// RAII for cuBLASLt descriptors.
struct lt_call {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~lt_call() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

template <class T>
bool gemm_bias_relu_impl(void* stream, trans ta, trans tb, index_t m, index_t n, index_t k, T alpha,
                         const T* A, index_t lda, const T* B, index_t ldb, const T* bias, T* C,
                         index_t ldc) {
  if (!epilogue_used(sizeof(T))) return false;
  constexpr bool dbl = std::is_same_v<T, double>;
  const cudaDataType_t dt = dbl ? CUDA_R_64F : CUDA_R_32F;
  const cublasComputeType_t ct = dbl ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  trace(dbl ? "cublasLt dgemm+bias+relu" : "cublasLt sgemm+bias+relu", order::row_major, ta, tb, m,
        n, k, double(alpha), 0.0);
  cublasLtHandle_t lt = lt_handle();
  lt_call L;
  // Column-major view of the row-major problem: D' (n×m) = op(B)' (n×k) · op(A)' (k×m); the
  // bias then runs along D's rows (length n), i.e. along the row-major result's columns.
  check(cublasLtMatmulDescCreate(&L.op, ct, dt), "cublasLtMatmulDescCreate");
  const cublasOperation_t opa = op_of(tb), opb = op_of(ta);
  check(cublasLtMatmulDescSetAttribute(L.op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  check(cublasLtMatmulDescSetAttribute(L.op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  const cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_RELU_BIAS;
  check(cublasLtMatmulDescSetAttribute(L.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep),
        "cublasLtMatmulDescSetAttribute(EPILOGUE)");
  const void* bp = bias;
  check(cublasLtMatmulDescSetAttribute(L.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp),
        "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  const auto u = [](index_t v) { return static_cast<std::uint64_t>(v); };
  check(cublasLtMatrixLayoutCreate(&L.a, dt, opa == CUBLAS_OP_N ? u(n) : u(k),
                                   opa == CUBLAS_OP_N ? u(k) : u(n), ldb),
        "cublasLtMatrixLayoutCreate(B)");
  check(cublasLtMatrixLayoutCreate(&L.b, dt, opb == CUBLAS_OP_N ? u(k) : u(m),
                                   opb == CUBLAS_OP_N ? u(m) : u(k), lda),
        "cublasLtMatrixLayoutCreate(A)");
  check(cublasLtMatrixLayoutCreate(&L.c, dt, u(n), u(m), ldc), "cublasLtMatrixLayoutCreate(C)");
  std::size_t ws = std::size_t(32) << 20;
  check(cublasLtMatmulPreferenceCreate(&L.pref), "cublasLtMatmulPreferenceCreate");
  check(cublasLtMatmulPreferenceSetAttribute(L.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws),
        "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  const cublasStatus_t hs =
      cublasLtMatmulAlgoGetHeuristic(lt, L.op, L.a, L.b, L.c, L.c, L.pref, 1, &best, &found);
  if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
    if (logging::on(logging::blas))
      logging::write(logging::blas, std::string("cublasLt has no bias+relu algorithm here (") +
                                        cublasGetStatusName(hs) + "): caller falls back");
    return false;
  }
  ws = best.workspaceSize;
  void* w = lt_workspace_for(stream, ws);
  const T zero = 0;
  check(cublasLtMatmul(lt, L.op, &alpha, B, L.a, A, L.b, &zero, C, L.c, C, L.c, &best.algo, w, ws,
                       static_cast<cudaStream_t>(stream)),
        "cublasLtMatmul(bias+relu)");
  check_launch("cublasLtMatmul");
  note("gemm_bias_relu", order::row_major, ta, tb, m, n, k, lda, ldb, ldc, alpha, T(0));
  return true;
}

} // namespace

void gemm(void* s, order o, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
          const float* A, index_t lda, const float* B, index_t ldb, float beta, float* C,
          index_t ldc) {
  gemm_impl(cublasSgemm_64, "cublasSgemm", s, o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
            ldc);
}
void gemm(void* s, order o, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
          const double* A, index_t lda, const double* B, index_t ldb, double beta, double* C,
          index_t ldc) {
  gemm_impl(cublasDgemm_64, "cublasDgemm", s, o, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
            ldc);
}
void gemv(void* s, order o, trans t, index_t m, index_t n, float alpha, const float* A, index_t lda,
          const float* x, index_t incx, float beta, float* y, index_t incy) {
  gemv_impl(cublasSgemv_64, "cublasSgemv", s, o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void gemv(void* s, order o, trans t, index_t m, index_t n, double alpha, const double* A,
          index_t lda, const double* x, index_t incx, double beta, double* y, index_t incy) {
  gemv_impl(cublasDgemv_64, "cublasDgemv", s, o, t, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
void scal(void* s, index_t n, float alpha, float* x, index_t incx) {
  note("scal", order::row_major, trans::none, trans::none, 0, n, 0, incx, 0, 0, alpha, 0.0f);
  check(cublasSscal_64(handle_for(s), n, &alpha, first_in_memory(x, n, incx), incx), "cublasSscal");
}
void scal(void* s, index_t n, double alpha, double* x, index_t incx) {
  note("scal", order::row_major, trans::none, trans::none, 0, n, 0, incx, 0, 0, alpha, 0.0);
  check(cublasDscal_64(handle_for(s), n, &alpha, first_in_memory(x, n, incx), incx), "cublasDscal");
}
void axpy(void* s, index_t n, float alpha, const float* x, index_t incx, float* y, index_t incy) {
  note("axpy", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, alpha, 1.0f);
  check(cublasSaxpy_64(handle_for(s), n, &alpha, first_in_memory(x, n, incx), incx,
                       first_in_memory(y, n, incy), incy),
        "cublasSaxpy");
}
void axpy(void* s, index_t n, double alpha, const double* x, index_t incx, double* y,
          index_t incy) {
  note("axpy", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, alpha, 1.0);
  check(cublasDaxpy_64(handle_for(s), n, &alpha, first_in_memory(x, n, incx), incx,
                       first_in_memory(y, n, incy), incy),
        "cublasDaxpy");
}

template <class T, class F>
void dot_impl(F fn, const char* name, void* s, index_t n, const T* x, index_t incx, const T* y,
              index_t incy, T* result) {
  note("dot", order::row_major, trans::none, trans::none, 0, n, 0, incx, incy, 0, T(1), T(0));
  cublasHandle_t h = handle_for(s);
  std::lock_guard lock(g_mutex); // pointer mode is per handle: keep the switch atomic
  check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  const cublasStatus_t st =
      fn(h, n, first_in_memory(x, n, incx), incx, first_in_memory(y, n, incy), incy, result);
  (void)cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
  check(st, name);
}
void dot(void* s, index_t n, const float* x, index_t incx, const float* y, index_t incy,
         float* result) {
  dot_impl(cublasSdot_64, "cublasSdot", s, n, x, incx, y, incy, result);
}
void dot(void* s, index_t n, const double* x, index_t incx, const double* y, index_t incy,
         double* result) {
  dot_impl(cublasDdot_64, "cublasDdot", s, n, x, incx, y, incy, result);
}

bool gemm_bias_relu(void* s, trans ta, trans tb, index_t m, index_t n, index_t k, float alpha,
                    const float* A, index_t lda, const float* B, index_t ldb, const float* bias,
                    float* C, index_t ldc) {
  return gemm_bias_relu_impl(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, bias, C, ldc);
}
bool gemm_bias_relu(void* s, trans ta, trans tb, index_t m, index_t n, index_t k, double alpha,
                    const double* A, index_t lda, const double* B, index_t ldb, const double* bias,
                    double* C, index_t ldc) {
  return gemm_bias_relu_impl(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, bias, C, ldc);
}

namespace {
template <class T, class F>
void trsm_impl(F fn, const char* name, void* s, uplo u, trans t, index_t n, index_t nrhs, T alpha,
               const T* A, index_t lda, T* B, index_t ldb) {
  note("trsm", order::col_major, t, trans::none, n, nrhs, 0, lda, ldb, 0, alpha, T(0));
  if (n == 0 || nrhs == 0) return;
  check(fn(handle_for(s), CUBLAS_SIDE_LEFT,
           u == uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
           t == trans::none ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, nrhs, &alpha, A,
           lda, B, ldb),
        name);
}
template <class T, class F>
void transpose_impl(F fn, const char* name, void* s, index_t m, index_t n, const T* A, index_t lda,
                    T* C, index_t ldc) {
  note("geam", order::col_major, trans::transpose, trans::none, n, m, 0, lda, 0, ldc, T(1), T(0));
  if (m == 0 || n == 0) return;
  const T one = 1, zero = 0;
  // C (n×m) = 1·Aᵀ + 0·C: B is not read when beta is 0 (cuBLAS allows B = C then).
  check(fn(handle_for(s), CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, A, lda, &zero, C, ldc, C, ldc),
        name);
}
} // namespace
void trsm(void* s, uplo u, trans t, index_t n, index_t nrhs, float alpha, const float* A,
          index_t lda, float* B, index_t ldb) {
  trsm_impl(cublasStrsm_64, "cublasStrsm", s, u, t, n, nrhs, alpha, A, lda, B, ldb);
}
void trsm(void* s, uplo u, trans t, index_t n, index_t nrhs, double alpha, const double* A,
          index_t lda, double* B, index_t ldb) {
  trsm_impl(cublasDtrsm_64, "cublasDtrsm", s, u, t, n, nrhs, alpha, A, lda, B, ldb);
}
void transpose(void* s, index_t m, index_t n, const float* A, index_t lda, float* C, index_t ldc) {
  transpose_impl(cublasSgeam_64, "cublasSgeam", s, m, n, A, lda, C, ldc);
}
void transpose(void* s, index_t m, index_t n, const double* A, index_t lda, double* C,
               index_t ldc) {
  transpose_impl(cublasDgeam_64, "cublasDgeam", s, m, n, A, lda, C, ldc);
}

const char* info() noexcept {
  static std::string s = [] {
    int v = 0;
    cublasGetProperty(MAJOR_VERSION, &v);
    int mi = 0;
    cublasGetProperty(MINOR_VERSION, &mi);
    return "cuBLAS " + std::to_string(v) + "." + std::to_string(mi) + " + cuBLASLt";
  }();
  return s.c_str();
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev::blas
