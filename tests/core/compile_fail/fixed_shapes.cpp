// Fixed-size shapes are checked at compile time: operands of different shapes, a product whose
// inner dimensions differ, and an assignment to a fixed destination of another shape are each
// one compile error whose failing check names both shapes (lz::fixed_shape<...>).
// tests/CMakeLists.txt compiles this file with -fsyntax-only: with LZ_CASE_NONE it must compile;
// with LZ_CASE_ALL each of the 4 functions below must produce exactly one error.
#include <lz/lz.hpp>

#if defined(LZ_CASE_NONE)
void right(const lz::matrix3d& a, const lz::fixed_matrix<double, 3, 4>& b,
           const lz::fixed_matrix<double, 1, 4>& row, lz::fixed_matrix<double, 3, 4>& c) {
  c = a * b + row;                          // (3,3)·(3,4) + (1,4) broadcasts
  c = lz::transpose(b * 1.0 + c) * 0.0 + c; // a transposed fixed expression goes to the engine
  lz::matrix3d d = a + a;
  (void)d;
}
#elif defined(LZ_CASE_ALL)
void add(const lz::matrix3d& a, const lz::matrix4d& b, lz::matrix4d& c) { c = a + b; }
void product(const lz::fixed_matrix<double, 3, 4>& a, lz::matrix3d& c) { c = a * a; }
void assign(const lz::matrix3d& a, lz::matrix4d& c) { c = a * 2.0; }
void vector_product(const lz::matrix3d& a, const lz::vector4d& x, lz::vector3d& y) { y = a * x; }
#endif

int main() { return 0; }
