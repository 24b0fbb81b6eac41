// The error catalogue (docs/errors.md): one row per error a user can trigger through the public
// API, each run here. A row checks the exception's type, that its message names what went
// wrong (shapes, strides, indices), and that the destination it was about to write is
// untouched. LZ_PRINT_ERRORS=1 prints the catalogue as the Markdown table docs/errors.md holds
// (so the messages there are the real ones). Rows for the same errors in more situations are
// in tests/core/bad_input_test.cpp.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <lz/interop/std.hpp>
#include <lz/npy.hpp>
#include <lz/sparse.hpp>
#include <lz/sparse_io.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <new>

namespace {

using namespace lz_test;
using lz::index_t;

std::string type_of(const std::exception& e) {
  if (dynamic_cast<const lz::shape_error*>(&e)) return "lz::shape_error";
  if (dynamic_cast<const lz::layout_error*>(&e)) return "lz::layout_error";
  if (dynamic_cast<const lz::io_error*>(&e)) return "lz::io_error";
  if (dynamic_cast<const lz::device_error*>(&e)) return "lz::device_error";
  if (dynamic_cast<const std::out_of_range*>(&e)) return "std::out_of_range";
  if (dynamic_cast<const std::length_error*>(&e)) return "std::length_error";
  if (dynamic_cast<const std::invalid_argument*>(&e)) return "std::invalid_argument";
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "std::bad_alloc";
  if (dynamic_cast<const lz::linalg_error*>(&e)) return "lz::linalg_error";
  if (dynamic_cast<const std::runtime_error*>(&e)) return "std::runtime_error";
  return "std::exception";
}

struct row {
  std::string what;               ///< the mistake
  std::string type;               ///< expected exception type
  std::vector<std::string> parts; ///< the message must name these
  std::function<void()> trigger;  ///< makes the mistake (writes only into `dst` if anything)
};

// Every row writes (if at all) into this destination; it must be unchanged afterwards.
lz::tensor<double, 2> dst = random_tensor<double, 2>({3, 4}, 0xe7);

std::vector<row> catalogue() {
  using lz::range;
  static lz::tensor<double, 2> a = random_tensor<double, 2>({3, 4}, 1), b(lz::shape_t<2>{4, 3}),
                               sq = random_tensor<double, 2>({4, 4}, 2);
  static lz::tensor<double, 1> v = random_tensor<double, 1>({5}, 3);
  static lz::tensor<double, 2> empty(lz::shape_t<2>{0, 4});
  static std::vector<double> storage(12);
  const index_t big = index_t(1) << 40;
  return {
      {"elementwise operands whose shapes do not broadcast (every operator: + - * / == < && ...)",
       "lz::shape_error",
       {"(3,4)", "(4,3)", "'+'"},
       [] { dst = a + b; }},
      {"a function of operands whose shapes do not broadcast (lz::maximum, lz::where, lz::map)",
       "lz::shape_error",
       {"(3,4)", "(4,3)", "maximum"},
       [] { dst = lz::maximum(a, b); }},
      {"assigning an expression to a destination of another shape",
       "lz::shape_error",
       {"(4,4)", "(3,4)"},
       [] { lz::assign(lz::seq, dst, sq * 2.0); }},
      {"compound assignment of another shape",
       "lz::shape_error",
       {"(4,4)", "(3,4)"},
       [] { dst += sq; }},
      {"matrix product with wrong inner dimensions",
       "lz::shape_error",
       {"inner dimensions", "(3,4)", "(3,4)"},
       [] { dst = lz::eval(a * a); }},
      {"matrix-vector product with wrong inner dimensions",
       "lz::shape_error",
       {"inner dimensions do not match in matrix product (3,4) * (5,)"},
       [] { (void)lz::eval(a * v); }},
      {"lz::dot of different shapes",
       "lz::shape_error",
       {"(3,4)", "(4,3)", "'dot'"},
       [] { (void)lz::dot(a, b).value(); }},
      {"min/max/argmin/argmax of an empty tensor",
       "lz::shape_error",
       {"min", "(0,4)"},
       [] { (void)lz::min(empty).value(); }},
      {"reduction along an axis that does not exist",
       "std::out_of_range",
       {"sum along axis 2 of a rank-2 expression"},
       [] { (void)lz::sum(a, 2); }},
      {"min along an axis of extent 0 (some outputs have nothing to reduce)",
       "lz::shape_error",
       {"max", "(0,4)"},
       [] { (void)lz::eval(lz::max(empty, 0)); }},
      {"element access out of range: at()",
       "std::out_of_range",
       {"index 3", "extent 3"},
       [] { dst.at(3, 0) = 1; }},
      {"slice out of range",
       "std::out_of_range",
       {"range(0, 5, 1) out of bounds for extent 4 in dimension 1"},
       [] { dst(range(0, 2), range(0, 5)) = 1.0; }},
      {"slice with step 0",
       "std::invalid_argument",
       {"step must not be 0"},
       [] { dst(range(0, 2, 0), lz::all) = 1.0; }},
      {"permutation that is not one",
       "std::invalid_argument",
       {"permute needs each of the 2 dimensions exactly once"},
       [] {
         (void)lz::permute(a, {0, 0});
       }},
      {"broadcast to an incompatible shape",
       "lz::shape_error",
       {"cannot broadcast shape (5,) to (3,4) in 'broadcast_to'"},
       [] {
         dst = lz::broadcast_to(v, {3, 4});
       }},
      {"reshape to another size",
       "lz::shape_error",
       {"cannot reshape (3,4) (12 elements) to (5,)"},
       [] { (void)lz::reshape(dst, {5}); }},
      {"reshape of a strided view that would need a copy",
       "lz::layout_error",
       {"reshape of layout (3,3):(4,1) to (9,) needs a copy (dimensions 0 and 1"},
       [] { (void)lz::reshape(dst(lz::all, range(0, 3)), {9}); }},
      {"writable view whose elements overlap",
       "lz::layout_error",
       {"writable", "(3,4):(1,1)"},
       [] {
         lz::adopt(dst.data(), {3, 4}, {1, 1}) = 0.0;
       }},
      {"negative extent",
       "lz::layout_error",
       {"negative extent", "(3,-4)"},
       [] {
         lz::adopt(dst.data(), {3, -4}, {4, 1}) = 0.0;
       }},
      {"sizes whose product overflows",
       "lz::layout_error",
       {"overflows"},
       [big] {
         (void)lz::tensor<double, 3>(lz::shape_t<3>{big, big, 4});
       }},
      {"elementwise result whose broadcast size overflows",
       "lz::layout_error",
       {"'+'", "overflow"},
       [big] {
         (void)(lz::broadcast_to(lz::adopt(dst.data(), {1, 1}), {big, 1}) +
                lz::broadcast_to(lz::adopt(dst.data(), {1, 1}), {1, big}));
       }},
      {"allocation larger than memory",
       "std::bad_alloc",
       {},
       [] { (void)lz::tensor<double, 1>(lz::shape_t<1>{index_t(1) << 58}); }},
      {"adopting a null pointer with a non-empty shape",
       "lz::layout_error",
       {"null pointer with non-empty shape (3,4)"},
       [] {
         lz::adopt(static_cast<double*>(nullptr), {3, 4}) = 0.0;
       }},
      {"owning tensor with negative strides",
       "lz::layout_error",
       {"non-negative strides"},
       [] {
         (void)lz::tensor<double, 2>(lz::strided_layout<2>{{3, 4}, {-4, 1}}, lz::uninitialized);
       }},
      {"ragged initializer list",
       "lz::shape_error",
       {"ragged initializer list: expected 2 entries at depth 1, got 1"},
       [] {
         (void)lz::tensor<double, 2>{{1.0, 2.0}, {3.0}};
       }},
      {"a fixed-size tensor from an initializer list of another length",
       "lz::shape_error",
       {"fixed-size tensor", "expected 2 entries at depth 1, got 1"},
       [] {
         (void)lz::matrix2d{{1.0, 2.0}, {3.0}};
       }},
      {"a dynamic expression of another shape assigned to a fixed-size tensor",
       "lz::shape_error",
       {"(3,4)", "(4,4)"},
       [] {
         static lz::matrix4d f;
         f = a;
       }},
      {"lz::inverse of a singular fixed-size matrix",
       "lz::linalg_error",
       {"lz::inverse", "4x4", "singular"},
       [] { (void)lz::inverse(lz::matrix4d()); }},
      {"lz::solve, inv(A) * B, lz::inv or lz::lu of a singular matrix",
       "lz::linalg_error",
       {"lz::solve", "dgetrf", "3x3", "singular", "info 1"},
       [] {
         dst = lz::solve(lz::tensor<double, 2>(lz::zeros<double>({3, 3})), a);
       }},
      {"lz::solve(lz::sympd(A), b) or lz::cholesky of a matrix that is not positive definite",
       "lz::linalg_error",
       {"lz::solve", "dpotrf", "not positive definite", "order 1"},
       [] {
         dst = lz::solve(lz::sympd(-lz::tensor<double, 2>(lz::ones<double>({3, 3}))), a);
       }},
      {"a solver whose matrix is not square or whose rows differ from the right-hand side's",
       "lz::shape_error",
       {"lz::solve", "(4,4)", "(3,4)"},
       [] { dst = lz::solve(sq, a); }},
      {"a sparse matrix times a dense operand with wrong inner dimensions",
       "lz::shape_error",
       {"inner dimensions", "(3,5)", "(3,4)"},
       [] {
         static const auto S =
             lz::csr_matrix<double>::from_dense(lz::eval(lz::ones<double>({3, 5})));
         dst = S * a;
       }},
      {"sparse matrices of different shapes added (A + B)",
       "lz::shape_error",
       {"sparse +", "different shapes", "(3,4)", "(4,3)"},
       [] {
         static const auto A = lz::csr_matrix<double>::from_dense(a);
         static const lz::csr_matrix<double> B(4, 3);
         (void)(A + B);
       }},
      {"adopting CSR arrays that are malformed (offsets decreasing, a column out of range, "
       "unsorted)",
       "lz::layout_error",
       {"lz::adopt_csr", "invalid CSR arrays", "row 1"},
       [] {
         static int rp[] = {0, 2, 1}, ci[] = {0, 1};
         static double v[] = {1, 2};
         (void)lz::adopt_csr(2, 2, 2, rp, ci, v);
       }},
      {"a sparse matrix from triplets with an index outside its shape",
       "std::out_of_range",
       {"lz::csr_matrix::from_triplets", "triplet 1", "(3, 0)"},
       [] {
         static const std::vector<int> r{0, 3}, c{0, 0};
         static const std::vector<double> v{1, 2};
         (void)lz::csr_matrix<double>::from_triplets(3, 3, r, c, v);
       }},
      {"a sparse matrix whose size does not fit its index type",
       "lz::layout_error",
       {"lz::csr_matrix", "rows = 4294967296", "32-bit index type", "std::int64_t"},
       [] { (void)lz::csr_matrix<double>(index_t(1) << 32, 2); }},
      {"lz::random integers with low >= high",
       "std::invalid_argument",
       {"low < high"},
       [] {
         (void)lz::random<int>({4}, 1, lz::integers{3, 3});
       }},
      {"adopting a std::vector as a shape of another size",
       "lz::shape_error",
       {"12 elements", "(5,)"},
       [] { (void)lz::adopt(storage, {5}, lz::layout_right); }},
      {"loading a .npy file that does not exist",
       "lz::io_error",
       {"missing.npy"},
       [] { (void)lz::load_npy<double, 2>("/nonexistent/missing.npy"); }},
      {"reading a malformed Matrix Market file (an index out of range, a truncated file, a bad "
       "banner or size line)",
       "lz::io_error",
       {"lz::read_matrix_market", "bad.mtx", "line 3"},
       [] {
         const auto path = std::filesystem::temp_directory_path() / "bad.mtx";
         std::FILE* f = std::fopen(path.c_str(), "w");
         std::fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.5\n", f);
         std::fclose(f);
         (void)lz::read_matrix_market<double>(path);
       }},
      {"loading a SciPy .npz file that is missing, not a CSR archive or corrupt",
       "lz::io_error",
       {"lz::load_npz", "missing.npz"},
       [] { (void)lz::load_npz<double>("/nonexistent/missing.npz"); }},
      {"loading a tuning file that does not exist",
       "std::runtime_error",
       {"cannot read"},
       [] { (void)lz::load_tuning("/nonexistent/lz.cfg"); }},
  };
}

BOOST_AUTO_TEST_CASE(every_catalogued_error_has_its_type_message_and_leaves_dst_untouched) {
  const lz::tensor<double, 2> before = dst;
  const bool print = std::getenv("LZ_PRINT_ERRORS") != nullptr;
  if (print) std::printf("| mistake | exception | message |\n|---|---|---|\n");
  for (const row& r : catalogue()) {
    std::string type, msg;
    try {
      r.trigger();
      BOOST_ERROR(r.what << ": nothing thrown");
      continue;
    } catch (const std::exception& e) {
      type = type_of(e);
      msg = e.what();
    }
    BOOST_TEST(type == r.type, r.what << ": " << type << " (" << msg << ")");
    for (const auto& p : r.parts)
      BOOST_TEST(msg.find(p) != std::string::npos, r.what << ": \"" << msg << "\" lacks " << p);
    BOOST_TEST(std::memcmp(dst.data(), before.data(), sizeof(double) * 12) == 0,
               r.what << ": the destination changed");
    if (print) std::printf("| %s | `%s` | `%s` |\n", r.what.c_str(), type.c_str(), msg.c_str());
  }
}

} // namespace
