// Device runtime on Thrust's host system (see kernels/include/lz/kernels/cuda/runtime.hpp): device
// memory is 256-byte aligned host memory, temporaries come from a caching pool binned by powers
// of two (the host stand-in for the CUDA stream-ordered pool, so tests can count reuse), streams
// are tokens and all work is synchronous. Errors map to device_error as on the GPU.
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/log.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {
namespace {

constexpr std::size_t device_alignment = 256; // what cudaMalloc guarantees

void* aligned(std::size_t bytes, const char* what) {
  const std::size_t rounded = (bytes + device_alignment - 1) / device_alignment * device_alignment;
  void* p = rounded >= bytes ? std::aligned_alloc(device_alignment, rounded) : nullptr;
  if (!p)
    throw device_error(std::string("lz: ") + what + " of " + std::to_string(bytes) +
                           " bytes failed: out of device memory (host system)",
                       2, "cudaErrorMemoryAllocation");
  return p;
}

// Caching pool: free lists per power-of-two bin. Blocks never return to the system before
// pool_trim, like a CUDA pool whose release threshold is unlimited.
struct pool {
  std::mutex m;
  std::map<std::size_t, std::vector<void*>> free;
  static std::size_t bin(std::size_t bytes) {
    std::size_t b = 256;
    while (b < bytes) b *= 2;
    return b;
  }
};
pool& the_pool() {
  static pool* p = new pool; // never destroyed: frees may come from static destructors
  return *p;
}

std::mutex g_callbacks_mutex;
std::vector<void (*)(void*)>& callbacks() {
  static std::vector<void (*)(void*)> v;
  return v;
}

} // namespace

const char* backend() noexcept { return "thrust-tbb"; }
int device_count() noexcept { return 1; }
void require_device() {}
std::string device_info() {
  return "Thrust host system (TBB, " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads)";
}

void* allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = aligned(bytes, "device allocation");
  count_allocation(bytes);
  if (logging::on(logging::alloc))
    logging::write(logging::alloc, "device alloc " + std::to_string(bytes) + " B (host system)");
  return p;
}
void deallocate(void* p) noexcept { std::free(p); }

void* pool_allocate(std::size_t bytes, void*) {
  if (bytes == 0) return nullptr;
  pool& pl = the_pool();
  const std::size_t b = pool::bin(bytes);
  {
    std::lock_guard lock(pl.m);
    auto it = pl.free.find(b);
    if (it != pl.free.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      count_pool_request(false);
      return p;
    }
  }
  count_pool_request(true);
  if (logging::on(logging::alloc))
    logging::write(logging::alloc,
                   "device pool grows by " + std::to_string(b) + " B (host system)");
  return aligned(b, "device pool allocation");
}
void pool_deallocate(void* p, std::size_t bytes, void*) noexcept {
  if (!p) return;
  pool& pl = the_pool();
  std::lock_guard lock(pl.m);
  try {
    pl.free[pool::bin(bytes)].push_back(p);
  } catch (...) {
    std::free(p); // bookkeeping failed: give the block back to the system instead
  }
}
void pool_trim() {
  pool& pl = the_pool();
  std::lock_guard lock(pl.m);
  for (auto& [b, v] : pl.free)
    for (void* p : v) std::free(p);
  pl.free.clear();
}

void copy(void* dst, const void* src, std::size_t bytes, copy_kind kind, void*) {
  if (bytes == 0) return;
  std::memcpy(dst, src, bytes);
  count_copy(kind, bytes);
}
void fill_zero(void* p, std::size_t bytes, void*) {
  if (bytes) std::memset(p, 0, bytes);
}

void* stream_create() { return new char(0); } // a distinct token per stream
void stream_destroy(void* s) noexcept {
  if (!s) return;
  {
    std::lock_guard lock(g_callbacks_mutex);
    for (auto cb : callbacks()) cb(s);
  }
  delete static_cast<char*>(s);
}
void stream_sync(void*) {}
void check_launch(const char*) {}
void on_stream_destroy(void (*cb)(void*)) {
  std::lock_guard lock(g_callbacks_mutex);
  callbacks().push_back(cb);
}

void throw_cuda_error(const char* what, int code) {
  throw device_error(std::string("lz: ") + what + " failed: error " + std::to_string(code) +
                         " (host system)",
                     code, "host_system_error");
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev
