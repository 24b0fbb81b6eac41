// CPU kernel tree: an expression's functors and scalars with its leaves as operand indices,
// and its one slab kernel (rows x n elements) that the compiled loop driver (loop.cpp) calls.
// This is the only place expression trees meet xsimd; everything around it (coalescing,
// tiling, threads) is compiled once in lazuli_kernels.
#pragma once

#include <lz/expr/traverse.hpp>
#include <lz/ops/functors.hpp>

#include <lz/simd.hpp>

#include <cstdint>

namespace lz::kernels::cpu {

/// How a slab's innermost dimension is addressed, decided once per loop by the driver:
///   unit    every operand has inner stride 1        -> the kernel runs on the operands
///   bcast   inner strides are 1 or 0 (dest 1)       -> stride-0 operands are filled into
///                                                      buffers first (reductions: broadcast)
///   strided anything else                           -> strided operands are packed into
///                                                      buffers (reductions: scalar loop)
///   stream  as unit, but the destination is written with non-temporal (streaming) stores:
///           for `=` into outputs larger than the cache (lz::thresholds().stream_bytes), it
///           saves the read of each destination line that a normal store would fetch first
///           (write-allocate), i.e. 1 transfer in 4 for z = f(x, y).
enum class mode : int { unit = 0, bcast = 1, strided = 2, stream = 3 };

namespace detail_row {

/// True when batch type B (of D) has a non-temporal store on this target.
template <class D, class B>
constexpr bool can_stream() {
#if defined(__AVX512F__)
  if constexpr (sizeof(B) == 64) return true;
#endif
#if defined(__AVX__)
  if constexpr (sizeof(B) == 32) return true;
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(B) == 16) return true;
#endif
  return false;
}

/// Non-temporal store of batch v at p. @pre p is aligned to sizeof(B), can_stream<D, B>().
template <class D, class B>
LZ_INLINE void stream_store(D* p, const B& v) {
  using R = typename B::register_type;
  [[maybe_unused]] const R r = v;
#if defined(__AVX512F__)
  if constexpr (sizeof(B) == 64) {
    if constexpr (std::is_same_v<D, double>)
      _mm512_stream_pd(p, r);
    else if constexpr (std::is_same_v<D, float>)
      _mm512_stream_ps(p, r);
    else
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), r); // GCC 12 takes __m512i*, clang void*
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(B) == 32) {
    if constexpr (std::is_same_v<D, double>)
      _mm256_stream_pd(p, r);
    else if constexpr (std::is_same_v<D, float>)
      _mm256_stream_ps(p, r);
    else
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), r);
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(B) == 16) {
    if constexpr (std::is_same_v<D, double>)
      _mm_stream_pd(p, r);
    else if constexpr (std::is_same_v<D, float>)
      _mm_stream_ps(p, r);
    else
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), r);
    return;
  }
#endif
  v.store_aligned(p);
}

} // namespace detail_row

// ---- kernel trees ----------------------------------------------------------------------------
// A kernel runs on the kernel tree of its expression: functors and scalars only, each leaf an
// operand index that reads the row's pointer array (p[I], inner stride s[I]). Expressions that
// differ only in their leaves' C++ types (a vector, a matrix, a transposed, sliced or broadcast
// view) have the same kernel tree and share one kernel (compile time, perf/compile;
// docs/decisions/kernel-trees-shared-across-leaf-types.md).

/// Operand I, of element type T.
template <class T, std::size_t I>
struct bound_leaf {
  static constexpr std::size_t leaves = 1;
  static constexpr void leaf_sizes(index_t*& out) { *out++ = index_t(sizeof(T)); }
  template <mode M>
  LZ_INLINE T at(char* const* p, const index_t* s, index_t i) const noexcept {
    const T* q = reinterpret_cast<const T*>(p[I]);
    if constexpr (M == mode::unit)
      return q[i];
    else
      return q[i * s[I]];
  }
  template <mode M, class B>
  LZ_INLINE B vec(char* const* p, const index_t* s, index_t i) const noexcept {
    const T* q = reinterpret_cast<const T*>(p[I]);
    if constexpr (M == mode::unit)
      return B::load_unaligned(q + i);
    else
      return s[I] ? B::load_unaligned(q + i) : B(*q);
  }
};

template <class S>
struct bound_scalar {
  static constexpr std::size_t leaves = 0;
  static constexpr void leaf_sizes(index_t*&) {}
  S v;
  template <mode M>
  LZ_INLINE S at(char* const*, const index_t*, index_t) const noexcept {
    return v;
  }
  template <mode M, class B>
  LZ_INLINE B vec(char* const*, const index_t*, index_t) const noexcept {
    return B(v);
  }
};

// A map node's children C... are read as their pack slots, by index J: casts, not calls of
// detail::get, and no wrapper that makes the index sequence (each instantiated function is
// one more the compiler lowers and inlines at every node of every kernel: perf/compile).
template <class F, class J, class... C>
struct bound_map_node;
template <class F, std::size_t... J, class... C>
struct bound_map_node<F, std::index_sequence<J...>, C...> {
  static constexpr std::size_t leaves = (std::size_t(0) + ... + C::leaves);
  static constexpr void leaf_sizes(index_t*& out) { (C::leaf_sizes(out), ...); }
  [[no_unique_address]] F f;
  detail::pack<C...> c;
  template <mode M>
  LZ_INLINE auto at(char* const* p, const index_t* s, index_t i) const {
    return f(static_cast<const detail::pack_elem<J, C>&>(c).value.template at<M>(p, s, i)...);
  }
  // The batch path's return type is spelled out so that a functor without a batch overload (a
  // user's scalar lambda in lz::map) makes vec() absent, not ill-formed: simd_ok then says no.
  template <mode M, class B>
  LZ_INLINE auto vec(char* const* p, const index_t* s, index_t i) const -> decltype(f(
      static_cast<const detail::pack_elem<J, C>&>(c).value.template vec<M, B>(p, s, i)...)) {
    return f(static_cast<const detail::pack_elem<J, C>&>(c).value.template vec<M, B>(p, s, i)...);
  }
};
/// Functor F over children C... (kernel trees).
template <class F, class... C>
using bound_map = bound_map_node<F, std::index_sequence_for<C...>, C...>;

template <std::size_t I, class E>
LZ_INLINE auto bind(const E& e);

// A map node's kernel node: one function per node, no per-node lambda (compile time).
template <std::size_t I, class F, class... A, std::size_t... J>
LZ_INLINE auto bind_map(const map_expr<F, A...>& e, std::index_sequence<J...>) {
  // Operand index of each child's first leaf: I + leaves of the children before it.
  constexpr auto off = [] {
    std::array<std::size_t, sizeof...(A) + 1> o{};
    o[0] = I;
    std::size_t k = 0;
    ((o[k + 1] = o[k] + detail::leaf_count_v<A>, ++k), ...);
    return o;
  }();
  return bound_map<F, decltype(bind<off[J]>(
                          static_cast<const detail::pack_elem<J, A>&>(e.args).value))...>{
      e.f, {{bind<off[J]>(static_cast<const detail::pack_elem<J, A>&>(e.args).value)}...}};
}

/// The kernel tree of `e`, its leaves numbered from I (depth-first).
template <std::size_t I, class E>
LZ_INLINE auto bind(const E& e) {
  using K = detail::kind_t<E>;
  if constexpr (std::is_same_v<K, detail::leaf_kind> || std::is_same_v<K, detail::opaque_kind>)
    return bound_leaf<value_t<E>, I>{};
  else if constexpr (std::is_same_v<K, detail::scalar_kind>)
    return bound_scalar<value_t<E>>{e.value};
  else if constexpr (std::is_same_v<K, detail::map_kind>)
    return bind_map<I>(e, std::make_index_sequence<detail::arity_v<E>>{});
  else
    return bind<I>(e.arg); // permute / broadcast only change strides
}

/// The kernel tree of expression E (operands from 1: 0 is the destination): `bind<1>(e)`, what a
/// kernel receives as its context.
template <class E>
using kernel_tree_t = decltype(bind<1>(std::declval<const E&>()));

template <class T>
concept simd_lane = std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

template <class L, class E>
constexpr bool all_lanes_are() {
  using K = detail::kind_t<E>;
  if constexpr (std::is_same_v<K, detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (true && ... && all_lanes_are<L, A>());
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else if constexpr (std::is_same_v<K, detail::permute_kind> ||
                     std::is_same_v<K, detail::broadcast_kind>)
    return all_lanes_are<L, decltype(std::declval<E>().arg)>();
  else
    return std::is_same_v<value_t<E>, L>;
}

// batch_result_t (the type a tree yields on batches) and unroll_cost live with the other tree
// traversals (expr/traverse.hpp): the fixed-size evaluator uses them too.
using detail::batch_result_t;
using detail::unroll_cost;

#if XSIMD_WITH_AVX512F && XSIMD_WITH_FMA3_AVX2
/// The batches of cheap trees on an AVX-512 target: 256 bits. A tree of a few adds per element
/// is bound by loads and stores, which 512-bit registers do not make faster in cache, and they
/// lost there: z = 2.5*x + 1.5*y on 1000 doubles in L1 ran ~150 ns with 256-bit batches at
/// every relative alignment of x, y, z tried, 160-250 ns with 512-bit ones
/// (docs/decisions/batch-width-256-for-cheap-trees.md). Newer cores win with 512 bits in L1,
/// some beyond it, so cheap trees also get a full-width kernel (wide_kernel_for), which the
/// driver runs up to thresholds().wide_bytes (docs/decisions/cheap-tree-width-per-cpu.md).
using narrow_arch = xsimd::fma3<xsimd::avx2>;
#else
using narrow_arch = xsimd::default_arch;
#endif

/// The batch type of (D, tree E)'s kernel: full width for trees with transcendentals or other
/// expensive work (compute-bound: twice the lanes is twice the speed), narrow_arch otherwise.
template <class D, class E>
using slab_batch = std::conditional_t<(detail::cost_v<E> <= unroll_cost),
                                      xsimd::batch<D, narrow_arch>, xsimd::batch<D>>;

/// The tree can run on xsimd batches B of D: every operand is D and every functor accepts
/// batches and yields a batch of D.
template <class D, class E, class B = slab_batch<D, E>>
constexpr bool simd_ok() {
  if constexpr (!simd_lane<D>)
    return false;
  else if constexpr (B::size < 2 || !all_lanes_are<D, E>())
    return false;
  else
    return std::is_same_v<batch_result_t<B, E>, B>;
}

/// The largest per-element cost of one functor in tree E (a transcendental: 10 or more).
template <class E>
constexpr int max_fn_cost() {
  using K = detail::kind_t<E>;
  if constexpr (std::is_same_v<K, detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      int m = fn::cost_of<F>;
      ((m = max_fn_cost<A>() > m ? max_fn_cost<A>() : m), ...);
      return m;
    }(static_cast<const std::remove_cvref_t<E>*>(nullptr));
  else if constexpr (std::is_same_v<K, detail::permute_kind> ||
                     std::is_same_v<K, detail::broadcast_kind>)
    return max_fn_cost<decltype(std::declval<E>().arg)>();
  else
    return 0;
}
/// Functor cost from which a batch body is a transcendental (exp's is 10; sqrt's 6).
inline constexpr int transcendental_cost = 10;

/// Whether trees with transcendentals may stream their stores.
/// Not below AVX-512: there xsimd turns double lanes into int64 (exp's exponent, sin's quadrant)
/// through memory — scalar stores, then one vector load that cannot be forwarded from them and
/// so waits until every earlier store has left the store buffer; behind non-temporal stores
/// that is a wait on DRAM, every batch. W2 (z = x*y + sin(w)*exp(-v), 1e7 doubles, one thread,
/// -march=x86-64-v3 on an Ice Lake-SP): 156 ms streaming, 53 ms not (xtensor 61). Such trees
/// are compute-bound, so ordinary stores cost them little (sqrt and division, which convert
/// nothing, still stream) (docs/decisions/
/// no-streaming-stores-for-expensive-trees-below-avx512.md).
inline constexpr bool stream_expensive_trees = XSIMD_WITH_AVX512DQ != 0;

/// Whether (D, tree) under Op can stream its stores: SIMD tree, '=' and a streaming store.
template <class D, class E, bool Simd, detail::assign_op Op>
constexpr bool stream_ok() {
  if constexpr (!Simd || Op != detail::assign_op::set || !simd_lane<D>)
    return false;
  else if constexpr (!stream_expensive_trees) { // (max_fn_cost only instantiated here)
    if constexpr (max_fn_cost<E>() >= transcendental_cost)
      return false;
    else
      return detail_row::can_stream<D, slab_batch<D, E>>();
  } else
    return detail_row::can_stream<D, slab_batch<D, E>>();
}

#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define LZ_UNROLL_4 _Pragma("GCC unroll 4")
#else
#define LZ_UNROLL_4
#endif

/// slab_kernel flags: write the destination with non-temporal stores (see mode::stream).
inline constexpr int slab_stream = 1;

/// The one kernel of a (destination type, kernel tree K, Op): rows x n elements, every operand
/// contiguous along the rows (the compiled driver, loop.cpp, packs strided and broadcast
/// operands into contiguous buffers first). ctx is the kernel tree; p[0] is the destination,
/// p[1..] the leaves, each at the slab's first element; so are the row strides in bytes.
/// @pre rows >= 1 and n >= 1 (never an empty call: the driver tests it once).
/// A SIMD kernel (B, a batch type, not void) runs whole batches only: @pre n is a multiple of
/// the batch size; with `slab_stream` in flags (only passed where Stream) its stores are
/// non-temporal: @pre every row of the destination starts batch-aligned. The compiled driver
/// runs a row's partial last batch as the row's last whole batch into a buffer (a row of at
/// least one batch; docs/decisions/partial-last-batch-in-place.md), other short rows and
/// unaligned heads on copies padded to a whole batch, and fences the streaming stores, so that
/// this code, instantiated per kernel tree, is one vector loop: no scalar tail, no peel
/// (docs/decisions/one-vector-loop-per-tree.md).
template <class D, class K, class B, detail::assign_op Op, bool Unroll, bool Stream>
void slab_kernel(const void* ctx, char* const* p, const index_t* so, index_t rows, index_t n,
                 [[maybe_unused]] int flags) {
  constexpr mode L = mode::unit;
  // A copy: scalars read through ctx would be reloaded after every store to the destination
  // (it may alias them); in a local they stay in registers (W1 n=1000: ~1.25x slower without).
  const K b = *static_cast<const K*>(ctx);
  // The precondition, told to the compiler: no test for an empty call on each (the fixed cost
  // of a small assignment).
  if (rows <= 0 || n <= 0) __builtin_unreachable();
  constexpr std::size_t N = 1 + K::leaves;
  char* q[N];
  const index_t unit[N] = {};
  for (std::size_t k = 0; k < N; ++k) q[k] = p[k];
  for (index_t r = rows; r > 0;) {
    D* out = reinterpret_cast<D*>(q[0]);
    index_t i = 0;
    if constexpr (!std::is_void_v<B>) {
      constexpr index_t W = B::size;
      // The stream choice stays a run-time test, once per batch: the empty asm keeps the
      // compiler from unswitching the loop into a second copy of the tree's body (compile time);
      // the branch is perfectly predicted.
      [[maybe_unused]] int nt = flags & slab_stream;
#define LZ_SLAB_STEP                                                                               \
  {                                                                                                \
    B v = b.template vec<L, B>(q, unit, i);                                                        \
    if constexpr (Op != detail::assign_op::set)                                                    \
      v = fn::assign_combine<Op>(B::load_unaligned(out + i), v);                                   \
    if constexpr (Stream) {                                                                        \
      asm("" : "+r"(nt));                                                                          \
      if (nt != 0) {                                                                               \
        detail_row::stream_store(out + i, v);                                                      \
        continue;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    v.store_unaligned(out + i);                                                                    \
  }
      // Cheap trees are unrolled 4 batches deep by the compiler (loop overhead in cache), late,
      // on the optimized body: unrolling by hand gave the same speed but four copies of the
      // inlined tree to optimize (perf/compile). An expensive tree (transcendentals) has latency
      // enough to hide within one batch. The step is written out, not a lambda: each lambda is a
      // function GCC optimizes before inlining it (perf/compile: 3 of them cost the 25
      // expressions 60 M instructions).
      if constexpr (Unroll) {
        LZ_UNROLL_4
        for (; i < n; i += W) LZ_SLAB_STEP
      } else {
        for (; i < n; i += W) LZ_SLAB_STEP
      }
#undef LZ_SLAB_STEP
    } else {
      for (; i < n; ++i) {
        D& o = out[i];
        o = static_cast<D>(fn::assign_combine<Op>(o, b.template at<L>(q, unit, i)));
      }
    }
    if (--r == 0) break; // (a vector's one row moves no pointer)
    for (std::size_t k = 0; k < N; ++k) q[k] += so[k];
  }
}

using slab_fn = void (*)(const void* ctx, char* const* p, const index_t* so, index_t rows,
                         index_t n, int flags);

/// The kernel of one (destination type, tree, Op) and what the driver needs to know about it.
struct map_kernel {
  slab_fn fn = nullptr;
  int simd_width = 1;      ///< lanes per batch (1: scalar tree); the kernel takes only
                           ///< multiples of it, the driver pads the rest
  bool can_stream = false; ///< accepts slab_stream
  bool reads_dst = false;  ///< an update (+=, ...): a packed destination is gathered first
};

template <class D, class E, bool AllowSimd, detail::assign_op Op>
constexpr map_kernel map_kernel_for() {
  constexpr bool S = AllowSimd && simd_ok<D, E>();
  constexpr int W = [] {
    if constexpr (S)
      return int(slab_batch<D, E>::size);
    else
      return 1;
  }();
  constexpr bool St = stream_ok<D, E, S, Op>();
  using B = std::conditional_t<S, slab_batch<D, E>, void>;
  return {&slab_kernel<D, kernel_tree_t<E>, B, Op, (detail::cost_v<E> <= unroll_cost), St>, W, St,
          Op != detail::assign_op::set};
}

/// Whether (D, tree E) has a second, full-width kernel: a cheap SIMD tree on a target whose
/// cheap trees run narrower batches (AVX-512: 256 bits; see narrow_arch).
template <class D, class E, bool AllowSimd>
constexpr bool has_wide_kernel() {
  if constexpr (std::is_same_v<narrow_arch, xsimd::default_arch> || !AllowSimd)
    return false;
  else if constexpr (detail::cost_v<E> > unroll_cost || !simd_ok<D, E>())
    return false;
  else
    return simd_ok<D, E, xsimd::batch<D>>();
}

/// A cheap tree's kernel on the target's widest batches (512 bits on AVX-512), which win on some
/// cores and lose on others, by cache level (the driver chooses per pass by tuning::wide_bytes,
/// measured per CPU: docs/decisions/cheap-tree-width-per-cpu.md). No streaming stores: the
/// driver runs it only on passes that do not stream. fn is null where there is none.
template <class D, class E, bool AllowSimd, detail::assign_op Op>
constexpr map_kernel wide_kernel_for() {
  if constexpr (has_wide_kernel<D, E, AllowSimd>())
    return {&slab_kernel<D, kernel_tree_t<E>, xsimd::batch<D>, Op, true, false>,
            int(xsimd::batch<D>::size), false, Op != detail::assign_op::set};
  else
    return {nullptr, 1, false, false};
}

} // namespace lz::kernels::cpu
