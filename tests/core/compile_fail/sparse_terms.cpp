// Sparse sums and products (and functions of them) are computed at assignment; the one thing
// that cannot be done to them before is a transpose view (there are no arrays to view yet): a
// compile error with lazuli's one-line message asking to assign the term to an lz::csr_matrix
// first. Everything else below LZ_CASE_NONE compiles (and is tested in
// tests/fusion/sparse_computed_test.cpp). tests/CMakeLists.txt compiles this file with
// -fsyntax-only: with LZ_CASE_NONE it must compile; with LZ_CASE_ALL each of the 3 functions
// below must produce exactly one error (a static_assert, no cascade).
#include <lz/lz.hpp>
#include <lz/sparse.hpp>

using S = lz::csr_matrix<double>;

#if defined(LZ_CASE_NONE)
void fine(const S& A, const S& B, const lz::matrix<double>& D, lz::matrix<double>& M, S& C,
          lz::vector<double>& y, const lz::vector<double>& x) {
  M = A * B + D; // one csrmultd into M's rows
  M = D - 2.0 * lz::transpose(A) * lz::abs(B);
  C = A + B;
  C = lz::abs(C);               // assigned first, then a function of its values
  C = lz::abs(A + B);           // the sum, then one loop over its values
  C = 2 * lz::sqrt(A * B) - A;  // composed, then merged
  M = (A + B) * A + D;          // the sum settled, then one csrmultd
  y = lz::abs(A + B) * x;       // settled, then one SpMV
  M = lz::transpose(C) * B + D; // a computed matrix's transpose is a view
}
#elif defined(LZ_CASE_ALL)
// "transpose of a sparse sum or product: assign it to an lz::csr_matrix first"
void transpose_of_sum(const S& A, const S& B) { (void)lz::transpose(A + B); }
void transpose_of_product(const S& A, const S& B) { (void)lz::transpose(2 * A * B); }
void transpose_of_function(const S& A, const S& B) { (void)lz::transpose(lz::abs(A - B)); }
#endif

int main() { return 0; }
