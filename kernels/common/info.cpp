// lz::info() (see include/lz/info.hpp).
#include <lz/info.hpp>

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
  s += "  blas: " + kernels::blas::info() + "\n";
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  s += std::string("  OPENBLAS_CORETYPE: ") + (core ? core : "(unset: OpenBLAS detects the CPU)") +
       "\n";
  s += "  threads: " + std::to_string(num_threads()) +
       " (TBB; LZ_NUM_THREADS or lz::set_num_threads)\n";
  const tuning& t = thresholds();
  s += "  thresholds: parallel_work=" + std::to_string(t.parallel_work) +
       " tile=" + std::to_string(t.tile) + " reduce_block=" + std::to_string(t.reduce_block) +
       " gemm_copy_flops=" + std::to_string(t.gemm_copy_flops) +
       " use_syrk=" + (t.use_syrk ? "1" : "0") + " level1_blas=" + std::to_string(t.level1_blas) +
       " dot_blas=" + std::to_string(t.dot_blas) + "\n";
  return s;
}

} // namespace lz::detail
