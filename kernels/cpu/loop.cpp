// CPU loop driver: coalesce, order, tile and partition a loop nest, then call a tree's slab
// kernels. Compiled once; user translation units only instantiate the slab kernels.
#include <lz/kernels/cpu/loop.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace lz::kernels::cpu {
namespace {

index_t iabs(index_t v) { return v < 0 ? -v : v; }
index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

// Threads want at least this many element-costs per work item, so that the scheduling cost
// (~1 us per task) stays below a few percent.
constexpr index_t min_item_work = 32768;

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

  // 6. Tiling: a source that is contiguous along the second-to-last dim but strided along the
  //    last (a transposed read) would touch a new cache line per element; square tiles keep
  //    its lines in L1 while the destination is written row by row.
  if (opt.tile > 0 && R >= 2 && p.m == mode::strided && ops[0].strides[in] == 1 &&
      e[in] >= opt.tile && e[in - 1] >= opt.tile) {
    for (int j = 1; j < count; ++j)
      if (iabs(ops[j].strides[in - 1]) == 1 && iabs(ops[j].strides[in]) > 1) {
        p.tiled = true;
        p.tile = opt.tile;
        break;
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
    p.row_block = p.tile;
    p.row_blocks = ceil_div(rows, p.tile);
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
};

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
  run_ctx rc{&p, k.fn[static_cast<int>(p.m)], ctx};
  if (p.threads > 1)
    parallel_for(p.items, 1, &run_items, &rc);
  else
    run_items(&rc, 0, p.items);
}

std::string describe(const loop_plan& p, int simd_width) {
  static const char* modes[] = {"contiguous", "broadcast", "strided"};
  std::string s = "loop " + std::to_string(p.rank) + "-d (";
  for (int k = 0; k < p.rank; ++k) {
    if (k) s += ',';
    s += std::to_string(p.extents[k]);
  }
  s += ") ";
  s += modes[static_cast<int>(p.m)];
  if (p.tiled) s += ", tiled " + std::to_string(p.tile) + "x" + std::to_string(p.tile);
  s +=
      simd_width > 1 && p.m != mode::strided ? ", simd x" + std::to_string(simd_width) : ", scalar";
  if (p.threads > 1)
    s += ", " + std::to_string(p.threads) + " threads over " + std::to_string(p.items) + " items";
  else
    s += ", 1 thread";
  return s;
}

} // namespace lz::kernels::cpu
