// lz::info(): the machine and build facts a performance tuner needs, in one string — BLAS
// library, version, OpenBLAS core type and threads, xsimd architecture of the calling
// translation unit, TBB threads, and the thresholds in force.
#pragma once

#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>
#include <lz/policy.hpp>

#include <lz/simd.hpp>

#include <string>

namespace lz {
namespace detail {
/// The library side of info (compiled: kernels/common/info.cpp).
std::string info_text(const char* caller_arch, int caller_double_lanes);
} // namespace detail

/// Build and machine facts; the xsimd architecture is that of the code calling this.
inline std::string info() {
  return detail::info_text(xsimd::default_arch::name(), int(xsimd::batch<double>::size));
}

} // namespace lz
