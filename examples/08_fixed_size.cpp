// 08 — fixed-size tensors: 4×4 transforms, 3-vectors, small solves. Sizes known at compile time,
// elements on the stack, every expression evaluated inline with its loops unrolled: no plan, no
// BLAS call, no heap allocation (docs/fixed.md). They mix with dynamic tensors both ways.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: moved point: [2. 3. 4. 1.]
// output: heap allocations in 1000 assignments: 0
// output: normal: [0. 0. 1.]  |n| = 1
// output: det(M) = 2, M * inverse(M) == I: yes
// output:      note: no plan object, no BLAS, no heap, no threads (fixed-size operands only)
#include <lz/lz.hpp>

#include <cmath>
#include <iostream>

int main() {
  // A translation by (1, 1, 1) as a homogeneous 4×4 transform, applied to a point.
  lz::matrix4d T{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}};
  lz::vector4d p(1, 2, 3, 1);
  lz::vector4d q = T * p;
  std::cout << "moved point: " << q << "\n";

  // Composing transforms in a loop allocates nothing (lz::stats counts lazuli's allocations).
  lz::matrix4d R = lz::matrix4d::identity(), S = 0.5 * lz::matrix4d::identity() + T;
  lz::reset_stats();
  for (int i = 0; i < 1000; ++i) R = (R * S) / lz::max(lz::abs(R * S)); // aliasing-safe
  std::cout << "heap allocations in 1000 assignments: " << lz::stats().allocations << "\n";

  // 3-vectors: the normal of a triangle.
  lz::vector3d a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  lz::vector3d n = lz::cross(b - a, c - a);
  n = n / lz::norm2(n);
  std::cout << "normal: " << n << "  |n| = " << double(lz::norm2(n)) << "\n";

  // Closed-form determinant and inverse up to 4×4.
  lz::matrix3d M{{2, 0, 0}, {0, 1, 1}, {0, 0, 1}};
  const lz::matrix3d I = M * lz::inverse(M);
  const bool identity = double(lz::max(lz::abs(I - lz::matrix3d::identity()))) < 1e-15;
  std::cout << "det(M) = " << lz::determinant(M)
            << ", M * inverse(M) == I: " << (identity ? "yes" : "no") << "\n";

  // Fixed and dynamic together: a fixed tree into a dynamic matrix, a dynamic one into fixed.
  lz::matrix<double> D = T * T;
  lz::matrix4d F(D + 1.0); // run-time shape check (lz::shape_error on a mismatch)
  std::cout << "dynamic (" << D.rows() << "x" << D.cols() << ") and back: F(0, 3) = " << F(0, 3)
            << "\n";
  std::cout << lz::explain(R, R * S + T);
}
