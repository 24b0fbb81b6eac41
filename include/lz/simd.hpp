// lazuli's one way to include xsimd. Every lazuli header and kernel that needs xsimd includes
// this file instead of <xsimd/xsimd.hpp>, so the work-around below is always in place.
//
// xsimd 8.1 (Debian 12) with AVX512BW and no optimisation (-O0, a debug build on an AVX-512
// machine with -march=native): kernel::select for integer batches switches on sizeof(T) and
// names _mm512_mask_blend_epi8/_epi16 in the dead branches. Without __OPTIMIZE__ GCC defines
// those intrinsics as macros that cast their arguments to __v64qi/__v32hi, which a batch<int32>
// cannot be cast to, so the build fails. The overloads below, more specialised than xsimd's,
// take the 32- and 64-bit element types straight to the AVX512F/DQ blend. They must be declared
// before xsimd_api.hpp, whose dispatch names kernel::select by qualified name (no ADL), so the
// xsimd headers up to the batch types are included here first, in xsimd.hpp's own order.
#pragma once

// GCC 12 with AVX-512 (PR 105593): the _mm512_undefined_* intrinsics are written `__m512 __Y =
// __Y;`, and once xsimd's bodies inline them into user code GCC reports "'__Y' is used
// uninitialized" (-Wuninitialized, and -Wmaybe-uninitialized) at that line of its own header,
// an error under -Werror. The intrinsic headers are included here, first, with those two
// warnings off for their text only; GCC 13 fixed its headers.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#if !defined(XSIMD_HPP)
#if defined(__GNUC__)
#define XSIMD_NO_DISCARD __attribute__((warn_unused_result))
#else
#define XSIMD_NO_DISCARD
#endif
// (one include per block: clang-format must not reorder them)
#include <xsimd/config/xsimd_config.hpp>

#include <xsimd/arch/xsimd_scalar.hpp>

#include <xsimd/memory/xsimd_aligned_allocator.hpp>
#if XSIMD_WITH_AVX512BW
#include <xsimd/types/xsimd_batch.hpp>

#include <cstdint>

namespace xsimd::kernel {
#define LZ_SIMD_WIDE_SELECT(T)                                                                     \
  template <class A>                                                                               \
  inline batch<T, A> select(batch_bool<T, A> const& c, batch<T, A> const& t, batch<T, A> const& f, \
                            requires_arch<avx512bw>) noexcept {                                    \
    return select(c, t, f, avx512dq{});                                                            \
  }
LZ_SIMD_WIDE_SELECT(std::int32_t)
LZ_SIMD_WIDE_SELECT(std::uint32_t)
LZ_SIMD_WIDE_SELECT(std::int64_t)
LZ_SIMD_WIDE_SELECT(std::uint64_t)
#undef LZ_SIMD_WIDE_SELECT
} // namespace xsimd::kernel
#endif
#endif

#include <xsimd/xsimd.hpp>

#include <lz/ops/functors.hpp>

namespace lz::fn::detail {
// The transcendental batch bodies (lz/ops/functors.hpp) are compiled once in lazuli_kernels
// (kernels/cpu/vmath.cpp) for float and double batches of the SIMD target it was built for,
// which CMake detects and passes as LZ_KERNELS_SIMD_ARCH (the number xsimd's arch::version()
// gives it: a number, so that no build system has to quote it; kernels/CMakeLists.txt; every
// target linking lazuli::lazuli gets it). A file compiled for another target (other -m flags)
// or without the definition inlines the bodies instead: a batch type's name carries its arch,
// so a mismatch can never call a body built for other registers.
// Where the target matches, a kernel calls the library's bodies on 512-bit targets and inlines
// them on narrower ones. One call per batch is free beside the body with 8 doubles per batch
// (AVX-512: W2 unchanged) but not with 4: on AVX2 (AMD Zen 3) W2 ran 1.4x slower called than
// inlined, in cache and from memory (perf/RESULTS.md, "Transcendental math on AVX2").
// LZ_INLINE_MATH inlines everywhere; LZ_OUTLINE_MATH calls the library on any matching target
// (the cheaper compile: docs/interop.md).
#if defined(LZ_KERNELS_SIMD_ARCH) && !defined(LZ_INLINE_MATH)
inline constexpr bool kernels_simd_arch_matches =
    xsimd::default_arch::version() == unsigned(LZ_KERNELS_SIMD_ARCH);
#else
inline constexpr bool kernels_simd_arch_matches = false;
#endif
// A file compiled for a narrower instruction set than the kernels would run every loop it
// instantiates in that set, up to 3x slower, without a word: refused here. lazuli::lazuli and
// lazuli.pc carry the kernels' flags (CMakeLists.txt, LZ_CONSUMER_ARCH_FLAGS); a file that sets
// a narrower target on purpose defines LZ_ALLOW_NARROWER_SIMD. (nvcc's files run their loops on
// the device.)
#if defined(LZ_KERNELS_SIMD_ARCH) && !defined(LZ_ALLOW_NARROWER_SIMD) && !defined(__CUDACC__)
static_assert(xsimd::default_arch::version() >= unsigned(LZ_KERNELS_SIMD_ARCH),
              "lz: this file is compiled for a narrower SIMD instruction set than lazuli's "
              "kernels, so its loops would run up to 3x slower: compile it with the kernels' "
              "flags (linking lazuli::lazuli or `pkg-config --cflags lazuli` adds them, e.g. "
              "-march=native), or define LZ_ALLOW_NARROWER_SIMD to accept the slower loops");
#endif
#if defined(LZ_OUTLINE_MATH)
inline constexpr bool outline_math = kernels_simd_arch_matches;
#else
inline constexpr bool outline_math =
    kernels_simd_arch_matches && sizeof(xsimd::batch<float, xsimd::default_arch>) == 64;
#endif
template <class T>
requires(std::is_same_v<T, float> ||
         std::is_same_v<T, double>) struct math_outlined<xsimd::batch<T, xsimd::default_arch>>
    : std::bool_constant<outline_math> {
};

// The target of this file in the numbers of xsimd's arch::version(), read from the macros xsimd
// chooses default_arch by (config/xsimd_arch.hpp: the best of avx512bw ... avx); 0 below AVX or
// off x86. Only used where it equals LZ_KERNELS_SIMD_ARCH, checked against xsimd just below.
#if XSIMD_WITH_AVX512BW
#define LZ_DETAIL_FILE_SIMD_ARCH 30400
#elif XSIMD_WITH_AVX512DQ
#define LZ_DETAIL_FILE_SIMD_ARCH 30300
#elif XSIMD_WITH_AVX512CD
#define LZ_DETAIL_FILE_SIMD_ARCH 30200
#elif XSIMD_WITH_AVX512F
#define LZ_DETAIL_FILE_SIMD_ARCH 30100
#elif XSIMD_WITH_FMA3_AVX2
#define LZ_DETAIL_FILE_SIMD_ARCH 20201
#elif XSIMD_WITH_AVX2
#define LZ_DETAIL_FILE_SIMD_ARCH 20200
#elif XSIMD_WITH_FMA3_AVX
#define LZ_DETAIL_FILE_SIMD_ARCH 20101
#elif XSIMD_WITH_AVX
#define LZ_DETAIL_FILE_SIMD_ARCH 20100
#else
#define LZ_DETAIL_FILE_SIMD_ARCH 0
#endif

// xsimd 8.1's sin, cos and tan reduce their argument in trigo_reducer::reduce, whose last branch
// (|x| beyond 2^20·π/2, inf, NaN) runs a scalar Payne-Hanek reduction lane by lane
// (__ieee754_rem_pio2, __kernel_rem_pio2: ~900 instructions of object code). Every file using
// one of them compiled all of it: 0.5 G of the compiler's instructions, 3% of perf/compile's 25
// expressions on AVX2, where the bodies are inlined (docs/decisions/
// trig-reduction-compiled-once.md). The library compiles it once for its own target
// (kernels/cpu/vmath.cpp); a file of the same target declares it extern (not with
// LZ_INLINE_MATH), so the compiler calls the library's copy where it does not inline reduce,
// and compiles nothing of the scalar path. The name is xsimd's internal one, hence the exact
// version.
#if defined(LZ_KERNELS_SIMD_ARCH) && XSIMD_VERSION_MAJOR == 8 && XSIMD_VERSION_MINOR == 1 &&       \
    LZ_DETAIL_FILE_SIMD_ARCH == LZ_KERNELS_SIMD_ARCH
#define LZ_DETAIL_TRIG_REDUCER_IN_LIBRARY 1 // (vmath.cpp instantiates it, whatever the macros)
static_assert(xsimd::default_arch::version() == unsigned(LZ_KERNELS_SIMD_ARCH),
              "lz: LZ_DETAIL_FILE_SIMD_ARCH disagrees with xsimd's default_arch");
#if !defined(LZ_INLINE_MATH)
#define LZ_DETAIL_TRIG_REDUCER_EXTERN 1
} // namespace lz::fn::detail
extern template struct xsimd::kernel::detail::trigo_reducer<
    xsimd::batch<float>, xsimd::kernel::detail::trigo_radian_tag>;
extern template struct xsimd::kernel::detail::trigo_reducer<
    xsimd::batch<double>, xsimd::kernel::detail::trigo_radian_tag>;
namespace lz::fn::detail {
#endif
#endif

// Declared in lz/ops/functors.hpp: true when any lane of a batch mask is set (one kortest on
// AVX-512, one movemask on AVX/SSE; a store and a loop over the lanes cost as much as an exp).
template <class M>
bool any_lane(const M& m) {
  return xsimd::any(m);
}
// Declared in lz/ops/functors.hpp: NumPy's maximum / minimum (NaN propagates; on ties, b). x86's
// max and min return their second operand when either is NaN, so only a's NaN needs putting back:
// on AVX and SSE an unordered compare, the max, a blend; on AVX-512 an ordered compare into a mask
// register and the max under that mask (a's lanes kept where a is NaN), two instructions. The
// portable form (compare, unordered compare, or, blend) took 2x the time of Eigen's
// non-propagating max in a 4×4 maximum(A, 0); with xsimd's `!` of a mask (an integer compare
// with zero, in halves on AVX) it took 4x. (AVX-512 uses the masked max, whose pass-through
// operand is a: GCC 12 warns that the _mm512_undefined_pd() inside the unmasked _mm512_max_pd is
// used uninitialised, in the user's function.)
template <class A>
inline constexpr bool x86_max_min =
#if XSIMD_WITH_SSE2
    !std::is_base_of_v<xsimd::avx512f, typename A::arch_type>;
#else
    false;
#endif
template <class A>
inline constexpr bool avx512_max_min =
#if XSIMD_WITH_AVX512F
    std::is_base_of_v<xsimd::avx512f, typename A::arch_type> &&
    (std::is_same_v<typename A::value_type, double> ||
     std::is_same_v<typename A::value_type, float>);
#else
    false;
#endif
#if XSIMD_WITH_AVX512F
// max (Max true) or min of a and b in the lanes of mask k, a elsewhere (AVX-512 float/double).
template <bool Max, class A, class K>
A avx512_masked_max_min(const A& a, K k, const A& b) {
  if constexpr (std::is_same_v<typename A::value_type, double>)
    return Max ? A(_mm512_mask_max_pd(a, __mmask8(k), a, b))
               : A(_mm512_mask_min_pd(a, __mmask8(k), a, b));
  else
    return Max ? A(_mm512_mask_max_ps(a, __mmask16(k), a, b))
               : A(_mm512_mask_min_ps(a, __mmask16(k), a, b));
}
template <class A>
auto avx512_not_nan(const A& a) {
  if constexpr (std::is_same_v<typename A::value_type, double>)
    return _mm512_cmp_pd_mask(a, a, _CMP_ORD_Q);
  else
    return _mm512_cmp_ps_mask(a, a, _CMP_ORD_Q);
}
#endif
template <class A>
A batch_maximum(const A& a, const A& b) {
  if constexpr (x86_max_min<A>) return xsimd::select(xsimd::isnan(a), a, xsimd::max(a, b));
#if XSIMD_WITH_AVX512F
  else if constexpr (avx512_max_min<A>)
    return avx512_masked_max_min<true>(a, avx512_not_nan(a), b);
#endif
  else
    return xsimd::select((a > b) | xsimd::isnan(a), a, b);
}
template <class A>
A batch_minimum(const A& a, const A& b) {
  if constexpr (x86_max_min<A>) return xsimd::select(xsimd::isnan(a), a, xsimd::min(a, b));
#if XSIMD_WITH_AVX512F
  else if constexpr (avx512_max_min<A>)
    return avx512_masked_max_min<false>(a, avx512_not_nan(a), b);
#endif
  else
    return xsimd::select((a < b) | xsimd::isnan(a), a, b);
}
// The larger (Max) or smaller of a and b lane by lane where neither is NaN, on ties b: x86's max
// or min, a compare and a blend where neither of the forms above applies. For callers that test
// for NaN apart (a fixed tree's max(A): one test for the whole fold instead of a blend per step).
template <bool Max, class A>
A batch_numbers(const A& a, const A& b) {
  if constexpr (x86_max_min<A>) return Max ? xsimd::max(a, b) : xsimd::min(a, b);
#if XSIMD_WITH_AVX512F
  else if constexpr (avx512_max_min<A>)
    return avx512_masked_max_min<Max>(a, ~0u, b);
#endif
  else
    return xsimd::select(Max ? a > b : a < b, a, b);
}
// Declared in lz/ops/functors.hpp: the product in the unsigned lanes (the same bits, defined).
template <class A>
A wrapping_mul(const A& a, const A& b) {
  using UB = xsimd::batch<std::make_unsigned_t<typename A::value_type>, typename A::arch_type>;
  return xsimd::bitwise_cast<A>(xsimd::bitwise_cast<UB>(a) * xsimd::bitwise_cast<UB>(b));
}
} // namespace lz::fn::detail
