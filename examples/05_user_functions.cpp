// 05 — your own elementwise functions fuse into the same single loop as built-in ones, and
// generic algorithms are written once against lz::expression.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: plan: dst(7,):(1,) = (map((2 * t(7,))) + 1)
// output: column norms of A = [5. 1.]
// output: max of 2x + 1 = 7
#include <lz/lz.hpp>

#include <algorithm>
#include <iostream>

// A scalar function; written generically, it also accepts xsimd batches and vectorizes.
struct softplus {
  template <class T>
  T operator()(const T& x) const {
    using std::exp, std::log1p; // xsimd's overloads are found for batches
    return log1p(exp(x));
  }
};

// A generic algorithm: any expression of any rank, evaluated in one pass, nothing stored.
template <lz::expression E>
double rms(const E& e) {
  return std::sqrt(double(lz::mean(lz::square(e))));
}

// Generic code can ask for ranks and element types at compile time.
template <lz::matrix_expression M>
lz::vector<lz::value_t<M>> column_norms(const M& m) {
  return lz::sqrt(lz::sum(lz::square(m), 0));
}

int main() {
  lz::vector<double> x = lz::linspace(-3.0, 3.0, 7);
  lz::vector<double> y = lz::map(softplus{}, 2.0 * x) + 1.0; // one fused loop:
  std::cout << lz::explain(y, lz::map(softplus{}, 2.0 * x) + 1.0);
  std::cout << "softplus(2x) + 1 = " << y << "\n";

  // A lambda with two operands works too (scalar-only: it runs as a fused scalar loop).
  auto clip_add = [](double a, double b) { return std::min(a + b, 2.0); };
  std::cout << "min(x + y, 2)    = " << lz::eval(lz::map(clip_add, x, y)) << "\n";

  std::cout << "rms(x) = " << rms(x) << ", rms(x - mean(x)) = " << rms(x - lz::mean(x)) << "\n";
  lz::matrix<double> A{{3, 0}, {4, 1}};
  std::cout << "column norms of A = " << column_norms(A) << "\n";

  // Expressions are random-access ranges: standard algorithms run on them without storage.
  std::cout << "max of 2x + 1 = " << std::ranges::max(2.0 * x + 1.0) << "\n";
}
