// Sparse terms compose freely until assignment (sums, products, functions of them, their
// transposes; tests/fusion/sparse_computed_test.cpp runs them); what does not compile is mixing
// index or element types, each a one-line static_assert naming the fix. tests/CMakeLists.txt
// compiles this file with -fsyntax-only: with LZ_CASE_NONE it must compile; with LZ_CASE_ALL each
// of the 3 functions below must produce exactly one error (no cascade).
#include <lz/lz.hpp>
#include <lz/sparse.hpp>

using S = lz::csr_matrix<double>;

#if defined(LZ_CASE_NONE)
void fine(const S& A, const S& B, const lz::matrix<double>& D, lz::matrix<double>& M, S& C,
          lz::vector<double>& y, const lz::vector<double>& x) {
  M = A * B + D; // one csrmultd into M's rows
  M = D - 2.0 * lz::transpose(A) * lz::abs(B);
  C = lz::abs(A + B);                              // the sum, then one loop over its values
  C = 2 * lz::sqrt(A * B) - A;                     // composed, then merged
  M = (A + B) * A + D;                             // the sum settled, then one csrmultd
  y = lz::abs(A + B) * x;                          // one SpMV over the merge
  y = lz::transpose(A + B) * x;                    // pushed down: two transposed SpMVs
  C = lz::transpose(lz::abs(A * B));               // f(Bᵀ·Aᵀ)
  M = lz::transpose(2 * A) * lz::transpose(B) + D; // one csrmultd, both operands transposed
}
#elif defined(LZ_CASE_ALL)
// "two sparse operands with different index types"
void index_types(const S& A, const lz::csr_matrix<double, std::int64_t>& B) { (void)(A + B); }
// "two sparse operands with different element types (convert ... with lz::cast<T>)"
void element_types(const S& A, const lz::csr_matrix<float>& B) { (void)(A * B); }
// "a sparse product's operands must have the same element type (convert one with lz::cast<T>)"
void dense_operand_type(const S& A, const S& B, const lz::vector<float>& x) {
  (void)(lz::abs(A + B) * x);
}
#endif

int main() { return 0; }
