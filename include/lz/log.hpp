// Tracing: LZ_LOG=fusion,alloc,copy,blas,loop,device,dist (or lz::logging::enable) prints each rule
// decision, allocation, transfer and kernel call, with sizes and times, to stderr. Off, a
// trace point costs one load and one predictable branch. Compiled part: kernels/common/log.cpp.
#pragma once

#include <lz/config.hpp>

#include <atomic>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace lz::logging {

enum channel : unsigned {
  fusion = 1u << 0, ///< which rule fired, which did not and why
  alloc = 1u << 1,  ///< buffers and plan temporaries
  copy = 1u << 2,   ///< copies into BLAS layouts, host <-> device transfers
  blas = 1u << 3,   ///< BLAS calls with flags, sizes, alpha, beta, time
  loop = 1u << 4,   ///< fused loops: dims, SIMD width, threads, time
  device = 1u << 5, ///< device kernels and streams
  dist = 1u << 6,   ///< lz::dist: PBLAS calls, redistributions, local loops (one line per rank)
  all = 0x7fu
};

namespace detail {
// Initialised from LZ_LOG before main; atomic because enable/disable may run while other threads
// compute (a relaxed load is a plain load on x86 and ARM).
extern std::atomic<unsigned> g_mask;
} // namespace detail

/// True when `c` is being traced (the one branch a disabled trace point costs).
inline bool on(channel c) noexcept {
  return LZ_UNLIKELY((detail::g_mask.load(std::memory_order_relaxed) & c) != 0);
}
/// Enables channels: a mask, or a list as in LZ_LOG ("fusion,blas", "all"). A name that is not
/// a channel throws std::invalid_argument naming it and the channels (nothing is enabled); in
/// LZ_LOG it is reported on stderr at start-up and the other names are used.
void enable(unsigned mask) noexcept;
void enable(const std::string& list);
/// Disables channels (all by default).
void disable(unsigned mask = all) noexcept;
/// Writes one line "[lz:<channel>] <message>" to stderr, or hands it to the sink (thread-safe:
/// one line at a time).
void write(channel c, const std::string& message);
/// Parses a channel list ("fusion,blas"); unknown names are ignored (listed in `*unknown`,
/// comma-separated, when given).
unsigned parse(const std::string& list, std::string* unknown = nullptr) noexcept;
/// The channel's name as LZ_LOG spells it ("fusion", "blas", ...).
const char* name(channel c) noexcept;

/// Where trace lines go instead of stderr: called with the channel and the message (no "[lz:...]"
/// prefix), one call at a time (lazuli holds a lock around it, so the sink need not be
/// thread-safe, and must not call lz::logging::write). A sink that throws loses that line: the
/// exception is reported on stderr and never reaches the computation that traced it. An empty
/// function restores stderr.
/// Made from any callable taking (channel, const std::string&): a lambda, a function, a
/// std::function; empty from `nullptr`, `{}`, a null function pointer or an empty std::function.
/// (A small owning wrapper of lazuli's own: std::function's header was 5% of what including
/// lz.hpp makes the compiler read, perf/compile.)
class sink {
 public:
  sink() noexcept = default;
  sink(std::nullptr_t) noexcept {}
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, sink> &&
           !std::is_same_v<std::remove_cvref_t<F>, std::nullptr_t> &&
           std::is_invocable_v<std::decay_t<F>&, channel, const std::string&>) sink(F&& f) {
    using D = std::decay_t<F>;
    using G = std::remove_cvref_t<F>; // (a function reference is never null)
    if constexpr (std::is_pointer_v<G> || std::is_member_pointer_v<G>) {
      if (f == nullptr) return;
    } else if constexpr (std::is_class_v<D> && requires(const D& d) { d == nullptr; }) {
      if (f == nullptr) return;
    }
    obj_ = new D(std::forward<F>(f));
    ops_ = &ops_for<D>;
  }
  sink(const sink& o) : obj_(o.obj_ ? o.ops_->clone(o.obj_) : nullptr), ops_(o.ops_) {}
  sink(sink&& o) noexcept : obj_(std::exchange(o.obj_, nullptr)), ops_(o.ops_) {}
  sink& operator=(sink o) noexcept {
    std::swap(obj_, o.obj_);
    std::swap(ops_, o.ops_);
    return *this;
  }
  ~sink() {
    if (obj_) ops_->destroy(obj_);
  }
  explicit operator bool() const noexcept { return obj_ != nullptr; }
  /// @pre not empty.
  void operator()(channel c, const std::string& line) const { ops_->call(obj_, c, line); }

 private:
  struct ops {
    void (*call)(void*, channel, const std::string&);
    void* (*clone)(const void*);
    void (*destroy)(void*) noexcept;
  };
  template <class D>
  static constexpr ops ops_for = {
      [](void* p, channel c, const std::string& l) { (*static_cast<D*>(p))(c, l); },
      [](const void* p) -> void* { return new D(*static_cast<const D*>(p)); },
      [](void* p) noexcept { delete static_cast<D*>(p); }};
  void* obj_ = nullptr;
  const ops* ops_ = nullptr;
};
/// Routes trace lines to `s` instead of stderr (see sink above); an empty function restores stderr.
void set_sink(sink s);

/// Monotonic clock in nanoseconds, for timing traced calls.
long long now_ns() noexcept;
/// write(c, message + " <elapsed since t0> us"), t0 from now_ns().
void write_timed(channel c, const std::string& message, long long t0);

} // namespace lz::logging
