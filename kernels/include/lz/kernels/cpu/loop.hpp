// The CPU loop driver, compiled once (kernels/cpu/loop.cpp): turns a loop over operand
// descriptors into calls of a tree's one slab kernel (row.hpp). plan_loop decides everything
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

/// Runs a planned loop with one tree's kernel. Operands whose inner stride is not 1 (strided,
/// broadcast, transposed) are packed into contiguous L1 buffers by this compiled code, so the
/// tree's single kernel only ever sees contiguous rows; a packed destination is scattered
/// back (gathered first when the kernel reads it: +=, ...).
void run_loop(const loop_plan& plan, const map_kernel& k, const void* ctx);

/// Element-cost below which even lz::par stays on one thread (a task costs ~1 us).
inline constexpr index_t min_parallel_work = 65536;
/// Bytes of the per-thread buffer that holds packed (strided, broadcast) operand rows.
inline constexpr index_t pack_bytes = 16384;

/// dst[0, n) = the n elements of `es` bytes at src, `ss` bytes apart (0: one value repeated):
/// how the drivers pack a strided or broadcast operand row for a contiguous-only kernel.
void gather_elements(char* dst, const char* src, index_t ss, index_t n, index_t es);

/// dst[r][c] = src[r][c] for a rows x cols tile of `es`-byte elements whose src rows are adjacent
/// elements and src columns `cs` bytes apart (a transposed read), dst rows `ds` bytes apart:
/// 4 x 4 blocks transposed in registers (8- and 4-byte elements), the edges one by one. The
/// loop driver stages transposed operands with it; the axis reductions transpose short rows.
void stage_tile(char* dst, const char* src, index_t rows, index_t cols, index_t cs, index_t es,
                index_t ds);

/// Per-call buffers for the operands in [first, n) whose inner stride s_in is not 1: each gets
/// a 64-byte aligned buffer of `chunk` elements inside a pack_bytes array (on the caller's
/// stack, so per thread), or on the heap for operands too wide for it.
struct pack_buffers {
  int count = 0;           ///< operands packed
  int op[max_operands];    ///< their indices
  char* buf[max_operands]; ///< their buffers
  index_t chunk = 0;       ///< elements per buffer
  pack_buffers(const detail::operand* ops, const index_t* s_in, int first, int n);
  ~pack_buffers();
  pack_buffers(const pack_buffers&) = delete;
  pack_buffers& operator=(const pack_buffers&) = delete;

 private:
  alignas(64) unsigned char local_[pack_bytes];
  unsigned char* heap_ = nullptr;
};

struct map_call;

/// What an elementwise assignment's loop is, known when its tree is compiled: one constant
/// per tree, policy kind and operator (fusion/rules/map.hpp), pointed at, not copied, by each
/// call (copying it field by field was ~20 instructions of a small assignment's fixed cost).
struct map_info {
  map_kernel k;
  /// The tree at the target's full width where k is narrower (cheap trees on AVX-512;
  /// wide_kernel_for): run instead of k by a contiguous pass of at most
  /// thresholds().wide_bytes bytes. fn null: none.
  map_kernel wide;
  int count = 0; ///< operands, destination first
  int rank = 0;
  int cost = 1;           ///< per-element cost of the tree
  bool threads = false;   ///< the policy may use threads (lz::par, automatic)
  bool automatic = false; ///< the automatic policy: threads only above thresholds().parallel_work
  const char* op = "=";   ///< the assignment operator, for explain and LZ_LOG
  /// A tree that may be one BLAS 1 call in place (`y = a*x + y`, at most 3 operands;
  /// fusion/rules/level1.hpp): from thresholds().level1_blas elements, run_map and
  /// run_map_vector_blas1 ask it first, after flattening; it makes the call and returns true,
  /// or returns false and the loop runs. Null for other trees.
  bool (*blas1)(const map_call&) = nullptr;
};

/// One elementwise assignment after its tree was flattened (fusion/rules/map.hpp fills it).
/// Everything after flattening is compiled once, here: the contiguous fast path, aliasing
/// (a temporary), planning, threads, the LZ_LOG=loop line and the explain text.
struct map_call {
  const map_info* info = nullptr;
  const void* tree = nullptr;
  detail::operand* ops = nullptr;   ///< ops[0]: destination; rewritten by planning
  const index_t* extents = nullptr; ///< the destination's
};

/// Runs dst ⊕= tree: the fast path (every leaf addressed as the destination, which is a dense
/// block, and apart from it or at the same position) calls the kernel over one flat row; otherwise
/// plan_loop/run_loop, through a temporary when a leaf reads the destination at another position.
void run_map(const map_call& c);
/// Most operands (destination included) of a run_map_vector call.
inline constexpr int vector_operands = 16;
/// run_map for a rank-1 call of N operands (destination included, 1 <= N <= vector_operands,
/// N == c.info->count), chosen at compile time by the caller: the same decisions, with no array
/// in its frame, the operand test unrolled and tail calls only (the fixed cost of a small vector
/// assignment: docs/decisions/small-assignment-fixed-cost.md). `p`, room for the call's operand
/// pointers in the caller's frame, gets the kernel's pointers, so that the kernel is a tail
/// call. Compiled in the library for each N.
template <int N>
void run_map_vector(const map_call& c, char** p);
/// run_map_vector for a tree that may be one BLAS 1 call (c.info->blas1 set; N <= 3): from
/// thresholds().level1_blas elements asks it first, then runs the loop if it declined.
template <int N>
void run_map_vector_blas1(const map_call& c, char** p);

/// What run_map would do, as one line for explain (the destination called dst_name); sets
/// *aliased when it would go through a temporary. Plans on a copy: c is not modified.
std::string describe_map(const map_call& c, const std::string& dst_name, bool* aliased);

/// One line for explain: "loop 2-d (2000,2000) tiled 32, strided, 2 threads x 63 items".
std::string describe(const loop_plan& plan, int simd_width);

} // namespace lz::kernels::cpu
