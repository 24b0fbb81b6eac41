// CPU loop driver: coalesce, order, tile and partition a loop nest, then call a tree's slab
// kernel. Compiled once; user translation units only instantiate one slab kernel per tree.
#include <lz/kernels/alias.hpp>
#include <lz/kernels/cpu/loop.hpp>
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/dims.hpp>
#include <lz/kernels/first_use.hpp>
#include <lz/log.hpp>
#include <lz/memory.hpp>
#include <lz/policy.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#if defined(__SSE2__)
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

// f(U{}) with U an unsigned type of es bytes (4, 8, 16); false for other sizes.
template <class F>
bool by_element_size(index_t es, F&& f) {
  switch (es) {
  case 4:
    f(std::uint32_t{});
    return true;
  case 8:
    f(std::uint64_t{});
    return true;
  case 16:
    f(bytes16{});
    return true;
  default:
    return false;
  }
}

} // namespace

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

loop_plan plan_loop(int rank, const index_t* extents, int count, detail::operand* ops,
                    const loop_options& opt) {
  if (count > max_operands) throw std::length_error("lz: loop with more than 256 operands");
  loop_plan p;
  p.count = count;
  p.ops = ops;

  // 1-4. An empty extent means no work; otherwise drop extent-1 dims, walk memory in the
  //      destination's order, run its reversed dims forward, coalesce (kernels/dims.hpp).
  index_t e[max_rank];
  for (int k = 0; k < rank; ++k) {
    if (extents[k] == 0) return p; // items = 0
    e[k] = extents[k];
  }
  index_t* strides[max_operands];
  index_t flip[max_operands];
  for (int j = 0; j < count; ++j) {
    strides[j] = ops[j].strides;
    flip[j] = 0;
  }
  int R = plan_dims(rank, e, count, strides, opt.keep_order, flip);
  for (int j = 0; j < count; ++j) ops[j].ptr += flip[j] * ops[j].esize;
  if (R == 0) { // a single element
    R = 1;
    e[0] = 1;
    for (int j = 0; j < count; ++j) ops[j].strides[0] = 0;
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

void gather_elements(char* dst, const char* src, index_t ss, index_t n, index_t es) {
  if (!by_element_size(es, [&](auto tag) {
        using U = decltype(tag);
        U* d = reinterpret_cast<U*>(dst);
        if (ss == 0) {
          U v;
          std::memcpy(&v, src, sizeof(U));
          for (index_t i = 0; i < n; ++i) d[i] = v;
        } else {
          for (index_t i = 0; i < n; ++i) std::memcpy(d + i, src + i * ss, sizeof(U));
        }
      }))
    for (index_t i = 0; i < n; ++i) std::memcpy(dst + i * es, src + i * ss, std::size_t(es));
}

pack_buffers::pack_buffers(const detail::operand* ops, const index_t* s_in, int first, int n) {
  index_t bytes = 0;
  for (int j = first; j < n; ++j)
    if (s_in[j] != 1) {
      op[count++] = j;
      bytes += ops[j].esize;
    }
  if (count == 0) return;
  chunk = (pack_bytes - 64 * count) / bytes; // 64: each buffer starts on a cache line
  chunk = chunk >= 16 ? chunk / 16 * 16 : std::max<index_t>(chunk, 1);
  auto size = [&](int k) { return (chunk * ops[op[k]].esize + 63) / 64 * 64; };
  index_t need = 0;
  for (int k = 0; k < count; ++k) need += size(k);
  unsigned char* base = local_;
  if (need > pack_bytes) { // operands too wide for the stack buffer
    heap_ = new unsigned char[std::size_t(need) + 64];
    base = heap_ + (64 - reinterpret_cast<std::uintptr_t>(heap_) % 64) % 64;
  }
  for (int k = 0, off = 0; k < count; off += int(size(k)), ++k)
    buf[k] = reinterpret_cast<char*>(base) + off;
}

pack_buffers::~pack_buffers() { delete[] heap_; }

namespace {

struct run_ctx {
  const loop_plan* p;
  map_kernel k;
  const void* tree;
  bool stream;      ///< the untiled loop streams its stores (mode::stream)
  bool tile_stream; ///< staged tiles stream theirs (tile_mode)
};

// ---------------------------------------------------------------- calling a tree's kernel
// A SIMD kernel (row.hpp) runs whole batches only, and streams only from aligned rows: what
// would otherwise be compiled into every tree's kernel (a scalar tail, a scalar peel to the
// first aligned batch, the fence) is done here, once.

const index_t zeros[max_operands] = {}; // row strides of a single row

/// Bytes of the per-call buffer for padded tails (split between the operands: >= 64 each).
constexpr index_t tail_bytes = 16384;
/// The largest pass the first-use measurement of wide_bytes times (3 x 8192 doubles): larger
/// passes never resolve it.
constexpr index_t wide_first_use_bytes = 3 * 8192 * 8;
/// Elements from which a row's partial last full-width batch is amortized (wide_row).
constexpr index_t wide_long_row = 256;
/// Rows shorter than this many bytes do not stream (each would cost three kernel calls).
constexpr index_t stream_row_bytes = 4096;

// The last m elements of each of `rows` rows (operand j at p[j], rows so[j] bytes apart,
// elements es bytes), packed side by side into per-operand buffers and padded to whole batches
// by repeating each operand's last element (no value the tree has not seen: an integer division
// by a padding zero would trap), through k in as few calls as fit the buffer; the destination's
// part is copied back.
void run_tails(const map_kernel& k, const void* tree, int count, char* const* p, const index_t* so,
               index_t rows, index_t n0, index_t m, index_t es) {
  const index_t w = k.simd_width;
  alignas(64) unsigned char local[tail_bytes];
  const index_t slice = tail_bytes / count / 64 * 64; // bytes per operand (count <= 256)
  const index_t cap = slice / es / w * w;             // elements per operand, whole batches
  if (cap < w) throw std::logic_error("lz: batch wider than the tail buffer");
  const index_t per = std::max<index_t>(1, cap / m); // rows' tails per call (m < w <= cap)
  char* q[max_operands];
  for (int j = 0; j < count; ++j) q[j] = reinterpret_cast<char*>(local) + j * slice;
  const auto bytes = std::size_t(m * es);
  for (index_t r0 = 0; r0 < rows; r0 += per) {
    const index_t nr = std::min(per, rows - r0), len = nr * m, padded = ceil_div(len, w) * w;
    for (int j = k.reads_dst ? 0 : 1; j < count; ++j) {
      for (index_t r = 0; r < nr; ++r)
        std::memcpy(q[j] + r * m * es, p[j] + (r0 + r) * so[j] + n0 * es, bytes);
      gather_elements(q[j] + len * es, q[j] + (len - 1) * es, 0, padded - len, es);
    }
    k.fn(tree, q, zeros, 1, padded, 0);
    for (index_t r = 0; r < nr; ++r)
      std::memcpy(p[0] + (r0 + r) * so[0] + n0 * es, q[0] + r * m * es, bytes);
  }
}

/// Bytes of the destination buffer of a row's last batch (run_row_with_tail): a 512-bit batch
/// of complex doubles.
constexpr index_t last_batch_bytes = 128;

// One row of n elements, n0 of them whole batches (n0 >= the batch width w) and m = n - n0 > 0
// more: its last w elements (overlapping the whole batches) through k into a buffer, from the
// operands where they are; then the whole batches; then the buffer's last m elements into the
// destination. Nothing is copied in (a W1 n = 1001 costs one batch more than n = 1000, not the
// padded copies of run_tails), and every operand is read before the destination changes, so an
// operand that is the destination (`x = 2*x + y`, `x += y`) is right.
LZ_INLINE void run_row_with_tail(const map_kernel& k, const void* tree, int count, char* const* p,
                                 index_t n0, index_t m, index_t es, int flags) {
  const index_t w = k.simd_width, off = (n0 + m - w) * es;
  alignas(64) unsigned char last[last_batch_bytes];
  char* q[max_operands];
  q[0] = reinterpret_cast<char*>(last);
  for (int j = 1; j < count; ++j) q[j] = p[j] + off;
  if (k.reads_dst) std::memcpy(last, p[0] + off, std::size_t(w * es));
  k.fn(tree, q, zeros, 1, w, 0);
  k.fn(tree, p, zeros, 1, n0, flags);
  std::memcpy(p[0] + n0 * es, last + (w - m) * es, std::size_t(m * es));
}

/// Operands (the destination included) a row shorter than one batch takes through
/// run_short_row: its buffers are this many batches on the stack.
constexpr int short_row_operands = 8;

// b <= last_batch_bytes bytes from s to d with fixed-size moves (a memcpy of a size known only
// at run time is a call into libc): 16-byte pieces, the last one overlapping, or two
// overlapping 8- or 4-byte ones.
LZ_INLINE void copy_short(char* d, const char* s, index_t b) {
  if (b >= 16) {
    for (index_t i = 0; i + 16 < b; i += 16) std::memcpy(d + i, s + i, 16);
    std::memcpy(d + b - 16, s + b - 16, 16);
  } else if (b >= 8) {
    std::memcpy(d, s, 8);
    std::memcpy(d + b - 8, s + b - 8, 8);
  } else if (b >= 4) {
    std::memcpy(d, s, 4);
    std::memcpy(d + b - 4, s + b - 4, 4);
  } else {
    for (index_t i = 0; i < b; ++i) d[i] = s[i];
  }
}

#if defined(__AVX2__)
// The row's mb bytes (whole 4-byte lanes) at s as one 32-byte batch at q, the lanes past them
// the first element again (es bytes: 4, 8 or 16), in one store: a kernel's 32-byte load of q
// then forwards from it instead of waiting for pieces written by narrower stores to reach the
// cache (n = 3 doubles: 24 → 17 ns). The masked-off lanes of s are not read.
LZ_INLINE void load_short_batch(char* q, const char* s, __m256i mask, index_t es) {
  const __m256i v = _mm256_maskload_epi32(reinterpret_cast<const int*>(s), mask);
  __m256i first;
  if (es == 4) {
    int e;
    std::memcpy(&e, s, 4);
    first = _mm256_set1_epi32(e);
  } else if (es == 8) {
    long long e;
    std::memcpy(&e, s, 8);
    first = _mm256_set1_epi64x(e);
  } else {
    first = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(q), _mm256_blendv_epi8(first, v, mask));
}
#endif

// One row of m elements, fewer than a batch (m < w, w * es <= last_batch_bytes): each operand's
// m elements into a batch of its own on the stack, the rest of the batch its first element
// (32-byte batches) or elements again (the same lanes for every operand, so the padding lanes
// compute on values the tree has seen: an integer division by a padding zero would trap), one
// call, m elements back. run_tails, which takes any rows, spent ~270 instructions of divisions
// and loops on it (n = 3 doubles: 561 instructions per assignment, ~37 ns; now 298, ~17 ns).
LZ_INLINE void run_short_row(const map_kernel& k, const void* tree, int count, char* const* p,
                             index_t m, index_t es) {
  const index_t wb = k.simd_width * es, mb = m * es;
  alignas(64) unsigned char local[short_row_operands][last_batch_bytes];
  char* q[short_row_operands];
#if defined(__AVX2__)
  // A loop of its own, not a test per operand in one loop: that costs 37 instructions (n = 3).
  if (wb == 32 && (es == 4 || es == 8 || es == 16)) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(mb / 4)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int j = 0; j < count; ++j) {
      q[j] = reinterpret_cast<char*>(local[j]);
      if (j > 0 || k.reads_dst) load_short_batch(q[j], p[j], mask, es);
    }
    k.fn(tree, q, zeros, 1, k.simd_width, 0);
    return copy_short(p[0], q[0], mb); // (loads within the kernel's store: forwarded)
  }
#endif
  for (int j = 0; j < count; ++j) {
    q[j] = reinterpret_cast<char*>(local[j]);
    if (j == 0 && !k.reads_dst) continue;
    copy_short(q[j], p[j], mb);
    for (index_t f = mb; f < wb; f += std::min(f, wb - f))
      copy_short(q[j] + f, q[j], std::min(f, wb - f));
  }
  k.fn(tree, q, zeros, 1, k.simd_width, 0);
  copy_short(p[0], q[0], mb);
}

// run_rows for rows whose length is not whole batches: one row of at least a batch as
// run_row_with_tail, a shorter one of few operands as run_short_row; else the tails (run_tails),
// then the whole batches. Out of line: the tail buffers' frames are not paid by rows without a
// tail.
LZ_NOINLINE void run_rows_with_tails(const map_kernel& k, const void* tree, int count,
                                     char* const* p, const index_t* so, index_t rows, index_t n,
                                     index_t es, int flags) {
  const index_t m = n & (index_t(k.simd_width) - 1), n0 = n - m;
  if (rows == 1 && k.simd_width * es <= last_batch_bytes) {
    if (n0 > 0) return run_row_with_tail(k, tree, count, p, n0, m, es, flags);
    if (count <= short_row_operands) return run_short_row(k, tree, count, p, m, es);
  }
  if (rows != 0) run_tails(k, tree, count, p, so, rows, n0, m, es);
  if (n0 > 0 && rows > 0) k.fn(tree, p, so, rows, n0, flags);
}

// rows x n elements (operand j at p[j], rows so[j] bytes apart, elements es bytes) through k:
// the whole batches of every row in one call (with `flags`), the tails first where there are
// any (every element is its own: the order is free). Every call here is a tail call, so a
// caller whose p outlives its frame (run_map_vector) keeps no array for it. A kernel's batch
// width is a power of two (xsimd's, or 1).
LZ_INLINE void run_rows(const map_kernel& k, const void* tree, int count, char* const* p,
                        const index_t* so, index_t rows, index_t n, index_t es, int flags = 0) {
  if ((n & (index_t(k.simd_width) - 1)) != 0)
    return run_rows_with_tails(k, tree, count, p, so, rows, n, es, flags);
  if (n > 0 && rows > 0) k.fn(tree, p, so, rows, n, flags); // (the kernel's precondition)
}

// Orders a call's non-temporal stores before whatever follows it.
void fence_streams() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// run_rows with the destination written with non-temporal stores (k.can_stream): in one call
// when every row starts batch-aligned (a contiguous destination, tiles of an aligned matrix);
// else per row (rows of at least stream_row_bytes), the elements before the first
// batch-aligned address through run_rows' padded path, the aligned whole batches streaming, the
// rest a tail. The stores are fenced before returning (another thread may read the destination
// as soon as this returns).
LZ_NOINLINE void run_streaming(const map_kernel& k, const void* tree, int count, char* const* p,
                               const index_t* so, index_t rows, index_t n, index_t es) {
  const index_t vb = k.simd_width * es;
  if (reinterpret_cast<std::uintptr_t>(p[0]) % std::uintptr_t(vb) == 0 && so[0] % vb == 0) {
    run_rows(k, tree, count, p, so, rows, n, es, slab_stream); // every row starts aligned
    fence_streams();
    return;
  }
  if (rows > 1 && n * es < stream_row_bytes) {
    run_rows(k, tree, count, p, so, rows, n, es);
    return;
  }
  char* q[max_operands];
  for (index_t r = 0; r < rows; ++r) {
    for (int j = 0; j < count; ++j) q[j] = p[j] + r * so[j];
    const auto a = reinterpret_cast<std::uintptr_t>(q[0]);
    if (a % std::uintptr_t(es) != 0) { // elements not aligned: no batch is
      run_rows(k, tree, count, q, zeros, 1, n, es);
      continue;
    }
    const index_t head = std::min(n, index_t((vb - index_t(a % std::uintptr_t(vb))) % vb) / es);
    run_rows(k, tree, count, q, zeros, 1, head, es);
    for (int j = 0; j < count; ++j) q[j] += head * es;
    run_rows(k, tree, count, q, zeros, 1, n - head, es, slab_stream);
  }
  fence_streams();
}

// run_rows, and with `stream` (an `=` whose destination outgrows the cache, mode::stream)
// run_streaming where the kernel's stores may stream: this alone decides whether they do.
LZ_INLINE void run_kernel(const map_kernel& k, const void* tree, int count, char* const* p,
                          const index_t* so, index_t rows, index_t n, index_t es, bool stream) {
  if (stream && k.can_stream) return run_streaming(k, tree, count, p, so, rows, n, es);
  run_rows(k, tree, count, p, so, rows, n, es);
}

// The n contiguous elements at src to dst, `ds` bytes apart.
void scatter(char* dst, index_t ds, const char* src, index_t n, index_t es) {
  if (!by_element_size(es, [&](auto tag) {
        using U = decltype(tag);
        const U* s = reinterpret_cast<const U*>(src);
        for (index_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, s + i, sizeof(U));
      }))
    for (index_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * es, std::size_t(es));
}

// The kernel over a rows x cols block: operand j at ptr[j], s_in[j] elements between columns,
// s_out[j] bytes between rows. Contiguous rows go straight to the kernel; otherwise every
// operand whose columns are not adjacent is packed, a chunk of a row at a time, into an L1
// buffer (the destination is scattered back afterwards).
void run_block(const run_ctx& rc, char* const* ptr, const index_t* s_in, const index_t* s_out,
               index_t rows, index_t cols, bool stream) {
  const loop_plan& p = *rc.p;
  const int n = p.count;
  const index_t es = p.ops[0].esize;
  pack_buffers pb(p.ops, s_in, 0, n);
  if (pb.count == 0) {
    run_kernel(rc.k, rc.tree, n, ptr, s_out, rows, cols, es, stream);
    return;
  }
  const int np = pb.count;
  const int* packed = pb.op;
  char* const* buf = pb.buf;
  const index_t chunk = pb.chunk;
  const bool dst_packed = packed[0] == 0;
  char* q[max_operands];
  for (index_t r = 0; r < rows; ++r) {
    for (index_t c0 = 0; c0 < cols; c0 += chunk) {
      const index_t nc = std::min(chunk, cols - c0);
      for (int j = 0; j < n; ++j) q[j] = ptr[j] + r * s_out[j] + c0 * s_in[j] * p.ops[j].esize;
      char* const d = q[0];
      for (int k = 0; k < np; ++k) {
        const int j = packed[k];
        const index_t es = p.ops[j].esize;
        if (j > 0 || rc.k.reads_dst) gather_elements(buf[k], q[j], s_in[j] * es, nc, es);
        q[j] = buf[k];
      }
      run_rows(rc.k, rc.tree, n, q, s_out, 1, nc, es);
      if (dst_packed) scatter(d, s_in[0] * p.ops[0].esize, buf[0], nc, p.ops[0].esize);
    }
  }
}

// One block of rows of a tiled loop with staged operands: per tile, each transposed operand
// is copied into its L1 buffer (rows `tile` elements apart), then the tree runs on the tile
// with those operands read from the buffers.
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
    run_block(rc, tp, t_in, t_out, nrows, nc, rc.tile_stream);
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
      run_block(rc, ptr, s_in, s_out, nrows, ncols, rc.stream);
      continue;
    }
    if (p.staged) {
      run_staged(rc, ptr, s_in, s_out, nrows, ncols);
      continue;
    }
    char* tp[max_operands];
    for (index_t t0 = 0; t0 < ncols; t0 += p.tile) {
      for (int j = 0; j < n; ++j) tp[j] = ptr[j] + t0 * p.ops[j].strides[in] * p.ops[j].esize;
      run_block(rc, tp, s_in, s_out, nrows, std::min(p.tile, ncols - t0), false);
    }
  }
}

// Rows of n elements of *ctx bytes: the kernel that copies a temporary in and out.
void copy_rows(const void* ctx, char* const* p, const index_t* so, index_t rows, index_t n, int) {
  const index_t es = *static_cast<const index_t*>(ctx);
  char* d = p[0];
  const char* s = p[1];
  for (index_t r = 0; r < rows; ++r, d += so[0], s += so[1]) std::memcpy(d, s, std::size_t(n * es));
}

LZ_INLINE index_t product(int rank, const index_t* e) {
  index_t n = 1;
  for (int k = 0; k < rank; ++k) n *= e[k];
  return n;
}

// The destination is one dense block (row- or column-major; extent-1 dims may have any stride).
LZ_INLINE bool dense(const detail::operand& d, int rank, const index_t* e) {
  bool row = true, col = true;
  index_t x = 1;
  for (int k = rank - 1; k >= 0; --k) {
    row = row && (e[k] == 1 || d.strides[k] == x);
    x *= e[k];
  }
  x = 1;
  for (int k = 0; k < rank; ++k) {
    col = col && (e[k] == 1 || d.strides[k] == x);
    x *= e[k];
  }
  return row || col;
}

// flat for a vector of n >= 1 elements: every operand's stride is 1 (OneElement: n is 1, any
// stride). N: the operand count when the caller knows it at compile time (the loop unrolled, few
// values live: run_map_vector's fixed cost), else 0 (c.info->count).
template <int N = 0, bool OneElement = false>
LZ_INLINE bool flat_vector(const map_call& c, index_t n, char** p) {
  const detail::operand* o = c.ops;
  if (!OneElement && o->strides[0] != 1) return false;
  const char* d0 = o->ptr;
  const char* d1 = d0 + n * o->esize;
  p[0] = o->ptr;
  const int count = N > 0 ? N : c.info->count;
  for (int j = 1; j < count; ++j) {
    const char* a = o[j].ptr;
    if ((!OneElement && o[j].strides[0] != 1) || !(a == d0 || a + n * o[j].esize <= d0 || d1 <= a))
      return false;
    p[j] = o[j].ptr;
  }
  return true;
}

// The contiguous fast path applies: the destination is one dense block and every operand is
// addressed exactly as it, apart from it or at the same position; p gets their pointers. A
// vector of more than one element is flat_vector's test.
LZ_INLINE bool flat(const map_call& c, index_t n, char** p) {
  if (c.info->rank == 1 && n > 1) return flat_vector(c, n, p);
  const detail::operand& d = c.ops[0];
  if (!dense(d, c.info->rank, c.extents)) return false;
  const char* d0 = d.ptr;
  const char* d1 = d0 + n * d.esize;
  p[0] = d.ptr;
  for (int j = 1; j < c.info->count; ++j) {
    const detail::operand& o = c.ops[j];
    for (int k = 0; k < c.info->rank; ++k)
      if (o.strides[k] != d.strides[k] && c.extents[k] != 1) return false;
    if (!(o.ptr == d0 || o.ptr + n * o.esize <= d0 || d1 <= o.ptr)) return false;
    p[j] = o.ptr;
  }
  return true;
}

// Threads of the fast path for n elements (1: this one).
LZ_INLINE int flat_threads(const map_call& c, index_t n, const tuning& t) {
  if (!c.info->threads) return 1;
  const index_t limit = std::max(c.info->automatic ? t.parallel_work.get() : 0, min_parallel_work);
  return n * c.info->cost >= limit ? std::max(num_threads(), 1) : 1;
}

// A short row that would end in a partial full-width batch, where the narrow batches divide it,
// runs narrow: one kernel call instead of two (W1 n = 100, 512-bit: 25 against 22 ns).
LZ_INLINE bool wide_row(const map_info& info, index_t n) {
  return n >= wide_long_row || (n & (info.wide.simd_width - 1)) == 0 ||
         (n & (info.k.simd_width - 1)) != 0;
}

// Whether a flat pass of n elements on one thread runs the tree's full-width kernel
// (info.wide): it has one, the pass touches at most t.wide_bytes bytes (elements x operands,
// destination included; docs/decisions/cheap-tree-width-per-cpu.md) and wide_row admits it.
// Always false on targets with one batch width. On a CPU not in lazuli's table (wide_bytes
// measure_on_first_use) the first such pass that could run it (at most the measurement's largest
// pass) resolves the value first.
LZ_INLINE bool flat_wide(const map_info& info, index_t n, index_t es, const tuning& t) {
  if constexpr (std::is_same_v<narrow_arch, xsimd::default_arch>) {
    return false;
  } else {
    if (info.wide.fn == nullptr) return false;
    const index_t bytes = n * es * info.count, wb = t.wide_bytes.get();
    if (bytes <= wb) return wide_row(info, n);
    if (LZ_UNLIKELY(wb < 0) && bytes <= wide_first_use_bytes)
      return bytes <= lz::detail::resolve_first_use_wide_bytes() && wide_row(info, n);
    return false;
  }
}

// The fast path when it may use threads (flat_threads decides): on hw threads, chunks of whole
// batches. Out of line (as is the general path): the one-thread path keeps a small frame and
// reads no thread count (the fixed cost of a small assignment).
LZ_NOINLINE void run_flat_threads(const map_call& c, index_t n, char* const* p, bool stream) {
  const int count = c.info->count;
  const index_t es = c.ops[0].esize;
  const tuning& t = thresholds();
  const int hw = flat_threads(c, n, t);
  if (hw <= 1) {
    if (!stream && flat_wide(*c.info, n, es, t))
      return run_rows(c.info->wide, c.tree, count, p, zeros, 1, n, es);
    run_kernel(c.info->k, c.tree, count, p, zeros, 1, n, es, stream);
    return;
  }
  index_t chunk = (n / (8 * index_t(hw)) + 255) / 256 * 256; // ~8 items per thread
  if (chunk < 256) chunk = 256;
  parallel_for(n, chunk, [&](index_t b, index_t e) {
    char* q[max_operands];
    for (int j = 0; j < count; ++j) q[j] = p[j] + b * c.ops[j].esize;
    run_kernel(c.info->k, c.tree, count, q, zeros, 1, e - b, es, stream);
  });
}

// Whether a flat pass of n elements of es bytes writes with streaming stores.
LZ_INLINE bool flat_stream(index_t n, index_t es, const tuning& t) {
  const index_t sb = t.stream_bytes.get();
  return sb > 0 && n * es >= sb;
}

LZ_INLINE void run_flat(const map_call& c, index_t n, char* const* p) {
  const map_info& info = *c.info;
  const index_t es = c.ops[0].esize;
  const tuning& t = thresholds();
  const bool stream = flat_stream(n, es, t);
  if (info.threads && n * info.cost >= min_parallel_work) // flat_threads' floor
    return run_flat_threads(c, n, p, stream);
  if (!stream && flat_wide(info, n, es, t))
    return run_rows(info.wide, c.tree, info.count, p, zeros, 1, n, es);
  run_kernel(info.k, c.tree, info.count, p, zeros, 1, n, es, stream);
}

// src into dst (same element size) over the loop's dims: one copy loop, threads and all.
void copy_operand(const detail::operand& dst, const detail::operand& src, int rank,
                  const index_t* extents, loop_options opt) {
  detail::operand pair[2] = {dst, src};
  opt.cost = 1;
  opt.stream_bytes = 0;
  const index_t es = dst.esize;
  const loop_plan p = plan_loop(rank, extents, 2, pair, opt);
  run_loop(p, map_kernel{&copy_rows, 1, false, false}, &es);
}

// A leaf reads the destination at another position (A = transpose(A) + B): the loop writes a
// fresh dense temporary (holding the destination's values first when the kernel reads them),
// which is then copied into the destination at the same positions.
void run_via_temporary(const map_call& c, const loop_options& opt) {
  const detail::operand d = c.ops[0];
  const index_t n = product(c.info->rank, c.extents);
  struct buffer {
    void* p;
    ~buffer() { detail::free_bytes(p); }
  } tmp{detail::allocate_bytes(std::size_t(n * d.esize))};
  detail::count_temporary();
  detail::operand t;
  t.ptr = static_cast<char*>(tmp.p);
  t.esize = d.esize;
  index_t x = 1;
  for (int k = c.info->rank - 1; k >= 0; --k) {
    t.strides[k] = x;
    x *= c.extents[k];
  }
  if (c.info->k.reads_dst) copy_operand(t, d, c.info->rank, c.extents, opt);
  c.ops[0] = t;
  const loop_plan p = plan_loop(c.info->rank, c.extents, c.info->count, c.ops, opt);
  run_loop(p, c.info->k, c.tree);
  copy_operand(d, t, c.info->rank, c.extents, opt);
}

// The loop options of a call, from its policy and lz::thresholds() (the fast path needs none).
loop_options options_of(const map_call& c) {
  const tuning& t = thresholds();
  loop_options o;
  o.threads = c.info->threads;
  o.parallel_work = c.info->automatic ? t.parallel_work.get() : 0;
  o.cost = c.info->cost;
  o.tile = t.tile;
  o.stream_bytes = c.info->k.can_stream ? t.stream_bytes.get() : 0;
  return o;
}

// The general path: aliasing, planning, packing. Out of line: the fast path's frame stays small.
LZ_NOINLINE void run_general(const map_call& c) {
  const loop_options opt = options_of(c);
  if (reads_destination_elsewhere(c.ops[0], c.ops + 1, c.info->count - 1, c.info->rank,
                                  c.extents)) {
    run_via_temporary(c, opt);
    return;
  }
  const loop_plan p = plan_loop(c.info->rank, c.extents, c.info->count, c.ops, opt);
  run_loop(p, c.info->k, c.tree);
}

} // namespace

void run_loop(const loop_plan& p, const map_kernel& k, const void* ctx) {
  if (p.items == 0) return;
  // plan_loop chooses stream mode only when the caller allowed it; run_kernel streams only
  // where the kernel's stores may.
  run_ctx rc{&p, k, ctx, p.m == mode::stream, p.tile_mode == mode::stream};
  if (p.threads > 1)
    parallel_for(p.items, 1, &run_items, &rc);
  else
    run_items(&rc, 0, p.items);
}

// The fast path needs no options (the fixed cost of a small assignment: W1 n=1e3).
LZ_INLINE void run_map_now(const map_call& c) {
  const index_t n = c.info->rank == 1 ? c.extents[0] : product(c.info->rank, c.extents);
  if (n == 0) return;
  char* p[max_operands];
  if (flat(c, n, p))
    run_flat(c, n, p);
  else
    run_general(c);
}

// run_map under LZ_LOG=loop: the line, with the time the loop took.
LZ_NOINLINE void run_map_logged(const map_call& c) {
  const std::string text = describe_map(c, "dst", nullptr);
  const long long t0 = logging::now_ns();
  run_map_now(c);
  logging::write_timed(logging::loop, text, t0);
}

void run_map(const map_call& c) {
  if (c.info->count > max_operands) throw std::length_error("lz: loop with more than 256 operands");
  if (LZ_UNLIKELY(c.info->blas1 != nullptr) &&
      product(c.info->rank, c.extents) >= thresholds().level1_blas.get() && c.info->blas1(c))
    return;
  if (LZ_UNLIKELY(logging::on(logging::loop)))
    run_map_logged(c);
  else
    run_map_now(c);
}

template <int N>
LZ_INLINE void run_vector(const map_call& c, char** p) {
  const index_t n = c.extents[0];
  if (LZ_UNLIKELY(logging::on(logging::loop))) return run_map_logged(c);
  if (n <= 1) { // (one element: strides do not matter)
    if (n == 0) return;
    if (!flat_vector<N, true>(c, 1, p)) return run_general(c);
    return run_flat(c, 1, p);
  }
  if (!flat_vector<N>(c, n, p)) return run_general(c);
  run_flat(c, n, p); // (tail calls only)
}

template <int N>
void run_map_vector(const map_call& c, char** p) {
  run_vector<N>(c, p);
}

// BLAS 1 first, then the loop if it declined: apart, so that the loop's own path keeps its
// small frame and tail calls (the call's result is tested: not a tail call).
template <int N>
LZ_NOINLINE void run_vector_after_blas1(const map_call& c, char** p) {
  if (c.info->blas1(c)) return;
  run_vector<N>(c, p);
}

template <int N>
void run_map_vector_blas1(const map_call& c, char** p) {
  if (LZ_UNLIKELY(c.extents[0] >= thresholds().level1_blas.get()))
    return run_vector_after_blas1<N>(c, p);
  run_vector<N>(c, p);
}

// One per operand count a caller may pass (fusion/rules/map.hpp).
template void run_map_vector<1>(const map_call&, char**);
template void run_map_vector<2>(const map_call&, char**);
template void run_map_vector<3>(const map_call&, char**);
template void run_map_vector<4>(const map_call&, char**);
template void run_map_vector<5>(const map_call&, char**);
template void run_map_vector<6>(const map_call&, char**);
template void run_map_vector<7>(const map_call&, char**);
template void run_map_vector<8>(const map_call&, char**);
template void run_map_vector<9>(const map_call&, char**);
template void run_map_vector<10>(const map_call&, char**);
template void run_map_vector<11>(const map_call&, char**);
template void run_map_vector<12>(const map_call&, char**);
template void run_map_vector<13>(const map_call&, char**);
template void run_map_vector<14>(const map_call&, char**);
template void run_map_vector<15>(const map_call&, char**);
template void run_map_vector<16>(const map_call&, char**);
static_assert(vector_operands == 16, "lz: one run_map_vector<N> above for each N up to it");
template void run_map_vector_blas1<1>(const map_call&, char**);
template void run_map_vector_blas1<2>(const map_call&, char**);
template void run_map_vector_blas1<3>(const map_call&, char**);

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

std::string describe_map(const map_call& c, const std::string& dst_name, bool* aliased) {
  const loop_options opt = options_of(c);
  std::string s = "loop " + dst_name + " " + c.info->op + " f(" +
                  std::to_string(c.info->count - 1) + " operands): ";
  const index_t n = product(c.info->rank, c.extents);
  bool via_temp = false;
  char* p[max_operands];
  if (c.info->count <= max_operands && flat(c, n, p)) {
    s += "flat " + std::to_string(n) + " elements, contiguous, ";
    const tuning& th = thresholds();
    const int t = flat_threads(c, n, th);
    const index_t es = c.ops[0].esize;
    const bool wide = t <= 1 && !flat_stream(n, es, th) && flat_wide(*c.info, n, es, th);
    const map_kernel& k = wide ? c.info->wide : c.info->k;
    s += k.simd_width > 1 ? "simd x" + std::to_string(k.simd_width) : std::string("scalar");
    s += t > 1 ? ", " + std::to_string(t) + " threads" : ", 1 thread";
  } else {
    std::vector<detail::operand> ops(c.ops, c.ops + c.info->count); // planning rewrites operands
    via_temp = reads_destination_elsewhere(ops[0], ops.data() + 1, c.info->count - 1, c.info->rank,
                                           c.extents);
    const loop_plan p = plan_loop(c.info->rank, c.extents, c.info->count, ops.data(), opt);
    s += describe(p, c.info->k.simd_width);
  }
  if (aliased) *aliased = via_temp;
  s += ", cost " + std::to_string(opt.cost) + "/element";
  if (via_temp)
    s += " into the temporary, then copied into " + dst_name +
         " (an operand reads it at other positions)";
  return s;
}

} // namespace lz::kernels::cpu
