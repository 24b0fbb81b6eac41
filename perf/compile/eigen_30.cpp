// Compile-cost benchmark (perf/compile/run.py): the 30 expressions of lazuli_30.cpp in Eigen
// (arrays for elementwise work, matrices for products; products e26..e30 with
// -DLZ_BENCH_PRODUCTS).
#include <Eigen/Dense>

using vec = Eigen::ArrayXd;
using mat = Eigen::ArrayXXd;

void e01(vec& z, const vec& x, const vec& y) { z = 2.5 * x + 1.5 * y; }
void e02(vec& z, const vec& x, const vec& y, const vec& w, const vec& v) {
  z = x * y + w.sin() * (-v).exp();
}
void e03(vec& z, const vec& x, const vec& y) { z = x.abs().sqrt() + (y * y).log1p(); }
void e04(vec& z, const vec& x, const vec& y) { z = x.tanh() * y.cos(); }
void e05(vec& z, const vec& x, const vec& y) { z = x.max(y) - x.min(y); }
void e06(vec& z, const vec& x, const vec& y) { z = x.pow(3.0) + y.exp() / (1.0 + y.exp()); }
void e07(vec& z, const vec& x) { z = x.max(-0.5).min(0.5); }
void e08(vec& z, const vec& x) { z = (x - x.mean()) / x.matrix().norm(); }
void e09(Eigen::ArrayXf& z, const Eigen::ArrayXf& x, const Eigen::ArrayXf& y) { z = 2.0f * x + y; }
void e10(Eigen::ArrayXi& z, const Eigen::ArrayXi& x, const Eigen::ArrayXi& y) { z = x * 3 + y; }
void e11(vec& z, const vec& x, const vec& y) { z = -x + y / 2.0; }
void e12(vec& z, const vec& x) { z = (-(x * x)).exp(); }

double e13(const vec& x) { return x.sum(); }
double e14(const vec& x, const vec& y) { return (x - y).square().sum(); }
double e15(const vec& x, const vec& y) { return x.matrix().dot(y.matrix()); }
double e16(const vec& x) { return x.abs().maxCoeff(); }
void e17(vec& r, const mat& A) { r = A.colwise().sum().transpose(); }
double e18(const mat& A) { return A.mean(); }

void e19(mat& Z, const mat& X, const mat& Y) { Z = X.transpose() + Y; }
void e20(vec& v, const mat& A, const mat& B) { v = A.row(2).transpose() + B.col(3); }
void e21(mat& S, const mat& A) { S = A(Eigen::seq(0, Eigen::last, 2), Eigen::all) * 2.0; }
void e22(vec& d, const mat& A) { d = A.matrix().diagonal().array() + 1.0; }
void e23(mat& T, const mat& A) { T = A.transpose() - A; }

void e24(mat& Z, const mat& A, const vec& bias) { Z = A.rowwise() + bias.transpose(); }
void e25(mat& Z, const mat& A, const vec& bias) { Z = (A.rowwise() + bias.transpose()).max(0.0); }

#ifdef LZ_BENCH_PRODUCTS
using M = Eigen::MatrixXd;
using V = Eigen::VectorXd;
void e26(M& C, const M& A, const M& B) { C = A * B; }
void e27(M& C, const M& A, const M& B) { C = A.transpose() * B; }
void e28(V& y, const M& A, const V& x) { y = A * x + y; }
void e29(M& C, const M& A, const M& B) { C = 2.0 * A * B + 3.0 * C; }
void e30(V& r, const M& A, const M& B, const V& x) { r = A * B * x; }
#endif
