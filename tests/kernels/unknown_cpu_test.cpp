// Issue 30: OpenBLAS on a CPU it does not know. OpenBLAS 0.3.21 (Debian 12's) runs its Prescott
// (SSE3) kernels on a 5th-generation Xeon (family 6, model 207), and lazuli switches it to the
// CPU's width at start-up (kernels/blas/cblas.cpp, docs/performance.md section 4). No machine
// here is that Xeon, so CTest runs this program under qemu-x86_64 with a CPU that reports family
// 6 model 207 (tests/support/run_emulated.sh): the start-up path runs as it would there, on the
// widths the emulator has (AVX2: QEMU's TCG has no AVX-512, so the switch goes to Haswell).
// This program is compiled for baseline x86-64 from the BLAS sources alone (cblas.cpp, trace.cpp,
// log.cpp): the rest of lazuli_kernels is built for the host's -march=native, which the emulator
// may not run. Test cases read what the emulated CPU must be from LZ_TEST_CPU (set by CTest).
#define BOOST_TEST_MODULE unknown_cpu_test
#include <boost/test/unit_test.hpp>

#include <lz/kernels/blas/blas.hpp>

#include <cpuid.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace blas = lz::kernels::blas;

namespace {

// The core named in blas::info(): "OpenBLAS 0.3.21 (core Haswell, 1 thread, pthread)".
std::string core_in_use() {
  const std::string s = blas::info();
  const std::size_t at = s.find("(core ");
  BOOST_TEST_REQUIRE(at != std::string::npos, s);
  return s.substr(at + 6, s.find(',', at) - at - 6);
}

// The "family model" cpuid reports, as LZ_TEST_CPU spells it ("6 207").
std::string cpu_signature() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);
  unsigned family = (a >> 8) & 15, model = (a >> 4) & 15;
  if (family == 6 || family == 15) model |= ((a >> 16) & 15) << 4;
  if (family == 15) family += (a >> 20) & 255;
  return std::to_string(family) + " " + std::to_string(model);
}

// A product through lazuli's wrapper on the kernels in use, against a long double loop.
void check_a_product() {
  const int m = 37, n = 29, k = 53;
  std::vector<double> A(m * k), B(k * n), C(m * n, 7.0);
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = std::sin(double(i) * 0.37);
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = std::cos(double(i) * 0.91);
  blas::gemm(blas::order::row_major, blas::trans::none, blas::trans::none, m, n, k, 2.0, A.data(),
             k, B.data(), n, -0.5, C.data(), n);
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double s = 0;
      for (int p = 0; p < k; ++p) s += (long double)A[i * k + p] * B[p * n + j];
      worst = std::max(worst, std::abs(double(2 * s - 3.5L) - C[i * n + j]));
    }
  BOOST_TEST(worst < 1e-12, "largest error " << worst << " on core " << core_in_use());
}

void require_the_emulated_cpu() {
  const char* want = std::getenv("LZ_TEST_CPU");
  BOOST_TEST_REQUIRE(want != nullptr, "run by CTest (LZ_TEST_CPU names the emulated CPU)");
  BOOST_TEST_REQUIRE(cpu_signature() == want,
                     "cpuid family and model " << cpu_signature() << ", emulated CPU " << want);
}

} // namespace

// With OPENBLAS_CORETYPE unset: whatever OpenBLAS detects on a CPU it does not know, the kernels
// in use are as wide as the CPU, and lazuli says it chose them. Debian 12's OpenBLAS (0.3.21)
// detects Prescott there: that is the case of the issue, checked by name.
BOOST_AUTO_TEST_CASE(an_unknown_cpu_gets_openblas_kernels_as_wide_as_it_is) {
  require_the_emulated_cpu();
  BOOST_TEST_REQUIRE(std::getenv("OPENBLAS_CORETYPE") == nullptr);
  const std::string core = core_in_use(), origin = blas::core_origin();
  BOOST_TEST(int(blas::core_isa(core)) >= int(blas::cpu_isa()), core << " (" << origin << ")");
  BOOST_TEST(blas::core_warning().empty(), blas::core_warning());
  if (blas::info().find("OpenBLAS 0.3.21 ") == 0) {
    BOOST_TEST(origin.find("chosen by lazuli: OpenBLAS detected Prescott") == 0, origin);
    BOOST_TEST(core == blas::better_core("Prescott", blas::cpu_isa(), nullptr));
  }
  check_a_product();
}

// A core the user names is kept, narrower or not, and lz::info's warning names the one to set.
BOOST_AUTO_TEST_CASE(a_core_the_user_names_is_kept_on_an_unknown_cpu) {
  require_the_emulated_cpu();
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  BOOST_TEST_REQUIRE(forced != nullptr);
  BOOST_TEST(blas::core_origin() == "OPENBLAS_CORETYPE");
  BOOST_TEST(core_in_use() == forced);
  const std::string better = blas::better_core(forced, blas::cpu_isa(), nullptr);
  if (!better.empty())
    BOOST_TEST(blas::core_warning().find("set OPENBLAS_CORETYPE=" + better) != std::string::npos,
               blas::core_warning());
  else
    BOOST_TEST(blas::core_warning().empty(), blas::core_warning());
  check_a_product();
}
