// CPU loop driver: coalesce, order, tile and partition a loop nest, then call a tree's slab
// kernels. Compiled once; user translation units only instantiate the slab kernels.
#include <lz/kernels/cpu/loop.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace lz::kernels::cpu {
namespace {

index_t iabs(index_t v) { return v < 0 ? -v : v; }
index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

// Threads want at least this many element-costs per work item, so that the scheduling cost
// (~1 us per task) stays below a few percent.
constexpr index_t min_item_work = 32768;

// dst[r][c] = src[r][c] for a rows x cols tile of `es`-byte elements: src rows are adjacent
// elements, src columns `cs` bytes apart (a transposed read); dst rows are `ds` bytes apart.
template <class U>
void stage_scalar(char* dst, const char* src, index_t r0, index_t rows, index_t c0, index_t cols,
                  index_t cs, index_t ds) {
  for (index_t r = r0; r < rows; ++r)
    for (index_t c = c0; c < cols; ++c)
      std::memcpy(dst + r * ds + c * index_t(sizeof(U)), src + r * index_t(sizeof(U)) + c * cs,
                  sizeof(U));
}

struct bytes16 {
  unsigned char b[16];
};

void stage_tile(char* dst, const char* src, index_t rows, index_t cols, index_t cs, index_t es,
                index_t ds) {
  index_t rv = 0, cv = 0; // rows / columns done by the SIMD blocks
#if defined(__AVX__)
  if (es == 8) { // 4x4 blocks of doubles: 4 column loads, an in-register transpose, 4 row stores
    rv = rows / 4 * 4, cv = cols / 4 * 4;
    for (index_t c = 0; c < cv; c += 4) {
      const char* s0 = src + c * cs;
      for (index_t r = 0; r < rv; r += 4) {
        const double* a = reinterpret_cast<const double*>(s0 + r * 8);
        const __m256d a0 = _mm256_loadu_pd(a);
        const __m256d a1 = _mm256_loadu_pd(reinterpret_cast<const double*>(s0 + cs + r * 8));
        const __m256d a2 = _mm256_loadu_pd(reinterpret_cast<const double*>(s0 + 2 * cs + r * 8));
        const __m256d a3 = _mm256_loadu_pd(reinterpret_cast<const double*>(s0 + 3 * cs + r * 8));
        const __m256d t0 = _mm256_unpacklo_pd(a0, a1), t1 = _mm256_unpackhi_pd(a0, a1);
        const __m256d t2 = _mm256_unpacklo_pd(a2, a3), t3 = _mm256_unpackhi_pd(a2, a3);
        double* d = reinterpret_cast<double*>(dst + r * ds + c * 8);
        const index_t dr = ds / 8;
        _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm256_storeu_pd(d + dr, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm256_storeu_pd(d + 2 * dr, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm256_storeu_pd(d + 3 * dr, _mm256_permute2f128_pd(t1, t3, 0x31));
      }
    }
  } else if (es == 4) { // 4x4 blocks of floats (SSE transpose)
    rv = rows / 4 * 4, cv = cols / 4 * 4;
    for (index_t c = 0; c < cv; c += 4) {
      const char* s0 = src + c * cs;
      for (index_t r = 0; r < rv; r += 4) {
        __m128 a0 = _mm_loadu_ps(reinterpret_cast<const float*>(s0 + r * 4));
        __m128 a1 = _mm_loadu_ps(reinterpret_cast<const float*>(s0 + cs + r * 4));
        __m128 a2 = _mm_loadu_ps(reinterpret_cast<const float*>(s0 + 2 * cs + r * 4));
        __m128 a3 = _mm_loadu_ps(reinterpret_cast<const float*>(s0 + 3 * cs + r * 4));
        _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
        float* d = reinterpret_cast<float*>(dst + r * ds + c * 4);
        const index_t dr = ds / 4;
        _mm_storeu_ps(d, a0);
        _mm_storeu_ps(d + dr, a1);
        _mm_storeu_ps(d + 2 * dr, a2);
        _mm_storeu_ps(d + 3 * dr, a3);
      }
    }
  }
#endif
  // The rest (edges, other element sizes) element by element.
  auto rest = [&](auto tag) {
    using U = decltype(tag);
    stage_scalar<U>(dst, src, 0, rv, cv, cols, cs, ds);   // right edge of the SIMD rows
    stage_scalar<U>(dst, src, rv, rows, 0, cols, cs, ds); // bottom rows
  };
  switch (es) {
  case 1:
    rest(std::uint8_t{});
    break;
  case 2:
    rest(std::uint16_t{});
    break;
  case 4:
    rest(std::uint32_t{});
    break;
  case 8:
    rest(std::uint64_t{});
    break;
  case 16:
    rest(bytes16{});
    break;
  default:
    for (index_t r = 0; r < rows; ++r)
      for (index_t c = (r < rv ? cv : 0); c < cols; ++c)
        std::memcpy(dst + r * ds + c * es, src + r * es + c * cs, std::size_t(es));
  }
}

} // namespace

loop_plan plan_loop(int rank, const index_t* extents, int count, detail::operand* ops,
                    const loop_options& opt) {
  if (count > max_operands) throw std::length_error("lz: loop with more than 256 operands");
  loop_plan p;
  p.count = count;
  p.ops = ops;

  // 1. Drop extent-1 dims (they address nothing); an empty extent means no work.
  index_t e[max_rank];
  int R = 0;
  for (int k = 0; k < rank; ++k) {
    if (extents[k] == 0) return p; // items = 0
    if (extents[k] == 1) continue;
    e[R] = extents[k];
    for (int j = 0; j < count; ++j) ops[j].strides[R] = ops[j].strides[k];
    ++R;
  }
  if (R == 0) { // a single element
    R = 1;
    e[0] = 1;
    for (int j = 0; j < count; ++j) ops[j].strides[0] = 0;
  }

  // 2. Walk memory in the destination's order: sort dims by |dest stride|, largest outside
  //    (stable, so ties keep the logical order).
  int perm[max_rank];
  for (int k = 0; k < R; ++k) perm[k] = k;
  for (int a = 1; a < R && !opt.keep_order; ++a)
    for (int b = a; b > 0 && iabs(ops[0].strides[perm[b]]) > iabs(ops[0].strides[perm[b - 1]]); --b)
      std::swap(perm[b], perm[b - 1]);
  {
    index_t te[max_rank];
    for (int k = 0; k < R; ++k) te[k] = e[perm[k]];
    for (int k = 0; k < R; ++k) e[k] = te[k];
    for (int j = 0; j < count; ++j) {
      index_t ts[max_rank];
      for (int k = 0; k < R; ++k) ts[k] = ops[j].strides[perm[k]];
      for (int k = 0; k < R; ++k) ops[j].strides[k] = ts[k];
    }
  }

  // 3. Reversed destination dims run forward (every operand flips with it; safe because no
  //    operand reads the destination at another position).
  for (int k = 0; k < R && !opt.keep_order; ++k)
    if (ops[0].strides[k] < 0)
      for (int j = 0; j < count; ++j) {
        ops[j].ptr += (e[k] - 1) * ops[j].strides[k] * ops[j].esize;
        ops[j].strides[k] = -ops[j].strides[k];
      }

  // 4. Coalesce: merge dim k into k+1 when every operand steps over it contiguously.
  {
    int out = R - 1; // write position, innermost first
    index_t ce[max_rank];
    ce[out] = e[R - 1];
    for (int k = R - 2; k >= 0; --k) {
      bool merge = true;
      for (int j = 0; j < count && merge; ++j)
        merge = ops[j].strides[k] == ops[j].strides[out] * ce[out];
      if (merge) {
        ce[out] *= e[k];
      } else {
        --out;
        ce[out] = e[k];
        for (int j = 0; j < count; ++j) ops[j].strides[out] = ops[j].strides[k];
      }
    }
    const int shift = out;
    R -= shift;
    for (int k = 0; k < R; ++k) e[k] = ce[k + shift];
    if (shift)
      for (int j = 0; j < count; ++j)
        for (int k = 0; k < R; ++k) ops[j].strides[k] = ops[j].strides[k + shift];
  }
  p.rank = R;
  p.size = 1;
  for (int k = 0; k < R; ++k) {
    p.extents[k] = e[k];
    p.size *= e[k];
  }

  // 5. SIMD mode from the inner strides.
  const int in = R - 1;
  bool unit = true, bcast = ops[0].strides[in] == 1;
  for (int j = 0; j < count; ++j) {
    const index_t s = ops[j].strides[in];
    unit = unit && s == 1;
    if (j) bcast = bcast && (s == 1 || s == 0);
  }
  p.m = unit ? mode::unit : bcast ? mode::bcast : mode::strided;
  // Outputs larger than the cache are written with streaming stores (see mode::stream).
  const bool stream = opt.stream_bytes > 0 && p.size * ops[0].esize >= opt.stream_bytes;
  if (p.m == mode::unit && stream) p.m = mode::stream;

  // 6. Tiling: a source that is contiguous along the second-to-last dim but strided along the
  //    last (a transposed read) would touch a new cache line per element; square tiles keep
  //    its lines in L1 while the destination is written row by row.
  if (opt.tile > 0 && R >= 2 && p.m == mode::strided && ops[0].strides[in] == 1 &&
      e[in] >= opt.tile && e[in - 1] >= opt.tile) {
    for (int j = 1; j < count; ++j)
      if (iabs(ops[j].strides[in - 1]) == 1 && iabs(ops[j].strides[in]) > 1) {
        p.tiled = true;
        p.tile = opt.tile;
        p.tile_rows = opt.tile;
        break;
      }
  }
  // 6b. Staging: each transposed operand (contiguous down the tile's rows) is copied per tile
  //     into an L1 buffer with an in-register transpose; the tree then reads it as contiguous
  //     rows and runs on SIMD batches (tile_mode) instead of element by element.
  if (p.tiled) {
    bool ok = true, unit_rest = true, bcast_rest = true;
    index_t bytes = 0;
    for (int j = 1; j < count && ok; ++j) {
      const index_t si = ops[j].strides[in], so = ops[j].strides[in - 1];
      if (iabs(si) > 1 && so == 1) { // read transposed: stage it
        ok = p.staged < max_staged;
        if (ok) p.staged_ops[p.staged++] = j;
        bytes += p.tile * ops[j].esize;
      } else {
        unit_rest = unit_rest && si == 1;
        bcast_rest = bcast_rest && (si == 1 || si == 0);
      }
    }
    // Fewer rows per tile for wide elements, so that the tiles fit the stage buffer
    // (bytes is the size of one row of every staged tile).
    while (bytes > 0 && p.tile_rows > 4 && p.tile_rows * bytes > stage_bytes) p.tile_rows /= 2;
    if (!ok || p.tile_rows * bytes > stage_bytes || !bcast_rest) { // stays element by element
      p.staged = 0;
      p.tile_rows = p.tile;
    } else {
      p.tile_mode = unit_rest ? (stream ? mode::stream : mode::unit) : mode::bcast;
    }
  }

  // 7. Work items: (outer slab, block of rows, chunk of the inner dim).
  const index_t inner = e[in], rows = R >= 2 ? e[in - 1] : 1;
  p.outer = p.size / (inner * rows);
  p.row_block = rows;
  p.inner_chunk = inner;
  const index_t work = p.size * opt.cost;
  const int hw = num_threads();
  p.threads = (opt.threads && hw > 1 && work >= opt.parallel_work) ? hw : 1;
  if (p.tiled) {
    p.row_block = p.tile_rows;
    p.row_blocks = ceil_div(rows, p.tile_rows);
  } else if (p.threads > 1) {
    index_t target = 8 * p.threads;
    const index_t max_items = work / min_item_work;
    if (target > max_items) target = max_items > 1 ? max_items : 1;
    if (p.outer < target) {
      const index_t per_slab = ceil_div(target, p.outer);
      if (rows >= per_slab) {
        p.row_block = ceil_div(rows, per_slab);
        p.row_blocks = ceil_div(rows, p.row_block);
      } else {
        p.row_block = 1;
        p.row_blocks = rows;
        const index_t chunks = ceil_div(per_slab, rows);
        p.inner_chunk = (ceil_div(inner, chunks) + 63) / 64 * 64; // whole cache lines
        p.inner_chunks = ceil_div(inner, p.inner_chunk);
      }
    }
  }
  p.items = p.outer * p.row_blocks * p.inner_chunks;
  if (p.items < 2) p.threads = 1;
  return p;
}

namespace {

struct run_ctx {
  const loop_plan* p;
  slab_fn fn;
  const void* tree;
  slab_fn tile_fn; ///< the kernel for staged tiles (p->tile_mode)
};

// One block of rows of a tiled loop with staged operands: per tile, each transposed operand
// is copied into its L1 buffer (rows `tile` elements apart), then the tree runs on the tile
// in tile_mode with those operands read from the buffers.
void run_staged(const run_ctx& rc, char* const* ptr, const index_t* s_in, const index_t* s_out,
                index_t nrows, index_t ncols) {
  const loop_plan& p = *rc.p;
  const int n = p.count;
  alignas(64) unsigned char buf[stage_bytes]; // per call, so per thread
  char* stage[max_staged];
  index_t t_in[max_operands], t_out[max_operands];
  for (int j = 0; j < n; ++j) t_in[j] = s_in[j], t_out[j] = s_out[j];
  index_t off = 0;
  for (int k = 0; k < p.staged; ++k) {
    const int j = p.staged_ops[k];
    stage[k] = reinterpret_cast<char*>(buf) + off;
    off += (p.tile_rows * p.tile * p.ops[j].esize + 63) / 64 * 64;
    t_in[j] = 1;
    t_out[j] = p.tile * p.ops[j].esize;
  }
  char* tp[max_operands];
  for (index_t t0 = 0; t0 < ncols; t0 += p.tile) {
    const index_t nc = std::min(p.tile, ncols - t0);
    for (int j = 0; j < n; ++j) tp[j] = ptr[j] + t0 * s_in[j] * p.ops[j].esize;
    for (int k = 0; k < p.staged; ++k) {
      const int j = p.staged_ops[k];
      stage_tile(stage[k], tp[j], nrows, nc, s_in[j] * p.ops[j].esize, p.ops[j].esize,
                 p.tile * p.ops[j].esize);
      tp[j] = stage[k];
    }
    rc.tile_fn(rc.tree, tp, t_in, t_out, nrows, nc);
  }
}

void run_items(void* c, index_t b, index_t e) {
  const run_ctx& rc = *static_cast<const run_ctx*>(c);
  const loop_plan& p = *rc.p;
  const int n = p.count, R = p.rank, in = R - 1;
  char* ptr[max_operands];
  index_t s_in[max_operands], s_out[max_operands];
  for (int j = 0; j < n; ++j) {
    s_in[j] = p.ops[j].strides[in];
    s_out[j] = R >= 2 ? p.ops[j].strides[in - 1] * p.ops[j].esize : 0;
  }
  const index_t inner = p.extents[in], rows = R >= 2 ? p.extents[in - 1] : 1;
  const index_t per_outer = p.row_blocks * p.inner_chunks;
  for (index_t item = b; item < e; ++item) {
    index_t o = item / per_outer, rem = item % per_outer;
    const index_t rb = rem / p.inner_chunks, ci = rem % p.inner_chunks;
    // Element offsets of this item's first element, per operand (outer dims by div/mod).
    index_t off[max_operands];
    for (int j = 0; j < n; ++j) off[j] = 0;
    for (int k = R - 3; k >= 0; --k) {
      const index_t i = o % p.extents[k];
      o /= p.extents[k];
      for (int j = 0; j < n; ++j) off[j] += i * p.ops[j].strides[k];
    }
    const index_t r0 = rb * p.row_block, c0 = ci * p.inner_chunk;
    const index_t nrows = std::min(p.row_block, rows - r0);
    const index_t ncols = std::min(p.inner_chunk, inner - c0);
    for (int j = 0; j < n; ++j) {
      index_t o2 = off[j] + c0 * p.ops[j].strides[in];
      if (R >= 2) o2 += r0 * p.ops[j].strides[in - 1];
      ptr[j] = p.ops[j].ptr + o2 * p.ops[j].esize;
    }
    if (!p.tiled) {
      rc.fn(rc.tree, ptr, s_in, s_out, nrows, ncols);
      continue;
    }
    if (p.staged) {
      run_staged(rc, ptr, s_in, s_out, nrows, ncols);
      continue;
    }
    char* tp[max_operands];
    for (index_t t0 = 0; t0 < ncols; t0 += p.tile) {
      for (int j = 0; j < n; ++j) tp[j] = ptr[j] + t0 * p.ops[j].strides[in] * p.ops[j].esize;
      rc.fn(rc.tree, tp, s_in, s_out, nrows, std::min(p.tile, ncols - t0));
    }
  }
}

} // namespace

void run_loop(const loop_plan& p, const slab_kernels& k, const void* ctx) {
  if (p.items == 0) return;
  // Stream mode only where the tree has a stream kernel (SIMD, '='); fn[stream] is the unit
  // kernel otherwise, so the choice below is always valid.
  run_ctx rc{&p, k.fn[static_cast<int>(p.m)], ctx, k.fn[static_cast<int>(p.tile_mode)]};
  if (p.threads > 1)
    parallel_for(p.items, 1, &run_items, &rc);
  else
    run_items(&rc, 0, p.items);
}

void run_flat_loop(slab_fn unit, slab_fn stream, const void* ctx, int count, char* const* p,
                   const index_t* esize, index_t n, const loop_options& opt) {
  if (count > max_operands) throw std::length_error("lz: loop with more than 256 operands");
  index_t ones[max_operands], zeros[max_operands];
  for (int j = 0; j < count; ++j) ones[j] = 1, zeros[j] = 0;
  const slab_fn fn =
      stream && opt.stream_bytes > 0 && n * esize[0] >= opt.stream_bytes ? stream : unit;
  const int hw = opt.threads && n * opt.cost >= opt.parallel_work ? num_threads() : 1;
  if (hw <= 1) {
    fn(ctx, p, ones, zeros, 1, n);
    return;
  }
  index_t chunk = (n / (8 * index_t(hw)) + 255) / 256 * 256; // ~8 items per thread
  if (chunk < 256) chunk = 256;
  parallel_for(n, chunk, [&](index_t b, index_t e) {
    char* q[max_operands];
    for (int j = 0; j < count; ++j) q[j] = p[j] + b * esize[j];
    fn(ctx, q, ones, zeros, 1, e - b);
  });
}

std::string describe(const loop_plan& p, int simd_width) {
  static const char* modes[] = {"contiguous", "broadcast", "strided", "contiguous, streaming"};
  std::string s = "loop " + std::to_string(p.rank) + "-d (";
  for (int k = 0; k < p.rank; ++k) {
    if (k) s += ',';
    s += std::to_string(p.extents[k]);
  }
  s += ") ";
  s += modes[static_cast<int>(p.m)];
  if (p.tiled) s += ", tiled " + std::to_string(p.tile_rows) + "x" + std::to_string(p.tile);
  if (p.staged)
    s += " (" + std::to_string(p.staged) + " staged transposed, tiles " +
         modes[static_cast<int>(p.tile_mode)] + ")";
  s +=
      simd_width > 1 && p.m != mode::strided ? ", simd x" + std::to_string(simd_width) : ", scalar";
  if (p.threads > 1)
    s += ", " + std::to_string(p.threads) + " threads over " + std::to_string(p.items) + " items";
  else
    s += ", 1 thread";
  return s;
}

std::string describe_map_loop(const std::string& dst_name, const map_facts& f) {
  std::string s =
      "loop " + dst_name + " " + f.op + " f(" + std::to_string(f.operands) + " operands): ";
  if (f.plan) {
    s += describe(*f.plan, f.simd_width);
  } else {
    s += "flat " + std::to_string(f.flat_size) + " elements, contiguous, ";
    s += f.simd_width > 1 ? "simd x" + std::to_string(f.simd_width) : std::string("scalar");
    s += f.flat_threads ? ", " + std::to_string(f.flat_threads) + " threads" : ", 1 thread";
  }
  s += ", cost " + std::to_string(f.cost) + "/element";
  if (f.aliased)
    s += " into the temporary, then copied into " + dst_name +
         " (an operand reads it at other positions)";
  return s;
}

} // namespace lz::kernels::cpu
