// 00 — elementwise math and reductions: every assignment is one fused SIMD+TBB pass.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: plan: dst(5,):(1,) = ((2.5 * t(5,)) + sin(t(5,)))
// output: z = [0.84147098 1.46647098 2.09147098 2.71647098 3.34147098]
// output: column sums [5. 7. 9.], row maxima [3. 6.]
// output: sum(A * B) = 30 (matrix product), sum(hadamard(A, A)) = 91 (elementwise)
#include <lz/lz.hpp>

#include <iostream>

int main() {
  lz::vector<double> x = lz::linspace(0.0, 1.0, 5);
  lz::vector<double> y = lz::ones<double>({5});

  auto e = 2.5 * x + lz::sin(y);  // lazy: nothing is computed yet, safe to keep
  lz::vector<double> z = e;       // ONE loop over memory, no temporaries
  std::cout << lz::explain(z, e); // the plan, without running it
  std::cout << "z = " << z << "\n";

  double s = lz::sum(lz::square(x - z)); // one pass, no temporary
  std::cout << "sum((x - z)^2) = " << s << "\n";

  lz::matrix<double> A{{1, 2, 3}, {4, 5, 6}};
  std::cout << "A =\n" << A << "  layout " << A.layout() << "\n";
  std::cout << "transpose(A) layout " << lz::transpose(A).layout() << " (a view, no copy)\n";
  std::cout << "column sums " << lz::sum(A, 0) << ", row maxima " << lz::max(A, 1) << "\n";
  // `*` of two matrices is the matrix product (as in Eigen and Armadillo); the elementwise
  // product is lz::hadamard.
  lz::matrix<double> B{{1, 0}, {0, 1}, {1, 1}};
  std::cout << "sum(A * B) = " << double(lz::sum(A * B))
            << " (matrix product), sum(hadamard(A, A)) = " << double(lz::sum(lz::hadamard(A, A)))
            << " (elementwise)\n";

  A = lz::transpose(lz::eval(lz::transpose(A) * 10.0)); // aliasing handled by the library
  std::cout << "A * 10 =\n" << A << "\n";
}
