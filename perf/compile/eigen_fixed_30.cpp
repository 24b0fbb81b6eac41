// Compile-cost benchmark (perf/compile/run.py): the 30 fixed-size expressions of
// lazuli_fixed_30.cpp with Eigen's fixed-size matrices.
#include <Eigen/Dense>

using m4 = Eigen::Matrix4d;
using v4 = Eigen::Vector4d;
using m3 = Eigen::Matrix3d;
using v3 = Eigen::Vector3d;
using m6 = Eigen::Matrix<double, 6, 6>;
using v6 = Eigen::Matrix<double, 6, 1>;

void f01(m4& d, const m4& a, const m4& b, const m4& c) { d = a * b + c; }
void f02(m4& d, const m4& a, const m4& b) { d = a.transpose() * b; }
void f03(v4& y, const m4& a, const v4& x) { y = a * x + y; }
void f04(m4& d, const m4& a, const m4& b, const m4& c) { d = 2.0 * a * b - 3.0 * c; }
void f05(m4& d, const m4& a, const m4& b) { d = a + b; }
void f06(m4& d, const m4& a, const m4& b) { d = a - 2.0 * b; }
void f07(m4& d, const m4& a, const m4& b) { d = a.cwiseProduct(b); }
void f08(m4& d, const m4& a) { d = a.array().exp().matrix(); }
void f09(m4& d, const m4& a, const m4& b) { d = a.cwiseAbs() + b.cwiseAbs().cwiseSqrt(); }
double f10(const m4& a) { return a.sum(); }
double f11(const v4& x) { return x.norm(); }
double f12(const v4& x, const v4& y) { return x.dot(y); }
double f13(const m4& a) { return a.maxCoeff(); }
void f14(v3& r, const v3& a, const v3& b) { r = a.cross(b); }
double f15(const m4& a) { return a.determinant(); }
void f16(m4& r, const m4& a) { r = a.inverse(); }
void f17(m3& d, const m3& a, const m3& b, const m3& c) { d = a * b + c; }
void f18(v3& y, const m3& a, const v3& x) { y = a * x; }
void f19(m6& d, const m6& a, const m6& b, const m6& c) { d = a * b + c; }
void f20(v6& y, const m6& a, const v6& x) { y = a * x + y; }
void f21(m4& d, const m4& a, const m4& b, const m4& c) { d = a * b * c; }
void f22(v4& x) { x = x / x.norm(); }
void f23(m4& d, const m4& a) { d = a.transpose() + a; }
void f24(m4& d, const m4& a, const m4& b) { d = a * b.transpose(); }
void f25(m3& r, const m3& a) { r = a.inverse(); }
double f26(const m3& a) { return a.determinant(); }
void f27(m4& d, const m4& a) { d = a.cwiseMax(0.0); }
void f28(m4& d, const m4& a, const m4& b) { d = a * 0.5 + b * 0.25; }
void f29(Eigen::Matrix4f& d, const Eigen::Matrix4f& a, const Eigen::Matrix4f& b,
         const Eigen::Matrix4f& c) {
  d = a * b + c;
}
void f30(v4& y, const m4& a, const v4& x) { y = a.transpose() * x; }
