// The error paths of the headers that format shapes, compiled once: a user's file only calls
// them (layout/layout.hpp, layout/slice.hpp, tensor.hpp, evaluate.hpp, expr/matmul.hpp,
// ops/reductions.hpp). The messages are part of the interface (docs/errors.md,
// tests/reliability/error_catalogue_test.cpp).
#include <lz/expr/lifetime.hpp>
#include <lz/expr/matmul.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/ops/reductions.hpp>

namespace lz::detail {

std::string dims_text(const index_t* s, std::size_t rank) {
  std::string out = "(";
  for (std::size_t k = 0; k < rank; ++k) {
    if (k) out += ',';
    out += std::to_string(s[k]);
  }
  if (rank == 1) out += ',';
  return out + ")";
}

std::string layout_text(const index_t* extents, const index_t* strides, std::size_t rank) {
  return dims_text(extents, rank) + ":" + dims_text(strides, rank);
}

void throw_overflow(const char* what) {
  throw layout_error(std::string("lz: ") + what + " overflows std::ptrdiff_t");
}

void throw_negative_extent(const index_t* extents, std::size_t rank) {
  throw layout_error("lz: negative extent in shape " + dims_text(extents, rank));
}

void throw_layout_overlap(const index_t* extents, const index_t* strides, std::size_t rank) {
  throw layout_error("lz: writable layout " + layout_text(extents, strides, rank) +
                     " maps several indices to the same element");
}

void throw_broadcast_mismatch(const index_t* a, const index_t* b, std::size_t rank,
                              const char* op) {
  throw shape_error("lz: shapes " + dims_text(a, rank) + " and " + dims_text(b, rank) +
                    " do not match in '" + op + "'");
}

void throw_assign_shape(const index_t* from, const index_t* to, std::size_t rank, const char* op) {
  throw shape_error("lz: cannot assign shape " + dims_text(from, rank) +
                    " to a destination of shape " + dims_text(to, rank) + " in '" + op + "'");
}

void throw_result_overflow(const char* op, const index_t* s, std::size_t rank) {
  throw layout_error(std::string("lz: the result of '") + op + "' has shape " + dims_text(s, rank) +
                     ", whose size overflows std::ptrdiff_t");
}

void throw_index(index_t i, index_t n, std::size_t dim) {
  throw std::out_of_range("lz: index " + std::to_string(i) + " out of range for extent " +
                          std::to_string(n) + " in dimension " + std::to_string(dim));
}

void throw_range(index_t begin, index_t end, index_t step, index_t n, std::size_t dim) {
  throw std::out_of_range("lz: range(" + std::to_string(begin) + ", " + std::to_string(end) + ", " +
                          std::to_string(step) + ") out of bounds for extent " + std::to_string(n) +
                          " in dimension " + std::to_string(dim));
}

void throw_bad_permutation(std::size_t rank) {
  throw std::invalid_argument("lz: permute needs each of the " + std::to_string(rank) +
                              " dimensions exactly once");
}

void throw_broadcast_to(const index_t* from, std::size_t rf, const index_t* to, std::size_t rt) {
  throw shape_error("lz: cannot broadcast shape " + dims_text(from, rf) + " to " +
                    dims_text(to, rt) + " in 'broadcast_to'");
}

void throw_reshape_size(const index_t* from, std::size_t rf, index_t size, const index_t* to,
                        std::size_t rt) {
  throw shape_error("lz: cannot reshape " + dims_text(from, rf) + " (" + std::to_string(size) +
                    " elements) to " + dims_text(to, rt));
}

void throw_reshape_copy(const index_t* extents, const index_t* strides, std::size_t rf,
                        const index_t* to, std::size_t rt, std::size_t k) {
  throw layout_error("lz: reshape of layout " + layout_text(extents, strides, rf) + " to " +
                     dims_text(to, rt) + " needs a copy (dimensions " + std::to_string(k) +
                     " and " + std::to_string(k + 1) + " are not contiguous); use lz::eval first");
}

void throw_matmul_inner(const index_t* a, const index_t* b, std::size_t rb) {
  throw shape_error("lz: inner dimensions do not match in matrix product " + dims_text(a, 2) +
                    " * " + dims_text(b, rb));
}

void throw_bad_axis(const char* name, std::size_t axis, std::size_t rank) {
  throw std::out_of_range(std::string("lz: ") + name + " along axis " + std::to_string(axis) +
                          " of a rank-" + std::to_string(rank) + " expression");
}

void throw_ragged(index_t expected, std::size_t depth, std::size_t got) {
  throw shape_error("lz: ragged initializer list: expected " + std::to_string(expected) +
                    " entries at depth " + std::to_string(depth) + ", got " + std::to_string(got));
}

void throw_fixed_list(index_t expected, std::size_t depth, std::size_t got) {
  throw shape_error("lz: initializer list of a fixed-size tensor: expected " +
                    std::to_string(expected) + " entries at depth " + std::to_string(depth) +
                    ", got " + std::to_string(got));
}

void throw_batch_size(index_t got, index_t want) {
  throw shape_error("lz: a batch of " + std::to_string(got) +
                    " items in an expression assigned to "
                    "a batch of " +
                    std::to_string(want) + " items");
}

void throw_singular(const char* call, index_t n) {
  throw linalg_error(std::string(call) + ": the " + std::to_string(n) + "x" + std::to_string(n) +
                     " matrix is singular (determinant 0)");
}

void throw_solve_shape(const char* call, const char* what, const index_t* a, const index_t* b,
                       std::size_t rb) {
  throw shape_error(std::string(call) + ": " + what + ": matrix " + dims_text(a, 2) +
                    ", right-hand side " + dims_text(b, rb));
}

void throw_sparse_pattern(const char* op, const index_t* a, const index_t* b) {
  throw shape_error(std::string("lz: sparse ") + op + ": the operands " + dims_text(a, 2) +
                    " and " + dims_text(b, 2) +
                    " have different patterns (elementwise operations on sparse matrices need "
                    "the same stored entries)");
}

void throw_sparse_shapes(const char* op, const index_t* a, const index_t* b) {
  throw shape_error(std::string("lz: sparse ") + op + ": the operands have different shapes, " +
                    dims_text(a, 2) + " and " + dims_text(b, 2));
}

void throw_bad_pattern(const char* call, const char* what, index_t row) {
  throw layout_error(std::string(call) + ": invalid CSR arrays: " + what +
                     (row >= 0 ? " (row " + std::to_string(row) + ")" : std::string()));
}

void throw_index_overflow(const char* call, const char* what, index_t v, int bits) {
  throw layout_error(std::string(call) + ": " + what + " = " + std::to_string(v) +
                     (v < 0 ? " is negative"
                            : " does not fit the " + std::to_string(bits) +
                                  "-bit index type (use std::int64_t indices)"));
}

void throw_null_data(const index_t* extents, std::size_t rank) {
  throw layout_error("lz: null pointer with non-empty shape " + dims_text(extents, rank));
}

void throw_empty_reduction(const char* name, const index_t* s, std::size_t rank) {
  throw shape_error(std::string("lz: ") + name + " of an empty tensor of shape " +
                    dims_text(s, rank) + " has no identity");
}

void throw_dead_operand(const index_t* s, std::size_t rank) {
  throw lifetime_error("lz: an expression reads a tensor of shape " + dims_text(s, rank) +
                       " that was destroyed or reallocated after the expression was built (it "
                       "outlived its operands); evaluate it while they live, or return "
                       "lz::eval(expression) (docs/errors.md, \"Lifetimes\")");
}

void check_alive(std::uint64_t serial, const index_t* s, std::size_t rank) {
  if (serial != 0 && !lifetime_alive(serial)) throw_dead_operand(s, rank);
}

} // namespace lz::detail
