// BLAS backend: the process-wide call recorder and the LZ_LOG=blas trace line format
// (see trace.hpp). Every wrapper in kernels/blas/*.cpp goes through detail::run.
#include "trace.hpp"

#include <atomic>
#include <cstdio>

namespace lz::kernels::blas {
namespace {
std::atomic<recorder*> g_recorder{nullptr};
} // namespace

recorder* set_recorder(recorder* r) noexcept { return g_recorder.exchange(r); }

namespace detail {

void report(const call& c) {
  if (recorder* r = g_recorder.load(std::memory_order_acquire)) r->record(c);
}

std::string arg(const char* name, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s=%g", name, v);
  return buf;
}

std::string arg(const char* name, std::complex<double> v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s=(%g,%g)", name, v.real(), v.imag());
  return buf;
}

std::string arg(const char* name, index_t v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s=%td", name, v);
  return buf;
}

void write_trace(const std::string& text, long long ns, double ops, bool integer) {
  // Time in the unit that keeps 3 significant digits readable; rate from the exact op count.
  char buf[96];
  const double t = static_cast<double>(ns);
  const char* unit = t < 1e3 ? "ns" : t < 1e6 ? "us" : t < 1e9 ? "ms" : "s";
  const double scaled = t < 1e3 ? t : t < 1e6 ? t / 1e3 : t < 1e9 ? t / 1e6 : t / 1e9;
  const double rate = ns > 0 ? ops / t : 0.0; // ops per ns == G ops per s
  std::snprintf(buf, sizeof buf, " %.3g %s %.3g %s", scaled, unit, rate,
                integer ? "GOP/s" : "GFLOP/s");
  logging::write(logging::blas, text + buf);
}

} // namespace detail
} // namespace lz::kernels::blas
