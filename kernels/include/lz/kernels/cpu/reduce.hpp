// CPU reductions: per-tree kernels (template, xsimd) and the compiled drivers
// (kernels/cpu/reduce.cpp). Accuracy and determinism come from the driver: the operand is cut
// into fixed blocks (lz::thresholds().reduce_block elements, decided by the shape alone),
// each block is reduced with U x W SIMD accumulators, and block results are combined
// pairwise in a fixed binary tree. Threads only decide who computes which subtree, so the
// result is bit-identical for any thread count.
#pragma once

#include <lz/kernels/cpu/loop.hpp>
#include <lz/ops/reduce_ops.hpp>
#include <lz/policy.hpp>

#include <array>
#include <bit>
#include <new>
#include <type_traits>
#include <utility>

namespace lz::kernels::cpu {

inline constexpr int max_reduce_state = 1024; ///< bytes of a block accumulator
inline constexpr int max_reduce_partial = 32; ///< bytes of a finished block result
inline constexpr int reduce_unroll = 4;       ///< SIMD accumulators of a slab (U)

/// A slab's groups of U batches of a contiguous row of n T that starts inside a 64-byte line:
/// the first as it lies (its aligned batches would start before the row), then each batch
/// built from the two aligned batches around it by a two-source permute, the lanes an unaligned
/// load gives (the same bits) without its split loads, while the aligned batch after a group
/// lies in the row, then the rest as they lie; `lanes`, the U accumulators (U x W values,
/// aligned), are updated; returns the index the groups end at (the slab's tail follows). Compiled
/// in the library for AVX-512 targets: float and double, sum, mean, prod, min and max
/// (realign_compiled). An axis reduction of one leaf (`sum(A, 1)`) calls it for rows of 3 groups
/// or more when its file's SIMD target is the library's
/// (docs/decisions/reduction-rows-realigned.md).
template <class Op, class T>
index_t realign_groups(const T* row, index_t n, T* lanes);
template <class Op, class T>
inline constexpr bool realign_compiled = [] {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return lz::fn::detail::kernels_simd_arch_matches && sizeof(xsimd::batch<T>) == 64 &&
           (std::is_same_v<Op, red::sum_op> || std::is_same_v<Op, red::mean_op> ||
            std::is_same_v<Op, red::prod_op> || std::is_same_v<Op, red::min_op> ||
            std::is_same_v<Op, red::max_op>);
  else
    return false;
}();

/// A slab issues no software prefetch: the driver does, between calls (reduce.cpp, run_slab).
/// `each` false: every row accumulates into `state`. True (axis reductions' slabs only: see
/// reducer::kernels): each row is one output, reduced on its own from the identity and stored
/// into the destination at p[0] + r * so[0] as `store` would store init, slab and finish of that
/// row alone (the same bits), n being the axis' length; the state, at the identity on entry,
/// is left there.
using red_slab_fn = void (*)(const void* ctx, char* const* p, const index_t* s, const index_t* so,
                             index_t rows, index_t n, index_t first, index_t row_step, void* state,
                             bool each);
using red_init_fn = void (*)(void* state);
using red_finish_fn = void (*)(const void* state, void* partial);
using red_combine_fn = void (*)(void* a, const void* b); // a = a ⊕ b, b after a in index order
using red_combine_n_fn = void (*)(void* a, const void* b, index_t n); // a[i] ⊕= b[i], i < n
using red_store_fn = void (*)(const void* partial, index_t count, char* dst);
/// raw: the nout accumulators go to dst as consecutive A values, not finished nor stored
/// (run_reduce_axis folds them: outputs narrower than a batch).
using red_vertical_fn = void (*)(const void* ctx, char* const* p, const index_t* s_inner,
                                 const index_t* s_axis, index_t axis_len, index_t nout, char* dst,
                                 bool raw);

/// The kernels of one (reduction, tree, destination) triple. One slab, for contiguous rows:
/// the drivers (reduce.cpp) pack strided and broadcast leaves into L1 buffers first, as the
/// elementwise driver does (loop.cpp), so a tree compiles its reduction body once.
struct reduce_kernels {
  red_slab_fn slab;
  red_init_fn init;
  red_finish_fn finish;
  red_combine_fn combine;
  red_combine_n_fn combine_n; ///< combine over arrays (narrow outputs' folds); null w/o vertical
  red_store_fn store;         ///< finalize a partial and combine it into a destination element
  red_vertical_fn vertical;   ///< SIMD across outputs (axis reductions); null if unsupported
  int simd_width;
  int acc_size; ///< bytes of an accumulator (a raw vertical call's values)
};

struct reduce_options {
  bool threads = true;
  index_t parallel_work = 0;
  int cost = 1;
  index_t block = lz::detail::default_reduce_block;
  bool keep_order = false; ///< arg-reductions: iterate in logical order (indices count)
  /// Operand bytes from which contiguous blocks prefetch `prefetch_distance` elements ahead
  /// (0: never; lz::thresholds().reduce_prefetch). One core's bandwidth from memory is bounded
  /// by the misses it keeps in flight; on an Ice Lake software prefetches 16 KiB ahead added to
  /// the hardware prefetcher's (W3 n=1e7: 0.95x the time without; in cache they only cost issue
  /// slots: W3 n=1e5 1.1x, hence the threshold); on a Zen 3 they cost 8-18% at any distance
  /// (both measured when the slab's loop issued them; the driver does now, a span at a time).
  index_t prefetch_bytes = 0;
  index_t prefetch_distance = 2048;
};

/// Elements of a reduction block for thresholds().reduce_block = `block`: `block` on SIMD
/// accumulators, a quarter of it on one scalar accumulator (lz::seq, arg-reductions, types
/// without batches; docs/decisions/reduction-blocks-of-16384.md). A value outside [1, 2^30]
/// (set in code; LZ_CONFIG rejects it): the nearest end, or the default for a non-positive one.
index_t block_of(index_t block, bool simd) noexcept;

/// Full reduction over `ops[1..count)` (ops[0] guides the dimension order and is not read);
/// writes the combined partial to `out`. An empty loop yields the identity.
void run_reduce(int rank, const index_t* ext, int count, detail::operand* ops,
                const reduce_kernels& k, const void* ctx, const reduce_options& opt, void* out);
/// run_reduce of a vector of n elements over N operands (1 <= N <= vector_operands), chosen at
/// compile time by the caller: one short contiguous block (the fixed cost of a small reduction)
/// runs with the operand test unrolled and no loop plan; anything else goes to run_reduce.
/// ops[0] may be left unset (it is filled before run_reduce reads it). Compiled in the library
/// for each N.
template <int N>
void run_reduce_vector(index_t n, detail::operand* ops, const reduce_kernels& k, const void* ctx,
                       const reduce_options& opt, void* out);

/// Reduction along one axis: ops[0] is the destination (out_rank dims); leaves have
/// out_rank + 1 strides, the last one along the reduced axis of length axis_len.
void run_reduce_axis(int out_rank, const index_t* out_ext, index_t axis_len, int count,
                     detail::operand* ops, const reduce_kernels& k, const void* ctx,
                     const reduce_options& opt);

namespace detail_red {

/// The element size of each operand of kernel tree K (index 0, the destination's, left 0).
template <class K>
constexpr auto leaf_sizes() {
  std::array<index_t, 1 + K::leaves> s{};
  index_t* out = s.data() + 1;
  K::leaf_sizes(out);
  return s;
}

} // namespace detail_red

/// The accumulator of Op over elements V (with S: U x W SIMD lanes and a scalar tail): its
/// init, finish and combine, shared by every tree reduced by Op over V (compile time: they
/// are not instantiated per tree).
template <class Op, class V, bool S>
struct red_acc {
  using A = typename Op::template acc_t<V>;
  static constexpr bool is_arg = red::arg_accumulator<A>;
  static constexpr int U = reduce_unroll;
  static constexpr int W = [] {
    if constexpr (S)
      return int(xsimd::batch<V>::size);
    else
      return 1;
  }();

  struct state {
    V lanes[S ? U * W : 1];
    A tail;
  };
  static_assert(sizeof(state) <= max_reduce_state && sizeof(A) <= max_reduce_partial);

  /// The scalar accumulator's start.
  static A start() {
    if constexpr (is_arg)
      return A{V{}, -1};
    else
      return Op::template identity<A>();
  }

  static void init(void* st) {
    state* s = new (st) state;
    s->tail = start();
    if constexpr (S) { // whole batches: the slab's batch loads are forwarded from these stores
      const xsimd::batch<V> id(Op::template identity<V>());
      for (int u = 0; u < U; ++u) id.store_unaligned(s->lanes + u * W);
    }
  }

  /// The U accumulators and the scalar one folded into one value, in a fixed tree, so the
  /// result is reproducible: the U batches pairwise, then the W lanes of the batch that remains,
  /// pairwise, then the scalar accumulator. (Named batches: GCC 12 copied an array of them
  /// through the stack in 32-byte pieces and read them back whole, a store-forwarding stall:
  /// half of a short reduction's time.)
  template <class B>
  static A fold(const B& a0, const B& a1, const B& a2, const B& a3, A tail) {
    static_assert(U == 4);
    return fold_lanes(Op::combine(Op::combine(a0, a1), Op::combine(a2, a3)), tail);
  }
// (Not under nvcc: its front end has the builtin but not a pack expanded in its arguments.)
#if defined(__has_builtin) && !defined(__CUDACC__)
#if __has_builtin(__builtin_shufflevector)
#define LZ_FOLD_IN_REGISTERS 1
  /// fold_lanes' tree on a register's lanes T: level d = 2^L combines lane l with lane l + d
  /// (a shuffle of lane l ^ d onto l), which leaves each lane that is a multiple of 2d holding
  /// what the tree holds at that level.
  template <class B, class T, int... L>
  static T fold_tree(T t, std::integer_sequence<int, L...>) {
    ((t = fold_level<1 << L, B>(t, std::make_integer_sequence<int, W>{})), ...);
    return t;
  }
  template <int D, class B, class T, int... J>
  static T fold_level(T t, std::integer_sequence<int, J...>) {
    using R = typename B::register_type;
    const B up(__builtin_bit_cast(R, T(__builtin_shufflevector(t, t, (J ^ D)...))));
    return __builtin_bit_cast(T, static_cast<R>(Op::combine(B(__builtin_bit_cast(R, t)), up)));
  }
#endif
#endif
  /// The lanes of one batch and the scalar accumulator, in fold's tree: adjacent lanes
  /// pairwise, then adjacent pairs, and so on. In registers where the compiler has vector
  /// shuffles (the same bits; through memory GCC 12 stored half the tree and read it back in
  /// pieces, a store-forwarding stall in every row of an axis reduction: 10000 x 16 1.41x
  /// Eigen's `rowwise().sum()`, 0.93-0.95x in registers).
  template <class B>
  static A fold_lanes(const B& b, A tail) {
#ifdef LZ_FOLD_IN_REGISTERS
    using R = typename B::register_type;
    if constexpr (W > 1 && std::is_arithmetic_v<V> && sizeof(R) == W * sizeof(V)) {
      using T [[gnu::vector_size(sizeof(R))]] = V;
      const T t = fold_tree<B>(__builtin_bit_cast(T, static_cast<R>(b)),
                               std::make_integer_sequence<int, std::countr_zero(unsigned(W))>{});
      return Op::combine(V(t[0]), tail);
    } else
#endif
    {
      alignas(64) V v[W];
      b.store_aligned(v);
      for (int width = W; width > 1; width /= 2)
        for (int j = 0; j < width / 2; ++j) v[j] = Op::combine(v[2 * j], v[2 * j + 1]);
      return Op::combine(v[0], tail);
    }
  }

  static void finish(const void* st, void* partial) {
    const state& s = *static_cast<const state*>(st);
    A r = s.tail;
    if constexpr (S) {
      using B = xsimd::batch<V>;
      r = fold(B::load_unaligned(s.lanes), B::load_unaligned(s.lanes + W),
               B::load_unaligned(s.lanes + 2 * W), B::load_unaligned(s.lanes + 3 * W), r);
    }
    new (partial) A(r);
  }

  /// The lanes l >= o of a batch (0 <= o < W): a slab's last batch of a row, which overlaps
  /// o lanes counted before it. Compiled per (Op, V), not per tree.
  static auto lanes_from(index_t o) {
    using B = xsimd::batch<V>;
    static constexpr auto ramp = [] { // W zeros, then W ones
      std::array<V, 2 * W> t{};
      for (int l = W; l < 2 * W; ++l) t[l] = V(1);
      return t;
    }();
    return B::load_unaligned(ramp.data() + (W - o)) != B(V(0));
  }
  static xsimd::batch<V> identity() { return xsimd::batch<V>(Op::template identity<V>()); }

  static void combine(void* a, const void* b) {
    A& x = *static_cast<A*>(a);
    x = Op::combine(x, *static_cast<const A*>(b));
  }
  static void combine_n(void* a, const void* b, index_t n) {
    A* x = static_cast<A*>(a);
    const A* y = static_cast<const A*>(b);
    for (index_t i = 0; i < n; ++i) x[i] = Op::combine(x[i], y[i]);
  }
};

/// Finalizes a partial accumulator A with Fin and combines it into a D with ⊕ = AOp.
template <class Fin, class D, detail::assign_op AOp, class A>
struct red_store {
  static void store(const void* partial, index_t count, char* dst) {
    D& o = *reinterpret_cast<D*>(dst);
    o = static_cast<D>(fn::assign_combine<AOp>(o, Fin{}(*static_cast<const A*>(partial), count)));
  }
};

/// Reduction kernels for kernel tree K (elements V; row.hpp) reduced by Op, finalized by Fin,
/// stored into D with ⊕ = AOp: per tree only the slab (and the vertical axis kernel); the rest
/// per Op and element type. TreeSimd: the tree runs on xsimd batches of V (reducer_for).
template <class Op, class Fin, class D, detail::assign_op AOp, class K, class V, bool TreeSimd>
struct reducer {
  using A = typename Op::template acc_t<V>;
  static constexpr bool is_arg = red::arg_accumulator<A>;
  static constexpr bool S = TreeSimd && !is_arg && std::is_same_v<A, V>;
  using accum = red_acc<Op, V, S>;
  using state = typename accum::state;
  static constexpr int U = accum::U, W = accum::W;
  static constexpr std::size_t N = 1 + K::leaves;
  /// Whether an axis reduction's rows that start inside a 64-byte line run realigned
  /// (realign_groups: one leaf, AVX-512).
  static constexpr bool realigns = [] {
    if constexpr (S && std::is_same_v<K, bound_leaf<V, 1>>)
      return realign_compiled<Op, V>;
    else
      return false;
  }();
  static constexpr auto store = &red_store<Fin, D, AOp, A>::store;

  static A element(const auto& v, index_t idx) {
    if constexpr (is_arg)
      return A{static_cast<V>(v), idx};
    else
      return static_cast<A>(v);
  }

  /// Rows of contiguous leaves (the drivers pack the others: reduce.cpp, call_slab). On batches
  /// the tree runs whole batches only, with no scalar tail: a row's last n % W elements run as
  /// its last W elements, the lanes already counted set to the identity (one copy of the tree
  /// fewer to compile; docs/decisions/reduction-tail-in-lanes.md).
  /// @pre (S) the W elements ending at each row's last one can be read: n >= W, or a later part
  /// of a longer row, or a copy at the end of a padded batch (reduce.cpp, slab_call).
  /// Each: whether `each` is heeded (red_slab_fn: rows reduced one by one, axis reductions'
  /// outputs); full reductions' slabs leave that branch out.
  /// Long: rows of 3 groups or more of a tree that realigns (an instance of its own: the
  /// realigned branch cost each row of the other one a few instructions, 10-18% of `sum(A, 1)`
  /// with rows of 40-64 doubles).
  template <bool Each, bool Long = false>
  static void slab(const void* ctx, char* const* p, const index_t* s, const index_t* so,
                   index_t rows, index_t n, index_t first, index_t row_step, void* st,
                   [[maybe_unused]] bool each) {
    if constexpr (realigns && Each && !Long) // (rows of an axis reduction only)
      if (n >= 3 * U * W)
        return slab<Each, true>(ctx, p, s, so, rows, n, first, row_step, st, each);
    constexpr mode M = mode::unit;
    const K e = *static_cast<const K*>(ctx); // (a local: its scalars stay in registers)
    state& sum = *static_cast<state*>(st);
    char* q[N];
    for (std::size_t k = 0; k < N; ++k) q[k] = p[k];
    // Four named accumulators, not an array: GCC 12 kept an array of 512-bit batches on the
    // stack (three of the four loaded and stored around every FMA: W3 n=1e7 1.05-1.07x Eigen on
    // an AVX-512 Xeon), while named ones stay in registers.
    static_assert(U == 4);
    using AccB = xsimd::batch<std::conditional_t<S, V, float>>;
    [[maybe_unused]] AccB a0, a1, a2, a3;
    if constexpr (S) {
      a0 = AccB::load_unaligned(sum.lanes);
      a1 = AccB::load_unaligned(sum.lanes + W);
      a2 = AccB::load_unaligned(sum.lanes + 2 * W);
      a3 = AccB::load_unaligned(sum.lanes + 3 * W);
    }
    for (index_t r = 0; r < rows; ++r) {
      if constexpr (S) {
        using B = xsimd::batch<V>;
        index_t i = 0;
        // Groups of U batches; a long row of one leaf (`sum(A, 1)`) that starts inside a 64-byte
        // line runs them in the library, realigned (realign_groups).
        bool realigned = false;
        if constexpr (realigns && Long)
          if ((reinterpret_cast<std::uintptr_t>(q[1]) & 63) != 0) {
            alignas(64) V lanes[U * W];
            a0.store_aligned(lanes), a1.store_aligned(lanes + W);
            a2.store_aligned(lanes + 2 * W), a3.store_aligned(lanes + 3 * W);
            i = realign_groups<Op, V>(reinterpret_cast<const V*>(q[1]), n, lanes);
            a0 = B::load_aligned(lanes), a1 = B::load_aligned(lanes + W);
            a2 = B::load_aligned(lanes + 2 * W), a3 = B::load_aligned(lanes + 3 * W);
            realigned = true;
          }
        if (!realigned) { // (a loop from 0: GCC counts its trips once)
          for (; i + U * W <= n; i += U * W) {
            a0 = Op::combine(a0, e.template vec<M, B>(q, s, i));
            a1 = Op::combine(a1, e.template vec<M, B>(q, s, i + W));
            a2 = Op::combine(a2, e.template vec<M, B>(q, s, i + 2 * W));
            a3 = Op::combine(a3, e.template vec<M, B>(q, s, i + 3 * W));
          }
        }
        // The rest in one loop, one copy of the tree: whole batches, then the row's last W
        // elements with the lanes before position i (counted already) set to the identity.
        for (; i < n; i += W) {
          const index_t j = i + W <= n ? i : n - W;
          const B v = e.template vec<M, B>(q, s, j);
          a0 = Op::combine(a0, xsimd::select(accum::lanes_from(i - j), v, accum::identity()));
        }
      } else {
        for (index_t i = 0; i < n; ++i)
          sum.tail = Op::combine(sum.tail, element(e.template at<M>(q, s, i), first + i));
        first += row_step;
      }
      if constexpr (Each)
        if (each) { // the row's output, and the accumulators back to the identity
          A out = sum.tail;
          if constexpr (S) {
            // A row shorter than U batches left a1..a3 at the identity: combining them
            // changes no bit (lanes start at +0, so never -0; x * 1, max(x, -inf) are x).
            out = accum::fold_lanes(
                n < U * W ? a0 : Op::combine(Op::combine(a0, a1), Op::combine(a2, a3)), out);
            a0 = a1 = a2 = a3 = accum::identity();
          } else {
            sum.tail = accum::start();
          }
          red_store<Fin, D, AOp, A>::store(&out, n, q[0]);
        }
      for (std::size_t k = 0; k < N; ++k) q[k] += so[k];
    }
    if constexpr (S) {
      a0.store_unaligned(sum.lanes);
      a1.store_unaligned(sum.lanes + W);
      a2.store_unaligned(sum.lanes + 2 * W);
      a3.store_unaligned(sum.lanes + 3 * W);
    }
  }

  // SIMD across `nout` contiguous outputs; pairwise along the axis. Two batches of outputs a
  // pass; the axis halved into leaves of at most 256 rows, each leaf read as its two halves
  // side by side: four independent chains, the leaves' row offsets stepped once for the four,
  // a call per leaf (one batch a pass, one chain and a call per 32 rows: 1.33-1.44x Eigen at
  // 1000 x 200 and 300 x 300; docs/decisions/vertical-reduction-four-chains.md). A last single
  // batch runs twice, a last partial one as the last W outputs; only outputs not stored yet
  // are stored (no scalar path). With `raw`, every batch's accumulators go to dst unfinished, as
  // nout consecutive V (reduce.cpp folds them: reduce_narrow).
  // @pre nout >= W (reduce.cpp runs fewer outputs by segments or as wide rows: reduce_narrow).
  static void vertical(const void* ctx, char* const* p, const index_t* s_inner,
                       const index_t* s_axis, index_t len, index_t nout, char* dst, bool raw) {
    if constexpr (S) {
      using B = xsimd::batch<V>;
      struct two {
        B b0, b1;
      };
      const K e = *static_cast<const K*>(ctx);
      constexpr auto esize = detail_red::leaf_sizes<K>();
      index_t step[N]; // bytes from one row to the next, per leaf
      for (std::size_t l = 1; l < N; ++l) step[l] = s_axis[l] * esize[l];
      const B id(Op::template identity<V>());
      for (index_t j0 = 0; j0 < nout; j0 += 2 * W) {
        // The two batches' first outputs. Inner strides across outputs are 1 or 0 (broadcast
        // leaves): bcast mode covers both.
        const index_t jb[2] = {std::min(j0, nout - W), std::min(j0 + W, nout - W)};
        // The pairwise tree over rows [k0, k1): halves until 256 rows; a leaf's two halves side
        // by side, the second one row longer for an odd count (that row after the loop).
        auto rec = [&](auto self, index_t k0, index_t k1) LZ_NOINLINE -> two {
          const index_t n = k1 - k0;
          if (n > 256) {
            const two x = self(self, k0, k0 + n / 2), y = self(self, k0 + n / 2, k1);
            return {Op::combine(x.b0, y.b0), Op::combine(x.b1, y.b1)};
          }
          char *qa[N], *qb[N];
          for (std::size_t l = 1; l < N; ++l)
            qa[l] = p[l] + k0 * step[l], qb[l] = p[l] + (k0 + n / 2) * step[l];
          B a0 = id, a1 = id, b0 = id, b1 = id;
          for (index_t i = n / 2; i > 0; --i) {
            a0 = Op::combine(a0, e.template vec<mode::bcast, B>(qa, s_inner, jb[0]));
            a1 = Op::combine(a1, e.template vec<mode::bcast, B>(qa, s_inner, jb[1]));
            b0 = Op::combine(b0, e.template vec<mode::bcast, B>(qb, s_inner, jb[0]));
            b1 = Op::combine(b1, e.template vec<mode::bcast, B>(qb, s_inner, jb[1]));
            for (std::size_t l = 1; l < N; ++l) qa[l] += step[l], qb[l] += step[l];
          }
          if (n % 2) {
            b0 = Op::combine(b0, e.template vec<mode::bcast, B>(qb, s_inner, jb[0]));
            b1 = Op::combine(b1, e.template vec<mode::bcast, B>(qb, s_inner, jb[1]));
          }
          return {Op::combine(a0, b0), Op::combine(a1, b1)};
        };
        const two r = rec(rec, 0, len);
        if (raw) { // (a last single batch's two stores write the same values)
          r.b0.store_unaligned(reinterpret_cast<V*>(dst) + jb[0]);
          r.b1.store_unaligned(reinterpret_cast<V*>(dst) + jb[1]);
          continue;
        }
        alignas(64) V res[2][W];
        r.b0.store_aligned(res[0]);
        r.b1.store_aligned(res[1]);
        const index_t first[2] = {j0 - jb[0], jb[0] + W - jb[1]}; // (not stored yet)
        for (int u = 0; u < 2; ++u)
          for (index_t j = first[u]; j < W; ++j)
            store(&res[u][j], len, dst + (jb[u] + j) * index_t(sizeof(D)));
      }
    } else {
      (void)ctx, (void)p, (void)s_inner, (void)s_axis, (void)len, (void)nout, (void)dst, (void)raw;
    }
  }

  /// The kernel table. Full reductions (Axis = false) leave out `vertical` and `combine_n`,
  /// which only axis reductions call: instantiations fewer per full reduction (compile time:
  /// `combine_n` in every table cost +47 M compiler instructions in perf/compile's 25, +16 M in
  /// axis tables on batches only), and their slab never reduces rows one by one.
  template <bool Axis = true>
  static constexpr reduce_kernels kernels() {
    return {&slab<Axis>,
            &accum::init,
            &accum::finish,
            &accum::combine,
            S && Axis ? &accum::combine_n : nullptr,
            store,
            S && Axis ? &vertical : nullptr,
            W,
            int(sizeof(A))};
  }
};

/// Whether expression E reduced by Op runs on xsimd batches of its elements.
template <class Op, class E, bool AllowSimd>
constexpr bool reduces_on_batches() {
  using V = value_t<E>;
  using A = typename Op::template acc_t<V>;
  if constexpr (!AllowSimd || red::arg_accumulator<A> || !std::is_same_v<A, V>)
    return false;
  else
    return simd_ok<V, E, xsimd::batch<V>>();
}

/// The reducer of expression E: one per kernel tree, shared by trees that differ only in their
/// leaves' types (`lz::sum(x)` and `lz::sum(A)` run the same slab).
template <class Op, class Fin, class D, detail::assign_op AOp, class E, bool AllowSimd>
using reducer_for =
    reducer<Op, Fin, D, AOp, kernel_tree_t<E>, value_t<E>, reduces_on_batches<Op, E, AllowSimd>()>;

} // namespace lz::kernels::cpu
