// BLAS backend, private: the register-blocked micro-kernels of lazuli's own gemm
// (gemm_generic.cpp). A micro-kernel computes one MR×NR tile of C from a packed A micro-panel
// (kc steps of MR values) and a packed B micro-panel (kc steps of `bstep` values), then writes
// alpha·AB + beta·C into C. Everything else (packing, cache blocking, threads) is in
// gemm_generic.cpp.
#pragma once

#include <lz/config.hpp>

#include <xsimd/xsimd.hpp>

#include <cstdint>
#include <type_traits>

#if XSIMD_WITH_AVX2
#include <immintrin.h>
#endif

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

#if XSIMD_WITH_AVX2
/// int64 on AVX2, which has no 64-bit multiply. Per lane, mod 2^64:
///   a·b = alo·blo + ((ahi·blo + alo·bhi) mod 2^32)·2^32.
/// vpmuludq gives alo·blo exactly; the cross terms only matter mod 2^32, so one vpmullo_epi32
/// of the broadcast a (32-bit lanes [alo, ahi]) with b's halves swapped ([bhi, blo], packed
/// next to b) gives both in the two 32-bit halves of a lane. They are summed in 32-bit lanes
/// over the whole panel and folded into the high word once at the end: 2 multiplies + 2 adds
/// per 4 products, against ~10 instructions for the textbook 3-multiply emulation.
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

  static void run(index_t kc, const S* LZ_RESTRICT a, const S* LZ_RESTRICT b, S alpha, S beta, S* c,
                  index_t rsc, index_t csc, int mr, int nr) {
    __m256i lo[MR], x[MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) lo[i] = x[i] = _mm256_setzero_si256();
    for (index_t p = 0; p < kc; ++p) {
      const __m256i bv = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
      const __m256i br = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + NR));
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const __m256i ai = _mm256_set1_epi64x(static_cast<long long>(a[i]));
        lo[i] = _mm256_add_epi64(lo[i], _mm256_mul_epu32(ai, bv));
        x[i] = _mm256_add_epi32(x[i], _mm256_mullo_epi32(ai, br));
      }
      a += MR;
      b += bstep;
    }
    // lane = lo + (x.low32 + x.high32)·2^32 = lo + (x << 32) + (x & 0xffffffff00000000)
    const __m256i hi_mask = _mm256_set1_epi64x(static_cast<long long>(0xffffffff00000000ull));
    alignas(32) S t[MR * NR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const __m256i cross =
          _mm256_add_epi64(_mm256_slli_epi64(x[i], 32), _mm256_and_si256(x[i], hi_mask));
      _mm256_store_si256(reinterpret_cast<__m256i*>(t + i * NR), _mm256_add_epi64(lo[i], cross));
    }
    store_tile<S, NR>(t, mr, nr, alpha, beta, c, rsc, csc);
  }
};
#endif

} // namespace lz::kernels::blas::detail
