// Solvers need float, double or complex elements: an integer matrix, or a matrix and a
// right-hand side of different element types, is a compile error with lazuli's one-line
// message naming the conversion. tests/CMakeLists.txt compiles this file with -fsyntax-only:
// with LZ_CASE_NONE it must compile; with LZ_CASE_ALL each of the 4 functions below must produce
// exactly one error (a static_assert, no cascade).
#include <lz/lz.hpp>

#if defined(LZ_CASE_NONE)
void fine(const lz::matrix<double>& A, const lz::vector<double>& b, lz::vector<double>& x,
          const lz::matrix<int>& Ai) {
  x = lz::solve(A, b);
  x = lz::inv(A) * b;
  x = lz::solve(lz::cast<double>(Ai), b); // converted explicitly: fine
  (void)lz::lu(A);
}
#elif defined(LZ_CASE_ALL)
// "lz::solve / inv / lstsq / det and the factorizations need float, double or complex elements"
void solve_int(const lz::matrix<int>& A, const lz::vector<int>& b) { (void)lz::solve(A, b); }
void inv_int(const lz::matrix<long>& A) { (void)lz::inv(A); }
void lu_int(const lz::matrix<int>& A) { (void)lz::lu(A); }
// "the matrix and the right-hand side must have the same element type"
void mixed(const lz::matrix<double>& A, const lz::vector<float>& b) { (void)lz::solve(A, b); }
#endif

int main() { return 0; }
