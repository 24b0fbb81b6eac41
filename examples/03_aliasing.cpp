// 03 — aliasing done right, with no noalias(): the library compares memory ranges and strides
// and uses a temporary only when an operand reads the destination at other positions.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: shift right by one        temporaries: 1  [1. 1. 2. 3. 4. 5. 6. 7.]
// output: evens = odds              temporaries: 0  [1. 1. 3. 3. 5. 5. 7. 7.]
#include <lz/lz.hpp>

#include <iostream>

int main() {
  lz::vector<double> x = lz::iota<double>(8), y = lz::ones<double>({8});

  lz::reset_stats();
  x = x + y; // same position: no temporary
  std::cout << "x = x + y                 temporaries: " << lz::stats().temporaries << "  " << x
            << "\n";

  lz::reset_stats();
  x(lz::range(1, 8)) = x(lz::range(0, 7)); // shifted: needs one
  std::cout << "shift right by one        temporaries: " << lz::stats().temporaries << "  " << x
            << "\n";

  lz::reset_stats();
  x(lz::range(0, 8, 2)) = x(lz::range(1, 8, 2)); // interleaved: never the same element
  std::cout << "evens = odds              temporaries: " << lz::stats().temporaries << "  " << x
            << "\n";

  lz::matrix<double> A{{1, 2}, {3, 4}}, B{{10, 20}, {30, 40}};
  lz::reset_stats();
  A = lz::transpose(A) + B; // reads A transposed while writing it
  std::cout << "A = transpose(A) + B      temporaries: " << lz::stats().temporaries << "\n"
            << A << "\n";

  // Products: C = A*C reads C while writing it; C = C + A*B is the in-place beta form.
  lz::matrix<double> C{{1, 0}, {0, 1}};
  std::cout << lz::explain(C, A * C) << "\n";
  std::cout << lz::explain(C, C + A * B) << "\n";
}
