// BLAS backend, private: how every call in kernels/blas/*.cpp is reported to the recorder and
// traced under LZ_LOG=blas. Shared by cblas.cpp and gemm_generic.cpp; not installed.
#pragma once

#include <lz/kernels/blas/blas.hpp>
#include <lz/log.hpp>

#include <complex>
#include <string>

namespace lz::kernels::blas::detail {

/// Hands `c` to the installed recorder, if any (trace.cpp).
void report(const call& c);

/// One argument of a trace line: `name=value`, values printed with %g.
std::string arg(const char* name, double v);
std::string arg(const char* name, std::complex<double> v);
std::string arg(const char* name, index_t v);
/// The flag letter of an enum ('R', 'T', 'U', ...).
template <class E>
char flag(E e) noexcept {
  return static_cast<char>(e);
}

/// Writes "<text> <time> <rate>" to the blas channel; `ops` is the operation count of the call
/// (2mnk for a real gemm), shown as GFLOP/s, or GOP/s when `integer`.
void write_trace(const std::string& text, long long ns, double ops, bool integer);

/// Reports `c`, then runs `body`; when LZ_LOG=blas is on, times it and writes one line made of
/// `describe()` (called only then, so a disabled trace builds no strings), the time and the rate.
template <class Describe, class Body>
void run(const call& c, double ops, bool integer, Describe&& describe, Body&& body) {
  report(c);
  if (!logging::on(logging::blas)) {
    body();
    return;
  }
  const long long t0 = logging::now_ns();
  body();
  const long long t1 = logging::now_ns();
  write_trace(describe(), t1 - t0, ops, integer);
}

} // namespace lz::kernels::blas::detail
