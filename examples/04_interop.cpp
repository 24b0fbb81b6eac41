// 04 — interop without copies: a std::vector, an Eigen matrix (column-major) and a NumPy .npy
// file become lazuli tensors; results go back the same way.
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: Eigen 3x2 (3,2):(1,3) (column-major, no copy)
// output: from .npy (2,3):(1,2)
#include <lz/interop/eigen.hpp>
#include <lz/interop/std.hpp>
#include <lz/lz.hpp>
#include <lz/npy.hpp>

#include <Eigen/Dense>
#include <iostream>
#include <vector>

int main() {
  // A std::vector as a 2 x 3 matrix: same memory, writes go through.
  std::vector<double> buf{1, 2, 3, 4, 5, 6};
  auto V = lz::adopt(buf, {2, 3});
  V = V * 10.0;
  std::cout << "vector as (2,3) " << V.layout() << ": buf[5] = " << buf[5] << "\n";

  // An Eigen matrix is column-major: the view keeps its strides, so products take trans flags.
  Eigen::MatrixXd E = Eigen::MatrixXd::Random(3, 2);
  auto Ev = lz::adopt(E);
  std::cout << "Eigen 3x2 " << Ev.layout() << " (column-major, no copy)\n";
  lz::matrix<double> P = V * Ev; // (2,3) * (3,2): one dgemm reading Eigen's memory directly
  std::cout << lz::explain(P, V * Ev);
  Eigen::MatrixXd check = Eigen::Map<Eigen::Matrix<double, 2, 3, Eigen::RowMajor>>(buf.data()) * E;
  std::cout << "max |lazuli - Eigen| = " << (lz::to_eigen(P) - check).cwiseAbs().maxCoeff() << "\n";

  // .npy files: write a Fortran-order (column-major) tensor and read it back.
  lz::matrix<double> F(2, 3, lz::layout_left);
  F = lz::transpose(lz::reshape(lz::iota<double>(6), {3, 2}));
  lz::save_npy("04_interop.npy", F);
  auto G = lz::load_npy<double, 2>("04_interop.npy");
  std::cout << "from .npy " << G.layout() << "\n" << G << "\n";
  std::remove("04_interop.npy");
}
