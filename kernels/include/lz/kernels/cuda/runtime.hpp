// The device runtime: memory, streams, transfers, errors and counters, over raw pointers only (no
// CUDA or Thrust types cross this boundary, so g++ and nvcc TUs share it). Two implementations:
// kernels/cuda/runtime.cpp (CUDA runtime API, stream-ordered pool on cudaMallocAsync) and
// kernels/thrust/runtime_host.cpp (Thrust host system: "device" memory is host memory, a caching
// pool, synchronous streams). Every failure is an lz::device_error naming the CUDA error.
#pragma once

#include <lz/device/config.hpp>
#include <lz/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {

/// "cuda" or "thrust-tbb" (the system device code runs on in this build).
const char* backend() noexcept;
/// Usable devices: 0 on a CUDA build without driver or GPU; 1 on the host system.
int device_count() noexcept;
/// Throws device_error (with the CUDA error's code and name) unless a device is usable.
void require_device();
/// One line: "NVIDIA H200 (sm_90, 139 GiB, driver 13.0)" or "Thrust host system (TBB, 2 threads)".
std::string device_info();

// ---- memory ----------------------------------------------------------------------------------
/// Storage for owning device tensors (cudaMalloc; 256-byte aligned). 0 bytes gives nullptr.
/// Throws device_error: out of device memory, no device.
void* allocate(std::size_t bytes);
void deallocate(void* p) noexcept;
/// Stream-ordered temporaries: the memory may be used by work on `stream` enqueued after this
/// call, and returns to the pool once the work enqueued before pool_deallocate has finished
/// (cudaMallocAsync / cudaFreeAsync on a pool that keeps its memory). Never a cudaMalloc per
/// assignment.
void* pool_allocate(std::size_t bytes, void* stream);
void pool_deallocate(void* p, std::size_t bytes, void* stream) noexcept;
/// Returns the pool's cached memory to the system (after synchronizing the device).
void pool_trim();

enum class copy_kind { host_to_device, device_to_host, device_to_device };
/// Copies `bytes`, ordered on `stream`. Transfers that touch host memory have completed when
/// this returns (host buffers are pageable); device-to-device copies may still be in flight.
void copy(void* dst, const void* src, std::size_t bytes, copy_kind kind, void* stream);
/// Sets `bytes` to zero, ordered on `stream`.
void fill_zero(void* p, std::size_t bytes, void* stream);

// ---- streams and errors -----------------------------------------------------------------------
/// A new non-blocking stream (an opaque cudaStream_t); nullptr is the default stream.
void* stream_create();
void stream_destroy(void* stream) noexcept;
/// Waits for the work on `stream`; asynchronous failures surface here as device_error.
void stream_sync(void* stream);
/// Checks for a launch failure right after enqueueing work (cudaGetLastError).
void check_launch(const char* what);
/// Registers a callback run when a stream is destroyed (per-stream caches, e.g. cuBLAS handles).
void on_stream_destroy(void (*callback)(void* stream));

/// Throws device_error "lz: <what> failed: <name>: <message>" for a CUDA error code.
[[noreturn]] void throw_cuda_error(const char* what, int code);

// ---- counters (lz::device_stats) -------------------------------------------------------------
struct counters {
  std::uint64_t allocations = 0;           ///< owning device buffers allocated
  std::uint64_t bytes_allocated = 0;       ///< bytes of those buffers
  std::uint64_t pool_requests = 0;         ///< stream-ordered temporaries requested
  std::uint64_t pool_system_allocs = 0;    ///< of those, served by a new system allocation (host
                                           ///< system only; the CUDA pool does not tell)
  std::uint64_t h2d = 0, d2h = 0, d2d = 0; ///< transfers
  std::uint64_t h2d_bytes = 0, d2h_bytes = 0, d2d_bytes = 0; ///< bytes moved by them
  std::uint64_t launches = 0; ///< device algorithm launches (transform, reduce, ...)
};
counters get_counters() noexcept;
void reset_counters() noexcept;
// Counting hooks used by both runtime implementations and the launch code (counters.cpp).
void count_launch() noexcept;
void count_allocation(std::size_t bytes) noexcept;
void count_pool_request(bool system_allocation) noexcept;
void count_copy(copy_kind kind, std::size_t bytes) noexcept;

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev
