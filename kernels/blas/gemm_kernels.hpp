// BLAS backend, private: the register-blocked micro-kernels of lazuli's own gemm
// (gemm_generic.cpp). A micro-kernel computes one MR×NR tile of C from a packed A micro-panel
// (kc steps of MR values) and a packed B micro-panel (kc steps of `bstep` values), then writes
// alpha·AB + beta·C into C. Everything else (packing, cache blocking, threads) is in
// gemm_generic.cpp.
#pragma once

#include <lz/config.hpp>

#include <lz/simd.hpp>

#include <cstdint>
#include <type_traits>

namespace lz::kernels::blas::detail {

using simd_arch = xsimd::default_arch;

// Cache blocking of one element type: KC (depth of a packed panel), MC (rows of the packed A
// block), NC (columns of the packed B block). See gemm_generic.cpp for how they were chosen.
struct blocking {
  index_t kc, mc, nc;
};

/// Writes one computed tile: C = alpha·t + beta·C over mr×nr elements at any strides; beta == 0
/// never reads C. Integer types are unsigned here, so every product and sum wraps.
template <class S, int NR>
LZ_INLINE void store_tile(const S* t, int mr, int nr, S alpha, S beta, S* c, index_t rsc,
                          index_t csc) {
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) {
      S& cij = c[i * rsc + j * csc];
      const S v = alpha * t[i * NR + j];
      cij = beta == S(0) ? v : v + beta * cij;
    }
}

/// The portable micro-kernel: MR rows × NV xsimd batches. acc[i][v] += a[i] · b[v] each k step
/// (an FMA for floating point, mullo + add for integers).
template <class S, int MR_, int NV>
struct simd_kernel {
  using batch = xsimd::batch<S, simd_arch>;
  static constexpr int W = int(batch::size);
  static constexpr int MR = MR_, NR = NV * W;
  static constexpr int bstep = NR; ///< values per k step in a packed B micro-panel

  /// Packs one k step of B: `nr` values read through `get(j)`, zero-padded to NR.
  template <class Get>
  static LZ_INLINE void pack_b_step(S* out, int nr, Get&& get) {
    for (int j = 0; j < nr; ++j) out[j] = get(j);
    for (int j = nr; j < NR; ++j) out[j] = S(0);
  }

  static LZ_INLINE batch madd(batch a, batch b, batch c) {
    if constexpr (std::is_floating_point_v<S>)
      return xsimd::fma(a, b, c);
    else
      return c + a * b;
  }

  static void run(index_t kc, const S* LZ_RESTRICT a, const S* LZ_RESTRICT b, S alpha, S beta, S* c,
                  index_t rsc, index_t csc, int mr, int nr) {
    batch acc[MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = batch(S(0));
    for (index_t p = 0; p < kc; ++p) {
      batch bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bv[v] = batch::load_aligned(b + v * W);
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i) {
        const batch ai(a[i]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = madd(ai, bv[v], acc[i][v]);
      }
      a += MR;
      b += NR;
    }
    if (mr == MR && nr == NR && csc == 1) { // full tile, rows contiguous: vector epilogue
      const batch va(alpha), vb(beta);
#pragma GCC unroll 16
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          S* cp = c + i * rsc + v * W;
          batch r = va * acc[i][v];
          if (beta != S(0)) r = r + vb * batch::load_unaligned(cp);
          r.store_unaligned(cp);
        }
      return;
    }
    alignas(64) S t[MR * NR];
    for (int i = 0; i < MR; ++i)
      for (int v = 0; v < NV; ++v) acc[i][v].store_aligned(t + i * NR + v * W);
    store_tile<S, NR>(t, mr, nr, alpha, beta, c, rsc, csc);
  }
};

#if XSIMD_WITH_AVX2 && defined(__x86_64__) && defined(__GNUC__)
#define LZ_GEMM_ASM_KERNELS 1
// Integer micro-kernels for AVX2: the k loop is inline assembly. GCC 12 keeps the 12 FMA
// accumulators of the float kernels in registers, but for mullo+add (no fused instruction, so
// one temporary per product) it spills half of them to the stack on every k step: the xsimd
// int32 kernel ran at 0.85× the double kernel's rate, the same loop with fixed registers at
// 1.5× (kernel alone, L1-resident panels, Zen 3). Registers: ymm0-11 accumulators, ymm12-13
// the B vectors of one k step, ymm14 the broadcast A value, ymm15 a product.
#define LZ_GEMM_STR(x) #x
#define LZ_GEMM_XSTR(x) LZ_GEMM_STR(x)
#define LZ_GEMM_ZERO(r) "vpxor %%xmm" #r ", %%xmm" #r ", %%xmm" #r "\n\t"
#define LZ_GEMM_STORE(r, off) "vmovdqa %%ymm" #r ", " #off "(%[t])\n\t"
// (clang-format 14 does not settle on one layout for these lists)
// clang-format off
#define LZ_GEMM_ZERO12 \
  LZ_GEMM_ZERO(0) \
  LZ_GEMM_ZERO(1) \
  LZ_GEMM_ZERO(2) \
  LZ_GEMM_ZERO(3) \
  LZ_GEMM_ZERO(4) \
  LZ_GEMM_ZERO(5) \
  LZ_GEMM_ZERO(6) \
  LZ_GEMM_ZERO(7) \
  LZ_GEMM_ZERO(8) \
  LZ_GEMM_ZERO(9) \
  LZ_GEMM_ZERO(10) \
  LZ_GEMM_ZERO(11)
#define LZ_GEMM_STORE12 \
  LZ_GEMM_STORE(0, 0) \
  LZ_GEMM_STORE(1, 32) \
  LZ_GEMM_STORE(2, 64) \
  LZ_GEMM_STORE(3, 96) \
  LZ_GEMM_STORE(4, 128) \
  LZ_GEMM_STORE(5, 160) \
  LZ_GEMM_STORE(6, 192) \
  LZ_GEMM_STORE(7, 224) \
  LZ_GEMM_STORE(8, 256) \
  LZ_GEMM_STORE(9, 288) \
  LZ_GEMM_STORE(10, 320) \
  LZ_GEMM_STORE(11, 352)
// clang-format on
#define LZ_GEMM_CLOBBERS                                                                           \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",         \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc"

// One row of the int32 6×16 tile: c0 += a·b[0:8], c1 += a·b[8:16].
#define LZ_GEMM_U32_ROW(off, c0, c1)                                                               \
  "vpbroadcastd " #off "(%[a]), %%ymm14\n\t"                                                       \
  "vpmulld %%ymm12, %%ymm14, %%ymm15\n\t"                                                          \
  "vpaddd %%ymm15, %%ymm" #c0 ", %%ymm" #c0 "\n\t"                                                 \
  "vpmulld %%ymm13, %%ymm14, %%ymm14\n\t"                                                          \
  "vpaddd %%ymm14, %%ymm" #c1 ", %%ymm" #c1 "\n\t"

/// int32 (computed as uint32), 6×16 tile, B panel: 16 values per k step.
struct u32_avx2_kernel {
  using S = std::uint32_t;
  static constexpr int MR = 6, NR = 16;
  static constexpr int bstep = NR;

  template <class Get>
  static LZ_INLINE void pack_b_step(S* out, int nr, Get&& get) {
    for (int j = 0; j < nr; ++j) out[j] = get(j);
    for (int j = nr; j < NR; ++j) out[j] = S(0);
  }

  static void run(index_t kc, const S* a, const S* b, S alpha, S beta, S* c, index_t rsc,
                  index_t csc, int mr, int nr) {
    alignas(32) S t[MR * NR];
    asm volatile(LZ_GEMM_ZERO12                                        //
                 "test %[k], %[k]\n\t"                                 //
                 "jle 2f\n\t"                                          //
                 ".p2align 5\n\t"                                      //
                 "1:\n\t"                                              //
                 "vmovdqa (%[b]), %%ymm12\n\t"                         //
                 "vmovdqa 32(%[b]), %%ymm13\n\t"                       //
                 LZ_GEMM_U32_ROW(0, 0, 1) LZ_GEMM_U32_ROW(4, 2, 3)     //
                 LZ_GEMM_U32_ROW(8, 4, 5) LZ_GEMM_U32_ROW(12, 6, 7)    //
                 LZ_GEMM_U32_ROW(16, 8, 9) LZ_GEMM_U32_ROW(20, 10, 11) //
                 "add $24, %[a]\n\t"                                   //
                 "add $64, %[b]\n\t"                                   //
                 "dec %[k]\n\t"                                        //
                 "jnz 1b\n\t"                                          //
                 "2:\n\t"                                              //
                 LZ_GEMM_STORE12                                       //
                 "vzeroupper\n\t"
                 : [a] "+r"(a), [b] "+r"(b), [k] "+r"(kc)
                 : [t] "r"(t)
                 : LZ_GEMM_CLOBBERS);
    store_tile<S, NR>(t, mr, nr, alpha, beta, c, rsc, csc);
  }
};

// One row of the int64 6×4 tile: lo += alo·blo (vpmuludq), x += [alo·bhi, ahi·blo] (vpmulld
// against b with its halves swapped).
#define LZ_GEMM_I64_ROW(off, lo, x)                                                                \
  "vpbroadcastq " #off "(%[a]), %%ymm14\n\t"                                                       \
  "vpmuludq %%ymm12, %%ymm14, %%ymm15\n\t"                                                         \
  "vpaddq %%ymm15, %%ymm" #lo ", %%ymm" #lo "\n\t"                                                 \
  "vpmulld %%ymm13, %%ymm14, %%ymm14\n\t"                                                          \
  "vpaddd %%ymm14, %%ymm" #x ", %%ymm" #x "\n\t"

/// int64 (computed as uint64) on AVX2, which has no 64-bit multiply. Per lane, mod 2^64:
///   a·b = alo·blo + ((ahi·blo + alo·bhi) mod 2^32)·2^32.
/// vpmuludq gives alo·blo exactly; the cross terms only matter mod 2^32, so one vpmulld of the
/// broadcast a (32-bit lanes [alo, ahi]) with b's halves swapped ([bhi, blo], packed next to b)
/// gives both in the two halves of a lane. They are summed in 32-bit lanes over the whole panel
/// and folded into the high word once at the end: 2 multiplies + 2 adds per 4 products, where
/// the textbook emulation needs 3 multiplies, 2 shifts and 3 adds. 6×4 tile: 12 accumulators.
/// (3×8 and 4×4/5×4 tiles measured the same or slower.)
struct i64_avx2_kernel {
  using S = std::uint64_t;
  static constexpr int MR = 6, NR = 4;
  static constexpr int bstep = 2 * NR; ///< b, then b with its 32-bit halves swapped

  template <class Get>
  static LZ_INLINE void pack_b_step(S* out, int nr, Get&& get) {
    for (int j = 0; j < NR; ++j) {
      const S v = j < nr ? S(get(j)) : S(0);
      out[j] = v;
      out[NR + j] = (v >> 32) | (v << 32);
    }
  }

  static void run(index_t kc, const S* a, const S* b, S alpha, S beta, S* c, index_t rsc,
                  index_t csc, int mr, int nr) {
    // t holds the lo accumulators' rows, then the x accumulators' rows.
    alignas(32) S t[2 * MR * NR];
    asm volatile(LZ_GEMM_ZERO12                                        //
                 "test %[k], %[k]\n\t"                                 //
                 "jle 2f\n\t"                                          //
                 ".p2align 5\n\t"                                      //
                 "1:\n\t"                                              //
                 "vmovdqa (%[b]), %%ymm12\n\t"                         //
                 "vmovdqa 32(%[b]), %%ymm13\n\t"                       //
                 LZ_GEMM_I64_ROW(0, 0, 6) LZ_GEMM_I64_ROW(8, 1, 7)     //
                 LZ_GEMM_I64_ROW(16, 2, 8) LZ_GEMM_I64_ROW(24, 3, 9)   //
                 LZ_GEMM_I64_ROW(32, 4, 10) LZ_GEMM_I64_ROW(40, 5, 11) //
                 "add $48, %[a]\n\t"                                   //
                 "add $64, %[b]\n\t"                                   //
                 "dec %[k]\n\t"                                        //
                 "jnz 1b\n\t"                                          //
                 "2:\n\t"                                              //
                 LZ_GEMM_STORE12                                       //
                 "vzeroupper\n\t"
                 : [a] "+r"(a), [b] "+r"(b), [k] "+r"(kc)
                 : [t] "r"(t)
                 : LZ_GEMM_CLOBBERS);
    // lane = lo + (x.low32 + x.high32)·2^32
    for (int e = 0; e < MR * NR; ++e) {
      const S x = t[MR * NR + e];
      t[e] += ((x & 0xffffffffu) + (x >> 32)) << 32;
    }
    store_tile<S, NR>(t, mr, nr, alpha, beta, c, rsc, csc);
  }
};
#endif

} // namespace lz::kernels::blas::detail
