// Narrowing is explicit: an assignment whose expression's element type does not fit the
// destination's (double to float, floating to integer, int64 to int32, complex to real) is a
// compile error naming lz::cast; widening stays implicit. tests/CMakeLists.txt compiles this
// file with -fsyntax-only: with LZ_CASE_NONE it must compile; with LZ_CASE_ALL each of the 5
// functions below must produce exactly one error (the static_assert, no cascade).
#include <lz/lz.hpp>

#include <complex>
#include <cstdint>

#if defined(LZ_CASE_NONE)
void widening(const lz::vector<double>& x, const lz::vector<float>& f,
              const lz::vector<std::int32_t>& i, lz::vector<std::int64_t>& l) {
  lz::vector<double> d = 2.0 * f;           // float to double
  l = i + i;                                // int32 to int64
  d = lz::cast<double>(i) * 0.5;            // explicit
  lz::vector<float> g = lz::cast<float>(x); // explicit
  lz::vector<float> h = f * 2.0;            // scalars take the tensor's type: float
  g += f;
  (void)d, (void)g, (void)h;
}
#elif defined(LZ_CASE_ALL)
void double_to_float(const lz::vector<double>& x) { lz::vector<float> f = 2.0 * x; }
void floating_to_int(const lz::vector<double>& x, lz::vector<int>& i) { i = x + 0.5; }
void int64_to_int32(const lz::vector<std::int64_t>& l, lz::vector<std::int32_t>& i) { i += l; }
void complex_to_real(const lz::vector<std::complex<double>>& c, lz::vector<double>& d) { d = c; }
void policy_assign(const lz::vector<double>& x, lz::vector<float>& f) {
  lz::assign(lz::seq, f, -x);
}
#endif

int main() { return 0; }
