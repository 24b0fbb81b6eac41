// 10 — sparse matrices: lz::csr_matrix in the same expressions as dense tensors. `y = 2*A*x - 3*y`
// is ONE sparse matrix-vector product with α = 2 and β = -3 folded (no temporary), a product under
// a function lands in the destination before one elementwise pass, elementwise operations on a
// sparse matrix are one loop over its stored values (the pattern shared, not copied), a transpose
// is the same arrays read as CSC, and sparse × sparse products and sums have sparse results (one
// SpGEMM, one merge of two patterns). docs/sparse.md is the user's page.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: A: 900 x 900, 4380 stored entries
// output contains: dcsrmv(N, 900x900 nnz=4380, alpha=2, A, x incx=1, beta=-3, incy=1) → dst
// output: conjugate gradient: converged, |f - A u| < 1e-8: yes
// output: B = 2*abs(A): shares A's pattern: yes, sum(B) = 2 * sum(|A|): yes
// output: transpose(A) * x == A * x (A is symmetric): yes
// output: A + D: 4381 entries (A has 4380), S(0, 899) = 1
// output contains: 1. spgemm C = α·A·B + β·D
// output contains: different shapes
#include <lz/lz.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

int main() {
  // The 2-D Laplacian on a 30 x 30 grid (the 5-point stencil): 900 unknowns, from triplets.
  const int g = 30, n = g * g;
  std::vector<int> r, c;
  std::vector<double> v;
  auto add = [&](int i, int j, double x) { r.push_back(i), c.push_back(j), v.push_back(x); };
  for (int i = 0; i < g; ++i)
    for (int j = 0; j < g; ++j) {
      const int k = i * g + j;
      add(k, k, 4);
      if (i > 0) add(k, k - g, -1);
      if (i < g - 1) add(k, k + g, -1);
      if (j > 0) add(k, k - 1, -1);
      if (j < g - 1) add(k, k + 1, -1);
    }
  const auto A = lz::csr_matrix<double>::from_triplets(n, n, r, c, v);
  std::printf("A: %td x %td, %td stored entries\n", A.rows(), A.cols(), A.nnz());

  // One SpMV, α and β folded, in place.
  lz::vector<double> x = lz::random<double>({n}, 1), y = lz::random<double>({n}, 2);
  std::cout << lz::explain(y, 2 * A * x - 3 * y);
  y = 2 * A * x - 3 * y;

  // Conjugate gradient for A u = f, written as the math reads.
  lz::vector<double> f = lz::ones<double>({n}), u(n), res = f, p = f, Ap(n);
  double rr = lz::dot(res, res);
  for (int it = 0; it < 1000 && std::sqrt(rr) > 1e-10; ++it) {
    Ap = A * p;
    const double alpha = rr / double(lz::dot(p, Ap));
    u += alpha * p;
    res -= alpha * Ap;
    const double rr_next = lz::dot(res, res);
    p = res + (rr_next / rr) * p;
    rr = rr_next;
  }
  res = f - A * u; // the true residual: f into res, then one SpMV with α = -1, β = 1
  std::printf("conjugate gradient: converged, |f - A u| < 1e-8: %s\n",
              double(lz::norm2(res)) < 1e-8 ? "yes" : "no");

  // Elementwise on the stored values: one loop; B shares A's pattern (no index copied).
  lz::csr_matrix<double> B = 2 * lz::abs(A);
  std::printf("B = 2*abs(A): shares A's pattern: %s, sum(B) = 2 * sum(|A|): %s\n",
              B.shares_pattern_with(A) ? "yes" : "no",
              double(lz::sum(B)) == 2 * double(lz::sum(lz::abs(A))) ? "yes" : "no");

  // The transpose is a CSC view of the same arrays: a transposed SpMV, no copy.
  lz::vector<double> t = lz::transpose(A) * x, s = A * x;
  std::printf("transpose(A) * x == A * x (A is symmetric): %s\n",
              double(lz::max(lz::abs(t - s))) < 1e-12 ? "yes" : "no");

  // A sparse x sparse product is a sparse result: one SpGEMM, the scalar folded into it.
  lz::csr_matrix<double> A2 = 0.5 * A * A;
  std::cout << lz::explain(A2, 0.5 * A * A);
  std::printf("A2 = 0.5 * A * A: %td entries (A has %td), A2 * x == 0.5 * A * (A * x): %s\n",
              A2.nnz(), A.nnz(),
              double(lz::max(lz::abs(A2 * x - 0.5 * lz::eval(A * lz::eval(A * x))))) < 1e-10
                  ? "yes"
                  : "no");

  // Sparse + sparse: the union of the two patterns (one merge); a product plus a sparse term is
  // one SpGEMM, each row merged with the term's as it is written.
  const auto D = lz::csr_matrix<double>::from_triplets(
      n, n, std::vector<int>{0}, std::vector<int>{n - 1}, std::vector<double>{1});
  lz::csr_matrix<double> S = A + D;
  std::printf("A + D: %td entries (A has %td), S(0, %d) = %g\n", S.nnz(), A.nnz(), n - 1,
              S(0, n - 1));
  S = A * A - 2 * D;
  std::cout << lz::explain(S, A * A - 2 * D);

  // Shapes must agree: anything else is an error naming both, S untouched.
  const lz::csr_matrix<double> W(n, n + 1);
  try {
    S = A + W;
  } catch (const lz::shape_error& e) {
    std::cout << e.what() << "\n";
  }
}
