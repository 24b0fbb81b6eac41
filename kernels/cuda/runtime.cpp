// Device runtime on the CUDA runtime API (see kernels/include/lz/kernels/cuda/runtime.hpp).
// Compiled by the host compiler against cudart: nothing here needs nvcc. Temporaries come from
// the device's default memory pool through cudaMallocAsync/cudaFreeAsync, with the pool's release
// threshold raised to "never" so freed blocks stay cached across synchronizations (otherwise the
// pool returns memory to the driver at every sync and each assignment pays a real allocation).
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/log.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <vector>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError(); // clear non-sticky errors so the next call starts clean
    throw_cuda_error(what, int(e));
  }
}
std::string bytes_str(std::size_t b) { return std::to_string(b) + " bytes"; }

std::mutex g_pool_mutex;
bool g_pool_ready[64] = {};

void prepare_pool() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  std::lock_guard lock(g_pool_mutex);
  if (dev < 0 || dev >= 64 || g_pool_ready[dev]) return;
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool");
  std::uint64_t keep = UINT64_MAX;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
        "cudaMemPoolSetAttribute(ReleaseThreshold)");
  g_pool_ready[dev] = true;
}

std::mutex g_callbacks_mutex;
std::vector<void (*)(void*)>& callbacks() {
  static std::vector<void (*)(void*)> v;
  return v;
}

cudaMemcpyKind to_cuda(copy_kind k) {
  switch (k) {
  case copy_kind::host_to_device:
    return cudaMemcpyHostToDevice;
  case copy_kind::device_to_host:
    return cudaMemcpyDeviceToHost;
  default:
    return cudaMemcpyDeviceToDevice;
  }
}

} // namespace

const char* backend() noexcept { return "cuda"; }

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

void require_device() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda_error("cudaGetDeviceCount (looking for a usable GPU)", int(e));
  }
  if (n == 0) throw_cuda_error("cudaGetDeviceCount (looking for a usable GPU)", cudaErrorNoDevice);
}

std::string device_info() {
  require_device();
  int dev = 0, driver = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  (void)cudaDriverGetVersion(&driver);
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.totalGlobalMem >> 30) + " GiB, " + std::to_string(p.multiProcessorCount) +
         " SMs, driver " + std::to_string(driver / 1000) + "." +
         std::to_string(driver % 1000 / 10) + ")";
}

void* allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda_error(("cudaMalloc(" + bytes_str(bytes) + ")").c_str(), int(e));
  }
  count_allocation(bytes);
  if (logging::on(logging::alloc)) logging::write(logging::alloc, "cudaMalloc " + bytes_str(bytes));
  return p;
}
void deallocate(void* p) noexcept {
  if (p) (void)cudaFree(p); // a sticky error surfaces at the next checked call
}

void* pool_allocate(std::size_t bytes, void* stream) {
  if (bytes == 0) return nullptr;
  prepare_pool();
  void* p = nullptr;
  const cudaError_t e = cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda_error(("cudaMallocAsync(" + bytes_str(bytes) + ")").c_str(), int(e));
  }
  count_pool_request(false);
  return p;
}
void pool_deallocate(void* p, std::size_t, void* stream) noexcept {
  if (p) (void)cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
}
void pool_trim() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, dev), "cudaDeviceGetDefaultMemPool");
  check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo");
}

void copy(void* dst, const void* src, std::size_t bytes, copy_kind kind, void* stream) {
  if (bytes == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(dst, src, bytes, to_cuda(kind), s), "cudaMemcpyAsync");
  if (kind != copy_kind::device_to_device) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
  count_copy(kind, bytes);
}
void fill_zero(void* p, std::size_t bytes, void* stream) {
  if (bytes)
    check(cudaMemsetAsync(p, 0, bytes, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync");
}

void* stream_create() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
}
void stream_destroy(void* s) noexcept {
  if (!s) return;
  {
    std::lock_guard lock(g_callbacks_mutex);
    for (auto cb : callbacks()) cb(s);
  }
  (void)cudaStreamDestroy(static_cast<cudaStream_t>(s));
}
void stream_sync(void* s) {
  check(cudaStreamSynchronize(static_cast<cudaStream_t>(s)), "cudaStreamSynchronize");
}
void check_launch(const char* what) { check(cudaGetLastError(), what); }
void on_stream_destroy(void (*cb)(void*)) {
  std::lock_guard lock(g_callbacks_mutex);
  callbacks().push_back(cb);
}

void throw_cuda_error(const char* what, int code) {
  const auto e = static_cast<cudaError_t>(code);
  const char* name = cudaGetErrorName(e);
  const char* msg = cudaGetErrorString(e);
  throw device_error(std::string("lz: ") + what + " failed: " + (name ? name : "?") + ": " +
                         (msg ? msg : "?"),
                     code, name ? name : "");
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev
