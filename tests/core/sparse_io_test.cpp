// lz::read_matrix_market / write_matrix_market and lz::load_npz / save_npz: round trips for every
// value and index type, files SciPy itself writes (scipy.io.mmwrite, scipy.sparse.save_npz
// compressed and not, CSC, int64 indices, duplicates, ZIP64) and files lazuli writes read back
// by SciPy, every Matrix Market symmetry and field, and a clear lz::io_error (never a read out of
// bounds) for every kind of malformed file: each truncation and each flipped byte of an archive.
// The SciPy cases are skipped (precondition) where /usr/bin/python3 cannot import SciPy.
#include <boost/test/unit_test.hpp>

#include <lz/npy.hpp>
#include <lz/sparse_io.hpp>
#include <support/python.hpp>

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;
using lz::index_t;
using cf = std::complex<float>;
using cd = std::complex<double>;

namespace {

using lz_test::scratch;

// ---- helpers -----------------------------------------------------------------------------------

fs::path write_text(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::vector<unsigned char> read_bytes(const fs::path& p) {
  std::ifstream s(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(s), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// Runs f, expects lz::io_error whose message names the file and contains every one of `parts`.
template <class F>
void expect_io_error(F&& f, const fs::path& file, std::initializer_list<std::string> parts) {
  try {
    f();
    BOOST_ERROR("no lz::io_error for " << file.filename());
  } catch (const lz::io_error& e) {
    const std::string what = e.what();
    BOOST_TEST_CONTEXT(what) {
      BOOST_TEST(what.find(file.filename().string()) != std::string::npos);
      for (const auto& p : parts) BOOST_TEST(what.find(p) != std::string::npos, "'" << p << "'");
    }
  }
}

template <class T>
T draw(std::mt19937_64& g) {
  std::normal_distribution<double> n(0, 10);
  if constexpr (lz::detail::is_complex_v<T>) {
    using R = typename T::value_type;
    return T(R(n(g)), R(n(g)));
  } else {
    return T(n(g));
  }
}

// A random rows × cols matrix with about `entries` triplets (duplicates summed).
template <class T, class I>
lz::csr_matrix<T, I> random_csr(std::mt19937_64& g, index_t rows, index_t cols, index_t entries) {
  std::vector<I> r, c;
  std::vector<T> v;
  if (rows > 0 && cols > 0)
    for (index_t k = 0; k < entries; ++k) {
      r.push_back(I(index_t(g() % std::uint64_t(rows))));
      c.push_back(I(index_t(g() % std::uint64_t(cols))));
      v.push_back(draw<T>(g));
    }
  return lz::csr_matrix<T, I>::from_triplets(rows, cols, r, c, v);
}

template <class T, class I>
bool same(const lz::csr_matrix<T, I>& a, const lz::csr_matrix<T, I>& b) {
  const auto eq = [](auto x, auto y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  };
  return a.rows() == b.rows() && a.cols() == b.cols() && eq(a.row_ptr(), b.row_ptr()) &&
         eq(a.col_idx(), b.col_idx()) && eq(a.values(), b.values());
}

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, double>) return "f64";
  if constexpr (std::is_same_v<T, cf>) return "c64";
  if constexpr (std::is_same_v<T, cd>) return "c128";
}

template <class F>
void for_each_type(F&& f) {
  f(float{}, std::int32_t{});
  f(float{}, std::int64_t{});
  f(double{}, std::int32_t{});
  f(double{}, std::int64_t{});
  f(cf{}, std::int32_t{});
  f(cf{}, std::int64_t{});
  f(cd{}, std::int32_t{});
  f(cd{}, std::int64_t{});
}

// The dense matrix of rows × cols with the given entries (duplicates summed).
template <class T>
lz::tensor<T, 2> dense(index_t rows, index_t cols,
                       std::initializer_list<std::tuple<index_t, index_t, T>> entries) {
  lz::tensor<T, 2> d(lz::shape_t<2>{rows, cols});
  for (const auto& [i, j, v] : entries) d(i, j) += v;
  return d;
}

template <class T>
bool equal_dense(const lz::tensor<T, 2>& a, const lz::tensor<T, 2>& b) {
  if (a.shape() != b.shape()) return false;
  for (index_t i = 0; i < a.shape()[0]; ++i)
    for (index_t j = 0; j < a.shape()[1]; ++j)
      if (!(a(i, j) == b(i, j))) return false;
  return true;
}

struct scipy_available {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    static const bool ok = std::system((std::string(lz_test::python) +
                                        " -c 'import scipy.sparse, scipy.io' >/dev/null 2>&1")
                                           .c_str()) == 0;
    boost::test_tools::assertion_result r(ok);
    if (!ok)
      r.message() << "/usr/bin/python3 with SciPy is not available (apt install "
                     "python3-scipy)";
    return r;
  }
};

// ---- a minimal ZIP writer for hand-made archives (stored members) ------------------------------

void put(std::vector<unsigned char>& s, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) s.push_back((unsigned char)((v >> (8 * k)) & 0xff));
}

std::vector<unsigned char> npy(const std::string& descr, const std::string& shape, const void* data,
                               std::size_t bytes) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  std::vector<unsigned char> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put(out, dict.size(), 2);
  out.insert(out.end(), dict.begin(), dict.end());
  const auto* p = static_cast<const unsigned char*>(data);
  out.insert(out.end(), p, p + bytes);
  return out;
}

template <class V>
std::vector<unsigned char> npy_vec(const std::string& descr, const std::vector<V>& v) {
  return npy(descr, "(" + std::to_string(v.size()) + ",)", v.data(), v.size() * sizeof(V));
}

std::vector<unsigned char> npy_format_bytes(const std::string& s) { // '|S3'-style 0-d
  return npy("|S" + std::to_string(s.size()), "()", s.data(), s.size());
}

void write_zip(const fs::path& p,
               const std::vector<std::pair<std::string, std::vector<unsigned char>>>& members) {
  std::vector<unsigned char> out, cd;
  for (const auto& [name, data] : members) {
    const std::uint32_t crc = std::uint32_t(crc32(0, data.data(), uInt(data.size())));
    const std::size_t offset = out.size();
    put(out, 0x04034b50, 4);
    put(out, 20, 2);
    put(out, 0, 2);
    put(out, 0, 2);
    put(out, 0, 4);
    put(out, crc, 4);
    put(out, data.size(), 4);
    put(out, data.size(), 4);
    put(out, name.size(), 2);
    put(out, 0, 2);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());
    put(cd, 0x02014b50, 4);
    put(cd, 20, 2);
    put(cd, 20, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 4);
    put(cd, crc, 4);
    put(cd, data.size(), 4);
    put(cd, data.size(), 4);
    put(cd, name.size(), 2);
    put(cd, 0, 8); // extra, comment, disk, internal attributes
    put(cd, 0, 4); // external attributes
    put(cd, offset, 4);
    cd.insert(cd.end(), name.begin(), name.end());
  }
  const std::size_t cd_offset = out.size();
  out.insert(out.end(), cd.begin(), cd.end());
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, members.size(), 2);
  put(out, members.size(), 2);
  put(out, cd.size(), 4);
  put(out, cd_offset, 4);
  put(out, 0, 2);
  write_bytes(p, out);
}

// The members of a scipy CSR .npz of a 2 × 3 matrix; each test replaces one.
struct npz_parts {
  std::vector<std::int32_t> indptr = {0, 2, 3}, indices = {0, 2, 1};
  std::vector<double> data = {1.5, -2, 4};
  std::vector<std::int64_t> shape = {2, 3};
  std::string format = "csr";
  std::vector<std::pair<std::string, std::vector<unsigned char>>> members() const {
    return {{"indices.npy", npy_vec("<i4", indices)},
            {"indptr.npy", npy_vec("<i4", indptr)},
            {"format.npy", npy_format_bytes(format)},
            {"shape.npy", npy_vec("<i8", shape)},
            {"data.npy", npy_vec("<f8", data)}};
  }
};

void write_npz_parts(const fs::path& p, const npz_parts& parts) { write_zip(p, parts.members()); }

} // namespace

BOOST_AUTO_TEST_SUITE(sparse_io)

// ---- round trips -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(matrix_market_round_trips_every_value_and_index_type_exactly) {
  std::mt19937_64 g(11);
  for_each_type([&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    const std::pair<index_t, index_t> shapes[] = {{7, 5}, {1, 40}, {30, 1}, {0, 0}, {3, 0}, {6, 6}};
    for (const auto& [m, n] : shapes) {
      const auto a = random_csr<T, I>(g, m, n, m * n / 3);
      const fs::path p = scratch() / ("rt_" + type_name<T>() + ".mtx");
      lz::write_matrix_market(p, a);
      const auto b = lz::read_matrix_market<T, I>(p);
      BOOST_TEST_CONTEXT(type_name<T>() << " I" << 8 * sizeof(I) << " " << m << "x" << n) {
        BOOST_TEST(same(a, b));
      }
    }
  });
}

BOOST_AUTO_TEST_CASE(matrix_market_keeps_extreme_values_bit_for_bit) {
  const double vals[] = {5e-324,
                         1e-310,
                         2.2250738585072014e-308,
                         1.7976931348623157e308,
                         -0.0,
                         0.1,
                         1.0 / 3.0,
                         -std::numeric_limits<double>::infinity()};
  std::vector<std::int32_t> r, c;
  std::vector<double> v(std::begin(vals), std::end(vals));
  for (std::int32_t k = 0; k < std::int32_t(v.size()); ++k) r.push_back(k), c.push_back(k);
  const auto a = lz::csr_matrix<double>::from_triplets(8, 8, r, c, v);
  const fs::path p = scratch() / "extreme.mtx";
  lz::write_matrix_market(p, a);
  const auto b = lz::read_matrix_market<double>(p);
  BOOST_TEST(std::memcmp(a.values().data(), b.values().data(), sizeof vals) == 0);

  const float fv[] = {1e-45f, 1.17549435e-38f, 3.40282347e38f, 0.1f, 1.0f / 3.0f};
  std::vector<float> vf(std::begin(fv), std::end(fv));
  r.resize(vf.size());
  c.resize(vf.size());
  const auto af = lz::csr_matrix<float>::from_triplets(5, 5, r, c, vf);
  lz::write_matrix_market(p, af);
  const auto bf = lz::read_matrix_market<float>(p);
  BOOST_TEST(std::memcmp(af.values().data(), bf.values().data(), sizeof fv) == 0);
}

BOOST_AUTO_TEST_CASE(npz_round_trips_every_value_and_index_type_exactly) {
  std::mt19937_64 g(12);
  for_each_type([&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    const std::pair<index_t, index_t> shapes[] = {{7, 5}, {1, 40}, {30, 1}, {0, 0}, {3, 0}, {6, 6}};
    for (const auto& [m, n] : shapes) {
      const auto a = random_csr<T, I>(g, m, n, m * n / 3);
      const fs::path p = scratch() / ("rt_" + type_name<T>() + ".npz");
      lz::save_npz(p, a);
      BOOST_TEST_CONTEXT(type_name<T>() << " I" << 8 * sizeof(I) << " " << m << "x" << n) {
        BOOST_TEST(same(a, lz::load_npz<T, I>(p)));
        // The other index width reads it too (the values fit).
        using J = std::conditional_t<std::is_same_v<I, std::int32_t>, std::int64_t, std::int32_t>;
        const auto b = lz::load_npz<T, J>(p);
        BOOST_TEST(equal_dense(lz::to_dense(b), lz::to_dense(a)));
      }
    }
  });
}

BOOST_AUTO_TEST_CASE(npz_values_widen_but_never_narrow) {
  std::mt19937_64 g(13);
  const auto f = random_csr<float, std::int32_t>(g, 6, 4, 10);
  const fs::path p = scratch() / "widen.npz";
  lz::save_npz(p, f);
  const auto d = lz::load_npz<double>(p);
  const auto c = lz::load_npz<cd>(p);
  for (std::size_t k = 0; k < f.values().size(); ++k) {
    BOOST_TEST(d.values()[k] == double(f.values()[k]));
    BOOST_TEST((c.values()[k] == cd(f.values()[k], 0)));
  }
  lz::save_npz(p, lz::load_npz<double>(p));
  expect_io_error([&] { lz::load_npz<float>(p); }, p,
                  {"data.npy", "<f8", "do not convert to float"});
  lz::save_npz(p, random_csr<cf, std::int32_t>(g, 3, 3, 4));
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"<c8", "do not convert to double"});
  BOOST_TEST(lz::load_npz<cd>(p).nnz() > 0);
}

// ---- Matrix Market: fields, symmetries, layout of the text -------------------------------------

BOOST_AUTO_TEST_CASE(matrix_market_mirrors_symmetric_skew_and_hermitian_entries) {
  const auto sym = write_text("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                         "3 3 4\n1 1 2\n2 1 -1\n3 2 4.5\n3 3 1e1\n");
  BOOST_TEST(equal_dense(
      lz::to_dense(lz::read_matrix_market<double>(sym)),
      dense<double>(3, 3,
                    {{0, 0, 2}, {1, 0, -1}, {0, 1, -1}, {2, 1, 4.5}, {1, 2, 4.5}, {2, 2, 10}})));
  const auto skew = write_text("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                                           "3 3 2\n2 1 3\n3 1 -2\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<float, std::int64_t>(skew)),
                         dense<float>(3, 3, {{1, 0, 3}, {0, 1, -3}, {2, 0, -2}, {0, 2, 2}})));
  const auto herm = write_text("herm.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n"
                                           "2 2 2\n1 1 3 0\n2 1 1 2\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<cd>(herm)),
                         dense<cd>(2, 2, {{0, 0, {3, 0}}, {1, 0, {1, 2}}, {0, 1, {1, -2}}})));
  // A real hermitian file is a symmetric one; entries above the diagonal are mirrored too.
  const auto rh = write_text("realherm.mtx", "%%MatrixMarket matrix coordinate real hermitian\n"
                                             "2 2 1\n1 2 5\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<double>(rh)),
                         dense<double>(2, 2, {{0, 1, 5}, {1, 0, 5}})));
}

BOOST_AUTO_TEST_CASE(matrix_market_reads_pattern_integer_and_real_into_complex) {
  const auto pat = write_text("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                         "2 3 3\n1 1\n2 3\n1 1\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<double>(pat)),
                         dense<double>(2, 3, {{0, 0, 2}, {1, 2, 1}})));
  const auto psym = write_text("psym.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                           "2 2 1\n2 1\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<float>(psym)),
                         dense<float>(2, 2, {{1, 0, 1}, {0, 1, 1}})));
  const auto in = write_text("int.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                                        "2 2 2\n1 2 -7\n2 1 +9007199254740993\n");
  const auto m = lz::read_matrix_market<double, std::int64_t>(in);
  BOOST_TEST(m(0, 1) == -7.0);
  BOOST_TEST(m(1, 0) == 9007199254740992.0); // the nearest double
  const auto re = write_text("re.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                       "1 2 1\n1 2 -2.5\n");
  BOOST_TEST((lz::read_matrix_market<cf>(re)(0, 1) == cf(-2.5f, 0)));
}

BOOST_AUTO_TEST_CASE(matrix_market_sums_duplicates_and_skips_comments_blank_lines_and_crlf) {
  const auto p = write_text("dup.mtx", "%%MatrixMarket Matrix Coordinate REAL General\r\n"
                                       "% a comment\r\n"
                                       "\r\n"
                                       "   % an indented comment\n"
                                       "2 2 3\r\n"
                                       "1 1 1.5\r\n"
                                       "\t2  2\t-1 \r\n"
                                       "% between entries\n"
                                       "\n"
                                       "1 1 2.5\r\n"
                                       "\n%trailing\n");
  const auto m = lz::read_matrix_market<double>(p);
  BOOST_TEST(m.nnz() == 2);
  BOOST_TEST(m(0, 0) == 4.0);
  BOOST_TEST(m(1, 1) == -1.0);
  // No newline at the end of the last line; special values.
  const auto q = write_text("nonl.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                        "1 3 3\n1 1 inf\n1 2 -1e999\n1 3 1e-999");
  const auto n = lz::read_matrix_market<double>(q);
  BOOST_TEST(n(0, 0) == std::numeric_limits<double>::infinity());
  BOOST_TEST(n(0, 1) == -std::numeric_limits<double>::infinity());
  BOOST_TEST(n(0, 2) == 0.0);
}

BOOST_AUTO_TEST_CASE(matrix_market_array_files_keep_their_nonzero_entries) {
  // Column-major; symmetric: the lower triangle; skew: the strict lower triangle.
  const auto gen = write_text("arr.mtx", "%%MatrixMarket matrix array real general\n"
                                         "2 3\n1\n0\n2\n3\n0\n-4\n");
  const auto g = lz::read_matrix_market<double>(gen);
  BOOST_TEST(g.nnz() == 4);
  BOOST_TEST(equal_dense(lz::to_dense(g),
                         dense<double>(2, 3, {{0, 0, 1}, {0, 1, 2}, {1, 1, 3}, {1, 2, -4}})));
  const auto sym = write_text("arrsym.mtx", "%%MatrixMarket matrix array real symmetric\n"
                                            "2 2\n1\n2\n3\n");
  BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<double>(sym)),
                         dense<double>(2, 2, {{0, 0, 1}, {1, 0, 2}, {0, 1, 2}, {1, 1, 3}})));
  const auto skew = write_text("arrskew.mtx", "%%MatrixMarket matrix array real skew-symmetric\n"
                                              "3 3\n1\n2\n3\n");
  BOOST_TEST(equal_dense(
      lz::to_dense(lz::read_matrix_market<double>(skew)),
      dense<double>(3, 3, {{1, 0, 1}, {0, 1, -1}, {2, 0, 2}, {0, 2, -2}, {2, 1, 3}, {1, 2, -3}})));
  const auto cplx = write_text("arrc.mtx", "%%MatrixMarket matrix array complex general\n"
                                           "1 2\n1 -1\n0 0\n");
  const auto c = lz::read_matrix_market<cd>(cplx);
  BOOST_TEST(c.nnz() == 1);
  BOOST_TEST((c(0, 0) == cd(1, -1)));
}

// ---- Matrix Market: every malformed file is an io_error with the line and the problem ----------

BOOST_AUTO_TEST_CASE(matrix_market_malformed_files_throw_io_error_naming_line_and_problem) {
  const std::string real = "%%MatrixMarket matrix coordinate real general\n";
  struct bad {
    std::string text;
    std::vector<std::string> parts;
  };
  const bad cases[] = {
      {"", {"line 1", "empty file"}},
      {"3 3 1\n1 1 1\n", {"line 1", "not a Matrix Market file", "banner"}},
      {"%%MatrixMarket matrix coordinate real\n1 1 0\n", {"line 1", "incomplete banner"}},
      {"%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", {"'extra'"}},
      {"%%MatrixMarket vector coordinate real general\n", {"object 'vector'"}},
      {"%%MatrixMarket matrix sparse real general\n", {"unknown format 'sparse'"}},
      {"%%MatrixMarket matrix coordinate float general\n", {"unknown field 'float'"}},
      {"%%MatrixMarket matrix coordinate real lower\n", {"unknown symmetry 'lower'"}},
      {"%%MatrixMarket matrix array pattern general\n", {"pattern"}},
      {"%%MatrixMarket matrix coordinate pattern skew-symmetric\n", {"skew-symmetric"}},
      {real + "% only comments\n", {"line 3", "end of file before the size line"}},
      {real + "3 x 1\n", {"line 2", "cols 'x' is not an integer"}},
      {real + "-3 3 1\n", {"line 2", "rows -3 is negative"}},
      {real + "3 3 -1\n", {"nnz -1 is negative"}},
      {real + "3 3\n", {"line 2", "missing nnz"}},
      {real + "3 3 1 4\n1 1 1\n", {"line 2", "unexpected '4'"}},
      {real + "3000000000 3 0\n", {"line 2", "rows 3000000000", "32-bit index type"}},
      {real + "3 99999999999999999999 0\n", {"cols '99999999999999999999' is not an integer"}},
      {real + "3 3 3\n1 1 1\n2 2 2\n", {"line 5", "end of file after 2 of the 3 entries"}},
      {real + "3 3 2000000000\n1 1 1\n", {"end of file after 1 of the 2000000000"}},
      {real + "3 3 3000000000\n1 1 1\n", {"line 2", "nnz 3000000000", "32-bit index type"}},
      {real + "3 3 2\n1 1 1\n0 2 1\n", {"line 4", "row index 0 is out of range (1..3)"}},
      {real + "3 3 1\n1 4 1\n", {"line 3", "column index 4 is out of range (1..3)"}},
      {real + "3 3 1\n-1 1 1\n", {"row index -1 is out of range"}},
      {real + "3 3 1\n1.5 1 1\n", {"row index '1.5' is not an integer"}},
      {real + "3 3 1\n1 1 1\n2 2 2\n", {"line 4", "more entries than the 1"}},
      {real + "3 3 1\n1 1 abc\n", {"line 3", "value 'abc' is not a number"}},
      {real + "3 3 1\n1 1 1.0.0\n", {"value '1.0.0' is not a number"}},
      {real + "3 3 1\n1 1\n", {"line 3", "missing the value"}},
      {real + "3 3 1\n1\n", {"missing the column index"}},
      {real + "3 3 1\n1 1 2 3\n", {"line 3", "unexpected '3' after the entry"}},
      {"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 2\n",
       {"missing the imaginary part"}},
      {"%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 2 x\n",
       {"imaginary part 'x' is not a number"}},
      {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
       {"value '1.5' is not an integer"}},
      {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", {"unexpected '1'"}},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n",
       {"line 4", "nonzero diagonal entry (2, 2) in a skew-symmetric matrix"}},
      {"%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", {"line 2", "must be square"}},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n3 4 0\n", {"must be square"}},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n",
       {"end of file after 3 of the 4"}},
      {"%%MatrixMarket matrix array real general\n1 1\n1\n2\n", {"more entries than the 1"}},
      {"%%MatrixMarket matrix array real general\n1 1 1\n1\n", {"unexpected '1'"}},
      {"%%MatrixMarket matrix array real general\n4294967296 4294967296\n", {"32-bit"}},
      {real + "2 2 1\n1 1 \x01\xff\n", {"line 3", "is not a number"}},
      {real + "2 2 1\n" + std::string(100, '9') + " 1 1\n", {"...'", "is not an integer"}},
  };
  int k = 0;
  for (const auto& c : cases) {
    const auto p = write_text("bad" + std::to_string(k++) + ".mtx", c.text);
    BOOST_TEST_CONTEXT(c.text) {
      try {
        if (c.text.find("complex") != std::string::npos)
          lz::read_matrix_market<cd>(p);
        else
          lz::read_matrix_market<double>(p);
        BOOST_ERROR("no io_error");
      } catch (const lz::io_error& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("lz::read_matrix_market: '" + p.string() + "'") == 0, what);
        for (const auto& part : c.parts)
          BOOST_TEST(what.find(part) != std::string::npos, what << " lacks '" << part << "'");
      }
    }
  }
  // Complex values into a real matrix; a non-real hermitian diagonal.
  const auto cplx = write_text("cplx.mtx", "%%MatrixMarket matrix coordinate complex general\n"
                                           "1 1 1\n1 1 1 2\n");
  expect_io_error([&] { lz::read_matrix_market<float>(cplx); }, cplx,
                  {"line 1", "complex values", "std::complex"});
  const auto herm = write_text("badherm.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n"
                                              "2 2 1\n2 2 1 1\n");
  expect_io_error([&] { lz::read_matrix_market<cd>(herm); }, herm, {"line 3", "is not real"});
  // The 64-bit index type takes sizes the 32-bit one refuses.
  const auto wide = write_text("wide.mtx", real + "3000000000 3 0\n");
  expect_io_error([&] { lz::read_matrix_market<double, std::int32_t>(wide); }, wide,
                  {"std::int64_t"});
  const auto missing = scratch() / "does_not_exist.mtx";
  expect_io_error([&] { lz::read_matrix_market<double>(missing); }, missing, {"cannot open"});
  expect_io_error([&] { lz::read_matrix_market<double>(scratch()); }, scratch(), {"cannot open"});
}

BOOST_AUTO_TEST_CASE(matrix_market_every_truncation_is_an_io_error_or_a_shorter_matrix) {
  // Cutting a file anywhere never reads out of bounds: an io_error, or (cut inside the last
  // number) a valid matrix.
  const std::string text = "%%MatrixMarket matrix coordinate complex hermitian\n% c\n"
                           "3 3 3\n1 1 1.5 0\n2 1 -2 3e1\n3 2 4 -5\n";
  for (std::size_t n = 0; n < text.size(); ++n) {
    const auto p = write_text("cut.mtx", text.substr(0, n));
    try {
      lz::read_matrix_market<cd>(p);
      BOOST_TEST(n >= text.size() - 4, "a cut at " << n << " read as a valid file");
    } catch (const lz::io_error&) {
    }
  }
}

BOOST_AUTO_TEST_CASE(matrix_market_writer_refuses_an_unwritable_path) {
  const auto a = lz::csr_matrix<double>(2, 2);
  const auto p = scratch() / "no_such_dir" / "x.mtx";
  expect_io_error([&] { lz::write_matrix_market(p, a); }, p, {"cannot open for writing"});
  expect_io_error([&] { lz::save_npz(p.parent_path() / "x.npz", a); }, p.parent_path() / "x.npz",
                  {"cannot open for writing"});
}

// ---- .npz: malformed archives ------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(npz_hand_made_archives_read_like_scipy_reads_them) {
  const auto p = scratch() / "hand.npz";
  npz_parts parts;
  write_npz_parts(p, parts);
  BOOST_TEST(equal_dense(lz::to_dense(lz::load_npz<double>(p)),
                         dense<double>(2, 3, {{0, 0, 1.5}, {0, 2, -2}, {1, 1, 4}})));
  // Non-canonical: unsorted columns, duplicates (summed), unused storage past indptr[-1].
  parts.indptr = {0, 3, 4};
  parts.indices = {2, 0, 2, 1, 0};
  parts.data = {1, 2, 3, 4, 99};
  write_npz_parts(p, parts);
  const auto m = lz::load_npz<double, std::int64_t>(p);
  BOOST_TEST(m.nnz() == 3);
  BOOST_TEST(equal_dense(lz::to_dense(m), dense<double>(2, 3, {{0, 0, 2}, {0, 2, 4}, {1, 1, 4}})));
  // CSC: indptr over the columns; the format string as '<U3' (a Python str).
  npz_parts csc;
  csc.indptr = {0, 1, 2, 3};
  csc.indices = {1, 0, 1};
  csc.data = {1, 2, 3};
  auto members = csc.members();
  const std::uint32_t u[3] = {'c', 's', 'c'};
  members[2].second = npy("<U3", "()", u, sizeof u);
  write_zip(p, members);
  BOOST_TEST(equal_dense(lz::to_dense(lz::load_npz<double>(p)),
                         dense<double>(2, 3, {{1, 0, 1}, {0, 1, 2}, {1, 2, 3}})));
  // Members in another order, with extra ones (scipy's _is_array), are fine.
  members = npz_parts{}.members();
  std::swap(members[0], members[4]);
  const bool t = true;
  members.push_back({"_is_array.npy", npy("|b1", "()", &t, 1)});
  write_zip(p, members);
  BOOST_TEST(lz::load_npz<double>(p).nnz() == 3);
}

BOOST_AUTO_TEST_CASE(npz_malformed_arrays_throw_io_error_naming_member_and_problem) {
  const auto p = scratch() / "badarr.npz";
  const auto check = [&](const npz_parts& parts, std::initializer_list<std::string> what) {
    write_npz_parts(p, parts);
    expect_io_error([&] { lz::load_npz<double>(p); }, p, what);
  };
  npz_parts a;
  a.format = "coo";
  check(a, {"format.npy", "'coo'", "csr"});
  a = {};
  a.indptr = {0, 3, 2};
  check(a, {"indptr.npy", "decreases at 2"});
  a = {};
  a.indptr = {1, 2, 3};
  check(a, {"indptr.npy", "indptr[0] is 1"});
  a = {};
  a.indptr = {0, 2, 4};
  check(a, {"indptr.npy", "exceeds the 3 stored indices"});
  a = {};
  a.indptr = {0, 3};
  check(a, {"indptr.npy", "has 2 elements, expected 3"});
  a = {};
  a.indices = {0, 3, 1};
  check(a, {"indices.npy", "index 3 at position 1 is out of range for 3 columns"});
  a = {};
  a.indices = {0, -1, 1};
  check(a, {"indices.npy", "index -1"});
  a = {};
  a.data = {1, 2};
  check(a, {"data.npy", "has 2 elements, expected 3"});
  a = {};
  a.shape = {2, -3};
  check(a, {"shape.npy", "negative shape"});
  a = {};
  a.shape = {2};
  check(a, {"shape.npy", "has 1 elements, expected 2"});
  a = {};
  a.shape = {2, 3000000000};
  write_npz_parts(p, a);
  expect_io_error([&] { lz::load_npz<double, std::int32_t>(p); }, p,
                  {"shape.npy", "32-bit index type", "std::int64_t"});
  a = {};
  a.format = "csrx";
  check(a, {"'csrx'"});

  // Wrong dtypes, ranks, a missing member, a malformed .npy header, short data.
  auto members = npz_parts{}.members();
  members[0].second = npy_vec<double>("<f8", {0, 2, 1});
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"indices.npy", "'<f8'", "int32 or int64"});
  members = npz_parts{}.members();
  members[4].second = npy_vec<std::int64_t>("<i8", {1, 2, 3});
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"data.npy", "'<i8'", "float64"});
  members = npz_parts{}.members();
  const std::int32_t two_d[4] = {0, 2, 3, 0};
  members[1].second = npy("<i4", "(2, 2)", two_d, sizeof two_d);
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"indptr.npy", "must be a vector"});
  members = npz_parts{}.members();
  members[2].second = npy_vec<std::int32_t>("<i4", {1});
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"format.npy", "expected a string"});
  members = npz_parts{}.members();
  members.erase(members.begin() + 3);
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p,
                  {"no member 'shape.npy'", "not a scipy.sparse.save_npz file"});
  members = npz_parts{}.members();
  members[4].second.pop_back(); // (resize(size() - 1): a -Wstringop-overflow false positive at -O3)
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"data.npy", "truncated data"});
  members = npz_parts{}.members();
  members[3].second = {'x', 'y'};
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"shape.npy", "not a .npy file"});
  members = npz_parts{}.members();
  members[3].second[10] = '[';
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"shape.npy", "malformed .npy header"});
  members = npz_parts{}.members();
  members.push_back(members[0]);
  write_zip(p, members);
  expect_io_error([&] { lz::load_npz<double>(p); }, p, {"'indices.npy' appears twice"});
}

BOOST_AUTO_TEST_CASE(npz_bad_crc_truncation_and_garbage_are_io_errors) {
  std::mt19937_64 g(14);
  const auto a = random_csr<double, std::int32_t>(g, 5, 7, 12);
  const auto p = scratch() / "good.npz";
  lz::save_npz(p, a);
  const std::vector<unsigned char> good = read_bytes(p);
  const auto q = scratch() / "broken.npz";

  // A flipped byte in data.npy's values: the CRC catches it.
  std::vector<unsigned char> b = good;
  const std::string name = "data.npy";
  const auto at = std::search(b.begin(), b.end(), name.begin(), name.end()) - b.begin();
  b[std::size_t(at) + name.size() + 128 + 3] ^= 0x40;
  write_bytes(q, b);
  expect_io_error([&] { lz::load_npz<double>(q); }, q, {"data.npy", "CRC-32 mismatch"});

  write_bytes(q, {});
  expect_io_error([&] { lz::load_npz<double>(q); }, q, {"not a ZIP archive"});
  write_bytes(q, std::vector<unsigned char>(1000, 'x'));
  expect_io_error([&] { lz::load_npz<double>(q); }, q, {"not a ZIP archive"});
  const auto mtx = scratch() / "really.mtx";
  lz::write_matrix_market(mtx, a);
  expect_io_error([&] { lz::load_npz<double>(mtx); }, mtx, {"not a ZIP archive"});
  expect_io_error([&] { lz::read_matrix_market<double>(p); }, p, {"line 1", "banner"});

  // Every truncation: an io_error, never a crash or a read past the end.
  for (std::size_t n = 0; n < good.size(); ++n) {
    write_bytes(q, std::vector<unsigned char>(good.begin(), good.begin() + std::ptrdiff_t(n)));
    try {
      lz::load_npz<double>(q);
      BOOST_ERROR("a cut at " << n << " of " << good.size() << " bytes loaded");
    } catch (const lz::io_error&) {
    }
  }
  // Every single flipped byte: an io_error or, where the byte does not matter (a timestamp, the
  // "made by" field, header padding), the same matrix; never another exception.
  int loaded = 0;
  for (std::size_t n = 0; n < good.size(); ++n) {
    b = good;
    b[n] ^= 0xa5;
    write_bytes(q, b);
    try {
      const auto m = lz::load_npz<double>(q);
      ++loaded;
      BOOST_TEST(same(m, a), "flipping byte " << n << " changed the matrix silently");
    } catch (const lz::io_error&) {
    }
  }
  BOOST_TEST_MESSAGE(loaded << " of " << good.size() << " single-byte flips still load");
}

// ---- SciPy writes, lazuli reads ----------------------------------------------------------------

namespace {

const char* scipy_writes_py = R"(
import sys, zipfile, numpy as np, scipy.io, scipy.sparse as sp
d = sys.argv[1]
rng = np.random.default_rng(20240601)
def rand(m, n, dt, density=0.4):
    a = rng.standard_normal((m, n)) * (rng.random((m, n)) < density)
    if np.dtype(dt).kind == 'c':
        a = a + 1j * rng.standard_normal((m, n)) * (a != 0)
    return a.astype(dt)
names = []
def emit(name, dense, m, mm=True, mmargs={}, npz=True):
    np.save(f'{d}/{name}_dense.npy', dense)
    if mm:  # mmwrite keeps 16 digits (not always exact): compare with what mmread reads
        scipy.io.mmwrite(f'{d}/{name}.mtx', m, **mmargs)
        r = scipy.io.mmread(f'{d}/{name}.mtx')
        r = np.asarray(r.toarray() if sp.issparse(r) else r).astype(dense.dtype)
        assert np.allclose(r, dense, rtol=1e-6), name
        np.save(f'{d}/{name}_mm.npy', r)
    if npz:
        sp.save_npz(f'{d}/{name}_c.npz', m, compressed=True)
        sp.save_npz(f'{d}/{name}_u.npz', m, compressed=False)
    names.append((name, dense.dtype.str, int(mm), int(npz)))
for dt in ['<f4', '<f8', '<c8', '<c16']:
    a = rand(9, 7, dt)
    m = sp.csr_matrix(a)
    emit(f'r_{dt[1:]}', a, m)
    emit(f'csc_{dt[1:]}', a, m.tocsc(), mm=False)
    m64 = m.copy()
    m64.indices = m64.indices.astype(np.int64)
    m64.indptr = m64.indptr.astype(np.int64)
    emit(f'i64_{dt[1:]}', a, m64, mm=False)
    # ZIP64 records and extra fields, as Python writes them past 2 GiB.
    old = zipfile.ZIP64_LIMIT
    zipfile.ZIP64_LIMIT = 50
    try:
        sp.save_npz(f'{d}/z64_{dt[1:]}_c.npz', m, compressed=True)
        sp.save_npz(f'{d}/z64_{dt[1:]}_u.npz', m, compressed=False)
    finally:
        zipfile.ZIP64_LIMIT = old
    np.save(f'{d}/z64_{dt[1:]}_dense.npy', a)
    names.append((f'z64_{dt[1:]}', a.dtype.str, 0, 1))
# Non-canonical CSR: unsorted, duplicate columns.
nc = sp.csr_matrix((np.array([1., 2, 3, 4, 5]), np.array([3, 1, 3, 0, 0]), np.array([0, 3, 3, 5])),
                   shape=(3, 4))
assert not nc.has_canonical_format
emit('noncanon', nc.toarray(), nc, mm=False)
big = sp.random(300, 200, density=0.05, format='csr', random_state=5, dtype=np.float64)
emit('big', big.toarray(), big)
emit('empty', np.zeros((4, 6)), sp.csr_matrix((4, 6)))
emit('zero', np.zeros((0, 0)), sp.csr_matrix((0, 0)), mm=False)
s = rand(6, 6, '<f8', 0.3); s = s + s.T
emit('sym', s, sp.csr_matrix(s), mmargs=dict(symmetry='symmetric'), npz=False)
k = rand(6, 6, '<f8', 0.3); k = k - k.T
emit('skew', k, sp.csr_matrix(k), mmargs=dict(symmetry='skew-symmetric'), npz=False)
h = rand(5, 5, '<c16', 0.4); h = h + h.conj().T
emit('herm', h, sp.csr_matrix(h), mmargs=dict(symmetry='hermitian'), npz=False)
i = np.round(rand(5, 8, '<f8') * 10)
emit('int', i, sp.csr_matrix(i.astype(np.int64)), mmargs=dict(field='integer'), npz=False)
pt = (rand(7, 4, '<f8') != 0).astype(np.float64)
emit('pattern', pt, sp.csr_matrix(pt), mmargs=dict(field='pattern'), npz=False)
ar = rand(4, 3, '<f8', 0.5)
emit('array', ar, ar, npz=False)
with open(f'{d}/list.txt', 'w') as f:
    for n in names:
        f.write(' '.join(map(str, n)) + '\n')
)";

template <class T>
void check_scipy_file(const fs::path& dir, const std::string& name, bool mm, bool npz) {
  const auto want = lz::load_npy<T, 2>(dir / (name + "_dense.npy"));
  BOOST_TEST_CONTEXT(name) {
    if (mm) {
      const auto read = lz::load_npy<T, 2>(dir / (name + "_mm.npy"));
      BOOST_TEST(equal_dense(lz::to_dense(lz::read_matrix_market<T>(dir / (name + ".mtx"))), read));
      BOOST_TEST(equal_dense(
          lz::to_dense(lz::read_matrix_market<T, std::int64_t>(dir / (name + ".mtx"))), read));
    }
    if (npz)
      for (const char* kind : {"_c.npz", "_u.npz"}) {
        const auto m = lz::load_npz<T>(dir / (name + kind));
        BOOST_TEST(equal_dense(lz::to_dense(m), want), kind);
        BOOST_TEST(
            equal_dense(lz::to_dense(lz::load_npz<T, std::int64_t>(dir / (name + kind))), want),
            kind);
      }
  }
}

} // namespace

BOOST_AUTO_TEST_CASE(files_scipy_writes_read_with_the_same_values,
                     *boost::unit_test::precondition(scipy_available())) {
  const fs::path dir = scratch() / "from_scipy";
  fs::create_directories(dir);
  BOOST_TEST_REQUIRE(lz_test::run_python(scipy_writes_py, {dir.string()}) == 0);
  std::ifstream list(dir / "list.txt");
  std::string name, dt;
  int mm = 0, npz = 0, count = 0;
  while (list >> name >> dt >> mm >> npz) {
    ++count;
    if (dt == "<f4") check_scipy_file<float>(dir, name, mm, npz);
    if (dt == "<f8") check_scipy_file<double>(dir, name, mm, npz);
    if (dt == "<c8") check_scipy_file<cf>(dir, name, mm, npz);
    if (dt == "<c16") check_scipy_file<cd>(dir, name, mm, npz);
  }
  BOOST_TEST(count == 26);
  // A float64 file does not narrow into float; a complex one not into double.
  expect_io_error([&] { lz::load_npz<float>(dir / "r_f8_c.npz"); }, dir / "r_f8_c.npz",
                  {"do not convert to float"});
  expect_io_error([&] { lz::read_matrix_market<double>(dir / "r_c16.mtx"); }, dir / "r_c16.mtx",
                  {"complex values"});
}

// ---- lazuli writes, SciPy reads ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(files_lazuli_writes_read_in_scipy_with_the_same_values,
                     *boost::unit_test::precondition(scipy_available())) {
  const fs::path dir = scratch() / "to_scipy";
  fs::create_directories(dir);
  std::ofstream list(dir / "list.txt");
  std::mt19937_64 g(15);
  int k = 0;
  for_each_type([&](auto t, auto i) {
    using T = decltype(t);
    using I = decltype(i);
    for (const auto& [m, n] : {std::pair<index_t, index_t>{8, 6}, {1, 1}, {0, 0}, {5, 0}}) {
      const auto a = random_csr<T, I>(g, m, n, m * n / 2);
      const std::string name = "lz" + std::to_string(k++);
      lz::write_matrix_market(dir / (name + ".mtx"), a);
      lz::save_npz(dir / (name + ".npz"), a);
      lz::save_npy(dir / (name + "_dense.npy"), lz::to_dense(a));
      list << name << ' ' << (sizeof(I) == 4 ? "<i4" : "<i8") << '\n';
    }
  });
  list.close();
  const char* py = R"(
import sys, zipfile, numpy as np, scipy.io, scipy.sparse as sp
d = sys.argv[1]
bad = 0
for line in open(d + '/list.txt'):
    name, it = line.split()
    want = np.load(f'{d}/{name}_dense.npy')
    with zipfile.ZipFile(f'{d}/{name}.npz') as z:
        if z.testzip() is not None or sorted(z.namelist()) != sorted(
                ['indices.npy', 'indptr.npy', 'format.npy', 'shape.npy', 'data.npy']):
            print(name, 'zip', z.namelist()); bad = 1
    raw = np.load(f'{d}/{name}.npz')  # scipy may narrow the index dtype when it loads
    if (raw['indices'].dtype != np.dtype(it) or raw['indptr'].dtype != np.dtype(it)
            or raw['format'].item() != b'csr' or raw['shape'].dtype != np.int64):
        print(name, 'raw', raw['indices'].dtype, raw['format']); bad = 1
    a = sp.load_npz(f'{d}/{name}.npz')
    if (a.format != 'csr' or a.dtype != want.dtype or a.shape != want.shape
            or not a.has_canonical_format or not np.array_equal(a.toarray(), want)):
        print(name, 'npz', a.format, a.dtype, a.indices.dtype, a.shape); bad = 1
    b = scipy.io.mmread(f'{d}/{name}.mtx')
    b = b.toarray() if sp.issparse(b) else np.asarray(b)
    if b.shape != want.shape or not np.array_equal(b.astype(want.dtype), want):
        print(name, 'mtx', b.dtype, b.shape); bad = 1
sys.exit(bad)
)";
  BOOST_TEST(lz_test::run_python(py, {dir.string()}) == 0);
}

// ---- speed -------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_million_entries_read_in_reasonable_time) {
  std::mt19937_64 g(16);
  const auto a = random_csr<double, std::int32_t>(g, 100000, 100000, 1000000);
  const auto p = scratch() / "million.mtx";
  const auto q = scratch() / "million.npz";
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  lz::write_matrix_market(p, a);
  const auto t1 = clock::now();
  const auto b = lz::read_matrix_market<double>(p);
  const auto t2 = clock::now();
  lz::save_npz(q, a);
  const auto c = lz::load_npz<double>(q);
  const auto t3 = clock::now();
  BOOST_TEST(same(a, b));
  BOOST_TEST(same(a, c));
  const auto s = [](auto d) { return std::chrono::duration<double>(d).count(); };
  BOOST_TEST_MESSAGE("1e6 entries: write_matrix_market " << s(t1 - t0) << " s, read " << s(t2 - t1)
                                                         << " s; npz save+load " << s(t3 - t2)
                                                         << " s");
}

BOOST_AUTO_TEST_SUITE_END()
