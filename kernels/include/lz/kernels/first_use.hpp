// First-use measurements (kernels/common/tuning.cpp): a per-CPU default that lazuli's table of
// measured CPU kinds does not know (lz::measure_on_first_use) is measured on this machine the
// first time it matters and kept in a per-CPU cache file, so that later processes read it. Not
// part of the umbrella header: the reduction driver, lz::calibrate and the tests use it.
#pragma once

#include <lz/config.hpp>

#include <string>
#include <vector>

namespace lz::detail {

/// The directory first-use results are kept in: LZ_TUNING_CACHE if set ("off": none), else
/// $XDG_CACHE_HOME/lazuli (an absolute path), else $HOME/.cache/lazuli; "" for none.
std::string first_use_cache_dir();

/// The revision of the code `name`'s first-use measurement is about (the loop it times and how
/// it decides): bumped when that code changes, so that a value measured for the code before is
/// not read, even within one version of lazuli. 0 for a name with no measurement.
int first_use_revision(const char* name) noexcept;

/// The file holding `name`'s first-use value for this CPU kind and this build of lazuli, in
/// `dir` ("" if dir is ""): the key names everything the value depends on, so a value measured
/// on another CPU, by another version, for another vector width or for other code is never read
/// — `<name>-<vendor>-<family>-<model>-<stepping>-<kernel arch>[-debug]-r<revision>-<lazuli
/// version>.conf` (`-debug`: an unoptimized or sanitized build, whose timings never stand for an
/// optimized one; `r`: first_use_revision).
std::string first_use_cache_file(const std::string& dir, const char* name);

/// A measurement: the value chosen and one line saying what was measured (kept in the file).
struct first_use_measurement {
  index_t value = 0;
  std::string how;
};
/// A first use's outcome: the value and where it came from (lz::info prints `origin`).
struct first_use_result {
  index_t value = 0;
  bool measured = false; ///< measured in this call (false: read from the file)
  std::string origin;
};
/// `name`'s value from `file` (save_tuning's format holding only that key, in [lo, hi]);
/// when there is no such file, or it does not load, measure(ctx) decides and its result is
/// written to `file` atomically (a temporary in the same directory, then rename; a missing
/// directory is made with mode 0700). `file` "": measured, nothing kept. Failing to keep the
/// result is not an error — the value is used and `origin` says why it was not kept; an
/// exception from measure propagates.
first_use_result first_use(const std::string& file, const char* name, index_t lo, index_t hi,
                           first_use_measurement (*measure)(void*), void* ctx);

/// tuning::reduce_prefetch's value on this machine when it is measure_on_first_use: read or
/// measured once per process (thread-safe; later calls return the same value) and stored into
/// lz::thresholds() unless a value was set there meanwhile. A measurement that fails (memory)
/// leaves prefetches off and says why in lz::info.
index_t resolve_first_use_reduce_prefetch();
/// The origin of the value resolved above, or "" while none has been.
std::string first_use_reduce_prefetch_origin();

/// W3 (sum((x - y)^2), two 32 MiB operands, one thread) with and without software prefetches:
/// the median of up to `pairs` paired timings of (time with) / (time without), each the minimum
/// of three repetitions of `seconds_per_point` (src/calibrate.cpp; lz::calibrate uses it too).
/// Stops after one pair when a call alone costs ten budgets (debug and sanitizer builds);
/// `pairs` is set to the number measured.
double measure_reduce_prefetch_ratio(double seconds_per_point, int& pairs);

/// tuning::wide_bytes's value on this machine when it is measure_on_first_use: as
/// resolve_first_use_reduce_prefetch (once per process, thread-safe, never over a value set
/// meanwhile); a measurement that fails leaves 256-bit batches and says why in lz::info.
index_t resolve_first_use_wide_bytes();
/// The origin of the value resolved above, or "" while none has been.
std::string first_use_wide_bytes_origin();

/// One size of measure_wide_batches: n doubles per operand, the fastest call with full-width
/// and with 256-bit batches, and the median of their paired ratios (full / 256).
struct wide_batch_point {
  index_t n = 0;
  double wide_s = 0, narrow_s = 0, ratio = 0;
};
/// W1 (z = 2.5*x + 1.5*y, one thread) through its full-width and its 256-bit kernel directly
/// (no threshold read or changed), for n = 512, 1024, ..., 8192: three pairs of timings of
/// `seconds_per_point` each per size, stopping after the first size at which full width did not
/// win by 3% (larger passes cannot count). Empty on targets of one batch width (src/calibrate.cpp;
/// lz::calibrate uses it too).
std::vector<wide_batch_point> measure_wide_batches(double seconds_per_point);
/// The decision from such a sweep: the bytes of the largest pass (3 operands x n doubles) up to
/// which full width won by 3% at every size; 0 if not at the first; 2^62 (every pass) if at all
/// of them (0 for an empty sweep).
index_t wide_bytes_of(const std::vector<wide_batch_point>& points);

} // namespace lz::detail

namespace lz::kernels::cpu {
/// For the calling thread only, while alive: reductions prefetch from `bytes` operand bytes on
/// (0: never), whatever their options say. Measurements use it so that they never change
/// lz::thresholds() under the user's other threads.
class scoped_prefetch {
 public:
  explicit scoped_prefetch(index_t bytes) noexcept;
  ~scoped_prefetch();
  scoped_prefetch(const scoped_prefetch&) = delete;
  scoped_prefetch& operator=(const scoped_prefetch&) = delete;

 private:
  index_t saved_;
};
} // namespace lz::kernels::cpu
