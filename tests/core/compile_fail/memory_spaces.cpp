// Memory spaces are a set with room for more than host and device: a leaf of a third space
// (here a test-only space, the next free bit) mixed with host memory is a compile error with
// lazuli's one-line message, never a silent evaluation. tests/CMakeLists.txt compiles this file
// with -fsyntax-only: with LZ_CASE_NONE it must compile; with LZ_CASE_ALL each of the 4
// functions below must produce exactly one error (a static_assert, no cascade).
#include <lz/lz.hpp>

// A read-only vector that lives in another space (what a distributed backend's leaf declares).
struct remote_vector : lz::tensor_view<const double, 1> {
  static constexpr lz::memory_space lz_space = lz::memory_space{1u << 2};
  using lz::tensor_view<const double, 1>::tensor_view;
};
static_assert(lz::space_v<remote_vector> == lz::memory_space{4});
static_assert(!lz::mixes_spaces(lz::space_v<remote_vector> | lz::memory_space::any));
static_assert(lz::mixes_spaces(lz::space_v<remote_vector> | lz::memory_space::host));

#if defined(LZ_CASE_NONE)
void fine(lz::vector<double>& x, const remote_vector& r) {
  x = 2.0 * x + 1.0;
  (void)(2.0 * r + 1.0); // one space per tree: fine to build
}
#elif defined(LZ_CASE_ALL)
// "lz: an expression mixes memory spaces" / "lz: a product mixes memory spaces"
void plus(lz::vector<double>& x, const remote_vector& r) { (void)(x + r); }
void product(lz::matrix<double>& A, const remote_vector& r) { (void)(A * r); }
// "lz: this expression reads memory outside the host's space"
void assign(lz::vector<double>& x, const remote_vector& r) { x = r * 2.0; }
void lz_assign(lz::vector<double>& x, const remote_vector& r) { lz::assign(lz::seq, x, -r); }
#endif

int main() { return 0; }
