// Sparse terms whose pattern is only known at assignment cannot be used as values before it: a
// function of a sparse sum or product, or a product of sparse sums or products added to a dense
// matrix, is a compile error with lazuli's one-line message asking to assign the inner term to
// an lz::csr_matrix first. tests/CMakeLists.txt compiles this file with -fsyntax-only: with
// LZ_CASE_NONE it must compile; with LZ_CASE_ALL each of the 3 functions below must produce
// exactly one error (a static_assert, no cascade).
#include <lz/lz.hpp>
#include <lz/sparse.hpp>

using S = lz::csr_matrix<double>;

#if defined(LZ_CASE_NONE)
void fine(const S& A, const S& B, const lz::matrix<double>& D, lz::matrix<double>& M, S& C) {
  M = A * B + D; // one csrmultd into M's rows
  M = D - 2.0 * lz::transpose(A) * lz::abs(B);
  C = A + B;
  C = lz::abs(C); // assigned first, then a function of its values
  M = C * B + D;
}
#elif defined(LZ_CASE_ALL)
// "a product of sparse sums or products plus a dense matrix: assign the inner sum or product"
void sum_times(const S& A, const S& B, const lz::matrix<double>& D) { (void)((A + B) * A + D); }
// "abs of a sparse sum or product: assign it to an lz::csr_matrix first"
void abs_of_sum(const S& A, const S& B) { (void)lz::abs(A + B); }
void sqrt_of_product(const S& A, const S& B) { (void)lz::sqrt(A * B); }
#endif

int main() { return 0; }
