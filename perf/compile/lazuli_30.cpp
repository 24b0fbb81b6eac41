// Compile-cost benchmark (perf/compile/run.py): 30 expressions in lazuli. The same 30, in the
// same order, are in eigen_30.cpp, xtensor_30.cpp and armadillo_30.cpp; the 5 matrix products
// (e26..e30) are compiled only with -DLZ_BENCH_PRODUCTS.
#include <lz/lz.hpp>

using vec = lz::vector<double>;
using mat = lz::matrix<double>;

// elementwise arithmetic and math functions
void e01(vec& z, const vec& x, const vec& y) { z = 2.5 * x + 1.5 * y; }
void e02(vec& z, const vec& x, const vec& y, const vec& w, const vec& v) {
  z = x * y + lz::sin(w) * lz::exp(-v);
}
void e03(vec& z, const vec& x, const vec& y) { z = lz::sqrt(lz::abs(x)) + lz::log1p(y * y); }
void e04(vec& z, const vec& x, const vec& y) { z = lz::tanh(x) * lz::cos(y); }
void e05(vec& z, const vec& x, const vec& y) { z = lz::maximum(x, y) - lz::minimum(x, y); }
void e06(vec& z, const vec& x, const vec& y) {
  z = lz::pow(x, 3.0) + lz::exp(y) / (1.0 + lz::exp(y));
}
void e07(vec& z, const vec& x) { z = lz::clamp(x, -0.5, 0.5); }
void e08(vec& z, const vec& x) { z = (x - lz::mean(x)) / lz::norm2(x); }
void e09(lz::vector<float>& z, const lz::vector<float>& x, const lz::vector<float>& y) {
  z = 2.0f * x + y;
}
void e10(lz::vector<int>& z, const lz::vector<int>& x, const lz::vector<int>& y) { z = x * 3 + y; }
void e11(vec& z, const vec& x, const vec& y) { z = -x + y / 2.0; }
void e12(vec& z, const vec& x) { z = lz::exp(-(x * x)); }

// reductions
double e13(const vec& x) { return lz::sum(x); }
double e14(const vec& x, const vec& y) { return lz::sum(lz::square(x - y)); }
double e15(const vec& x, const vec& y) { return lz::dot(x, y); }
double e16(const vec& x) { return lz::max(lz::abs(x)); }
void e17(vec& r, const mat& A) { r = lz::sum(A, 0); }
double e18(const mat& A) { return lz::mean(A); }

// views, slices, transposes
void e19(mat& Z, const mat& X, const mat& Y) { Z = lz::transpose(X) + Y; }
void e20(vec& v, const mat& A, const mat& B) { v = lz::row(A, 2) + lz::col(B, 3); }
void e21(mat& S, const mat& A) { S = lz::slice(A, lz::range(0, A.rows(), 2), lz::all) * 2.0; }
void e22(vec& d, const mat& A) { d = lz::diagonal(A) + 1.0; }
void e23(mat& T, const mat& A) { T = lz::transpose(A) - A; }

// broadcasting
void e24(mat& Z, const mat& A, const vec& bias) {
  Z = A + lz::broadcast_to(bias, {A.rows(), A.cols()});
}
void e25(mat& Z, const mat& A, const vec& bias) {
  Z = lz::maximum(A + lz::broadcast_to(bias, {A.rows(), A.cols()}), 0.0);
}

// matrix products
#ifdef LZ_BENCH_PRODUCTS
void e26(mat& C, const mat& A, const mat& B) { C = A * B; }
void e27(mat& C, const mat& A, const mat& B) { C = lz::transpose(A) * B; }
void e28(vec& y, const mat& A, const vec& x) { y = A * x + y; }
void e29(mat& C, const mat& A, const mat& B) { C = 2.0 * A * B + 3.0 * C; }
void e30(vec& r, const mat& A, const mat& B, const vec& x) { r = A * B * x; }
#endif
