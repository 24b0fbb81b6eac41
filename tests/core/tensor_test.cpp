// Tensors, layouts and views: construction, access, slicing, printing, bad inputs.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>
#include <support/reference.hpp>

#include <sstream>

BOOST_AUTO_TEST_CASE(default_matrix_is_row_major_zero_filled_and_aligned) {
  lz::matrix<double> A(3, 4);
  BOOST_TEST(A.rows() == 3);
  BOOST_TEST(A.cols() == 4);
  BOOST_TEST(A.strides()[0] == 4);
  BOOST_TEST(A.strides()[1] == 1);
  BOOST_TEST(reinterpret_cast<std::uintptr_t>(A.data()) % 64 == 0);
  for (double v : A) BOOST_TEST(v == 0.0);
}

BOOST_AUTO_TEST_CASE(layout_left_matrix_is_column_major) {
  lz::matrix<double> M(3, 4, lz::layout_left);
  BOOST_TEST(M.strides()[0] == 1);
  BOOST_TEST(M.strides()[1] == 3);
  M(2, 1) = 7;
  BOOST_TEST(M.data()[2 + 3 * 1] == 7);
}

BOOST_AUTO_TEST_CASE(padded_layout_rounds_the_leading_dimension) {
  lz::matrix<double> M(3, 5, lz::padded{});
  BOOST_TEST(M.strides()[0] == 8);
  BOOST_TEST(M.layout().required_span_size() == 2 * 8 + 5);
}

BOOST_AUTO_TEST_CASE(nested_initializer_lists_fill_row_major) {
  lz::matrix<int> M{{1, 2, 3}, {4, 5, 6}};
  BOOST_TEST(M(1, 2) == 6);
  BOOST_CHECK_THROW((lz::matrix<int>{{1, 2}, {3}}), lz::shape_error);
}

BOOST_AUTO_TEST_CASE(copy_is_deep_and_move_is_cheap) {
  lz::vector<double> a{1, 2, 3};
  lz::vector<double> b = a;
  b(0) = 9;
  BOOST_TEST(a(0) == 1);
  const double* p = b.data();
  lz::vector<double> c = std::move(b);
  BOOST_TEST(c.data() == p);
  BOOST_TEST(b.size() == 0);
}

BOOST_AUTO_TEST_CASE(checked_access_reports_index_and_extent) {
  lz::matrix<double> A(2, 3);
  BOOST_CHECK_THROW(A.at(2, 0), std::out_of_range);
  try {
    A.at(0, 5);
  } catch (const std::out_of_range& e) {
    BOOST_TEST(std::string(e.what()).find("index 5") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("extent 3") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(slices_are_views_with_negative_steps) {
  lz::vector<int> x{0, 1, 2, 3, 4, 5};
  auto even = x(lz::range(0, 6, 2));
  BOOST_TEST(even.size() == 3);
  BOOST_TEST(even(2) == 4);
  auto rev = x(lz::range(5, -1, -1));
  BOOST_TEST(rev(0) == 5);
  BOOST_TEST(rev(5) == 0);
  rev(0) = 50;
  BOOST_TEST(x(5) == 50);
  BOOST_CHECK_THROW(x(lz::range(0, 7)), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(transpose_row_col_diagonal_never_copy) {
  lz::matrix<double> A{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  auto T = lz::transpose(A);
  BOOST_TEST(T.data() == A.data());
  BOOST_TEST(T(0, 2) == 7);
  BOOST_TEST(lz::row(A, 1)(2) == 6);
  BOOST_TEST(lz::col(A, 1)(2) == 8);
  auto d = lz::diagonal(A);
  BOOST_TEST(d(2) == 9);
  BOOST_TEST(d.strides()[0] == 4);
}

BOOST_AUTO_TEST_CASE(reshape_without_copy_or_layout_error) {
  lz::matrix<double> A(4, 6);
  auto r = lz::reshape(A, {2, 12});
  BOOST_TEST(r.data() == A.data());
  BOOST_CHECK_THROW(lz::reshape(lz::transpose(A), {24}), lz::layout_error);
  BOOST_CHECK_THROW(lz::reshape(A, {5, 5}), lz::shape_error);
}

BOOST_AUTO_TEST_CASE(broadcast_to_is_a_read_only_zero_stride_view) {
  lz::vector<double> b{1, 2, 3};
  auto B = lz::broadcast_to(b, {4, 3});
  BOOST_TEST(B.strides()[0] == 0);
  BOOST_TEST(B(3, 2) == 3);
  BOOST_CHECK_THROW(lz::broadcast_to(b, {4, 2}), lz::shape_error);
}

BOOST_AUTO_TEST_CASE(expand_dims_inserts_an_extent_one_dimension_on_views_and_trees) {
  lz::vector<double> v{1, 2, 3};
  auto row = lz::expand_dims(v, 0), column = lz::expand_dims(v, 1);
  BOOST_TEST((row.shape() == lz::shape_t<2>{1, 3}));
  BOOST_TEST((column.shape() == lz::shape_t<2>{3, 1}));
  column(2, 0) = 30; // a writable view of v
  BOOST_TEST(v(2) == 30.0);
  lz::matrix<double> outer = column * 1.0 + row; // (3,1) + (1,3) broadcast to (3,3)
  BOOST_TEST(outer(2, 1) == 32.0);
  auto tree = lz::expand_dims(v * 2.0, 1); // a tree: broadcast + permute nodes, no copy
  BOOST_TEST((tree.shape() == lz::shape_t<2>{3, 1}));
  lz::matrix<double> t = tree;
  BOOST_TEST(t(2, 0) == 60.0);
  lz::tensor<double, 3> A(lz::shape_t<3>{2, 3, 4});
  BOOST_TEST((lz::expand_dims(A, 3).shape() == lz::shape_t<4>{2, 3, 4, 1}));
  BOOST_TEST((lz::expand_dims(A * 1.0, 2).shape() == lz::shape_t<4>{2, 3, 1, 4}));
  BOOST_CHECK_THROW(lz::expand_dims(v, 2), std::out_of_range);
  BOOST_CHECK_THROW(lz::expand_dims(v * 2.0, 3), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(keepdims_reductions_broadcast_against_their_operand) {
  const lz::index_t m = 5, n = 7;
  lz::matrix<double> A(m, n);
  for (lz::index_t i = 0; i < m; ++i)
    for (lz::index_t j = 0; j < n; ++j) A(i, j) = double((i * 7 + j * 3) % 11) - 4.5;
  auto mx = lz::max(A, 1, lz::keepdims);
  BOOST_TEST((mx.shape() == lz::shape_t<2>{m, 1}));
  BOOST_TEST((lz::sum(A, 0, lz::keepdims).shape() == lz::shape_t<2>{1, n}));
  // softmax along rows, written as NumPy would: no transposes, no broadcast_to
  auto e = lz::exp(A - lz::max(A, 1, lz::keepdims));
  lz_test::for_each_policy([&](auto pol, const char* pname) {
    lz::matrix<double> S(m, n);
    lz::assign(pol, S, e / lz::sum(e, 1, lz::keepdims));
    for (lz::index_t i = 0; i < m; ++i) {
      double rmax = A(i, 0), total = 0;
      for (lz::index_t j = 0; j < n; ++j) rmax = std::max(rmax, A(i, j));
      for (lz::index_t j = 0; j < n; ++j) total += std::exp(A(i, j) - rmax);
      for (lz::index_t j = 0; j < n; ++j)
        BOOST_TEST(S(i, j) == std::exp(A(i, j) - rmax) / total, boost::test_tools::tolerance(1e-14)
                                                                    << pname);
    }
  });
  // centring columns of a rank-3 tensor along its middle axis; mean keeps the axis too
  lz::tensor<double, 3> T(lz::shape_t<3>{2, 3, 4});
  for (lz::index_t k = 0; k < T.size(); ++k) T.data()[k] = double(k * k % 13);
  lz::tensor<double, 3> C = T - lz::mean(T, 1, lz::keepdims);
  for (lz::index_t a = 0; a < 2; ++a)
    for (lz::index_t c = 0; c < 4; ++c) {
      const double mean = (T(a, 0, c) + T(a, 1, c) + T(a, 2, c)) / 3;
      for (lz::index_t b = 0; b < 3; ++b)
        BOOST_TEST(C(a, b, c) == T(a, b, c) - mean, boost::test_tools::tolerance(1e-14));
    }
  lz::matrix<bool> every = lz::all(A > -5.0, 1, lz::keepdims);
  BOOST_TEST((every.shape() == lz::shape_t<2>{m, 1}));
  BOOST_TEST(every(0, 0));
  BOOST_CHECK_THROW(lz::sum(A, 2, lz::keepdims), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(adopt_validates_writable_layouts) {
  std::vector<double> buf(12);
  auto v = lz::adopt(buf.data(), {3, 4});
  v(1, 1) = 5;
  BOOST_TEST(buf[5] == 5);
  BOOST_CHECK_THROW(lz::adopt(buf.data(), {3, 4}, {1, 1}), lz::layout_error);
  BOOST_CHECK_THROW(lz::adopt(static_cast<double*>(nullptr), {3, 4}), lz::layout_error);
  auto ro = lz::adopt(static_cast<const double*>(buf.data()), {3, 4}, {0, 1}); // broadcast rows
  buf[1] = 7;
  BOOST_TEST(ro(2, 1) == 7);
}

BOOST_AUTO_TEST_CASE(sizes_that_overflow_ptrdiff_are_layout_errors) {
  const lz::index_t big = lz::index_t(1) << 40;
  BOOST_CHECK_THROW((lz::tensor<double, 3>(lz::shape_t<3>{big, big, big})), lz::layout_error);
  BOOST_CHECK_THROW((lz::matrix<double>(lz::shape_t<2>{-1, 3})), lz::layout_error);
}

BOOST_AUTO_TEST_CASE(interleaved_strides_are_checked_exactly) {
  lz::strided_layout<2> l{{2, 3}, {3, 2}}; // offsets 0 2 4 3 5 7: unique though not nested
  BOOST_TEST(l.is_unique());
  lz::strided_layout<2> m{{2, 3}, {2, 1}}; // offsets 0 1 2 2 3 4: overlap
  BOOST_TEST(!m.is_unique());
}

BOOST_AUTO_TEST_CASE(printing_is_numpy_style_with_layout) {
  lz::matrix<double> A{{1, 2.5}, {-3, 4}};
  std::ostringstream os;
  os << A << ' ' << A.layout();
  BOOST_TEST(os.str() == "[[ 1.   2.5]\n [-3.   4. ]] (2,2):(2,1)");
  std::ostringstream big;
  big << lz::iota<int>(5000);
  BOOST_TEST(big.str() == "[   0    1    2 ... 4997 4998 4999]");
}

BOOST_AUTO_TEST_CASE(tensor_is_a_contiguous_range) {
  lz::vector<double> x{3, 1, 2};
  static_assert(std::ranges::contiguous_range<lz::vector<double>>);
  std::span<double> s{x};
  BOOST_TEST(s.size() == 3u);
  BOOST_TEST(*std::ranges::max_element(x) == 3);
}
