// lz::info() (see include/lz/info.hpp).
#include <lz/info.hpp>
#include <lz/memory.hpp>

#include <cstdlib>

namespace lz::detail {

std::string info_text(const char* caller_arch, int caller_double_lanes) {
  std::string s = "lazuli ";
  s += std::to_string(LZ_VERSION_MAJOR);
  s += '.';
  s += std::to_string(LZ_VERSION_MINOR);
  s += '.';
  s += std::to_string(LZ_VERSION_PATCH);
  s += '\n';
  s += "  compiler: g++ " __VERSION__ "\n";
  s += std::string("  simd: xsimd ") + std::to_string(XSIMD_VERSION_MAJOR) + "." +
       std::to_string(XSIMD_VERSION_MINOR) + ", caller arch " + caller_arch + " (" +
       std::to_string(caller_double_lanes) + " doubles per batch), library arch " +
       xsimd::default_arch::name() + "\n";
  {
    const cpu_defaults& c = this_cpu_defaults();
    s += "  cpu: " + c.cpu +
         (c.kind ? std::string(" (") + c.kind + ": in lazuli's table of measured CPUs)"
                 : std::string(" (not in lazuli's table of measured CPUs: per-CPU defaults are "
                               "measured on first use; lz::calibrate measures every threshold)")) +
         "\n";
  }
  s += "  blas: " + kernels::blas::info() + "; core " + kernels::blas::core_origin() + "\n";
  if (const std::string w = kernels::blas::core_warning(); !w.empty()) s += "  " + w + "\n";
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  s += std::string("  OPENBLAS_CORETYPE: ") + (core ? core : "(unset: OpenBLAS detects the CPU)") +
       "\n";
  s += "  threads: " + std::to_string(num_threads()) + " (TBB; from " + num_threads_origin() +
       "; LZ_NUM_THREADS or lz::set_num_threads)\n";
  s += std::string("  lifetime checks: ") +
       (lifetime_tracking() ? "on (a file built with LZ_CHECKED=1; docs/errors.md, \"Lifetimes\")"
                            : "off (no file built with LZ_CHECKED=1)") +
       "\n";
  s += "  thresholds in force, with their sources and defaults (lz::calibrate measures this "
       "machine's):\n";
  s += tuning_report();
  return s;
}

} // namespace lz::detail
