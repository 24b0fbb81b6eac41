// 02 — products and their surroundings become single BLAS calls; lz::explain shows the plan
// before anything runs.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output contains: 1. dgemm(RowMajor, T, N, m=512, n=128, k=256, alpha=2, A lda=512,
// output: [[ 28  35]
#include <lz/lz.hpp>

#include <iostream>

int main() {
  const lz::index_t m = 512, k = 256, n = 128;
  auto A = lz::random<double>({k, m}, 1);
  auto B = lz::random<double>({k, n}, 2);
  lz::matrix<double> C = lz::random<double>({m, n}, 3);

  // ONE dgemm(T, N, alpha=2, beta=3): no transposed copy of A, no temporary.
  std::cout << lz::explain(C, 2.0 * lz::transpose(A) * B + 3.0 * C) << "\n";
  C = 2.0 * lz::transpose(A) * B + 3.0 * C;

  // y = A*x + y is one in-place dgemv(beta=1); A*B*x is reordered to A*(B*x): two dgemv.
  auto M = lz::random<double>({m, m}, 4);
  lz::vector<double> x = lz::random<double>({m}, 5), y(m);
  std::cout << lz::explain(y, M * x + y) << "\n";
  std::cout << lz::explain(y, M * M * x) << "\n";

  // A bias + ReLU epilogue: the product lands in the destination, then one in-place pass.
  lz::vector<double> bias = lz::random<double>({n}, 6);
  lz::matrix<double> D(m, n);
  std::cout << lz::explain(D,
                           lz::maximum(lz::transpose(A) * B + lz::broadcast_to(bias, {m, n}), 0.0))
            << "\n";

  // Integer products run lazuli's own blocked kernel, exactly.
  auto I = lz::random<int>({4, 3}, 7, lz::integers{-5, 6});
  auto J = lz::random<int>({3, 2}, 8, lz::integers{-5, 6});
  lz::matrix<int> K = I * J;
  std::cout << "I * J (int, exact) =\n" << K << "\n";
}
