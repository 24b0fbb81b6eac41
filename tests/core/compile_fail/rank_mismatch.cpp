// Mixing ranks is a compile error with lazuli's one-line message, never a silent broadcast.
// tests/CMakeLists.txt compiles this file twice with -fsyntax-only: with LZ_CASE_NONE it must
// compile (which guards the include paths); with LZ_CASE_ALL each of the 8 functions below
// must produce exactly one error (a static_assert, no cascade), 8 in all.
#include <lz/lz.hpp>

#if defined(LZ_CASE_NONE)
void fine(lz::matrix<double>& A, lz::vector<double>& x) {
  A = A + lz::broadcast_to(x, {3, 3}); // explicit broadcasting across ranks
  x += lz::sum(A, 0);
}
#elif defined(LZ_CASE_ALL)
// "lz: elementwise operands must have the same rank (or be scalars); use lz::broadcast_to"
void plus(lz::matrix<double>& A, lz::vector<double>& x) { (void)(A + x); }
void times(lz::matrix<double>& A, lz::vector<double>& x) { (void)(x * A); }
void maximum(lz::matrix<double>& A, lz::vector<double>& x) { (void)lz::maximum(x, A); }
void where(lz::matrix<double>& A, lz::vector<double>& x) { (void)lz::where(A > 0.0, x, A); }
// "lz: the expression's rank differs from the destination's rank"
void assign(lz::matrix<double>& A, lz::vector<double>& x) { A = x + x; }
void compound(lz::matrix<double>& A, lz::vector<double>& x) { A += x; }
void lz_assign(lz::matrix<double>& A, lz::vector<double>& x) { lz::assign(lz::par, A, x * 2.0); }
void construct(lz::vector<double>& x) { lz::matrix<double> B = x + 1.0; }
#endif

int main() { return 0; }
