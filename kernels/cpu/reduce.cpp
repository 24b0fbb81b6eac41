// Reduction drivers: fixed blocks + pairwise combination in a fixed tree (see reduce.hpp).
// Threads evaluate disjoint subtrees; the tree never depends on the thread count.
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/kernels/cpu/reduce.hpp>
#include <lz/kernels/first_use.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace lz::kernels::cpu {
namespace {

index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

struct partial_buf {
  alignas(64) unsigned char b[max_reduce_partial];
};
struct state_buf {
  alignas(64) unsigned char b[max_reduce_state];
};

// Strides of contiguous leaves, in elements (along a row) and in bytes (between rows of one).
constexpr auto unit_strides = [] {
  std::array<index_t, max_operands> s{};
  for (index_t& v : s) v = 1;
  return s;
}();
constexpr std::array<index_t, max_operands> no_strides{};

// Elements of one slab call when the driver prefetches (at least one U x W batch span: a
// multiple of it, since both are powers of two, so each element meets the same accumulator lane
// as in one call over the whole row: the same bits with prefetches on or off). W3 with the
// prefetches forced on an AVX-512 Xeon, against the prefetch the slab's loop issued before:
// spans of 128 1.01-1.04x its time, 256 1.04-1.07x, 512 1.13-1.16x (bursts of prefetches), 64
// 1.04-1.07x (the calls).
constexpr index_t prefetch_span = 128;

// Axis reductions: the longest axis run transposed (run_reduce_axis), and the bytes of a
// group's transposed leaves.
constexpr index_t short_axis = 120;
constexpr index_t transpose_bytes = 32768;

// A short row's padded batch per leaf (slab_short): bytes (the widest batch of any target), and
// leaves padded in the frame (more: on the heap).
constexpr index_t short_batch_bytes = 64;
constexpr int short_leaves = 8;

// The batch of `wb` bytes at b: the row's first element `pad` times, then its cols elements,
// es bytes each, ss bytes apart.
LZ_INLINE void pad_short_row(char* b, const char* src, index_t es, index_t ss, index_t pad,
                             index_t cols, index_t wb) {
  // A contiguous row of 4- or 8-byte elements: a masked load blended with the first element,
  // one store, so that the slab's load of the batch is forwarded from it (built from one store
  // per element, it waited for them to reach the cache: sum(x) of 3 doubles 9 ns slower).
  auto first = [src]<class U>(U) {
    U v;
    std::memcpy(&v, src, sizeof(U));
    return v;
  };
#if defined(__AVX512F__)
  if (wb == 64 && ss == es && (es == 8 || es == 4)) {
    if (es == 8) {
      const __m512i f = _mm512_set1_epi64(first(0LL));
      const __mmask8 m = __mmask8(((1u << cols) - 1) << pad);
      _mm512_store_si512(b, _mm512_mask_loadu_epi64(f, m, src - pad * 8));
    } else {
      const __m512i f = _mm512_set1_epi32(first(0));
      const __mmask16 m = __mmask16(((1u << cols) - 1) << pad);
      _mm512_store_si512(b, _mm512_mask_loadu_epi32(f, m, src - pad * 4));
    }
    return;
  }
#endif
#if defined(__AVX2__)
  if (wb == 32 && ss == es && (es == 8 || es == 4)) {
    // 4-byte lanes [pad * es / 4, 32 / 4) of the row; the masked-off ones are not read.
    const int lo = int(pad * es / 4);
    const __m256i m =
        _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(lo - 1));
    const __m256i v = _mm256_maskload_epi32(reinterpret_cast<const int*>(src - pad * es), m);
    const __m256i f = es == 8 ? _mm256_set1_epi64x(first(0LL)) : _mm256_set1_epi32(first(0));
    _mm256_store_si256(reinterpret_cast<__m256i*>(b), _mm256_blendv_epi8(f, v, m));
    return;
  }
#endif
  gather_elements(b, src, 0, pad, es);
  gather_elements(b + pad * es, src, ss, cols, es);
}

// k.slab over rows shorter than a batch, each row's leaves gathered (any stride, 0 included) to
// the end of one batch per leaf at `base` (short_batch_bytes apart), padded before them with the
// row's first element (the padding lanes are never counted, but an integer division by a
// padding zero would trap); p: room for the n operand pointers.
LZ_INLINE void slab_short_rows(const reduce_kernels& k, const void* ctx, const detail::operand* ops,
                               int n, char* const* ptr, const index_t* s_in, const index_t* s_out,
                               index_t rows, index_t cols, index_t first, index_t row_step,
                               void* st, unsigned char* base, char** p) {
  const index_t pad = k.simd_width - cols;
  p[0] = ptr[0]; // (the destination is not read)
  for (index_t r = 0; r < rows; ++r) {
    for (int j = 1; j < n; ++j) {
      const index_t es = ops[j].esize;
      char* b = reinterpret_cast<char*>(base + (j - 1) * short_batch_bytes);
      pad_short_row(b, ptr[j] + r * s_out[j], es, s_in[j] * es, pad, cols, k.simd_width * es);
      p[j] = b + pad * es;
    }
    k.slab(ctx, p, s_in, s_out, 1, cols, first + r * row_step, 0, st, false);
  }
}

// slab_short_rows for trees of more than short_leaves leaves: the batches on the heap.
LZ_NOINLINE void slab_short_wide(const reduce_kernels& k, const void* ctx,
                                 const detail::operand* ops, int n, char* const* ptr,
                                 const index_t* s_in, const index_t* s_out, index_t rows,
                                 index_t cols, index_t first, index_t row_step, void* st) {
  std::vector<unsigned char> heap(std::size_t((n - 1) * short_batch_bytes + 64));
  unsigned char* base =
      heap.data() + (64 - reinterpret_cast<std::uintptr_t>(heap.data()) % 64) % 64;
  char* p[max_operands];
  slab_short_rows(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, st, base, p);
}

// slab_short_rows with the batches in the frame. Out of line: other calls do not pay its frame.
LZ_NOINLINE void slab_short(const reduce_kernels& k, const void* ctx, const detail::operand* ops,
                            int n, char* const* ptr, const index_t* s_in, const index_t* s_out,
                            index_t rows, index_t cols, index_t first, index_t row_step, void* st) {
  if (n - 1 > short_leaves)
    return slab_short_wide(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, st);
  alignas(64) unsigned char local[short_leaves][short_batch_bytes];
  char* p[short_leaves + 1];
  slab_short_rows(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, st, local[0], p);
}

// k.slab over `rows` rows of `cols` elements (leaf j at ptr[j], s_in[j] elements between
// columns, s_out[j] bytes between rows). A tree on batches reads each row's last batch ending
// at its last element (reduce.hpp): a row that, with the `before` elements of the same row
// before it, is shorter than a batch runs on padded copies (slab_short).
void slab_call(const reduce_kernels& k, const void* ctx, const detail::operand* ops, int n,
               char* const* ptr, const index_t* s_in, const index_t* s_out, index_t rows,
               index_t cols, index_t first, index_t row_step, void* st, index_t before) {
  if (cols + before < k.simd_width)
    slab_short(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, st);
  else
    k.slab(ctx, ptr, s_in, s_out, rows, cols, first, row_step, st, false);
}

// slab_call over contiguous rows, first prefetching, when `prefetch` > 0 and the tree runs on
// SIMD batches, every line of each unit-stride leaf `prefetch` elements past the next span of
// elements. The slab's own loop has no prefetch in it: tested there (a not-taken branch and two
// pointer increments an iteration) it cost 6-8% of W3 on an AVX-512 Xeon with the prefetches
// off, from L3 and in cache alike (docs/decisions/reduction-prefetch-per-vendor.md).
void run_slab(const reduce_kernels& k, const void* ctx, const detail::operand* ops, int n,
              char* const* ptr, const index_t* s_in, const index_t* s_out, index_t rows,
              index_t cols, index_t first, index_t row_step, index_t prefetch, void* st,
              index_t before) {
  if (prefetch <= 0 || k.simd_width <= 1) {
    slab_call(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, st, before);
    return;
  }
  const index_t span = std::max<index_t>(prefetch_span, reduce_unroll * k.simd_width);
  char* p[max_operands];
  for (index_t r = 0; r < rows; ++r)
    for (index_t c0 = 0; c0 < cols; c0 += span) {
      const index_t nc = std::min(span, cols - c0);
      for (int j = 0; j < n; ++j) p[j] = ptr[j] + r * s_out[j] + c0 * s_in[j] * ops[j].esize;
      for (int j = 1; j < n; ++j) // (prefetches never fault: past the end is harmless)
        if (s_in[j] == 1)
          for (index_t b = 0; b < nc * ops[j].esize; b += 64)
            __builtin_prefetch(p[j] + prefetch * ops[j].esize + b);
      slab_call(k, ctx, ops, n, p, s_in, s_out, 1, nc, first + r * row_step + c0, 0, st,
                before + c0);
    }
}

// The tree's slab over a rows x cols block: leaf j at ptr[j], s_in[j] elements between columns,
// s_out[j] bytes between rows; element (r, c) has logical index first + r * row_step + c.
// Contiguous rows go straight to the kernel; otherwise each leaf whose columns are not adjacent
// is packed, a chunk of a row at a time, into an L1 buffer (the destination, ptr[0], is not
// read). Deterministic: the chunks depend on the shape and the element sizes only. `before`:
// elements of each row before its first (slab_call); pb: the buffers for s_in (made here when not
// given).
void call_slab(const reduce_kernels& k, const void* ctx, const detail::operand* ops, int n,
               char* const* ptr, const index_t* s_in, const index_t* s_out, index_t rows,
               index_t cols, index_t first, index_t row_step, index_t prefetch, void* st,
               index_t before, const pack_buffers& pb) {
  if (pb.count == 0) {
    run_slab(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, prefetch, st, before);
    return;
  }
  const index_t chunk = pb.chunk;
  char* p[max_operands];
  for (index_t r = 0; r < rows; ++r)
    for (index_t c0 = 0; c0 < cols; c0 += chunk) {
      const index_t nc = std::min(chunk, cols - c0);
      for (int j = 0; j < n; ++j) p[j] = ptr[j] + r * s_out[j] + c0 * s_in[j] * ops[j].esize;
      if (nc < k.simd_width) { // (a buffer holds no element before the chunk)
        slab_short(k, ctx, ops, n, p, s_in, s_out, 1, nc, first + r * row_step + c0, 0, st);
        continue;
      }
      for (int q = 0; q < pb.count; ++q) {
        const int j = pb.op[q];
        gather_elements(pb.buf[q], p[j], s_in[j] * ops[j].esize, nc, ops[j].esize);
        p[j] = pb.buf[q];
      }
      k.slab(ctx, p, s_in, s_out, 1, nc, first + r * row_step + c0, 0, st, false);
    }
}

void call_slab(const reduce_kernels& k, const void* ctx, const detail::operand* ops, int n,
               char* const* ptr, const index_t* s_in, const index_t* s_out, index_t rows,
               index_t cols, index_t first, index_t row_step, index_t prefetch, void* st,
               index_t before) {
  const pack_buffers pb(ops, s_in, 1, n); // the destination, ptr[0], is not read
  call_slab(k, ctx, ops, n, ptr, s_in, s_out, rows, cols, first, row_step, prefetch, st, before,
            pb);
}

// Blocks of a planned loop: (outer slab, row block, inner chunk), each at most `block`
// elements, numbered in logical (memory walk) order.
struct block_grid {
  const loop_plan* p;
  const reduce_kernels* k;
  const void* ctx;
  index_t inner, rows, rpb, rblocks, chunk, cpr;
  index_t prefetch = 0; ///< elements ahead (reduce_options::prefetch_bytes)
  index_t count() const { return p->outer * rblocks * cpr; }

  void reduce_block(index_t bi, void* partial) const {
    const int n = p->count, R = p->rank, in = R - 1;
    index_t o = bi / (rblocks * cpr), rem = bi % (rblocks * cpr);
    const index_t rb = rem / cpr, ci = rem % cpr;
    const index_t slab = o;
    // Only the n operands in use: zeroing all max_operands (2 KiB) cost ~2% of W3 at n=1e7,
    // paid once per 4096-element block.
    index_t off[max_operands];
    for (int j = 0; j < n; ++j) off[j] = 0;
    for (int d = R - 3; d >= 0; --d) {
      const index_t i = o % p->extents[d];
      o /= p->extents[d];
      for (int j = 0; j < n; ++j) off[j] += i * p->ops[j].strides[d];
    }
    const index_t r0 = rb * rpb, c0 = ci * chunk;
    const index_t nrows = std::min(rpb, rows - r0), ncols = std::min(chunk, inner - c0);
    char* ptr[max_operands];
    index_t s_in[max_operands], s_out[max_operands];
    for (int j = 0; j < n; ++j) {
      index_t e = off[j] + c0 * p->ops[j].strides[in];
      if (R >= 2) e += r0 * p->ops[j].strides[in - 1];
      ptr[j] = p->ops[j].ptr + e * p->ops[j].esize;
      s_in[j] = p->ops[j].strides[in];
      s_out[j] = R >= 2 ? p->ops[j].strides[in - 1] * p->ops[j].esize : 0;
    }
    state_buf st;
    k->init(st.b);
    const index_t first = (slab * rows + r0) * inner + c0; // logical index (keep_order loops)
    call_slab(*k, ctx, p->ops, n, ptr, s_in, s_out, nrows, ncols, first, inner, prefetch, st.b, c0);
    k->finish(st.b, partial);
  }
};

// Pairwise over blocks [lo, hi): split at the midpoint, always.
template <class Leaf>
void pairwise(const Leaf& leaf, const reduce_kernels& k, index_t lo, index_t hi, void* out) {
  if (hi - lo == 1) {
    leaf(lo, out);
    return;
  }
  const index_t mid = lo + (hi - lo) / 2;
  partial_buf right;
  pairwise(leaf, k, lo, mid, out);
  pairwise(leaf, k, mid, hi, right.b);
  k.combine(out, right.b);
}

// The same tree, with its subtrees at `depth` computed in parallel.
template <class Leaf>
void pairwise_parallel(const Leaf& leaf, const reduce_kernels& k, index_t nblocks, int depth,
                       void* out) {
  struct range {
    index_t lo, hi;
  };
  range ranges[64];
  int nr = 0;
  auto collect = [&](auto self, index_t lo, index_t hi, int d) -> void {
    if (d == 0 || hi - lo <= 1) {
      ranges[nr++] = {lo, hi};
      return;
    }
    const index_t mid = lo + (hi - lo) / 2;
    self(self, lo, mid, d - 1);
    self(self, mid, hi, d - 1);
  };
  collect(collect, 0, nblocks, depth);
  partial_buf parts[64];
  parallel_for(nr, 1, [&](index_t b, index_t e) {
    for (index_t i = b; i < e; ++i) pairwise(leaf, k, ranges[i].lo, ranges[i].hi, parts[i].b);
  });
  int next = 0;
  auto combine = [&](auto self, index_t lo, index_t hi, int d, void* dst) -> void {
    if (d == 0 || hi - lo <= 1) {
      std::memcpy(dst, parts[next++].b, max_reduce_partial);
      return;
    }
    const index_t mid = lo + (hi - lo) / 2;
    partial_buf right;
    self(self, lo, mid, d - 1, dst);
    self(self, mid, hi, d - 1, right.b);
    k.combine(dst, right.b);
  };
  combine(combine, 0, nblocks, depth, out);
}

// Elements ahead to prefetch in a contiguous reduction of `size` elements over ops[1..count):
// opt.prefetch_distance once the operands' bytes reach opt.prefetch_bytes, else 0; always 0
// for two prefetch distances or fewer, whatever the threshold (the lines prefetched would mostly
// lie past the end, and no measured CPU prefetches below 8 MiB).
// A negative threshold is lz::measure_on_first_use: resolved (read from the per-CPU cache or
// measured) by the first reduction large enough to prefetch at all, the 8 MiB every measured
// CPU kind that prefetches starts from; smaller ones meanwhile run without.
constexpr index_t no_override = -2;
thread_local index_t prefetch_override = no_override; // scoped_prefetch
index_t prefetch_for(const reduce_options& opt, index_t size, const detail::operand* ops,
                     int count) {
  if (size <= 2 * opt.prefetch_distance) return 0;
  index_t from = prefetch_override != no_override ? prefetch_override : opt.prefetch_bytes;
  if (from == 0) return 0;
  index_t bytes = 0;
  for (int j = 1; j < count; ++j) bytes += size * ops[j].esize;
  if (from < 0) {
    if (bytes < (index_t(8) << 20)) return 0;
    from = lz::detail::resolve_first_use_reduce_prefetch();
    if (from <= 0) return 0;
  }
  return bytes >= from ? opt.prefetch_distance : 0;
}

int threads_for(const reduce_options& opt, index_t work) {
  if (!opt.threads || work < opt.parallel_work) return 1;
  return num_threads();
}

// Reduces blocks [0, nblocks) into out, in parallel when worthwhile.
template <class Leaf>
void reduce_blocks(const Leaf& leaf, const reduce_kernels& k, index_t nblocks, int threads,
                   void* out) {
  if (nblocks == 0) {
    state_buf st;
    k.init(st.b);
    k.finish(st.b, out);
    return;
  }
  if (threads > 1 && nblocks >= 2) {
    int depth = 0; // ~4 subtrees per thread, at most 64
    while ((index_t(1) << depth) < 4 * threads && (index_t(1) << depth) < nblocks && depth < 6)
      ++depth;
    pairwise_parallel(leaf, k, nblocks, depth, out);
  } else {
    pairwise(leaf, k, 0, nblocks, out);
  }
}

} // namespace

// A block is U x W running sums on SIMD accumulators (16384 / 32 = 512 elements each for
// AVX-512 doubles) but one on a scalar accumulator: a quarter of the block keeps that one as
// long as with the 4096-element blocks before (docs/decisions/reduction-blocks-of-16384.md).
namespace {
LZ_INLINE index_t block_elements(index_t block, bool simd) noexcept {
  const index_t b =
      block > 0 ? std::min(block, index_t(1) << 30) : lz::detail::default_reduce_block;
  return simd ? b : std::max<index_t>(1, b / reduce_unroll);
}
} // namespace

index_t block_of(index_t block, bool simd) noexcept { return block_elements(block, simd); }

void run_reduce(int rank, const index_t* ext, int count, detail::operand* ops,
                const reduce_kernels& k, const void* ctx, const reduce_options& opt, void* out) {
  const index_t B = block_elements(opt.block, k.simd_width > 1);
  // Fast path: a contiguous 1-d reduction (every operand at stride 1). Its blocks are plain
  // ranges of B elements, so each leaf of the tree below is init + one slab + finish, without
  // planning the loop, walking the block grid or checking for operands to pack: the same blocks
  // and kernels as the general path, so the same bits. That set-up was most of a short
  // reduction's time (a 100-element lz::dot took 0.36 us against 0.05 us for cblas_ddot;
  // perf/level1_bench) and ~10% of a long one's (W3 n = 65536 on a Zen 3: 150 ns per block of
  // 4096; perf/w3_paired).
  if (rank == 1 && ext[0] > 0) {
    bool unit = true;
    for (int j = 0; j < count; ++j) unit = unit && ops[j].strides[0] == 1;
    if (unit) {
      const index_t n = ext[0];
      const index_t prefetch = prefetch_for(opt, n, ops, count);
      auto leaf = [&](index_t bi, void* part) {
        char* ptr[max_operands];
        const index_t first = bi * B;
        for (int j = 0; j < count; ++j) ptr[j] = ops[j].ptr + first * ops[j].esize;
        state_buf st;
        k.init(st.b);
        const index_t len = std::min(B, n - first);
        run_slab(k, ctx, ops, count, ptr, unit_strides.data(), no_strides.data(), 1, len, first,
                 len, prefetch, st.b, first);
        k.finish(st.b, part);
      };
      if (n <= B) // one block: the tree's one leaf, on this thread
        leaf(0, out);
      else
        reduce_blocks(leaf, k, ceil_div(n, B), threads_for(opt, n * opt.cost), out);
      return;
    }
  }
  loop_options lo;
  lo.threads = false;
  lo.keep_order = opt.keep_order;
  const loop_plan p = plan_loop(rank, ext, count, ops, lo);
  if (p.items == 0) {
    reduce_blocks([](index_t, void*) {}, k, 0, 1, out);
    return;
  }
  block_grid g{&p, &k, ctx, 0, 0, 0, 0, 0, 0};
  g.inner = p.extents[p.rank - 1];
  g.rows = p.rank >= 2 ? p.extents[p.rank - 2] : 1;
  if (g.inner >= B) {
    g.rpb = 1;
    g.rblocks = g.rows;
    g.chunk = B;
    g.cpr = ceil_div(g.inner, B);
  } else {
    g.rpb = std::max<index_t>(1, B / g.inner);
    g.rblocks = ceil_div(g.rows, g.rpb);
    g.chunk = g.inner;
    g.cpr = 1;
  }
  if (p.m == mode::unit) g.prefetch = prefetch_for(opt, p.size, p.ops, count);
  const int threads = threads_for(opt, p.size * opt.cost);
  reduce_blocks([&](index_t bi, void* part) { g.reduce_block(bi, part); }, k, g.count(), threads,
                out);
}

#if defined(__AVX512F__)
// The batch B at q + i as B::load_unaligned(q + i) reads it, from the aligned batches at
// base + i and base + i + W (base: q rounded down to 64 bytes, o elements before it): one
// two-source permute instead of a load split across two lines (i a multiple of W).
template <class B, class T>
LZ_INLINE B realigned(const T* base, index_t i, __m512i idx) {
  using R = typename B::register_type;
  const __m512i lo = _mm512_load_si512(base + i), hi = _mm512_load_si512(base + i + B::size);
  if constexpr (sizeof(T) == 8)
    return B(__builtin_bit_cast(R, _mm512_permutex2var_epi64(lo, idx, hi)));
  else
    return B(__builtin_bit_cast(R, _mm512_permutex2var_epi32(lo, idx, hi)));
}

template <class Op, class T>
index_t realign_groups(const T* row, index_t n, T* lanes) {
  using B = xsimd::batch<T>;
  constexpr index_t W = index_t(B::size), U = reduce_unroll;
  static_assert(W * sizeof(T) == 64);
  const auto at = reinterpret_cast<std::uintptr_t>(row);
  const T* base = reinterpret_cast<const T*>(at & ~std::uintptr_t(63));
  // (Not at a whole element: no group realigned.)
  const index_t o = at % sizeof(T) != 0 ? -n : index_t((at & 63) / sizeof(T));
  __m512i idx;
  if constexpr (sizeof(T) == 8)
    idx = _mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7), _mm512_set1_epi64(o));
  else
    idx = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(int(o)));
  B a0 = B::load_aligned(lanes), a1 = B::load_aligned(lanes + W);
  B a2 = B::load_aligned(lanes + 2 * W), a3 = B::load_aligned(lanes + 3 * W);
  auto as_it_lies = [&](index_t i) {
    a0 = Op::combine(a0, B::load_unaligned(row + i));
    a1 = Op::combine(a1, B::load_unaligned(row + i + W));
    a2 = Op::combine(a2, B::load_unaligned(row + i + 2 * W));
    a3 = Op::combine(a3, B::load_unaligned(row + i + 3 * W));
  };
  as_it_lies(0);
  // A group's last aligned batch ends at index i + 5W - o of the row: at most n.
  index_t i = U * W;
  for (; i + 5 * W - o <= n; i += U * W) {
    a0 = Op::combine(a0, realigned<B>(base, i, idx));
    a1 = Op::combine(a1, realigned<B>(base, i + W, idx));
    a2 = Op::combine(a2, realigned<B>(base, i + 2 * W, idx));
    a3 = Op::combine(a3, realigned<B>(base, i + 3 * W, idx));
  }
  for (; i + U * W <= n; i += U * W) as_it_lies(i);
  a0.store_aligned(lanes), a1.store_aligned(lanes + W);
  a2.store_aligned(lanes + 2 * W), a3.store_aligned(lanes + 3 * W);
  return i;
}

#define LZ_REALIGN_GROUPS(Op)                                                                      \
  template index_t realign_groups<red::Op, float>(const float*, index_t, float*);                  \
  template index_t realign_groups<red::Op, double>(const double*, index_t, double*);
LZ_REALIGN_GROUPS(sum_op)
LZ_REALIGN_GROUPS(mean_op)
LZ_REALIGN_GROUPS(prod_op)
LZ_REALIGN_GROUPS(min_op)
LZ_REALIGN_GROUPS(max_op)
#undef LZ_REALIGN_GROUPS
#endif

// run_reduce when the vector or a leaf is not one short contiguous block: ops[0] gets the
// walk order the general driver reads (run_reduce_vector's callers leave it unset).
LZ_NOINLINE void run_reduce_vector_general(index_t n, int count, detail::operand* ops,
                                           const reduce_kernels& k, const void* ctx,
                                           const reduce_options& opt, void* out) {
  if (count > 1) {
    ops[0].ptr = ops[1].ptr, ops[0].esize = ops[1].esize, ops[0].strides[0] = ops[1].strides[0];
  } else {
    ops[0].strides[0] = 0;
  }
  run_reduce(1, &n, count, ops, k, ctx, opt, out);
}

template <int N>
void run_reduce_vector(index_t n, detail::operand* ops, const reduce_kernels& k, const void* ctx,
                       const reduce_options& opt, void* out) {
  // One block with no prefetch (prefetch_for's first test): init, one slab and finish, as
  // run_reduce's contiguous path runs it, with the operand test unrolled.
  char* ptr[N];
  ptr[0] = nullptr; // (the destination is not read)
  bool unit =
      n > 0 && n <= 2 * opt.prefetch_distance && n <= block_elements(opt.block, k.simd_width > 1);
  for (int j = 1; j < N; ++j) {
    unit = unit && ops[j].strides[0] == 1;
    ptr[j] = ops[j].ptr;
  }
  if (!unit) return run_reduce_vector_general(n, N, ops, k, ctx, opt, out);
  state_buf st;
  k.init(st.b);
  slab_call(k, ctx, ops, N, ptr, unit_strides.data(), no_strides.data(), 1, n, 0, n, st.b, 0);
  k.finish(st.b, out);
}

// One per operand count a caller may pass (fusion/rules/reduce.hpp).
template void run_reduce_vector<1>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<2>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<3>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<4>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<5>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<6>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<7>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<8>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<9>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                   const reduce_options&, void*);
template void run_reduce_vector<10>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<11>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<12>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<13>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<14>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<15>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
template void run_reduce_vector<16>(index_t, detail::operand*, const reduce_kernels&, const void*,
                                    const reduce_options&, void*);
static_assert(vector_operands == 16, "lz: one run_reduce_vector<N> above for each N up to it");

namespace {

// How a leaf covers a row of narrow outputs' (axis, outputs) block (run_reduce_axis).
enum class narrow_leaf : unsigned char {
  block,   // contiguous: the axis `inner` elements apart, the outputs 1 apart
  scalar,  // one value for the whole block
  per_out, // one value per output, the same down the axis (a row vector broadcast)
};

// A narrow row's accumulators: at most this many bytes (P of them: doubles on AVX-512 up to 15
// outputs, then 18, 20, 22, 24, ..., 120; wider rows keep the other modes).
constexpr index_t narrow_bytes = 2048;

// The P = lcm(inner, 2W) outputs' row length of a narrow block read as rows (0: not narrow).
// 2W is a power of two: gcd(inner, 2W) is inner's lowest set bit or 2W, and shifts, not
// divisions, find it (std::lcm's cost 10 ns of an 8 x 8 sum's 75).
index_t narrow_row(index_t inner, const reduce_kernels& k) {
  const auto w2 = std::uint64_t(2 * k.simd_width), low = std::uint64_t(inner & -inner);
  const index_t p = inner << (std::countr_zero(w2) - std::countr_zero(std::min(low, w2)));
  return p * k.acc_size <= narrow_bytes ? p : 0;
}

// A narrow block's rows are read in chunks of at most this many bytes: a chunk's later passes
// over its rows (one per two batches of outputs) hit L2, not memory (1e6 x 7 doubles: 1.36x
// the time of a full reduction of the same elements in one chunk, 1.04x in chunks of 128 KiB;
// 32 KiB to 256 KiB within 5% of each other).
constexpr index_t narrow_chunk_bytes = 131072;

// The leaf operands and strides of a narrow block read as rows of P elements.
struct narrow_block {
  const reduce_kernels& k;
  const void* ctx;
  int count;
  const detail::operand* ops;
  char* const* q;
  const index_t* s_in;
  const index_t* s_ax;
  index_t P, chunk;

  // Rows [k0, k1) into P accumulators at acc: one raw vertical call for at most `chunk` rows,
  // more halved and combined pairwise.
  void rows(index_t k0, index_t k1, unsigned char* acc) const {
    if (k1 - k0 <= chunk) {
      char* at[max_operands];
      at[0] = q[0];
      for (int j = 1; j < count; ++j) at[j] = q[j] + k0 * s_ax[j] * ops[j].esize;
      k.vertical(ctx, at, s_in, s_ax, k1 - k0, P, reinterpret_cast<char*>(acc), true);
      return;
    }
    const index_t mid = k0 + (k1 - k0) / 2;
    alignas(64) unsigned char right[narrow_bytes];
    rows(k0, mid, acc);
    rows(mid, k1, right);
    combine(acc, right);
  }
  void combine(unsigned char* a, const unsigned char* b) const { k.combine_n(a, b, P); }

  // rows(0, n, acc) with the subtrees `depth` levels down computed in parallel (the same tree).
  void rows_parallel(index_t n, int depth, unsigned char* acc) const {
    struct range {
      index_t lo, hi;
    };
    std::vector<range> ranges;
    auto collect = [&](auto self, index_t lo, index_t hi, int d) -> void {
      if (d == 0 || hi - lo <= chunk) return ranges.push_back({lo, hi});
      const index_t mid = lo + (hi - lo) / 2;
      self(self, lo, mid, d - 1);
      self(self, mid, hi, d - 1);
    };
    collect(collect, 0, n, depth);
    const index_t bytes = P * k.acc_size;
    std::vector<unsigned char> parts(std::size_t(index_t(ranges.size()) * bytes));
    parallel_for(index_t(ranges.size()), 1, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i) {
        alignas(64) unsigned char part[narrow_bytes];
        rows(ranges[std::size_t(i)].lo, ranges[std::size_t(i)].hi, part);
        std::memcpy(parts.data() + i * bytes, part, std::size_t(bytes));
      }
    });
    index_t next = 0;
    auto fold = [&](auto self, index_t lo, index_t hi, int d, unsigned char* dst) -> void {
      if (d == 0 || hi - lo <= chunk) {
        std::memcpy(dst, parts.data() + next++ * bytes, std::size_t(bytes));
        return;
      }
      const index_t mid = lo + (hi - lo) / 2;
      alignas(64) unsigned char right[narrow_bytes];
      self(self, lo, mid, d - 1, dst);
      self(self, mid, hi, d - 1, right);
      combine(dst, right);
    };
    fold(fold, 0, n, depth, acc);
  }
};

// One row of `inner` narrow outputs (not a whole number of batch pairs; dst at `dst`,
// `dst_step` bytes apart) of an axis of `len`, leaf j at base[j]: the (axis, outputs) block,
// L = len * inner elements in a row, read as `len / r` rows of P = r * inner elements (P a
// multiple of two batches) by the vertical kernel, its raw accumulators kept (narrow_block: in
// chunks, on `threads`); the rows left over (fewer than r) as one row of a last raw call over
// the block's last max(their elements, W); then each output folds, in order, its r
// accumulators and its elements of that last row, and is stored. Per-output leaves are tiled to
// P elements first. The bits depend on the shape alone.
// @pre 2 <= inner, inner % 2W != 0, W <= L, narrow_row(inner, k) > 0.
LZ_NOINLINE void reduce_narrow(const reduce_kernels& k, const void* ctx, int count,
                               const detail::operand* ops, const narrow_leaf* kind,
                               char* const* base, index_t len, index_t inner, char* dst,
                               index_t dst_step, int threads) {
  const index_t W = k.simd_width, P = narrow_row(inner, k), r = P / inner, as = k.acc_size;
  const index_t rows = len / r, L = len * inner, Lt = L - rows * P;
  const index_t nt = std::max(Lt, W), start = L - nt; // the last row's call: [start, L)
  alignas(64) unsigned char acc[narrow_bytes], last[narrow_bytes];
  std::vector<char> tiles; // per-output leaves, P elements each
  index_t tiles_at[max_operands];
  index_t tile_bytes = 0;
  for (int j = 1; j < count; ++j)
    if (kind[j] == narrow_leaf::per_out) tiles_at[j] = tile_bytes, tile_bytes += P * ops[j].esize;
  if (tile_bytes > 0) tiles.resize(std::size_t(tile_bytes));
  char* q[max_operands];
  char* qt[max_operands];
  index_t s_in[max_operands], s_ax[max_operands];
  q[0] = qt[0] = dst, s_in[0] = s_ax[0] = 0;
  for (int j = 1; j < count; ++j) {
    const index_t es = ops[j].esize;
    s_in[j] = kind[j] == narrow_leaf::scalar ? 0 : 1;
    s_ax[j] = kind[j] == narrow_leaf::block ? P : 0;
    q[j] = qt[j] = base[j];
    if (kind[j] == narrow_leaf::block) {
      qt[j] = base[j] + start * es;
    } else if (kind[j] == narrow_leaf::per_out) {
      char* t = tiles.data() + tiles_at[j];
      for (index_t i = 0; i < P; ++i) std::memcpy(t + i * es, base[j] + (i % inner) * es, es);
      q[j] = t, qt[j] = t + (start % inner) * es; // (start % inner + nt <= P)
    }
  }
  index_t row_bytes = 0; // of the block leaves
  for (int j = 1; j < count; ++j)
    if (kind[j] == narrow_leaf::block) row_bytes += P * ops[j].esize;
  const index_t chunk = row_bytes ? std::max<index_t>(256, narrow_chunk_bytes / row_bytes)
                                  : std::max<index_t>(rows, 1);
  const narrow_block block{k, ctx, count, ops, q, s_in, s_ax, P, chunk};
  if (rows > chunk && threads > 1) {
    int depth = 0; // ~4 subtrees per thread
    while ((index_t(1) << depth) < 4 * threads && (chunk << depth) < rows && depth < 6) ++depth;
    block.rows_parallel(rows, depth, acc);
  } else if (rows > 0) {
    block.rows(0, rows, acc);
  }
  if (Lt > 0) k.vertical(ctx, qt, s_in, s_ax, 1, nt, reinterpret_cast<char*>(last), true);
  // Output o: its accumulators (columns o, o + inner, ... of acc), then its elements of the
  // last row (the same columns of that call's last Lt values, a whole number of groups).
  const unsigned char* groups[2] = {acc, last + (nt - Lt) * as};
  const index_t ngroups[2] = {rows > 0 ? r : 0, Lt / inner};
  alignas(64) unsigned char out[narrow_bytes];
  bool first = true;
  for (int s = 0; s < 2; ++s)
    for (index_t g = 0; g < ngroups[s]; ++g, first = false) {
      const unsigned char* at = groups[s] + g * inner * as;
      if (first)
        std::memcpy(out, at, std::size_t(inner * as));
      else
        k.combine_n(out, at, inner);
    }
  for (index_t o = 0; o < inner; ++o) k.store(out + o * as, len, dst + o * dst_step);
}

} // namespace

void run_reduce_axis(int out_rank, const index_t* out_ext, index_t axis_len, int count,
                     detail::operand* ops, const reduce_kernels& k, const void* ctx,
                     const reduce_options& opt) {
  index_t nout = 1;
  for (int d = 0; d < out_rank; ++d) nout *= out_ext[d];
  if (nout == 0) return;
  const int ax = out_rank; // leaves' stride index of the reduced axis
  const index_t B = block_elements(opt.block, k.simd_width > 1);
  const int threads = threads_for(opt, nout * axis_len * opt.cost);

  // Vertical mode: the outputs are contiguous along the last output dim for the destination
  // and every leaf (stride 1, or 0 for a broadcast leaf) while the axis is not: SIMD lanes run
  // across outputs and each lane walks the axis pairwise.
  const int last = out_rank - 1;
  bool vertical = k.vertical && out_rank >= 1 && ops[0].strides[last] == 1 && axis_len > 0;
  bool axis_contiguous = true;
  for (int j = 1; j < count && vertical; ++j) {
    const index_t s = ops[j].strides[last];
    vertical = s == 0 || s == 1;
    axis_contiguous = axis_contiguous && ops[j].strides[ax] == 1;
  }
  if (vertical && axis_contiguous && count > 1) vertical = false; // segments are better
  // The vertical kernel takes a batch of outputs at least (reduce.hpp): fewer go by segments.
  const index_t inner = out_rank >= 1 ? out_ext[last] : 1;
  if (inner < k.simd_width) vertical = false;
  // Narrow outputs: fewer than a batch along the last dim (`sum(P, 0)` of an n x 3 point set),
  // or any count that is not a whole number of batch pairs (the vertical kernel would run a
  // partial or single last batch, and its rows' loads would straddle lines), every leaf
  // contiguous over a row of outputs' (axis, outputs) block, or one value for it, or one per
  // output: the block runs as rows of P outputs by the vertical kernel (reduce_narrow). Where
  // the vertical kernel could run itself, only from 64 wide rows up: its passes and the fold
  // cost more than a partial batch below (AVX2, doubles: 100 x 100, 50 rows of 200, 0.88-1.01 us
  // vertically, 1.08-1.10 us narrow; 256 x 20, 128 rows of 40, 372 vs 353 ns).
  narrow_leaf kind[max_operands]; // (set for every leaf when narrow)
  bool narrow = false;
  const bool under = inner < k.simd_width; // (batches: a power of two lanes)
  if (k.vertical && out_rank >= 1 && inner >= 2 && (inner & (2 * k.simd_width - 1)) != 0 &&
      axis_len * inner >= k.simd_width && (under || axis_len >= 128)) { // (r >= 2 there)
    const index_t P = narrow_row(inner, k);
    narrow = P > 0 && (under || axis_len >= 64 * (P / inner));
    for (int j = 1; j < count && narrow; ++j) {
      const index_t si = ops[j].strides[last], sa = ops[j].strides[ax];
      if (si == 1 && sa == inner)
        kind[j] = narrow_leaf::block;
      else if (si == 0 && sa == 0)
        kind[j] = narrow_leaf::scalar;
      else if (si == 1 && sa == 0)
        kind[j] = narrow_leaf::per_out;
      else
        narrow = false;
    }
  }
  if (narrow && nout == inner) { // one row of outputs (a matrix's columns): no item loop
    char* base[max_operands];
    for (int j = 0; j < count; ++j) base[j] = ops[j].ptr;
    reduce_narrow(k, ctx, count, ops, kind, base, axis_len, inner, ops[0].ptr,
                  ops[0].strides[last] * ops[0].esize, threads);
    return;
  }
  if (narrow) vertical = false;
  // Segments along an axis of one block at most, every leaf contiguous along it (`sum(A, 1)` of
  // a row-major A): a row of outputs per slab call, each output one row of the slab (which
  // reduces and stores it on its own), when the axis holds a batch at least.
  bool axis_unit = true;
  for (int j = 1; j < count; ++j) axis_unit = axis_unit && ops[j].strides[ax] == 1;
  const bool by_rows =
      !vertical && !narrow && axis_unit && axis_len >= k.simd_width && axis_len <= B;
  // Other short axes whose leaves are strided across the outputs would cost a call per output
  // by segments: each group of outputs is transposed into buffers instead (the axis outer, the
  // outputs contiguous) and runs vertically.
  const bool transposed = !vertical && !narrow && !by_rows && k.vertical && out_rank >= 1 &&
                          ops[0].strides[last] == 1 && axis_len > 0 && axis_len <= short_axis &&
                          inner >= k.simd_width;
  if (transposed) vertical = true;

  // An empty axis reads no element: the leaves (perhaps null) are not moved either.
  if (axis_len == 0)
    for (int j = 1; j < count; ++j)
      for (int d = 0; d <= out_rank; ++d) ops[j].strides[d] = 0;

  // Vertical groups of 256 outputs (transposed: as many as fill transpose_bytes), the last one
  // taking the rest (so none has fewer than a batch).
  index_t group = vertical ? std::min<index_t>(inner, 256) : narrow ? inner : 1;
  index_t packed_bytes = 0; // bytes of one output's elements of every transposed leaf
  for (int j = 1; j < count && transposed; ++j)
    if (ops[j].strides[last] != 0 && ops[j].strides[last] != 1)
      packed_bytes += axis_len * ops[j].esize;
  if (packed_bytes > 0)
    group = std::min(group, std::max<index_t>(k.simd_width, transpose_bytes / packed_bytes));
  const index_t groups_per_row = vertical || narrow ? inner / group : inner;
  const index_t rows = nout / inner; // product of the other output dims
  const index_t items = rows * groups_per_row;

  auto run_items = [&](index_t b, index_t e) {
    if (b >= e) return;
    char* ptr[max_operands];
    index_t s_in[max_operands], s_ax[max_operands];
    for (int j = 0; j < count; ++j) {
      s_in[j] = out_rank >= 1 ? ops[j].strides[last] : 0;
      s_ax[j] = j ? ops[j].strides[ax] : 0;
    }
    // Transposed leaves' buffers: axis_len rows of up to 2 * group outputs (the last group's).
    std::vector<char> tbuf(packed_bytes > 0 ? std::size_t(2 * group * packed_bytes + 64) : 0);
    // Segments: the leaves to pack along the axis, the same for every output (made once: per
    // output, with the 2 KiB of zero strides the slab was given, they were most of a short
    // segment's instructions; none for vertical groups. Not a std::optional: GCC 12 zeroed its
    // 19 KiB on every call).
    const pack_buffers pb(ops, s_ax, 1, vertical || narrow ? 1 : count);
    index_t s_out[max_operands]; // by rows: bytes from one output's row to the next
    for (int j = 0; j < count && by_rows; ++j) s_out[j] = s_in[j] * ops[j].esize;
    char* base[max_operands]; // the first output of the row of outputs `r`
    index_t r = b / groups_per_row, gi = b % groups_per_row;
    auto row_base = [&] {
      index_t rr = r;
      for (int j = 0; j < count; ++j) base[j] = ops[j].ptr;
      for (int d = last - 1; d >= 0; --d) {
        const index_t i = rr % out_ext[d];
        rr /= out_ext[d];
        for (int j = 0; j < count; ++j) base[j] += i * ops[j].strides[d] * ops[j].esize;
      }
    };
    row_base();
    for (index_t item = b; item < e; ++item, ++gi) {
      if (gi == groups_per_row) {
        gi = 0, ++r;
        row_base();
      }
      const index_t j0 = gi * group; // first output along the last dim
      for (int j = 0; j < count; ++j) ptr[j] = base[j] + j0 * s_in[j] * ops[j].esize;
      if (narrow) {
        reduce_narrow(k, ctx, count, ops, kind, ptr, axis_len, inner, ptr[0],
                      s_in[0] * ops[0].esize, items == 1 ? threads : 1);
        continue;
      }
      if (by_rows) {
        // The rest of this row of outputs in one call, each output one slab row.
        const index_t m = std::min(groups_per_row - gi, e - item);
        state_buf st;
        k.init(st.b);
        k.slab(ctx, ptr, s_ax, s_out, m, axis_len, 0, 0, st.b, true);
        item += m - 1, gi += m - 1;
        continue;
      }
      if (vertical) {
        const index_t w = gi + 1 < groups_per_row ? group : inner - j0;
        if (packed_bytes == 0) {
          k.vertical(ctx, ptr, s_in, s_ax, axis_len, w, ptr[0], false);
          continue;
        }
        char* q[max_operands];
        index_t q_in[max_operands], q_ax[max_operands];
        char* at = tbuf.data() + (64 - reinterpret_cast<std::uintptr_t>(tbuf.data()) % 64) % 64;
        for (int j = 0; j < count; ++j) {
          q[j] = ptr[j], q_in[j] = s_in[j], q_ax[j] = s_ax[j];
          if (j == 0 || s_in[j] == 0 || s_in[j] == 1) continue;
          const index_t es = ops[j].esize;
          if (s_ax[j] == 1) // the rows of outputs are the tile's columns
            stage_tile(at, ptr[j], axis_len, w, s_in[j] * es, es, w * es);
          else
            for (index_t a = 0; a < axis_len; ++a) // axis position a: w outputs, s_in apart
              gather_elements(at + a * w * es, ptr[j] + a * s_ax[j] * es, s_in[j] * es, w, es);
          q[j] = at, q_in[j] = 1, q_ax[j] = w;
          at += axis_len * w * es;
        }
        k.vertical(ctx, q, q_in, q_ax, axis_len, w, ptr[0], false);
        continue;
      }
      // One output: a 1-d reduction along the axis in blocks of B, combined pairwise.
      const index_t nb = ceil_div(axis_len, B);
      auto leaf = [&](index_t bi, void* part) {
        char* q[max_operands];
        for (int j = 0; j < count; ++j) q[j] = ptr[j] + bi * B * s_ax[j] * ops[j].esize;
        state_buf st;
        k.init(st.b);
        call_slab(k, ctx, ops, count, q, s_ax, no_strides.data(), 1, std::min(B, axis_len - bi * B),
                  bi * B, 0, 0, st.b, bi * B, pb);
        k.finish(st.b, part);
      };
      partial_buf part;
      reduce_blocks(leaf, k, nb, 1, part.b);
      k.store(part.b, axis_len, ptr[0]);
    }
  };
  if (threads > 1 && items >= 2) {
    const index_t grain = std::max<index_t>(1, items / (8 * threads));
    parallel_for(items, grain, run_items);
  } else {
    run_items(0, items);
  }
}

scoped_prefetch::scoped_prefetch(index_t bytes) noexcept : saved_(prefetch_override) {
  prefetch_override = bytes < 0 ? no_override : bytes;
}
scoped_prefetch::~scoped_prefetch() { prefetch_override = saved_; }

} // namespace lz::kernels::cpu
