// lz::save_npy / lz::load_npy: round trips for every dtype, order and rank (empty and 0-d
// included), zero-copy Fortran loads, and a clear io_error for every kind of bad file.
#include <boost/test/unit_test.hpp>

#include <lz/npy.hpp>
#include <support/python.hpp>
#include <support/reference.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using lz::index_t;

namespace {

using lz_test::scratch;

template <class T>
T draw(std::mt19937_64& g) {
  if constexpr (lz::detail::is_complex_v<T>) {
    std::normal_distribution<typename T::value_type> n(0, 100);
    return T(n(g), n(g));
  } else if constexpr (std::is_same_v<T, bool>) {
    return g() & 1;
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::normal_distribution<T>(0, 1000)(g);
  } else {
    return static_cast<T>(g()); // every bit pattern
  }
}

// Tensor of random shape (extents 0..5 when `allow_empty`, else 1..5) and random values, in
// row-major or column-major layout.
template <class T, std::size_t R>
lz::tensor<T, R> random_tensor(std::mt19937_64& g, bool column_major, bool allow_empty) {
  lz::shape_t<R> s{};
  for (auto& e : s) e = index_t(g() % (allow_empty ? 6 : 5)) + (allow_empty ? 0 : 1);
  lz::tensor<T, R> t = column_major ? lz::tensor<T, R>(s, lz::layout_left, lz::uninitialized)
                                    : lz::tensor<T, R>(s, lz::uninitialized);
  T* p = t.data();
  for (index_t i = 0; i < t.layout().required_span_size(); ++i) p[i] = draw<T>(g);
  return t;
}

template <class A, class B>
bool same_elements(const A& a, const B& b) {
  if (a.shape() != b.shape()) return false;
  bool same = true;
  lz_test::detail::for_each_index(a, [&](const auto& i) {
    const auto x = lz_test::ref_at(a, i), y = lz_test::ref_at(b, i);
    same = same && std::memcmp(&x, &y, sizeof x) == 0; // bitwise: NaN and -0.0 too
  });
  return same;
}

template <class T, std::size_t R>
void round_trip_one(std::mt19937_64& g, bool column_major, bool allow_empty, int version) {
  const auto t = random_tensor<T, R>(g, column_major, allow_empty);
  const fs::path f = scratch() / "round_trip.npy";
  lz::save_npy(f, t, version);
  const auto u = lz::load_npy<T, R>(f);
  BOOST_TEST(same_elements(t, u));
  // Written from memory in the tensor's own order: C unless only column-major fits; loaded back
  // in that order.
  const bool fortran = R >= 2 && !t.empty() && !t.layout().is_row_major();
  BOOST_TEST(lz::detail::read_npy_header(f).fortran_order == fortran);
  BOOST_TEST(lz::detail::read_npy_header(f).version == version);
  if (!u.empty()) BOOST_TEST((fortran ? u.layout().is_column_major() : u.layout().is_row_major()));
  // Data starts on a 64-byte boundary and the file is exactly header + elements.
  const auto data_bytes = std::uintmax_t(t.size()) * sizeof(T);
  BOOST_TEST((fs::file_size(f) - data_bytes) % 64 == 0u);
}

template <class T>
void round_trip_all_ranks() {
  std::mt19937_64 g(1234 + sizeof(T));
  for (int rep = 0; rep < 6; ++rep)
    for (int version : {1, 2}) {
      const bool empty_ok = rep % 2 == 1;
      round_trip_one<T, 0>(g, false, false, version);
      round_trip_one<T, 1>(g, false, empty_ok, version);
      for (bool col : {false, true}) {
        round_trip_one<T, 2>(g, col, empty_ok, version);
        round_trip_one<T, 3>(g, col, empty_ok, version);
        round_trip_one<T, 5>(g, col, empty_ok, version);
      }
    }
}

void write_bytes(const fs::path& f, const std::string& bytes) {
  std::ofstream(f, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// A .npy file with a hand-written header (version 1 unless told) and `data` after it.
std::string npy_bytes(const std::string& header, const std::string& data = "", int major = 1) {
  std::string s = "\x93NUMPY";
  s += char(major);
  s += char(0);
  const std::size_t n = header.size();
  s += char(n & 0xff);
  s += char(n >> 8);
  if (major >= 2) s += std::string(2, '\0');
  return s + header + data;
}

// Runs f, expects lz::io_error whose message contains every one of `parts`.
template <class F>
void expect_io_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    BOOST_ERROR("no lz::io_error thrown");
  } catch (const lz::io_error& e) {
    const std::string what = e.what();
    for (const auto& p : parts)
      BOOST_TEST(what.find(p) != std::string::npos, "'" << p << "' not in: " << what);
  }
}

} // namespace

BOOST_AUTO_TEST_CASE(every_dtype_order_and_rank_round_trips_bit_exactly) {
  round_trip_all_ranks<float>();
  round_trip_all_ranks<double>();
  round_trip_all_ranks<std::int32_t>();
  round_trip_all_ranks<std::int64_t>();
  round_trip_all_ranks<std::complex<float>>();
  round_trip_all_ranks<std::complex<double>>();
  round_trip_all_ranks<bool>();
  round_trip_all_ranks<std::int8_t>();
  round_trip_all_ranks<std::uint8_t>();
  round_trip_all_ranks<std::int16_t>();
  round_trip_all_ranks<std::uint16_t>();
  round_trip_all_ranks<std::uint32_t>();
  round_trip_all_ranks<std::uint64_t>();
}

BOOST_AUTO_TEST_CASE(fortran_order_file_loads_as_column_major_with_one_allocation) {
  std::mt19937_64 g(7);
  lz::tensor<double, 3> t({3, 4, 5}, lz::layout_left, lz::uninitialized);
  for (double& v : t) v = draw<double>(g);
  const fs::path f = scratch() / "fortran.npy";
  lz::save_npy(f, t);
  lz::reset_stats();
  const auto u = lz::load_npy<double, 3>(f);
  BOOST_TEST(lz::stats().allocations == 1u); // the tensor itself: no transpose copy
  BOOST_TEST(u.layout() == t.layout());
  BOOST_TEST(std::memcmp(u.data(), t.data(), sizeof(double) * std::size_t(t.size())) == 0);
}

BOOST_AUTO_TEST_CASE(views_and_expressions_save_their_values) {
  std::mt19937_64 g(11);
  for (int rep = 0; rep < 20; ++rep) {
    const auto A = random_tensor<double, 2>(g, rep % 2 == 1, false);
    const fs::path f = scratch() / "view.npy";
    // Transposed view: column-major if A is row-major, and the other way round.
    lz::save_npy(f, lz::transpose(A));
    BOOST_TEST(same_elements(lz::load_npy<double, 2>(f), lz::transpose(A)));
    // Reversed, strided slice (copied), and a padded tensor (copied without its padding).
    const auto S = lz::slice(A, lz::range(A.rows() - 1, -1, -1), lz::range(0, A.cols(), 2));
    lz::save_npy(f, S);
    BOOST_TEST(same_elements(lz::load_npy<double, 2>(f), S));
    lz::matrix<double> P(A.rows(), A.cols(), lz::padded{});
    P = A;
    lz::save_npy(f, P);
    BOOST_TEST(same_elements(lz::load_npy<double, 2>(f), A));
    // Expression trees, elementwise and reduced.
    const auto e = 2.0 * A + lz::sin(A);
    lz::save_npy(f, e);
    BOOST_TEST(lz_test::max_ulp(lz::load_npy<double, 2>(f), lz_test::reference(e)) <= 1.0);
    lz::save_npy(f, A > 0.0);
    BOOST_TEST(same_elements(lz::load_npy<bool, 2>(f), lz_test::reference(A > 0.0)));
    lz::save_npy(f, lz::sum(A, 1));
    BOOST_TEST(lz_test::max_rel_error(lz::load_npy<double, 1>(f),
                                      lz_test::reference(lz::sum(A, 1))) <= 1e-13);
    lz::save_npy(f, lz::sum(A));
    BOOST_TEST(std::fabs(*lz::load_npy<double, 0>(f).data() - double(lz::sum(A))) <= 0.0);
  }
}

BOOST_AUTO_TEST_CASE(wrong_dtype_names_both_types_and_the_file) {
  const fs::path f = scratch() / "dtype.npy";
  lz::save_npy(f, lz::vector<double>{1, 2, 3});
  expect_io_error([&] { (void)lz::load_npy<float, 1>(f); },
                  {"dtype.npy", "<f8", "double", "<f4", "float"});
  expect_io_error([&] { (void)lz::load_npy<std::int64_t, 1>(f); }, {"<f8", "<i8"});
  expect_io_error([&] { (void)lz::load_npy<std::complex<double>, 1>(f); }, {"<c16"});
}

BOOST_AUTO_TEST_CASE(wrong_rank_names_the_shape_and_both_ranks) {
  const fs::path f = scratch() / "rank.npy";
  lz::save_npy(f, lz::matrix<float>(2, 3));
  expect_io_error([&] { (void)lz::load_npy<float, 3>(f); },
                  {"rank.npy", "(2, 3)", "rank 2", "rank 3"});
  expect_io_error([&] { (void)lz::load_npy<float, 0>(f); }, {"rank 0"});
}

BOOST_AUTO_TEST_CASE(truncated_files_are_reported_with_sizes) {
  const fs::path f = scratch() / "trunc.npy";
  lz::save_npy(f, lz::matrix<double>(4, 5));
  const auto full = fs::file_size(f);
  fs::resize_file(f, full - 3);
  expect_io_error([&] { (void)lz::load_npy<double, 2>(f); },
                  {"truncated data", "(4, 5)", "160 bytes", "157"});
  fs::resize_file(f, 40); // inside the header
  expect_io_error([&] { (void)lz::load_npy<double, 2>(f); }, {"truncated .npy header"});
  fs::resize_file(f, 9); // inside the header length
  expect_io_error([&] { (void)lz::load_npy<double, 2>(f); }, {"truncated"});
  fs::resize_file(f, 4); // inside the magic string
  expect_io_error([&] { (void)lz::load_npy<double, 2>(f); }, {"not a .npy file"});
}

BOOST_AUTO_TEST_CASE(malformed_headers_are_reported) {
  const fs::path f = scratch() / "bad.npy";
  const std::string eight(8, '\0');
  const auto check = [&](const std::string& bytes, std::initializer_list<std::string> parts) {
    write_bytes(f, bytes);
    expect_io_error([&] { (void)lz::load_npy<double, 1>(f); }, parts);
  };
  check("GARBAGE-NOT-NPY-AT-ALL", {"bad magic"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n", eight, 4),
        {"version 4.0"});
  check(npy_bytes("['descr', '<f8']\n", eight), {"malformed", "expected '{'"});
  check(npy_bytes("{'descr': '<f8', 'shape': (1,), }\n", eight), {"lacks 'fortran_order'"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False}\n", eight), {"lacks 'shape'"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}\n", eight),
        {"unexpected key 'x'"});
  check(
      npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}\n", eight),
      {"twice"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,)}\n", eight),
        {"True or False"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}\n", eight),
        {"non-negative integer"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2\n", eight),
        {"malformed"});
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}\n"),
        {"overflows"});
  // No element, but strides that overflow: an io_error naming the file, like every bad file.
  {
    write_bytes(f, npy_bytes("{'descr': '<f8', 'fortran_order': False, "
                             "'shape': (0, 4611686018427387904, 4611686018427387904)}\n"));
    expect_io_error([&] { (void)lz::load_npy<double, 3>(f); }, {"bad.npy", "overflows"});
  }
  check(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} junk\n", eight),
        {"after the header"});
  check(npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (1,)}\n", eight),
        {"big-endian", "astype('<f8')"});
  check(npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,)}\n", eight),
        {"structured"});
  check(npy_bytes("{'descr': '<U8', 'fortran_order': False, 'shape': (1,)}\n", eight),
        {"unsupported dtype '<U8'"});
  // Header length pointing past the end of the file.
  std::string b = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}\n");
  b[8] = char(0xff);
  check(b, {"header length"});
}

BOOST_AUTO_TEST_CASE(hand_written_headers_numpy_accepts_are_accepted) {
  // Key order, quotes, spacing, Python 2 longs, no trailing comma, version 2 and 3 headers.
  const fs::path f = scratch() / "variants.npy";
  std::string data(6 * sizeof(double), '\0');
  for (int k = 0; k < 6; ++k) {
    const double v = k * 1.5 - 2;
    std::memcpy(data.data() + k * sizeof v, &v, sizeof v);
  }
  for (const std::string& h :
       {std::string("{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}\n"),
        std::string("{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(2L,3L)}"),
        std::string("{ 'descr' : '=f8' , 'fortran_order' : False , 'shape' : ( 2 , 3 , ) , }  \n")})
    for (int major : {1, 2, 3}) {
      write_bytes(f, npy_bytes(h, data, major));
      const auto A = lz::load_npy<double, 2>(f);
      BOOST_TEST(A.rows() == 2);
      BOOST_TEST(A.cols() == 3);
      for (int k = 0; k < 6; ++k) BOOST_TEST(A(k / 3, k % 3) == k * 1.5 - 2);
    }
}

BOOST_AUTO_TEST_CASE(missing_files_and_unwritable_paths_are_io_errors) {
  expect_io_error([] { (void)lz::load_npy<double, 1>(scratch() / "nope.npy"); },
                  {"nope.npy", "cannot open"});
  expect_io_error([] { lz::save_npy(scratch() / "no_such_dir" / "x.npy", lz::vector<int>{1}); },
                  {"x.npy", "cannot open for writing"});
  expect_io_error([] { lz::save_npy(scratch() / "v.npy", lz::vector<int>{1}, 7); },
                  {"version 1 or 2"});
}
