// Execution policies (mirroring std::execution) and the run-time thresholds behind the
// automatic choice. Each threshold names the benchmark that set it (perf/, docs/performance.md).
#pragma once

#include <lz/config.hpp>

namespace lz {

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

/// Run-time thresholds (adjust with `lz::thresholds().parallel_work = ...`).
struct tuning {
  /// Work (elements x per-element cost in adds) from which the automatic policy uses threads.
  /// perf/elementwise_bench: on 2 cores W1 (cost 3) gains from threads above ~1e5 elements
  /// in cache and W2 (cost ~30) above ~1e4; 2^18 keeps in-cache axpy single-threaded, where
  /// the second thread only adds ~2 us of scheduling.
  index_t parallel_work = index_t(1) << 18;
  /// Tile edge for loops that read a transposed operand: each tile of it is staged (SIMD
  /// transpose) into a 32 KiB L1 buffer, then the tree runs on contiguous rows.
  /// perf/transpose_bench W9/lazuli_tile* (2000x2000, 1 thread, CPU-time medians under load):
  /// 64 -> 7.2 ms, 48 -> 7.9, 32 -> 9.4, 16 -> 12.0, 8 -> 16.1; 64 doubles = 32 KiB per tile
  /// is the largest that fits the buffer (wider elements get fewer rows per tile).
  index_t tile = 64;
  /// Destination bytes from which `=` writes with non-temporal (streaming) stores, skipping the
  /// cache: above the cache size a normal store first reads the line it overwrites. 0 disables.
  /// perf/elementwise_bench W1sweep (PLACEHOLDER, set by measurement).
  index_t stream_bytes = index_t(8) << 20;
  /// Elements per reduction block: partial sums are combined pairwise over blocks, so the
  /// result is independent of the thread count (perf/reduce_bench, W3).
  index_t reduce_block = 4096;
};

/// The thresholds in force (process-wide).
inline tuning& thresholds() noexcept {
  static tuning t;
  return t;
}

} // namespace lz
