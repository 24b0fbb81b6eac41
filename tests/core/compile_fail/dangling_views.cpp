// Views of temporary tensors dangle when the statement ends (the tensor frees its storage), so
// they are compile errors: view(), slicing and the conversion to a view, on host and device
// tensors. tests/CMakeLists.txt compiles this file with -fsyntax-only: with LZ_CASE_NONE (the
// same operations on tensors kept in variables, and temporaries used within one statement as
// whole expressions) it must compile; with LZ_CASE_ALL each of the 4 functions below must
// produce exactly one error.
#include <lz/lz.hpp>

lz::vector<double> make(lz::index_t n) { return lz::ones<double>({n}); }

#if defined(LZ_CASE_NONE)
double fine(const lz::vector<double>& x) {
  lz::vector<double> t = make(4);
  auto v = t.view();
  auto s = t(lz::range(0, 2));
  lz::tensor_view<const double, 1> c = t;
  lz::vector<double> y = make(4) + x; // a temporary inside an expression: held by value
  return v(0) + s(0) + c(0) + y(0) + double(lz::sum(make(3)));
}
#elif defined(LZ_CASE_ALL)
// "use of deleted function": each line names the deleted rvalue overload
void view_of_temporary() {
  auto v = make(4).view();
  (void)v;
}
void slice_of_temporary() {
  auto s = make(4)(lz::range(0, 2));
  (void)s;
}
void conversion_of_temporary() {
  lz::tensor_view<const double, 1> c = make(4);
  (void)c;
}
void eval_then_view(const lz::vector<double>& x) {
  auto v = lz::eval(x * 2.0).view();
  (void)v;
}
#endif

int main() { return 0; }
