// Printing against NumPy itself: random arrays (float32/64, int32/64, complex64/128; ranks 1-3;
// tiny, huge, integral, mixed, nan/inf values; summarised and wrapped) are printed by lazuli
// under random lz::printoptions and by NumPy's str() under the same np.set_printoptions, and
// the strings must be identical. Skipped (77) without NumPy.
#include <boost/test/unit_test.hpp>

#include <lz/npy.hpp>
#include <support/python.hpp>

#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using lz::index_t;

using lz_test::require_numpy;
BOOST_TEST_GLOBAL_FIXTURE(require_numpy);

namespace {

struct print_case {
  std::string file;
  lz::print_options opt;
  std::string text; // lazuli's output
};

// Values of one family: 0 uniform in ±10^s, 1 integral, 2 magnitudes spread over 10^±5,
// 3 like 0 with nan/inf/-0.0 sprinkled in.
double draw(std::mt19937_64& g, int family, double scale) {
  std::uniform_real_distribution<double> u(-1, 1);
  switch (family) {
  case 0:
    return u(g) * scale;
  case 1:
    return std::round(u(g) * 100);
  case 2:
    return (u(g) < 0 ? -1 : 1) * std::pow(10.0, 5 * u(g));
  default: {
    const int pick = int(g() % 10);
    if (pick == 0) return std::numeric_limits<double>::quiet_NaN();
    if (pick == 1) return (g() & 1 ? -1 : 1) * std::numeric_limits<double>::infinity();
    if (pick == 2) return -0.0;
    return u(g) * scale;
  }
  }
}

template <class T, std::size_t R>
lz::tensor<T, R> random_array(std::mt19937_64& g, const lz::shape_t<R>& s) {
  lz::tensor<T, R> t(s, lz::uninitialized);
  const int family = int(g() % 4), fam_im = int(g() % 4);
  const double scales[] = {1e-6, 1e-3, 1, 1e2, 1e5, 1e9};
  const double scale = scales[g() % 6], scale_im = scales[g() % 6];
  for (T& v : t) {
    if constexpr (lz::detail::is_complex_v<T>) {
      using F = typename T::value_type;
      v = T(F(draw(g, family, scale)), F(draw(g, fam_im, scale_im)));
    } else if constexpr (std::is_floating_point_v<T>) {
      v = T(draw(g, family, scale));
    } else {
      v = T(std::llround(draw(g, 0, scale < 1 ? 100 : std::min(scale, 1e9))));
    }
  }
  return t;
}

lz::print_options random_options(std::mt19937_64& g) {
  lz::print_options o;
  const int precisions[] = {8, 8, 4, 3, 1, 0, 12};
  const index_t thresholds[] = {1000, 1000, 50, 10};
  const index_t edges[] = {3, 3, 1, 2, 4};
  const int widths[] = {75, 75, 40, 120, 25};
  o.precision = precisions[g() % 7];
  o.threshold = thresholds[g() % 4];
  o.edgeitems = edges[g() % 5];
  o.linewidth = widths[g() % 5];
  o.suppress_small = g() % 4 == 0;
  return o;
}

template <class T, std::size_t R>
void add_case(std::vector<print_case>& cases, std::mt19937_64& g, const lz::shape_t<R>& s) {
  print_case c;
  c.file = "p" + std::to_string(cases.size()) + ".npy";
  const auto t = random_array<T, R>(g, s);
  lz::save_npy(lz_test::scratch() / c.file, t);
  c.opt = random_options(g);
  const lz::print_options saved = lz::printoptions();
  lz::printoptions() = c.opt;
  std::ostringstream os;
  os << t;
  lz::printoptions() = saved;
  c.text = os.str();
  cases.push_back(c);
}

template <class T>
void add_cases(std::vector<print_case>& cases, std::mt19937_64& g, int n) {
  auto ext = [&](index_t hi) { return index_t(g() % hi) + 1; };
  for (int i = 0; i < n; ++i) {
    switch (g() % 4) {
    case 0:
      add_case<T, 1>(cases, g, {ext(30)});
      break;
    case 1:
      add_case<T, 1>(cases, g, {ext(3000)});
      break;
    case 2:
      add_case<T, 2>(cases, g, {ext(14), ext(14)});
      break;
    default:
      add_case<T, 3>(cases, g, {ext(5), ext(6), ext(12)});
      break;
    }
  }
}

// NumPy's str() of every case under its options, one file per case.
std::map<std::string, std::string> numpy_strings(const std::vector<print_case>& cases) {
  const fs::path spec = lz_test::scratch() / "print_spec.txt";
  {
    std::ofstream s(spec);
    for (const auto& c : cases)
      s << c.file << ' ' << c.opt.precision << ' ' << c.opt.threshold << ' ' << c.opt.edgeitems
        << ' ' << c.opt.linewidth << ' ' << int(c.opt.suppress_small) << '\n';
  }
  const int rc = lz_test::run_python(R"(
import sys, numpy as np
out = sys.argv[1]
for line in open(out + '/print_spec.txt'):
    name, p, t, e, w, s = line.split()
    np.set_printoptions(precision=int(p), threshold=int(t), edgeitems=int(e),
                        linewidth=int(w), suppress=bool(int(s)))
    with open(out + '/' + name + '.txt', 'w') as f:
        f.write(str(np.load(out + '/' + name)))
)",
                                     {lz_test::scratch().string()});
  BOOST_REQUIRE_EQUAL(rc, 0);
  std::map<std::string, std::string> out;
  for (const auto& c : cases) {
    std::ifstream f(lz_test::scratch() / (c.file + ".txt"));
    out[c.file] = std::string(std::istreambuf_iterator<char>(f), {});
  }
  return out;
}

template <class T>
void compare_with_numpy(std::uint64_t seed, int n) {
  std::mt19937_64 g(seed);
  std::vector<print_case> cases;
  add_cases<T>(cases, g, n);
  const auto np = numpy_strings(cases);
  int mismatches = 0;
  for (const auto& c : cases) {
    const std::string& want = np.at(c.file);
    if (c.text != want && ++mismatches <= 5)
      BOOST_ERROR(c.file << " (precision " << c.opt.precision << ", threshold " << c.opt.threshold
                         << ", edgeitems " << c.opt.edgeitems << ", linewidth " << c.opt.linewidth
                         << ", suppress " << c.opt.suppress_small << ")\nlazuli:\n"
                         << c.text << "\nnumpy:\n"
                         << want);
  }
  BOOST_TEST(mismatches == 0, mismatches << " of " << cases.size() << " arrays print differently");
}

} // namespace

BOOST_AUTO_TEST_CASE(float64_prints_like_numpy) { compare_with_numpy<double>(1, 150); }
BOOST_AUTO_TEST_CASE(float32_prints_like_numpy) { compare_with_numpy<float>(2, 100); }
BOOST_AUTO_TEST_CASE(integers_print_like_numpy) {
  compare_with_numpy<std::int32_t>(3, 60);
  compare_with_numpy<std::int64_t>(4, 60);
}
BOOST_AUTO_TEST_CASE(complex_prints_like_numpy) {
  compare_with_numpy<std::complex<double>>(5, 80);
  compare_with_numpy<std::complex<float>>(6, 40);
}
