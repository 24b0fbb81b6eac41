// Compile-cost benchmark (perf/compile/run.py): the 30 expressions of lazuli_30.cpp in
// Armadillo (products e26..e30 with -DLZ_BENCH_PRODUCTS).
#include <armadillo>

using vec = arma::vec;
using mat = arma::mat;

void e01(vec& z, const vec& x, const vec& y) { z = 2.5 * x + 1.5 * y; }
void e02(vec& z, const vec& x, const vec& y, const vec& w, const vec& v) {
  z = x % y + arma::sin(w) % arma::exp(-v);
}
void e03(vec& z, const vec& x, const vec& y) { z = arma::sqrt(arma::abs(x)) + arma::log1p(y % y); }
void e04(vec& z, const vec& x, const vec& y) { z = arma::tanh(x) % arma::cos(y); }
void e05(vec& z, const vec& x, const vec& y) { z = arma::max(x, y) - arma::min(x, y); }
void e06(vec& z, const vec& x, const vec& y) {
  z = arma::pow(x, 3.0) + arma::exp(y) / (1.0 + arma::exp(y));
}
void e07(vec& z, const vec& x) { z = arma::clamp(x, -0.5, 0.5); }
void e08(vec& z, const vec& x) { z = (x - arma::mean(x)) / arma::norm(x); }
void e09(arma::fvec& z, const arma::fvec& x, const arma::fvec& y) { z = 2.0f * x + y; }
void e10(arma::ivec& z, const arma::ivec& x, const arma::ivec& y) { z = x * 3 + y; }
void e11(vec& z, const vec& x, const vec& y) { z = -x + y / 2.0; }
void e12(vec& z, const vec& x) { z = arma::exp(-(x % x)); }

double e13(const vec& x) { return arma::accu(x); }
double e14(const vec& x, const vec& y) { return arma::accu(arma::square(x - y)); }
double e15(const vec& x, const vec& y) { return arma::dot(x, y); }
double e16(const vec& x) { return arma::max(arma::abs(x)); }
void e17(vec& r, const mat& A) { r = arma::sum(A, 0).t(); }
double e18(const mat& A) { return arma::mean(arma::vectorise(A)); }

void e19(mat& Z, const mat& X, const mat& Y) { Z = X.t() + Y; }
void e20(vec& v, const mat& A, const mat& B) { v = A.row(2).t() + B.col(3); }
void e21(mat& S, const mat& A) { S = A.rows(arma::regspace<arma::uvec>(0, 2, A.n_rows - 1)) * 2.0; }
void e22(vec& d, const mat& A) { d = A.diag() + 1.0; }
void e23(mat& T, const mat& A) { T = A.t() - A; }

void e24(mat& Z, const mat& A, const vec& bias) { Z = A.each_row() + bias.t(); }
void e25(mat& Z, const mat& A, const vec& bias) {
  Z = arma::clamp(A.each_row() + bias.t(), 0.0, arma::datum::inf);
}

#ifdef LZ_BENCH_PRODUCTS
void e26(mat& C, const mat& A, const mat& B) { C = A * B; }
void e27(mat& C, const mat& A, const mat& B) { C = A.t() * B; }
void e28(vec& y, const mat& A, const vec& x) { y = A * x + y; }
void e29(mat& C, const mat& A, const mat& B) { C = 2.0 * A * B + 3.0 * C; }
void e30(vec& r, const mat& A, const mat& B, const vec& x) { r = A * B * x; }
#endif
