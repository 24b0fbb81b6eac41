// Compile-cost benchmark (perf/compile/run.py): the 30 expressions of lazuli_30.cpp in xtensor
// (+xsimd). The products e26..e30 need xtensor-blas (xt::linalg::dot): compiled with
// -DLZ_BENCH_PRODUCTS when its header is installed.
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xnorm.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

using vec = xt::xtensor<double, 1>;
using mat = xt::xtensor<double, 2>;

void e01(vec& z, const vec& x, const vec& y) { z = 2.5 * x + 1.5 * y; }
void e02(vec& z, const vec& x, const vec& y, const vec& w, const vec& v) {
  z = x * y + xt::sin(w) * xt::exp(-v);
}
void e03(vec& z, const vec& x, const vec& y) { z = xt::sqrt(xt::abs(x)) + xt::log1p(y * y); }
void e04(vec& z, const vec& x, const vec& y) { z = xt::tanh(x) * xt::cos(y); }
void e05(vec& z, const vec& x, const vec& y) { z = xt::maximum(x, y) - xt::minimum(x, y); }
void e06(vec& z, const vec& x, const vec& y) {
  z = xt::pow(x, 3.0) + xt::exp(y) / (1.0 + xt::exp(y));
}
void e07(vec& z, const vec& x) { z = xt::clip(x, -0.5, 0.5); }
void e08(vec& z, const vec& x) { z = (x - xt::mean(x)()) / xt::norm_l2(x)(); }
void e09(xt::xtensor<float, 1>& z, const xt::xtensor<float, 1>& x, const xt::xtensor<float, 1>& y) {
  z = 2.0f * x + y;
}
void e10(xt::xtensor<int, 1>& z, const xt::xtensor<int, 1>& x, const xt::xtensor<int, 1>& y) {
  z = x * 3 + y;
}
void e11(vec& z, const vec& x, const vec& y) { z = -x + y / 2.0; }
void e12(vec& z, const vec& x) { z = xt::exp(-(x * x)); }

double e13(const vec& x) { return xt::sum(x)(); }
double e14(const vec& x, const vec& y) { return xt::sum(xt::square(x - y))(); }
double e15(const vec& x, const vec& y) { return xt::sum(x * y)(); }
double e16(const vec& x) { return xt::amax(xt::abs(x))(); }
void e17(vec& r, const mat& A) { r = xt::sum(A, {0}); }
double e18(const mat& A) { return xt::mean(A)(); }

void e19(mat& Z, const mat& X, const mat& Y) { Z = xt::transpose(X) + Y; }
void e20(vec& v, const mat& A, const mat& B) { v = xt::row(A, 2) + xt::col(B, 3); }
void e21(mat& S, const mat& A) { S = xt::view(A, xt::range(0, A.shape(0), 2), xt::all()) * 2.0; }
void e22(vec& d, const mat& A) { d = xt::diagonal(A) + 1.0; }
void e23(mat& T, const mat& A) { T = xt::transpose(A) - A; }

void e24(mat& Z, const mat& A, const vec& bias) { Z = A + bias; }
void e25(mat& Z, const mat& A, const vec& bias) { Z = xt::maximum(A + bias, 0.0); }

#ifdef LZ_BENCH_PRODUCTS
#include <xtensor-blas/xlinalg.hpp>
void e26(mat& C, const mat& A, const mat& B) { C = xt::linalg::dot(A, B); }
void e27(mat& C, const mat& A, const mat& B) { C = xt::linalg::dot(xt::transpose(A), B); }
void e28(vec& y, const mat& A, const vec& x) { y = xt::linalg::dot(A, x) + y; }
void e29(mat& C, const mat& A, const mat& B) { C = 2.0 * xt::linalg::dot(A, B) + 3.0 * C; }
void e30(vec& r, const mat& A, const mat& B, const vec& x) {
  r = xt::linalg::dot(xt::linalg::dot(A, B), x);
}
#endif
