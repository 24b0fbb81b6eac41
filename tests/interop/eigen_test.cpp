// Zero-copy Eigen interop (include/lz/interop/eigen.hpp): adopted Eigen objects keep their
// pointer, storage order and strides; lazuli expressions over them match Eigen's own results
// and write into Eigen's memory without allocating; to_eigen maps any view (transposed,
// reversed, strided) with the same pointer, and Eigen reads and writes it correctly.
#include <boost/test/unit_test.hpp>

#include <Eigen/Core>
#include <lz/interop/eigen.hpp>
#include <support/reference.hpp>

using lz::index_t;

template <class X>
concept adoptable = requires(X&& x) {
  lz::adopt(std::forward<X>(x));
};
static_assert(adoptable<Eigen::MatrixXd&>);
static_assert(adoptable<const Eigen::MatrixXd&>);
static_assert(!adoptable<Eigen::MatrixXd>); // a temporary matrix would dangle
static_assert(adoptable<Eigen::Map<Eigen::MatrixXd>>);
static_assert(adoptable<Eigen::Block<Eigen::MatrixXd>>);
static_assert(std::is_same_v<decltype(lz::adopt(std::declval<const Eigen::MatrixXf&>())),
                             lz::tensor_view<const float, 2>>);
static_assert(std::is_same_v<decltype(lz::adopt(std::declval<Eigen::VectorXd&>())),
                             lz::tensor_view<double, 1>>);

namespace {

// Every element of the view equals Eigen's at (i, j), at the same address.
template <class V, class E>
bool same_memory(const V& v, const E& e) {
  if (v.extent(0) != e.rows() || v.extent(1) != e.cols()) return false;
  for (index_t i = 0; i < e.rows(); ++i)
    for (index_t j = 0; j < e.cols(); ++j)
      if (&v(i, j) != &e.coeffRef(i, j)) return false;
  return true;
}

} // namespace

BOOST_AUTO_TEST_CASE(eigen_objects_are_adopted_with_their_order_and_strides) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Random(5, 7);
  const auto a = lz::adopt(A);
  BOOST_TEST(a.data() == A.data());
  BOOST_TEST((a.strides() == lz::shape_t<2>{1, 5})); // column-major
  BOOST_TEST(same_memory(a, A));

  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> B(4, 6);
  B.setRandom();
  BOOST_TEST((lz::adopt(B).strides() == lz::shape_t<2>{6, 1}));
  BOOST_TEST(same_memory(lz::adopt(B), B));

  auto blk = A.block(1, 2, 3, 4);
  BOOST_TEST(same_memory(lz::adopt(blk), blk));
  BOOST_TEST(same_memory(lz::adopt(B.block(1, 1, 2, 3)), B.block(1, 1, 2, 3)));
  BOOST_TEST(same_memory(lz::adopt(A.transpose()), A.transpose())); // a Transpose has direct access

  std::vector<double> buf(64);
  Eigen::Map<Eigen::MatrixXd, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>> M(
      buf.data(), 3, 4, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(10, 2));
  BOOST_TEST((lz::adopt(M).strides() == lz::shape_t<2>{2, 10}));
  BOOST_TEST(same_memory(lz::adopt(M), M));

  const Eigen::Ref<const Eigen::MatrixXd> ref = A.middleCols(1, 3);
  BOOST_TEST(same_memory(lz::adopt(ref), ref));

  // Vectors, columns and rows are rank 1 with Eigen's increment.
  Eigen::VectorXd x = Eigen::VectorXd::Random(9);
  BOOST_TEST(lz::adopt(x).data() == x.data());
  const auto r = lz::adopt(A.row(3));
  BOOST_TEST(r.stride(0) == 5);
  for (index_t j = 0; j < 7; ++j) BOOST_TEST(&r(j) == &A(3, j));
  BOOST_TEST(lz::adopt(A.col(2)).stride(0) == 1);
}

BOOST_AUTO_TEST_CASE(lazuli_expressions_on_eigen_memory_match_eigen) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Random(6, 5), B = Eigen::MatrixXd::Random(6, 5);
  Eigen::MatrixXd C(6, 5);
  const Eigen::MatrixXd want = (2.0 * A + B.cwiseAbs()).eval();
  auto c = lz::adopt(C);
  lz::reset_stats();
  c = 2.0 * lz::adopt(A) + lz::abs(lz::adopt(B)); // straight into C's storage
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST((C - want).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(std::fabs(double(lz::sum(lz::adopt(A))) - A.sum()) <= 1e-13);
  // Column sums of a row-major block.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> R = A;
  const auto s = lz::eval(lz::sum(lz::adopt(R.block(1, 1, 4, 3)), 0));
  const Eigen::RowVectorXd es = R.block(1, 1, 4, 3).colwise().sum();
  for (index_t j = 0; j < 3; ++j) BOOST_TEST(std::fabs(s(j) - es(j)) <= 1e-14);
}

BOOST_AUTO_TEST_CASE(to_eigen_maps_any_view_without_copying) {
  lz::matrix<double> A = lz::random<double>({6, 8}, 3);
  lz::matrix<double> F(6, 8, lz::layout_left);
  F = A;
  const auto check = [](auto v) { // v: a rank-2 view
    const auto row = lz::to_eigen(v);
    const auto col = lz::to_eigen<Eigen::ColMajor>(v);
    BOOST_TEST(same_memory(v, row));
    BOOST_TEST(same_memory(v, col));
    BOOST_TEST(std::fabs(row.sum() - double(lz::sum(v))) <= 1e-13);
  };
  check(A.view());
  check(F.view());
  check(lz::transpose(A));
  check(lz::slice(A, lz::range(5, -1, -2), lz::range(1, 8, 3))); // negative row stride
  check(lz::slice(F, lz::range(0, 6, 2), lz::all));
  // Writes through Eigen land in the tensor; read-only views give read-only maps.
  auto m = lz::to_eigen(lz::slice(A, lz::range(0, 6, 2), lz::all));
  m.setConstant(4.0);
  for (index_t j = 0; j < 8; ++j) BOOST_TEST(A(2, j) == 4.0);
  const auto ro = lz::to_eigen(std::as_const(A));
  static_assert(std::is_const_v<std::remove_pointer_t<decltype(ro.data())>>);
  // Vectors: an InnerStride map.
  const auto c = lz::to_eigen(lz::col(A, 3));
  BOOST_TEST(c.data() == &A(0, 3));
  BOOST_TEST(c.innerStride() == 8);
  for (index_t i = 0; i < 6; ++i) BOOST_TEST(&c(i) == &A(i, 3));
  // Eigen computes on a transposed lazuli view: A^T A equals lazuli's reference.
  const Eigen::MatrixXd g = lz::to_eigen(lz::transpose(A)) * lz::to_eigen(A);
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 8; ++j)
      BOOST_TEST(std::fabs(g(i, j) - double(lz::dot(lz::col(A, i), lz::col(A, j)))) <= 1e-12);
}
