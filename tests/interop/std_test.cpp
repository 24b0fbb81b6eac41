// Zero-copy interop with std::vector and mdspan-like types (include/lz/interop/std.hpp), using a
// small look-alike of C++23 std::mdspan (g++ 12 has none): adopt shares memory both ways,
// keeps extents and strides, rejects what would dangle or alias, and to_mdspan round-trips.
#include <boost/test/unit_test.hpp>

#include <lz/interop/std.hpp>
#include <support/reference.hpp>

#include <numeric>
#include <random>

using lz::index_t;

namespace md { // the parts of std::mdspan's interface lazuli relies on, unsigned index type

template <std::size_t R>
struct dextents {
  using index_type = std::size_t;
  std::array<std::size_t, R> e{};
  dextents() = default;
  explicit dextents(const std::array<std::size_t, R>& x) : e(x) {}
  static constexpr std::size_t rank() { return R; }
  std::size_t extent(std::size_t r) const { return e[r]; }
};

struct layout_right {
  template <class E>
  struct mapping {
    E ext;
    explicit mapping(const E& x) : ext(x) {}
    const E& extents() const { return ext; }
    std::size_t stride(std::size_t r) const {
      std::size_t s = 1;
      for (std::size_t k = r + 1; k < E::rank(); ++k) s *= ext.extent(k);
      return s;
    }
  };
};

struct layout_stride {
  template <class E>
  struct mapping {
    E ext;
    std::array<std::size_t, E::rank()> str;
    mapping(const E& x, const std::array<std::size_t, E::rank()>& s) : ext(x), str(s) {}
    const E& extents() const { return ext; }
    std::size_t stride(std::size_t r) const { return str[r]; }
  };
};

template <class T, class E, class L>
struct mdspan {
  using element_type = T;
  using extents_type = E;
  using mapping_type = typename L::template mapping<E>;
  T* p;
  mapping_type m;
  mdspan(T* data, const mapping_type& map) : p(data), m(map) {}
  static constexpr std::size_t rank() { return E::rank(); }
  const E& extents() const { return m.extents(); }
  std::size_t extent(std::size_t r) const { return m.extents().extent(r); }
  T* data_handle() const { return p; }
  const mapping_type& mapping() const { return m; }
  template <class... I> // std::mdspan uses [i, j] (C++23); C++20 needs a call operator
  T& operator()(I... i) const {
    const std::size_t idx[] = {std::size_t(i)...};
    std::size_t off = 0;
    for (std::size_t k = 0; k < sizeof...(I); ++k) off += idx[k] * m.stride(k);
    return p[off];
  }
};

} // namespace md

template <class T, std::size_t R>
using strided_md = md::mdspan<T, md::dextents<R>, md::layout_stride>;
template <class T, std::size_t R>
using right_md = md::mdspan<T, md::dextents<R>, md::layout_right>;

static_assert(lz::mdspan_like<strided_md<double, 2>>);
static_assert(lz::mdspan_like<right_md<const float, 3>>);
static_assert(!lz::mdspan_like<lz::tensor_view<double, 2>>);
static_assert(!lz::mdspan_like<std::vector<double>>);

template <class X>
concept adoptable = requires(X&& x) {
  lz::adopt(std::forward<X>(x));
};
static_assert(adoptable<std::vector<double>&>);
static_assert(adoptable<const std::vector<double>&>);
static_assert(!adoptable<std::vector<double>>); // a temporary would dangle
static_assert(!adoptable<std::vector<bool>&>);  // not contiguous elements
static_assert(std::is_same_v<decltype(lz::adopt(std::declval<const std::vector<int>&>())),
                             lz::tensor_view<const int, 1>>);

BOOST_AUTO_TEST_CASE(vector_is_adopted_without_copying_both_ways) {
  std::vector<double> v(12);
  std::iota(v.begin(), v.end(), 1.0);
  auto x = lz::adopt(v);
  BOOST_TEST(x.data() == v.data());
  BOOST_TEST(x.size() == 12);
  lz::reset_stats();
  x = 2.0 * x + 1.0; // writes the vector's memory, allocates nothing
  BOOST_TEST(lz::stats().allocations == 0u);
  for (std::size_t i = 0; i < 12; ++i) BOOST_TEST(v[i] == 2.0 * double(i + 1) + 1.0);
  const std::vector<double>& cv = v;
  BOOST_TEST(double(lz::sum(lz::adopt(cv))) == std::accumulate(v.begin(), v.end(), 0.0));
}

BOOST_AUTO_TEST_CASE(vector_with_a_shape_is_a_matrix_or_tensor) {
  std::vector<float> v(24);
  std::iota(v.begin(), v.end(), 0.0f);
  const auto A = lz::adopt(v, {4, 6});
  BOOST_TEST(A.data() == v.data());
  BOOST_TEST(A(2, 5) == v[2 * 6 + 5]);
  const auto F = lz::adopt(v, {4, 6}, lz::layout_left);
  BOOST_TEST(F(2, 5) == v[2 + 5 * 4]);
  const auto T = lz::adopt(std::as_const(v), {2, 3, 4});
  static_assert(std::is_same_v<decltype(T), const lz::tensor_view<const float, 3>>);
  BOOST_TEST(T(1, 2, 3) == v[23]);
  BOOST_CHECK_THROW((void)lz::adopt(v, {5, 5}), lz::shape_error);
  try {
    (void)lz::adopt(v, {5, 5});
  } catch (const lz::shape_error& e) {
    BOOST_TEST(std::string(e.what()).find("24 elements") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("(5,5)") != std::string::npos);
  }
  std::vector<int> empty;
  BOOST_TEST(lz::adopt(empty).size() == 0);
}

BOOST_AUTO_TEST_CASE(mdspan_like_is_adopted_with_its_extents_and_strides) {
  std::mt19937_64 g(3);
  for (int rep = 0; rep < 20; ++rep) {
    const std::size_t m = g() % 5 + 1, n = g() % 6 + 1, pad = g() % 3;
    std::vector<double> buf((m + pad) * (n + pad) + 1);
    for (double& x : buf) x = std::normal_distribution<double>()(g);
    // Column-major with a padded leading dimension, as layout_stride.
    strided_md<double, 2> s(buf.data(), {md::dextents<2>({m, n}), {1, m + pad}});
    auto v = lz::adopt(s);
    static_assert(std::is_same_v<decltype(v), lz::tensor_view<double, 2>>);
    BOOST_TEST(v.data() == buf.data());
    BOOST_TEST((v.shape() == lz::shape_t<2>{index_t(m), index_t(n)}));
    BOOST_TEST((v.strides() == lz::shape_t<2>{1, index_t(m + pad)}));
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) BOOST_TEST(v(index_t(i), index_t(j)) == s(i, j));
    v(index_t(m - 1), index_t(n - 1)) = 42.0; // writes land in the mdspan's memory
    BOOST_TEST(s(m - 1, n - 1) == 42.0);
    // A read-only rank-3 layout_right mdspan.
    right_md<const double, 3> r(buf.data(), md::layout_right::mapping(md::dextents<3>({2, m, n})));
    if (2 * m * n <= buf.size()) {
      const auto t = lz::adopt(r);
      static_assert(std::is_same_v<decltype(t), const lz::tensor_view<const double, 3>>);
      BOOST_TEST(t.layout().is_row_major());
      BOOST_TEST(t(1, index_t(m - 1), 0) == r(1, m - 1, 0));
    }
  }
}

BOOST_AUTO_TEST_CASE(writable_mdspan_with_overlapping_strides_is_rejected) {
  std::vector<double> buf(8);
  strided_md<double, 2> bcast(buf.data(), {md::dextents<2>({3, 4}), {0, 1}});
  BOOST_CHECK_THROW((void)lz::adopt(bcast), lz::layout_error);
  strided_md<const double, 2> ro(buf.data(), {md::dextents<2>({3, 4}), {0, 1}});
  BOOST_TEST(lz::adopt(ro).size() == 12); // read-only broadcast is fine
}

BOOST_AUTO_TEST_CASE(views_convert_to_mdspan_and_back) {
  lz::tensor<double, 3> T = lz::random<double>({3, 4, 5}, 7);
  // Any strided view maps to a layout_stride mdspan over the same memory.
  const auto v = lz::slice(T, lz::all, lz::range(0, 4, 2), lz::range(1, 5));
  const auto s = lz::to_mdspan<strided_md<double, 3>>(v);
  BOOST_TEST(s.data_handle() == v.data());
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < 4; ++k)
        BOOST_TEST(s(i, j, k) == v(index_t(i), index_t(j), index_t(k)));
  const auto back = lz::adopt(s);
  BOOST_TEST(back.data() == v.data());
  BOOST_TEST(back.layout() == v.layout());
  // A row-major tensor fits layout_right; its transpose does not, a reversed view nowhere.
  const auto r = lz::to_mdspan<right_md<double, 3>>(T);
  BOOST_TEST(r(2, 3, 4) == T(2, 3, 4));
  BOOST_CHECK_THROW(((void)lz::to_mdspan<right_md<double, 3>>(lz::transpose(T))), lz::layout_error);
  const auto reversed = lz::slice(T, lz::range(2, -1, -1), lz::all, lz::all);
  using stride3 = strided_md<double, 3>; // no commas inside the macro argument
  BOOST_CHECK_THROW((void)lz::to_mdspan<stride3>(reversed), lz::layout_error);
  // The mdspan vocabulary on views themselves.
  BOOST_TEST(v.data_handle() == v.data());
  BOOST_TEST(v.stride(1) == 10);
  BOOST_TEST(v.mapping().extent(2) == 4);
  BOOST_TEST(v.mapping().stride(0) == 20);
  BOOST_TEST(!v.mapping().is_exhaustive());
  BOOST_TEST(T.mapping().is_exhaustive());
}
