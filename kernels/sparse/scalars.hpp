// The sparse kernels' scalar helpers (kernels/sparse/csr.cpp, spgemm.cpp; internal): routine
// names for the recorder, recorded arguments, and complex products written out.
#pragma once

#include "../blas/trace.hpp"

#include <lz/kernels/blas/blas.hpp>

#include <complex>
#include <string>
#include <type_traits>

namespace lz::kernels::sparse::scalars {

using cf = std::complex<float>;
using cd = std::complex<double>;

template <class T>
constexpr bool is_complex_v = !std::is_arithmetic_v<T>;

// ---- names, recording ----------------------------------------------------------------------
template <class T>
struct names {
  static constexpr char mv[] = {blas::type_letter<T>(), 'c', 's', 'r', 'm', 'v', 0};
  static constexpr char mm[] = {blas::type_letter<T>(), 'c', 's', 'r', 'm', 'm', 0};
  static constexpr char gemm[] = {blas::type_letter<T>(), 'c', 's', 'r', 'g', 'e', 'm', 'm', 0};
};

inline double real_part(float v) { return v; }
inline double real_part(double v) { return v; }
inline double real_part(cf v) { return v.real(); }
inline double real_part(cd v) { return v.real(); }
template <class T>
std::string value_arg(const char* name, T v) {
  if constexpr (is_complex_v<T>)
    return blas::detail::arg(name, cd(v.real(), v.imag()));
  else
    return blas::detail::arg(name, static_cast<double>(v));
}
template <class T>
constexpr double madd_flops() {
  return is_complex_v<T> ? 8.0 : 2.0;
}

// ---- scalar arithmetic -----------------------------------------------------------------------
// Complex products written out (no NaN/Inf recovery of the library's operator*, which GCC
// compiles to a call to __muldc3): what BLAS does.
template <class T>
inline T mul(T a, T b) {
  if constexpr (is_complex_v<T>)
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  else
    return a * b;
}
template <class T>
inline T madd(T acc, T a, T b) {
  if constexpr (is_complex_v<T>)
    return T(acc.real() + (a.real() * b.real() - a.imag() * b.imag()),
             acc.imag() + (a.real() * b.imag() + a.imag() * b.real()));
  else
    return acc + a * b;
}

} // namespace lz::kernels::sparse::scalars
