// Print options as properties that need no NumPy (print_numpy_test compares with NumPy itself):
// threshold/edgeitems decide summarisation, linewidth bounds every line, precision bounds the
// digits; views print like their evaluated copies; options are process-wide and restorable.
#include <boost/test/unit_test.hpp>

#include <support/reference.hpp>

#include <random>
#include <regex>
#include <sstream>

using lz::index_t;

namespace {

// Prints x under options o, restoring the previous options afterwards.
template <class X>
std::string print_with(const X& x, const lz::print_options& o) {
  const lz::print_options saved = lz::printoptions();
  lz::printoptions() = o;
  std::ostringstream os;
  os << x;
  lz::printoptions() = saved;
  return os.str();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

const std::regex number(R"([-+]?(\d+\.\d*(e[-+]\d+)?|nan|inf))");

} // namespace

BOOST_AUTO_TEST_CASE(threshold_and_edgeitems_decide_what_is_summarised) {
  std::mt19937_64 g(1);
  for (int rep = 0; rep < 200; ++rep) {
    const index_t n = index_t(g() % 60) + 1;
    lz::print_options o;
    o.threshold = index_t(g() % 60);
    o.edgeitems = index_t(g() % 5) + 1;
    o.linewidth = 100000; // one line
    const auto x = lz::random<double>({n}, rep);
    const std::string s = print_with(x, o);
    const bool summarised = n > o.threshold && n > 2 * o.edgeitems;
    BOOST_TEST(count(s, "...") == (summarised ? 1u : 0u), s);
    const auto shown = std::distance(std::sregex_iterator(s.begin(), s.end(), number), {});
    BOOST_TEST(shown == (summarised ? 2 * o.edgeitems : n), s);
  }
}

// Huge or negative edgeitems: nothing is summarised (huge) or only the "..." is shown
// (negative: none at the edges); 2 * 2^62 overflowed and the printer then tried to list 2^62
// indices.
BOOST_AUTO_TEST_CASE(extreme_edgeitems_print_without_overflow) {
  const auto x = lz::random<double>({2000}, 3);
  lz::print_options o;
  o.linewidth = 1000000;
  o.edgeitems = index_t(1) << 62;
  const std::string all = print_with(x, o);
  BOOST_TEST(count(all, "...") == 0u);
  BOOST_TEST(std::distance(std::sregex_iterator(all.begin(), all.end(), number), {}) == 2000);
  o.edgeitems = -5;
  const std::string none = print_with(x, o);
  BOOST_TEST(count(none, "...") == 1u, none);
  BOOST_TEST(std::distance(std::sregex_iterator(none.begin(), none.end(), number), {}) == 0);
}

BOOST_AUTO_TEST_CASE(no_line_exceeds_linewidth_unless_it_holds_one_element) {
  std::mt19937_64 g(2);
  for (int rep = 0; rep < 200; ++rep) {
    lz::print_options o;
    o.linewidth = int(g() % 100) + 10;
    o.precision = int(g() % 10);
    const auto A =
        lz::random<double>({index_t(g() % 4) + 1, index_t(g() % 5) + 1, index_t(g() % 30) + 1}, rep,
                           lz::normal{0, std::pow(10.0, double(g() % 10))});
    for (const auto& l : lines(print_with(A, o))) {
      const auto words = std::distance(std::sregex_iterator(l.begin(), l.end(), number), {});
      BOOST_TEST((l.size() <= std::size_t(o.linewidth) || words <= 1), l);
    }
  }
}

BOOST_AUTO_TEST_CASE(precision_bounds_the_digits_after_the_point) {
  std::mt19937_64 g(3);
  for (int rep = 0; rep < 100; ++rep) {
    lz::print_options o;
    o.precision = int(g() % 12);
    const auto x = lz::random<double>({20}, rep, lz::uniform{1, 100}); // fixed notation
    const std::string s = print_with(x, o);
    for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator();
         ++it) {
      const std::string v = it->str();
      BOOST_TEST(v.size() - v.find('.') - 1 <= std::size_t(o.precision), v);
      // The digits shown are the value rounded to that precision.
      BOOST_TEST(
          std::fabs(std::stod(v) -
                    x(std::distance(std::sregex_iterator(s.begin(), s.end(), number), it))) <=
          0.5 * std::pow(10.0, -o.precision) * (1 + 1e-9));
    }
  }
}

BOOST_AUTO_TEST_CASE(views_print_like_their_evaluated_copies) {
  const auto A = lz::random<float>({7, 9}, 4);
  const auto V = lz::slice(A, lz::range(6, -1, -2), lz::range(1, 9, 3));
  const lz::print_options o;
  BOOST_TEST(print_with(V, o) == print_with(lz_test::reference(V), o));
  BOOST_TEST(print_with(lz::transpose(A), o) ==
             print_with(lz_test::reference(lz::transpose(A)), o));
  BOOST_TEST(print_with(2.0f * A, o) == print_with(lz_test::reference(2.0f * A), o));
}

BOOST_AUTO_TEST_CASE(empty_arrays_print_as_empty_brackets) {
  BOOST_TEST(print_with(lz::matrix<double>(3, 0), {}) == "[]");
  BOOST_TEST(print_with(lz::tensor<int, 3>(lz::shape_t<3>{2, 0, 4}), {}) == "[]");
}
