// The CPU loop driver, compiled once (kernels/cpu/loop.cpp): turns a loop over operand
// descriptors into calls of a tree's slab kernels (row.hpp). plan_loop decides everything
// (dimension order, coalescing, SIMD mode, tiling, threads) before anything runs, so explain
// can print the decision; run_loop executes it.
#pragma once

#include <lz/expr/traverse.hpp>
#include <lz/kernels/cpu/row.hpp>

#include <string>

namespace lz::kernels::cpu {

/// Most operands (destination + leaves) one loop takes.
inline constexpr int max_operands = 256;

struct loop_options {
  bool threads = true;       ///< may use TBB threads (lz::par and the automatic policy)
  index_t parallel_work = 0; ///< element-cost below which the loop stays on one thread
  int cost = 1;              ///< per-element cost of the tree
  index_t tile = 0;          ///< tile edge for transposed reads; 0 disables tiling
  index_t stream_bytes = 0;  ///< destination bytes from which stores stream; 0 never
  bool keep_order = false;   ///< keep the logical dimension order (arg-reductions count indices)
};

/// Most transposed operands a tiled loop stages through its L1 buffer (more: strided tiles).
inline constexpr int max_staged = 4;
/// Bytes of the per-thread buffer that holds the staged (transposed) tiles.
inline constexpr index_t stage_bytes = 32768;

/// A loop after planning: dims dropped/reordered/coalesced, operands rewritten in place.
struct loop_plan {
  int rank = 0; ///< loop dims after coalescing (>= 1)
  index_t extents[max_rank] = {};
  int count = 0; ///< operands, destination first
  detail::operand* ops = nullptr;
  mode m = mode::unit;
  bool tiled = false;
  index_t tile = 0;      ///< tile columns (the destination's contiguous direction)
  index_t tile_rows = 0; ///< tile rows: `tile`, fewer when wide elements would overflow the
                         ///< stage buffer
  /// Tiled loops: operands read transposed are copied tile by tile (SIMD in-register
  /// transpose) into an L1 buffer, so the tree itself runs in `tile_mode` (unit when the
  /// other operands are contiguous rows). staged = 0: the tile runs strided, element by element.
  int staged = 0;
  int staged_ops[max_staged] = {};
  mode tile_mode = mode::strided;
  index_t size = 0;  ///< elements
  index_t outer = 1; ///< slabs (product of dims before the last two)
  index_t row_block = 1, row_blocks = 1;
  index_t inner_chunk = 0, inner_chunks = 1;
  index_t items = 0; ///< work items handed to threads (0: nothing to do)
  int threads = 1;
};

/// Plans a loop of `rank` dims with `extents` over `count` operands (operand 0 written).
/// @pre no operand reads the destination's memory at another position (evaluate.hpp checks).
loop_plan plan_loop(int rank, const index_t* extents, int count, detail::operand* ops,
                    const loop_options& opt);

/// Runs a planned loop with one tree's slab kernels.
void run_loop(const loop_plan& plan, const slab_kernels& k, const void* ctx);

/// Element-cost below which even lz::par stays on one thread (a task costs ~1 us).
inline constexpr index_t min_parallel_work = 65536;

/// The large case of the contiguous fast path (fusion/rules/map.hpp): n elements of `count`
/// contiguous operands at p (element sizes esize; p[0] written). Streams the output with
/// `stream` when it is not null and n * esize[0] >= opt.stream_bytes, and splits the work
/// over the threads when opt.threads and n * opt.cost >= opt.parallel_work.
void run_flat_loop(slab_fn unit, slab_fn stream, const void* ctx, int count, char* const* p,
                   const index_t* esize, index_t n, const loop_options& opt);

/// One line for explain: "loop 2-d (2000,2000) tiled 32, strided, 2 threads x 63 items".
std::string describe(const loop_plan& plan, int simd_width);

/// The facts explain and LZ_LOG print about one elementwise assignment. The per-tree template
/// (fusion/rules/map.hpp, describe_map) only gathers them; the text is made here, once, so
/// that no string code is compiled into every assignment.
struct map_facts {
  const char* op = "=";            ///< assignment operator
  int operands = 0;                ///< leaves read
  int cost = 1;                    ///< per-element cost of the tree
  int simd_width = 1;              ///< lanes per batch (1: scalar)
  const loop_plan* plan = nullptr; ///< the driver's plan; null for the contiguous fast path
  index_t flat_size = 0;           ///< fast path: elements
  int flat_threads = 0;            ///< fast path: threads (0: this one)
  bool aliased = false;            ///< evaluated through a temporary, then copied
};
std::string describe_map_loop(const std::string& dst_name, const map_facts& f);

} // namespace lz::kernels::cpu
