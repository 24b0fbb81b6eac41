// Execution policies (mirroring std::execution) and the run-time thresholds behind the
// automatic choice. Each threshold names the benchmark that set it (perf/, docs/performance.md).
#pragma once

#include <lz/config.hpp>

#include <string>

namespace lz {

namespace detail {
/// thresholds().reduce_block's default (also the drivers' fallback for a non-positive block).
inline constexpr index_t default_reduce_block = 16384;
} // namespace detail

enum class exec_kind { automatic, seq, simd, par, device };

/// Scalar loops on the calling thread (the compiler may still vectorise).
struct seq_policy {
  static constexpr exec_kind kind = exec_kind::seq;
};
/// xsimd vector loops on the calling thread.
struct simd_policy {
  static constexpr exec_kind kind = exec_kind::simd;
};
/// xsimd vector loops split across TBB threads.
struct par_policy {
  static constexpr exec_kind kind = exec_kind::par;
};
/// Picks simd or par per assignment from its size and per-element cost (the default).
struct auto_policy {
  static constexpr exec_kind kind = exec_kind::automatic;
};

inline constexpr seq_policy seq{};
inline constexpr simd_policy simd{};
inline constexpr par_policy par{};
inline constexpr auto_policy automatic{};

/// Host execution policies (the device policy lives in the device backend).
template <class P>
concept host_policy = requires {
  P::kind;
}
&&(P::kind != exec_kind::device);

/// A threshold's value meaning "measure it on this machine the first time it matters, and keep the
/// result" (the per-CPU defaults of a CPU not in lazuli's table; docs/performance.md §3).
inline constexpr index_t measure_on_first_use = -1;

namespace detail {
/// Defaults that depend on the CPU, from lazuli's table of measured CPU kinds
/// (kernels/common/tuning.cpp: each entry names the benchmark and figures that set it). On a CPU
/// not in the table they are measure_on_first_use, and lz::info() says so.
struct cpu_defaults {
  std::string cpu;                ///< "GenuineIntel family 6 model 106" (cpuid), or "unknown"
  const char* kind = nullptr;     ///< the table's name for it; null when the CPU is not there
  index_t reduce_prefetch = 0;    ///< tuning::reduce_prefetch's default (or measure_on_first_use)
  const char* evidence = "";      ///< the measurement behind that default (or why it is a guess)
  index_t wide_bytes = 0;         ///< tuning::wide_bytes's default
  const char* wide_evidence = ""; ///< the measurement behind it (or why it is a guess)
};
/// The table's defaults for a CPU (vendor string, family and model as cpuid reports them).
cpu_defaults cpu_defaults_for(const std::string& vendor, unsigned family, unsigned model);
/// This process's CPU (cpuid, once).
const cpu_defaults& this_cpu_defaults();
/// The default of tuning::reduce_prefetch on this CPU (this_cpu_defaults()).
index_t default_reduce_prefetch() noexcept;
/// The default of tuning::wide_bytes on this CPU (this_cpu_defaults()).
index_t default_wide_bytes() noexcept;
} // namespace detail

/// One threshold: a value that lazuli's threads may read while another thread sets it
/// (lz::calibrate, or a user's `lz::thresholds().tile = 32`). Reads and writes are relaxed
/// atomic operations (plain moves on x86 and ARM), so that is not a data race; it converts to
/// and from T like the plain value it was.
template <class T>
class setting {
 public:
  constexpr setting(T v = T()) noexcept : v_(v) {}
  setting(const setting& o) noexcept : v_(o.get()) {}
  setting& operator=(const setting& o) noexcept { return *this = o.get(); }
  setting& operator=(T v) noexcept {
    __atomic_store_n(&v_, v, __ATOMIC_RELAXED);
    return *this;
  }
  T get() const noexcept { return __atomic_load_n(&v_, __ATOMIC_RELAXED); }
  /// Sets v if the value is still `expected` (a first-use result never overwrites a value set
  /// meanwhile by another thread); true if it did.
  bool replace(T expected, T v) noexcept {
    return __atomic_compare_exchange_n(&v_, &expected, v, false, __ATOMIC_RELAXED,
                                       __ATOMIC_RELAXED);
  }
  operator T() const noexcept { return get(); }

 private:
  T v_;
};

/// Run-time thresholds (adjust with `lz::thresholds().parallel_work = ...`; safe while other
/// threads compute: each field is a setting).
struct tuning {
  /// Work (elements x per-element cost in adds) from which the automatic policy uses threads.
  /// 2^18 keeps in-cache axpy single-threaded, where a second thread only adds scheduling.
  /// Not confirmed by measurement yet: perf/elementwise_bench W1par / W2par (lz::par on 2
  /// threads vs lz::simd, W1 at 1e4..3e5 and W2 at 1e3..3e4 elements) ran on the shared
  /// 2-core machine at load average ~4.5, where the second thread gained nothing at any size
  /// (speed-ups 0.79-1.09, perf/RESULTS.md), so no crossover could be read off. Re-measure
  /// on an idle machine before changing it.
  setting<index_t> parallel_work = index_t(1) << 18;
  /// Tile edge for loops that read a transposed operand: each tile of it is staged (SIMD
  /// transpose) into a 32 KiB L1 buffer, then the tree runs on contiguous rows.
  /// perf/transpose_bench W9/lazuli_tile* (2000x2000 doubles, 1 thread, time / hand loop,
  /// medians of 3 interleaved runs): tile 64 -> 0.20, 48 -> 0.20, 32 -> 0.26, 16 -> 0.31,
  /// 8 -> 0.43. 64 doubles = 32 KiB per tile is the largest that fits the stage buffer (wider
  /// elements get fewer rows per tile).
  setting<index_t> tile = 64;
  /// Destination bytes from which `=` writes with non-temporal (streaming) stores, skipping the
  /// cache: above the cache size a normal store first reads the line it overwrites. 0 disables.
  /// perf/elementwise_bench W1stream (z = 2.5x + 1.5y, streaming forced on / off, time
  /// ratio, medians of 3 interleaved runs, 32 MiB L3): destination 0.5-2 MiB -> 1.06-1.16
  /// (streaming loses while the arrays fit the cache), 4 MiB -> 0.92-1.07 (the crossover),
  /// 8 MiB -> 0.77, 16 MiB -> 0.70, 32-128 MiB -> 0.77-0.85.
  setting<index_t> stream_bytes = index_t(8) << 20;
  /// Elements per reduction block: partial sums are combined pairwise over blocks, so the
  /// result is independent of the thread count. Each block costs an init, a slab call, a
  /// finish and a combine (~35-50 ns); perf/w3_paired (W3 = sum((x - y)^2), 1 thread, thread
  /// CPU time, lazuli / Eigen, Intel Xeon model 167, AVX-512 build): n = 1e4 / 3e4 / 1e5 in
  /// cache 1.07-1.08 / 1.05-1.06 / 1.06-1.09 with 4096, 1.00-1.02 / 1.01 / 1.00-1.02 with 16384;
  /// from memory (1e6, 1e7) the same. Each of a block's 4 x lanes running sums adds 16384 /
  /// (4 x lanes) elements; reductions on one scalar accumulator (lz::seq, arg-reductions) run
  /// blocks of a quarter of this (docs/decisions/reduction-blocks-of-16384.md).
  setting<index_t> reduce_block = detail::default_reduce_block;
  /// Operand bytes from which contiguous full reductions (sum, dot, norm2, ...) issue software
  /// prefetches 16 KiB ahead of the loads; 0 never. The hardware prefetcher alone keeps too few
  /// misses in flight on some cores and more than enough on others, so the default depends on
  /// the CPU: it comes from lazuli's table of measured CPU kinds (detail::cpu_defaults_for;
  /// perf/w3_paired, W3 = sum((x - y)^2), n = 1e7, 1 thread): Intel Ice Lake-SP on from 8 MiB
  /// (as stream_bytes), newer Xeons (5th generation, AMX) and AMD Zen 3 off. On a CPU not in the
  /// table it is measure_on_first_use (any negative value): the first reduction over at least
  /// 8 MiB measures it (W3 with and without, as lz::calibrate does: ~0.1-0.2 s, 64 MiB, once)
  /// or reads it from the per-CPU cache file (LZ_TUNING_CACHE, else $XDG_CACHE_HOME/lazuli,
  /// else ~/.cache/lazuli; LZ_TUNING_CACHE=off keeps nothing), then sets it here; lz::info says
  /// which. Smaller reductions meanwhile run without prefetches.
  setting<index_t> reduce_prefetch = detail::default_reduce_prefetch();
  /// Bytes (elements x operands, destination included) up to which a contiguous one-thread pass
  /// of a cheap elementwise tree (a few adds per element: `z = 2.5*x + 1.5*y`) runs the
  /// target's widest batches; larger passes, threads, streaming stores, and every pass when 0,
  /// run 256-bit ones. Only AVX-512 targets have two widths. Such a pass is bound by loads and
  /// stores, and which width moves them faster depends on the core and the cache level, so the
  /// default comes from lazuli's table of measured CPU kinds (detail::cpu_defaults_for;
  /// perf/w1_paired, lazuli / hand loop, thread CPU time): the 5th-generation Xeon every size
  /// (n = 1000: 2.05 with 256 bits, 1.14 with 512; in L2 1.06-1.12 against 1.00-1.02), the Xeon
  /// reported as model 167 48 KiB (512 bits 6-8% slower in L2), Ice Lake-SP 0. On a CPU not in
  /// the table it is measure_on_first_use: the first cheap pass of at most 192 KiB times W1
  /// through both kernels (5-30 ms, once per CPU kind: the first-use cache, as reduce_prefetch)
  /// and sets it here; lz::calibrate measures it the same way
  /// (docs/decisions/cheap-tree-width-per-cpu.md).
  setting<index_t> wide_bytes = detail::default_wide_bytes();
  /// Products whose operands BLAS cannot take (non-unit strides both ways, negative strides):
  /// below this many multiply-adds (m·n·k) lazuli's own any-stride kernel runs them without
  /// allocating; above it the operand is copied into a BLAS layout first (perf/gemm_bench:
  /// the copy costs O(m·k) against the kernel's O(m·n·k) gain).
  setting<index_t> gemm_copy_flops = index_t(1) << 18;
  /// Use syrk for op(A)·op(A)ᵀ (half the flops of gemm; perf/gemm_bench syrk case).
  setting<bool> use_syrk = true;
  /// axpy/scal go to BLAS from this length up; a huge value disables the rule. Off.
  /// perf/level1_bench axpy (y = a*x + y, 1 thread, n = 1e2..1e7, time / cblas_daxpy, under
  /// load, both OpenBLAS cores; perf/RESULTS.md): in cache the fused loop is as fast as the
  /// axpy rule or faster (below ~1e3 the rule's wrapper costs more than the loop's set-up);
  /// out of cache (>= 1e6) the rule won 3 of 4 points (0.72-0.98 of the fused time) but not
  /// at two consecutive sizes on both cores. Suspect: streaming stores (stream_bytes) on an
  /// in-place update, which reads y anyway. Re-measure on an idle machine.
  setting<index_t> level1_blas = index_t(1) << 62;
  /// lz::dot goes to BLAS dot for lengths in [dot_blas, dot_blas_max]; dot_blas = 0 disables.
  /// perf/level1_bench dot (1 thread, time / cblas_ddot): below a few thousand elements the
  /// fused reduction's fixed cost (block accumulators, the fixed lane tree) makes it slower
  /// than the dot rule (n = 100: 1.3-1.4x, n = 1000: 1.2-1.4x); from ~3e3 up the two are
  /// within noise of each other. So BLAS takes the short dots from length 1 ...
  setting<index_t> dot_blas = 1;
  /// ... up to one reduction block (reduce_block): longer dots stay with the fused pairwise
  /// reduction, whose error grows like log(n) and whose bits do not depend on the thread count
  /// (OpenBLAS accumulates linearly and splits ddot across its threads above 10000 elements),
  /// at no measured cost in speed.
  setting<index_t> dot_blas_max = 4096;
};

namespace detail {
/// The defaults, overridden by the file LZ_CONFIG names (kernels/common/tuning.cpp). A file that
/// does not load (unreadable, not a regular file, over 64 KiB, a malformed line, an unknown key,
/// a value outside its key's range) leaves every default in force and says so on stderr and in
/// lz::info().
tuning initial_tuning();
/// One line per threshold: its value and where it came from (default, LZ_CONFIG, set in code).
std::string tuning_report();

/// The process's thresholds, constructed (from initial_tuning) by the first tuning_init to run:
/// storage with no initialization of its own (kernels/common/tuning.cpp), so thresholds() reads
/// it without a guard (a small assignment reads it twice: its fixed cost).
union tuning_storage {
  constexpr tuning_storage() noexcept : unset() {}
  char unset;
  tuning t;
};
extern tuning_storage process_tuning;
void construct_tuning() noexcept; // once per process
/// As <iostream>'s ios_base::Init: every file that includes this header constructs the
/// thresholds, if nothing has yet, before its own static objects, so that any code that can
/// name thresholds() finds them made (LZ_CONFIG is read before main, as LZ_LOG is).
struct tuning_init {
  tuning_init() noexcept { construct_tuning(); }
};
static const tuning_init tuning_init_of_this_file;
} // namespace detail

/// The thresholds in force (process-wide): the defaults above, or what the file in LZ_CONFIG
/// says (written by lz::save_tuning after lz::calibrate).
inline tuning& thresholds() noexcept { return detail::process_tuning.t; }

/// Writes thresholds as `key = value` lines (the format LZ_CONFIG loads).
void save_tuning(const std::string& path, const tuning& t);
/// Reads a file written by save_tuning: `key = value` lines, `#` comments; missing keys keep
/// their defaults. Throws std::runtime_error naming the file, the line, the key, the value and
/// the key's accepted range for unknown keys and values outside it; reads only regular files of
/// at most 64 KiB (never blocks on a FIFO or a device).
tuning load_tuning(const std::string& path);
/// The same as text.
std::string to_string(const tuning& t);

} // namespace lz
