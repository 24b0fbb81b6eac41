// What the sparse kernels share (kernels/sparse/csr.cpp, spgemm.cpp, add.cpp;
// internal): routine names
// for the recorder, recorded arguments, complex products written out, and rows split into
// ranges of equal work.
#pragma once

#include "../blas/trace.hpp"

#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <cmath>
#include <complex>
#include <string>
#include <type_traits>

namespace lz::kernels::sparse::common {

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
  static constexpr char geam[] = {blas::type_letter<T>(), 'c', 's', 'r', 'g', 'e', 'a', 'm', 0};
  static constexpr char add[] = {blas::type_letter<T>(), 'c', 's', 'r', 'a', 'd', 'd', 0};
  static constexpr char summv[] = {
      blas::type_letter<T>(), 'c', 's', 'r', 's', 'u', 'm', 'm', 'v', 0};
  static constexpr char summm[] = {
      blas::type_letter<T>(), 'c', 's', 'r', 's', 'u', 'm', 'm', 'm', 0};
  static constexpr char multd[] = {
      blas::type_letter<T>(), 'c', 's', 'r', 'm', 'u', 'l', 't', 'd', 0};
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
// compiles to a call to __muldc3): what BLAS does. Where the target has FMA instructions every
// product-and-add is an explicit fma, so that no compiler choice remains: `a·b - c·d` contracted
// by GCC is fma(a, b, -c·d) in one inlined copy or vector loop and fma(-c, d, a·b) in another
// (complex<float> scatters differed in the last bit between one range of outputs and several).
// Without FMA nothing is contracted and the written-out form is as deterministic.
template <class R>
constexpr bool exact_fma_v =
#if defined(__FP_FAST_FMA) && defined(__FP_FAST_FMAF)
    std::is_same_v<R, double> || std::is_same_v<R, float>;
#else
    false;
#endif

// a·b + c with one rounding where the target fuses, a·b + c otherwise (never contracted).
template <class R>
inline R fmadd(R a, R b, R c) {
  if constexpr (exact_fma_v<R>)
    return std::fma(a, b, c);
  else
    return a * b + c;
}

template <class T>
inline T mul(T a, T b) {
  if constexpr (is_complex_v<T>)
    return T(fmadd(a.real(), b.real(), -(a.imag() * b.imag())),
             fmadd(a.real(), b.imag(), a.imag() * b.real()));
  else
    return a * b;
}
// a·x + b·y: for real types fma(a, x, b·y) (which product is fused no longer the compiler's).
template <class T>
inline T axpby(T a, T x, T b, T y) {
  if constexpr (is_complex_v<T>)
    return mul(a, x) + mul(b, y);
  else
    return fmadd(a, x, b * y);
}
template <class T>
inline T madd(T acc, T a, T b) {
  if constexpr (is_complex_v<T>)
    return T(acc.real() + fmadd(a.real(), b.real(), -(a.imag() * b.imag())),
             acc.imag() + fmadd(a.real(), b.imag(), a.imag() * b.real()));
  else
    return fmadd(a, b, acc);
}

// ---- rows split by work ------------------------------------------------------------------------
// First row r with (row_ptr[r] - row_ptr[0]) + r >= target: entries plus rows (an empty row
// still costs its store), which increases strictly with r.
template <class I>
index_t row_at_work(const I* row_ptr, index_t rows, index_t target) {
  index_t lo = 0, hi = rows;
  const index_t base = static_cast<index_t>(row_ptr[0]);
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (static_cast<index_t>(row_ptr[mid]) - base + mid < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Runs body(r0, r1) over `parts` consecutive row ranges of about equal entries + rows.
template <class I, class F>
void over_row_parts(const I* row_ptr, index_t rows, index_t nnz, index_t parts, bool par,
                    F&& body) {
  const index_t total = nnz + rows;
  auto range = [&](index_t b, index_t e) {
    for (index_t p = b; p < e; ++p) {
      const index_t r0 = p == 0 ? 0 : row_at_work(row_ptr, rows, total * p / parts);
      const index_t r1 =
          p + 1 == parts ? rows : row_at_work(row_ptr, rows, total * (p + 1) / parts);
      if (r0 < r1) body(r0, r1);
    }
  };
  if (par && parts > 1)
    cpu::parallel_for(parts, 1, range);
  else
    range(0, parts);
}

} // namespace lz::kernels::sparse::common
