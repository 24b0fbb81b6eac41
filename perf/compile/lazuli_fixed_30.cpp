// Compile-cost benchmark (perf/compile/run.py): 30 fixed-size expressions (4×4, 3×3 and 6×6
// matrices and vectors), the same as eigen_fixed_30.cpp.
#include <lz/lz.hpp>

using m4 = lz::matrix4d;
using v4 = lz::vector4d;
using m3 = lz::matrix3d;
using v3 = lz::vector3d;
using m6 = lz::matrix6d;
using v6 = lz::vector6d;

void f01(m4& d, const m4& a, const m4& b, const m4& c) { d = a * b + c; }
void f02(m4& d, const m4& a, const m4& b) { d = lz::transpose(a) * b; }
void f03(v4& y, const m4& a, const v4& x) { y = a * x + y; }
void f04(m4& d, const m4& a, const m4& b, const m4& c) { d = 2.0 * a * b - 3.0 * c; }
void f05(m4& d, const m4& a, const m4& b) { d = a + b; }
void f06(m4& d, const m4& a, const m4& b) { d = a - 2.0 * b; }
void f07(m4& d, const m4& a, const m4& b) { d = lz::hadamard(a, b); }
void f08(m4& d, const m4& a) { d = lz::exp(a); }
void f09(m4& d, const m4& a, const m4& b) { d = lz::abs(a) + lz::sqrt(lz::abs(b)); }
double f10(const m4& a) { return lz::sum(a); }
double f11(const v4& x) { return lz::norm2(x); }
double f12(const v4& x, const v4& y) { return lz::dot(x, y); }
double f13(const m4& a) { return lz::max(a); }
void f14(v3& r, const v3& a, const v3& b) { r = lz::cross(a, b); }
double f15(const m4& a) { return lz::determinant(a); }
void f16(m4& r, const m4& a) { r = lz::inverse(a); }
void f17(m3& d, const m3& a, const m3& b, const m3& c) { d = a * b + c; }
void f18(v3& y, const m3& a, const v3& x) { y = a * x; }
void f19(m6& d, const m6& a, const m6& b, const m6& c) { d = a * b + c; }
void f20(v6& y, const m6& a, const v6& x) { y = a * x + y; }
void f21(m4& d, const m4& a, const m4& b, const m4& c) { d = a * b * c; }
void f22(v4& x) { x = x / lz::norm2(x); }
void f23(m4& d, const m4& a) { d = lz::transpose(a) + a; }
void f24(m4& d, const m4& a, const m4& b) { d = a * lz::transpose(b); }
void f25(m3& r, const m3& a) { r = lz::inverse(a); }
double f26(const m3& a) { return lz::determinant(a); }
void f27(m4& d, const m4& a) { d = lz::maximum(a, 0.0); }
void f28(m4& d, const m4& a, const m4& b) { d = a * 0.5 + b * 0.25; }
void f29(lz::matrix4f& d, const lz::matrix4f& a, const lz::matrix4f& b, const lz::matrix4f& c) {
  d = a * b + c;
}
void f30(v4& y, const m4& a, const v4& x) { y = lz::transpose(a) * x; }
