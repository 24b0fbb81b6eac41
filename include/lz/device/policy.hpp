// The device execution policy and streams. `lz::device` runs an assignment on the device and
// returns when it is done (errors are reported at the call); `lz::device.on(stream)` enqueues it
// on `stream` and returns at once: the work (and any error it hits) completes at
// `stream.sync()`. Temporaries of asynchronous work are stream-ordered, so they stay valid until
// the work that reads them has run. Thrust-free: usable from g++ files of a CUDA build.
#pragma once

#include <lz/device/config.hpp>
#include <lz/kernels/cuda/runtime.hpp>
#include <lz/policy.hpp>

#include <utility>

namespace lz {

/// An owned CUDA stream (non-blocking) or, through wrap(), a stream the caller owns. On Thrust's
/// host system a stream is a token and all work completes before the call returns.
class device_stream {
  void* handle_ = nullptr;
  bool owned_ = false;

 public:
  /// Creates a new stream (throws device_error without a usable device).
  device_stream() : handle_(kernels::dev::stream_create()), owned_(true) {}
  /// A non-owning handle to an existing cudaStream_t (passed as void*); nullptr = default stream.
  static device_stream wrap(void* native) noexcept {
    device_stream s(nullptr, 0);
    s.handle_ = native;
    return s;
  }
  device_stream(device_stream&& o) noexcept
      : handle_(std::exchange(o.handle_, nullptr)), owned_(std::exchange(o.owned_, false)) {}
  device_stream& operator=(device_stream&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
      owned_ = std::exchange(o.owned_, false);
    }
    return *this;
  }
  device_stream(const device_stream&) = delete;
  device_stream& operator=(const device_stream&) = delete;
  ~device_stream() { reset(); }

  /// The cudaStream_t, as void* (nullptr: the default stream).
  void* native_handle() const noexcept { return handle_; }
  /// Waits for everything enqueued on the stream; throws device_error if that work failed.
  void sync() const { kernels::dev::stream_sync(handle_); }

 private:
  device_stream(std::nullptr_t, int) noexcept {}
  void reset() noexcept {
    if (owned_) kernels::dev::stream_destroy(handle_);
    handle_ = nullptr;
    owned_ = false;
  }
};

/// Execution policy of the device backend (Thrust + cuBLAS). Carries a stream; `async` work
/// returns before it has run.
struct device_policy {
  static constexpr exec_kind kind = exec_kind::device;
  void* stream = nullptr; ///< cudaStream_t (nullptr: the default stream)
  bool async = false;     ///< false: each call waits for its work (and reports its errors)

  /// The same policy on `s`, asynchronous: `lz::assign(lz::device.on(s), y, 2.0 * x + y);`
  device_policy on(const device_stream& s) const noexcept { return {s.native_handle(), true}; }
  /// Waits for the policy's stream (see device_stream::sync).
  void sync() const { kernels::dev::stream_sync(stream); }
};

/// Run on the device: `lz::assign(lz::device, d, e)`, `lz::eval(lz::device, e)`.
inline constexpr device_policy device{};

/// Counters of device allocations, pool use, transfers and launches since the last reset.
using device_counters = kernels::dev::counters;
/// The device counters since the last reset_device_stats().
inline device_counters device_stats() noexcept { return kernels::dev::get_counters(); }
/// Zeroes the device counters.
inline void reset_device_stats() noexcept { kernels::dev::reset_counters(); }

/// True when a device is usable ("cuda" build with a GPU, or the host system).
inline bool device_available() noexcept { return kernels::dev::device_count() > 0; }
/// "NVIDIA H200 (sm_90, ...)" or "Thrust host system (TBB, ...)"; throws device_error without a
/// usable device.
inline std::string device_info() {
  return std::string(kernels::dev::backend()) + ": " + kernels::dev::device_info();
}

} // namespace lz
