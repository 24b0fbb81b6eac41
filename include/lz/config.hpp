// Configuration shared by every lazuli header: index type, rank limit, host/device annotations.
// Sits below everything in the pipeline (tree → plan → kernels); includes nothing heavy.
#pragma once

#include <cstddef>
#include <cstdint>

#define LZ_VERSION_MAJOR 0
#define LZ_VERSION_MINOR 2
#define LZ_VERSION_PATCH 0
/// The version as one number for `#if LZ_VERSION >= 200` (major * 10000 + minor * 100 + patch).
#define LZ_VERSION (LZ_VERSION_MAJOR * 10000 + LZ_VERSION_MINOR * 100 + LZ_VERSION_PATCH)

// LZ_HD marks functions that run on both host and device. nvcc defines __CUDACC__ in both of its
// passes; CCCL 3 does not define __host__/__device__ for g++ (shared/notes/gpu-build.md §1), so we
// key on the compiler, not on Thrust.
#if defined(__CUDACC__)
#define LZ_HD __host__ __device__
#else
#define LZ_HD
#endif

// True only inside nvcc's device pass: host-only code (xsimd, TBB, CBLAS) must be fenced off with
// it.
#if defined(__CUDA_ARCH__)
#define LZ_DEVICE_PASS 1
#else
#define LZ_DEVICE_PASS 0
#endif

#define LZ_PRAGMA(x) _Pragma(#x)
/// Before an LZ_HD template that host code also instantiates with host-only types (xsimd
/// batches): nvcc checks the calls of each instantiation where it runs, not at its definition.
#if defined(__CUDACC__)
#define LZ_HD_TEMPLATE LZ_PRAGMA(nv_exec_check_disable)
#else
#define LZ_HD_TEMPLATE
#endif
/// Before a loop with a constant trip count: unroll it up to n times (fully, when it is short).
#if defined(__CUDA_ARCH__)
#define LZ_UNROLL(n) LZ_PRAGMA(unroll n)
#elif defined(__CUDACC__) // nvcc's host pass: its front end knows neither pragma
#define LZ_UNROLL(n)
#elif defined(__GNUC__) || defined(__clang__)
#define LZ_UNROLL(n) LZ_PRAGMA(GCC unroll n)
#else
#define LZ_UNROLL(n)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LZ_INLINE inline __attribute__((always_inline))
/// After a lambda's parameter list: inline it always (fixed-size evaluation, expr/fixed.hpp).
#define LZ_INLINE_LAMBDA __attribute__((always_inline))
#define LZ_NOINLINE __attribute__((noinline))
#define LZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define LZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LZ_RESTRICT __restrict__
#else
#define LZ_INLINE inline
#define LZ_INLINE_LAMBDA
#define LZ_NOINLINE
#define LZ_LIKELY(x) (x)
#define LZ_UNLIKELY(x) (x)
#define LZ_RESTRICT
#endif

// Clang's lifetimebound: the result refers to the object (or argument) it marks.
#if defined(__clang__) && defined(__has_cpp_attribute)
#if __has_cpp_attribute(clang::lifetimebound)
#define LZ_LIFETIMEBOUND [[clang::lifetimebound]]
#endif
#endif
#ifndef LZ_LIFETIMEBOUND
#define LZ_LIFETIMEBOUND
#endif

// LZ_CHECKED=1: evaluation checks that every tensor an expression reads still exists and throws
// lz::lifetime_error if not (docs/errors.md, "Lifetimes"). Set per translation unit, no rebuild
// of the library; on by default where NDEBUG is not defined (Debug builds), off in Release,
// where it costs nothing. Tensors and views have the same layout either way, so checked and
// unchecked files link together (a template both instantiate may run with either setting).
#ifndef LZ_CHECKED
#ifdef NDEBUG
#define LZ_CHECKED 0
#else
#define LZ_CHECKED 1
#endif
#endif

namespace lz {

namespace detail {
/// The high 64 bits of a * b (GCC's and clang's 128-bit integers; `__extension__` keeps
/// -Wpedantic consumers quiet).
inline std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) noexcept {
  __extension__ typedef unsigned __int128 u128;
  return std::uint64_t((u128(a) * b) >> 64);
}
} // namespace detail

/// Signed index and extent type (extents, strides and offsets are all `index_t`).
using index_t = std::ptrdiff_t;

/// Largest rank a loop nest handles; also the size of the fixed arrays in leaf descriptors.
inline constexpr std::size_t max_rank = 8;

/// Alignment of every owning allocation, in bytes (one cache line, one AVX-512 register).
inline constexpr std::size_t alignment = 64;

} // namespace lz
