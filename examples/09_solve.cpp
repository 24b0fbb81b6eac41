// 09 — solving linear systems: lz::solve, inv(A) * B (a solve, never an inverse), Cholesky and
// triangular solves, least squares, and factorizations that solve many right-hand sides. All on
// LAPACK, chosen at assignment by the solver rules; lz::explain shows the calls (docs/solvers.md).
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: x = [1. 2. 3.]
// output:   2. dgetrf(n=3, tmp0 lda=3) in place   [rule solve]
// output:   4. dgetrs(T, n=3, nrhs=4, tmp0 lda=3, tmp2 ldb=3) → tmp2   [rule solve]
// output: cholesky: x = [1. 2. 3.]
// output: least squares: y = 2 + 3 t, fitted intercept 2, slope 3
// output:   3. dgels(T, m=2, n=6, nrhs=1, tmp0 lda=2, tmp1 ldb=6) → tmp1   [rule normal equations]
// output: det(A) = -1, rcond(A) > 0.01: yes
// output contains: singular: lz::solve: dgetrf: the 3x3 matrix is singular: U(2, 2)
#include <lz/lz.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

int main() {
  lz::matrix<double> A{{2, 1, 1}, {1, 3, 2}, {1, 0, 0}};
  lz::vector<double> b{7, 13, 1}; // A · (1, 2, 3)
  lz::vector<double> x = lz::solve(A, b);
  std::cout << "x = " << x << "\n";

  // inv(A) * B is the same solve: one LU factorization (getrf), one solve (getrs), no inverse.
  // A is row-major: LAPACK factors its memory as Aᵀ and solves transposed ('T'); X is row-major
  // too, so the 4 right-hand sides are solved in a column-major temporary.
  lz::matrix<double> B = lz::random<double>({3, 4}, 1);
  lz::matrix<double> X(3, 4);
  std::cout << lz::explain(X, lz::inv(A) * B);
  X = lz::inv(A) * B;

  // A symmetric positive definite matrix, as the user knows it: Cholesky (half LU's work).
  lz::matrix<double> S{{4, 1, 0}, {1, 3, 1}, {0, 1, 2}};
  lz::vector<double> s = S * lz::vector<double>{1, 2, 3};
  x = lz::solve(lz::sympd(S), s);
  std::cout << "cholesky: x = " << x << "\n";

  // Least squares: fit y = c0 + c1·t through 6 points (QR, no normal equations).
  lz::matrix<double> M(6, 2);
  lz::vector<double> y(6);
  for (int i = 0; i < 6; ++i) M(i, 0) = 1, M(i, 1) = i, y(i) = 2 + 3 * i;
  lz::vector<double> c = lz::lstsq(M, y);
  std::printf("least squares: y = 2 + 3 t, fitted intercept %.0f, slope %.0f\n", c(0), c(1));
  // Written as the textbook does, it is recognised: the same single QR solve.
  std::cout << lz::explain(c, lz::inv(lz::transpose(M) * M) * lz::transpose(M) * y);

  // Factor once, solve many times; the determinant and conditioning from the same factors.
  auto f = lz::lu(A);
  for (int k = 0; k < 3; ++k) x = f.solve(b * double(k + 1)); // getrs only
  std::printf("det(A) = %g, rcond(A) > 0.01: %s\n", f.det(), f.rcond() > 0.01 ? "yes" : "no");

  // A singular matrix is an exception naming the pivot; the destination is untouched.
  lz::matrix<double> Z{{1, 2, 3}, {2, 4, 6}, {1, 1, 1}};
  try {
    x = lz::solve(Z, b);
  } catch (const lz::linalg_error& e) {
    std::cout << "singular: " << e.what() << "\n";
  }
}
