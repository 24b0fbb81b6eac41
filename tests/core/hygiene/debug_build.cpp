// A debug build (-O0, no __OPTIMIZE__) with this machine's -march: every elementwise op and
// reduction over every element type must compile. GCC defines some AVX-512 intrinsics as macros
// without optimisation, and xsimd 8.1's integer select did not compile through them
// (include/lz/simd.hpp). Registered as the compile check `every_op_compiles_in_a_debug_build`.
#include <lz/lz.hpp>

#include <cstdint>

template <class T>
void every_op() {
  lz::vector<T> a({64}, T(3)), b({64}, T(2)), r(64);
  lz::vector<bool> m({64}, true);
  r = a + b * a - b / b;
  r = -a;
  r = lz::abs(a);
  r = lz::square(a);
  r = lz::sign(a);
  r = lz::maximum(a, b);
  r = lz::minimum(a, T(1));
  r = lz::clamp(a, T(0), T(2));
  r = lz::where(a < b, a, b);
  r = lz::where(m, a, T(0));
  m = (a == b) || (a != b) || !(a <= b) || (a >= b) || (a > b);
  const T s = lz::sum(a), p = lz::prod(b), hi = lz::max(a), lo = lz::min(b);
  r = a - lz::cast<T>(lz::mean(b)) + s * p + hi - lo; // (an integer mean is a double)
  lz::matrix<T> A({8, 8}, T(1)), B({8, 8}, T(2));
  A = lz::maximum(A, lz::transpose(B)) * T(2);
  if constexpr (std::is_floating_point_v<T>) {
    r = lz::sqrt(a) + lz::cbrt(a) + lz::exp(a) + lz::expm1(a) + lz::log(a) + lz::log1p(a);
    r = lz::sin(a) + lz::cos(a) + lz::tan(a) + lz::tanh(a) + lz::asin(a) + lz::acos(a);
    r = lz::atan(a) + lz::floor(a) + lz::ceil(a) + lz::round(a) + lz::atan2(a, b);
    r = lz::pow(a, b);
    m = lz::isnan(a) || lz::isinf(b);
  }
}

int main() {
  every_op<float>();
  every_op<double>();
  every_op<std::int32_t>();
  every_op<std::int64_t>();
}
