// 01 — views, slicing and broadcasting: none of them copies; each prints its layout.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: reversed   (4,):(-1,) [4. 3. 2. 1.]
// output: bias as 3x4 (3,4):(0,1)
// output contains: softmax row 0 [0.09003057 0.24472847 0.66524096], row 1 [0.33333333
#include <lz/lz.hpp>

#include <iostream>

int main() {
  lz::matrix<double> A{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  std::cout << "A " << A.layout() << "\n" << A << "\n";

  auto T = lz::transpose(A);                           // strides swap
  auto even_cols = A(lz::all, lz::range(0, 4, 2));     // every second column
  auto reversed = lz::row(A, 0)(lz::range(3, -1, -1)); // a row, backwards
  auto d = lz::diagonal(A);                            // stride = row stride + 1
  std::cout << "transpose  " << T.layout() << "\n"
            << "even cols  " << even_cols.layout() << " " << even_cols << "\n"
            << "reversed   " << reversed.layout() << " " << reversed << "\n"
            << "diagonal   " << d.layout() << " " << d << "\n";

  // Broadcasting: extent-1 dimensions stretch (NumPy's rule); across ranks it is explicit.
  lz::vector<double> bias{10, 20, 30, 40};
  auto B = lz::broadcast_to(bias, {3, 4}); // stride 0 along the rows
  std::cout << "bias as 3x4 " << B.layout() << "\n";
  lz::matrix<double> C = A + B; // one loop; A + bias would not compile (ranks differ)
  std::cout << lz::explain(C, A + B);
  std::cout << "A + bias =\n" << C << "\n";

  // Reductions that keep their axis (extent 1) broadcast back against their operand, as in
  // NumPy's keepdims=True: a row-wise softmax with no transposes.
  lz::matrix<double> X{{1, 2, 3}, {5, 5, 5}};
  auto ex = lz::exp(X - lz::max(X, 1, lz::keepdims)); // (2,3) - (2,1)
  lz::matrix<double> S = ex / lz::sum(ex, 1, lz::keepdims);
  std::cout << "softmax row 0 " << lz::row(S, 0) << ", row 1 " << lz::row(S, 1) << "\n";

  // Views are writable when their tensor is: assignment writes through.
  A(lz::all, lz::range(0, 4, 2)) = 0.0;
  std::cout << "even columns zeroed =\n" << A << "\n";

  // reshape never copies; when the layout cannot be reshaped it says so.
  std::cout << "reshape(A, {2, 6}) " << lz::reshape(A, {2, 6}).layout() << "\n";
  try {
    lz::reshape(T, {12});
  } catch (const lz::layout_error& e) {
    std::cout << "reshape(transpose(A), {12}): " << e.what() << "\n";
  }
}
