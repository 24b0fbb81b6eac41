// One handle of a CUDA library per stream (cuSPARSE's, cuSOLVER's), private to kernels/cuda:
// made on first use by Lib::create(stream) (which throws lz::device_error), destroyed by
// Lib::destroy when the stream is (runtime.hpp's on_stream_destroy), never at exit (the map
// outlives static destructors: the driver may be gone by then).
#pragma once

#include <lz/kernels/cuda/runtime.hpp>

#include <map>
#include <mutex>

namespace lz::kernels::dev::detail {

template <class Lib>
class per_stream {
 public:
  using handle = typename Lib::handle;
  /// The handle for `stream`, made on its first use.
  static handle get(void* stream) {
    std::lock_guard lock(mutex());
    static const bool registered = (on_stream_destroy(&release), true);
    (void)registered;
    auto& m = handles();
    auto it = m.find(stream);
    if (it != m.end()) return it->second;
    return m.emplace(stream, Lib::create(stream)).first->second;
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<void*, handle>& handles() {
    static auto* m = new std::map<void*, handle>;
    return *m;
  }
  static void release(void* stream) {
    std::lock_guard lock(mutex());
    auto it = handles().find(stream);
    if (it != handles().end()) {
      Lib::destroy(it->second);
      handles().erase(it);
    }
  }
};

} // namespace lz::kernels::dev::detail
