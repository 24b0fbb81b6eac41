// .npy files against NumPy itself: files NumPy writes (every dtype, C and Fortran order, format
// 1.0/2.0/3.0, ranks 0-4 with empty shapes) load with the right values and layout, and files
// lazuli writes load in NumPy with the right dtype, shape, order and values. Both sides compute
// element k (row-major) from the same formula, independently. Skipped (77) without NumPy.
#include <boost/test/unit_test.hpp>

#include <lz/npy.hpp>
#include <support/python.hpp>
#include <support/reference.hpp>

#include <fstream>
#include <numeric>
#include <random>

namespace fs = std::filesystem;
using lz::index_t;

using lz_test::require_numpy;
BOOST_TEST_GLOBAL_FIXTURE(require_numpy);

namespace {

// The formula both sides use for element k (row-major flat index) of a dtype.
const char* formula_py = R"(
import sys, numpy as np
def expected(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))
    k = np.arange(n, dtype=np.float64)
    if dtype in ('<c8', '<c16'):
        v = (k * 0.5 - 1) + 1j * (2 - k * 0.25)
    elif dtype in ('<f4', '<f8'):
        v = k / 7.0 - 5.0  # a division: no FMA contraction on the C++ side
    elif dtype == '|b1':
        v = np.arange(n) % 3 == 0
    else:
        v = np.arange(n, dtype=np.int64) * 7 - 11
    return v.astype(dtype).reshape(shape)
def spec(path):  # lines: file dtype order(C|F) version extent...
    for line in open(path):
        f = line.split()
        yield f[0], f[1], f[2], int(f[3]), tuple(int(x) for x in f[4:])
)";

template <class T>
T expected(index_t k) {
  const double d = double(k);
  if constexpr (lz::detail::is_complex_v<T>) {
    using R = typename T::value_type;
    return T(static_cast<R>(d * 0.5 - 1), static_cast<R>(2 - d * 0.25));
  } else if constexpr (std::is_same_v<T, bool>) {
    return k % 3 == 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(d / 7.0 - 5.0);
  } else {
    return static_cast<T>(k * 7 - 11);
  }
}

struct entry {
  std::string file, dtype;
  bool fortran;
  int version;
  std::vector<index_t> shape;
};

// Random shapes of rank 0..4 (some empty) for one dtype, in both orders and all versions.
std::vector<entry> make_spec(const std::string& dtype, std::mt19937_64& g, int max_version) {
  std::vector<entry> out;
  for (int rank = 0; rank <= 4; ++rank)
    for (int rep = 0; rep < 2; ++rep)
      for (bool f : {false, true})
        for (int v = 1; v <= max_version; ++v) {
          if (f && rank < 2) continue;
          entry e{"", dtype, f, v, {}};
          for (int k = 0; k < rank; ++k) e.shape.push_back(index_t(g() % 5) + (rep ? 0 : 1));
          e.file = dtype.substr(1) + "_r" + std::to_string(rank) + "_" + (f ? "F" : "C") + "_v" +
                   std::to_string(v) + "_" + std::to_string(rep) + ".npy";
          out.push_back(e);
        }
  return out;
}

void write_spec(const fs::path& p, const std::vector<entry>& es) {
  std::ofstream s(p);
  for (const auto& e : es) {
    s << e.file << ' ' << e.dtype << ' ' << (e.fortran ? 'F' : 'C') << ' ' << e.version;
    for (auto x : e.shape) s << ' ' << x;
    s << '\n';
  }
}

template <std::size_t R>
lz::shape_t<R> to_shape(const std::vector<index_t>& v) {
  lz::shape_t<R> s{};
  for (std::size_t k = 0; k < R; ++k) s[k] = v[k];
  return s;
}

// Checks that t holds expected<T>(k) at row-major index k.
template <class T, class Tensor>
bool holds_formula(const Tensor& t) {
  bool ok = true;
  index_t k = 0;
  lz_test::detail::for_each_index(t, [&](const auto& i) {
    ok = ok && lz_test::ref_at(t, i) == expected<T>(k);
    ++k;
  });
  return ok;
}

template <class T, std::size_t R>
void check_numpy_file(const entry& e) {
  const fs::path f = lz_test::scratch() / e.file;
  const auto t = lz::load_npy<T, R>(f);
  BOOST_TEST_CONTEXT(e.file) {
    BOOST_TEST((t.shape() == to_shape<R>(e.shape)));
    BOOST_TEST(holds_formula<T>(t));
    // NumPy writes Fortran order for F-contiguous arrays that are not also C-contiguous; such
    // files must load as column-major tensors (no transpose copy).
    if (lz::detail::read_npy_header(f).fortran_order) BOOST_TEST(t.layout().is_column_major());
    BOOST_TEST(lz::detail::read_npy_header(f).version == e.version);
  }
}

template <class T>
void check_numpy_files(const std::vector<entry>& es) {
  for (const auto& e : es) switch (e.shape.size()) {
    case 0:
      check_numpy_file<T, 0>(e);
      break;
    case 1:
      check_numpy_file<T, 1>(e);
      break;
    case 2:
      check_numpy_file<T, 2>(e);
      break;
    case 3:
      check_numpy_file<T, 3>(e);
      break;
    default:
      check_numpy_file<T, 4>(e);
      break;
    }
}

template <class T, std::size_t R>
void write_lz_file(entry& e) {
  const auto s = to_shape<R>(e.shape);
  lz::tensor<T, R> t = e.fortran ? lz::tensor<T, R>(s, lz::layout_left, lz::uninitialized)
                                 : lz::tensor<T, R>(s, lz::uninitialized);
  index_t k = 0;
  lz_test::detail::for_each_index(t, [&](const auto& i) {
    const auto& st = t.layout().strides;
    t.data()[std::inner_product(i.begin(), i.end(), st.begin(), index_t(0))] = expected<T>(k++);
  });
  const fs::path f = lz_test::scratch() / e.file;
  lz::save_npy(f, t, e.version);
  e.fortran = lz::detail::read_npy_header(f).fortran_order; // what NumPy must see
}

template <class T>
void write_lz_files(std::vector<entry>& es) {
  for (auto& e : es) switch (e.shape.size()) {
    case 0:
      write_lz_file<T, 0>(e);
      break;
    case 1:
      write_lz_file<T, 1>(e);
      break;
    case 2:
      write_lz_file<T, 2>(e);
      break;
    case 3:
      write_lz_file<T, 3>(e);
      break;
    default:
      write_lz_file<T, 4>(e);
      break;
    }
}

template <class F>
void for_each_dtype(F&& f) {
  f(float{}, "<f4");
  f(double{}, "<f8");
  f(std::int32_t{}, "<i4");
  f(std::int64_t{}, "<i8");
  f(std::complex<float>{}, "<c8");
  f(std::complex<double>{}, "<c16");
  f(bool{}, "|b1");
  f(std::uint16_t{}, "<u2");
}

} // namespace

BOOST_AUTO_TEST_CASE(files_numpy_writes_load_with_values_order_and_version) {
  std::mt19937_64 g(2024);
  for_each_dtype([&](auto tag, const std::string& dtype) {
    using T = decltype(tag);
    const auto es = make_spec(dtype, g, 3);
    write_spec(lz_test::scratch() / "spec.txt", es);
    const int rc = lz_test::run_python(std::string(formula_py) + R"(
out = sys.argv[1]
for name, dtype, order, version, shape in spec(out + '/spec.txt'):
    a = expected(dtype, shape)
    if order == 'F':
        a = np.asfortranarray(a)
    with open(out + '/' + name, 'wb') as f:
        np.lib.format.write_array(f, a, version=(version, 0))
)",
                                       {lz_test::scratch().string()});
    BOOST_REQUIRE_EQUAL(rc, 0);
    check_numpy_files<T>(es);
  });
}

BOOST_AUTO_TEST_CASE(files_lazuli_writes_load_in_numpy_with_dtype_shape_order_and_values) {
  std::mt19937_64 g(77);
  for_each_dtype([&](auto tag, const std::string& dtype) {
    using T = decltype(tag);
    auto es = make_spec(dtype, g, 2);
    write_lz_files<T>(es);
    write_spec(lz_test::scratch() / "spec.txt", es);
    const int rc = lz_test::run_python(std::string(formula_py) + R"(
out, bad = sys.argv[1], 0
for name, dtype, order, version, shape in spec(out + '/spec.txt'):
    with open(out + '/' + name, 'rb') as f:
        v = np.lib.format.read_magic(f)
    a = np.load(out + '/' + name)
    want = expected(dtype, shape)
    ok = (v == (version, 0) and a.dtype == want.dtype and a.shape == shape
          and np.array_equal(a, want)
          and (a.flags.f_contiguous if order == 'F' else a.flags.c_contiguous))
    if not ok:
        bad += 1
        print('numpy disagrees on', name, v, a.dtype, a.shape, a.flags.f_contiguous)
sys.exit(1 if bad else 0)
)",
                                       {lz_test::scratch().string()});
    BOOST_TEST(rc == 0, "NumPy rejected files of dtype " << dtype);
  });
}
