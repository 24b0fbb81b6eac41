// Clang's lifetime analysis sees views that outlive their tensor: view(), slicing and the view
// conversion are [[clang::lifetimebound]] (include/lz/expr/tensor.hpp). tests/CMakeLists.txt
// compiles this file with clang and -Werror=return-stack-address -Werror=dangling: with
// LZ_CASE_NONE (views of tensors that outlive them) it must compile; with LZ_CASE_ALL each of
// the 3 functions below must produce exactly one error.
#include <lz/lz.hpp>

#if defined(LZ_CASE_NONE)
lz::vector_view<double> view_of_parameter(lz::vector<double>& t) { return t.view(); }
lz::tensor_view<const double, 1> slice_of_parameter(const lz::vector<double>& t) {
  return t(lz::range(0, 2));
}
double local_use() {
  lz::vector<double> t(4);
  auto v = t.view();
  return v(0);
}
#elif defined(LZ_CASE_ALL)
lz::vector_view<double> view_of_local() {
  lz::vector<double> t(4);
  return t.view();
}
lz::tensor_view<const double, 1> slice_of_local() {
  const lz::vector<double> t(4);
  return t(lz::range(0, 2));
}
lz::tensor_view<double, 1> column_of_local() {
  lz::matrix<double> t(4, 4);
  return t(lz::all, 1);
}
#endif

int main() { return 0; }
