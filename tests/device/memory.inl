// Device memory, transfers, streams, errors and tracing: explicit copies in every direction and
// layout (each one contiguous transfer), printing as the one implicit copy, value semantics of
// device tensors, asynchronous streams, device_error for allocation failures, LZ_LOG lines,
// and the exactness of the index arithmetic (fast divmod).
#include "support.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(device_memory)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;

BOOST_AUTO_TEST_CASE(round_trips_are_exact_for_every_layout) {
  const auto A = rnd<double, 2>({17, 23}, 1);
  lz::reset_device_stats();
  const auto dA = lz::to_device(A);
  BOOST_TEST(lz::device_stats().h2d == 1u);
  expect_match(A, dA, 0, 0, "to_device / to_host");
  // a strided host view is packed on the host: still one transfer
  lz::reset_device_stats();
  const auto dT = lz::to_device(lz::transpose(A)(lz::range(22, -1, -2), lz::all));
  BOOST_TEST(lz::device_stats().h2d == 1u);
  expect_match(lz::eval(lz::transpose(A)(lz::range(22, -1, -2), lz::all)), dT, 0, 0,
               "strided host view");
  // a strided device view is packed on the device: one transfer back
  lz::reset_device_stats();
  const auto back = lz::to_host(lz::transpose(dA));
  BOOST_TEST(lz::device_stats().d2h == 1u);
  BOOST_TEST(lz_test::max_ulp(back, lz::transpose(A)) == 0.0);
  // a device expression evaluates on the device, then comes back
  BOOST_TEST(lz_test::max_ulp(lz::to_host(dA * 2.0), lz::eval(A * 2.0)) == 0.0);
}

BOOST_AUTO_TEST_CASE(copy_works_in_every_direction_and_layout) {
  const auto A = rnd<float, 2>({8, 12}, 2);
  lz::device_tensor<float, 2> D(lz::shape_t<2>{12, 8});
  lz::copy(lz::transpose(A), D); // host view -> dense device
  expect_match(lz::eval(lz::transpose(A)), D, 0, 0, "h2d");
  lz::device_tensor<float, 2> W(lz::shape_t<2>{24, 8});
  lz::copy(A * 2.0f, lz::transpose(W)(lz::all, lz::range(0, 24, 2))); // into a strided device view
  lz::matrix<float> hW(24, 8);
  lz::transpose(hW)(lz::all, lz::range(0, 24, 2)) = A * 2.0f;
  expect_match(hW, W, 0, 0, "h2d into a strided device view");
  lz::matrix<float> H(8, 12, lz::layout_left);
  lz::copy(lz::transpose(D), H); // strided device view -> column-major host
  BOOST_TEST(lz_test::max_ulp(H, A) == 0.0);
  lz::device_tensor<float, 2> D2(lz::shape_t<2>{8, 12});
  lz::copy(lz::transpose(D), D2); // device -> device
  expect_match(A, D2, 0, 0, "d2d");
  BOOST_CHECK_THROW(lz::copy(A, D), lz::shape_error);
}

BOOST_AUTO_TEST_CASE(device_tensors_have_value_semantics) {
  const auto a = lz::to_device(lz::vector<int>{1, 2, 3});
  lz::device_tensor<int, 1> b = a;
  b += 10;
  expect_match(lz::vector<int>{1, 2, 3}, a, 0, 0, "copy is deep");
  expect_match(lz::vector<int>{11, 12, 13}, b, 0, 0, "copy is deep");
  const int* p = b.data();
  lz::device_tensor<int, 1> c = std::move(b);
  BOOST_TEST(c.data() == p);
  BOOST_TEST(b.size() == 0);
  lz::device_tensor<double, 3> z(lz::shape_t<3>{2, 3, 4});
  expect_match(lz::tensor<double, 3>(lz::shape_t<3>{2, 3, 4}), z, 0, 0, "zero-initialised");
  lz::device_tensor<double, 1> r;
  r = lz::cast<double>(a) * 0.5; // resizes to the expression's shape
  expect_match(lz::vector<double>{0.5, 1.0, 1.5}, r, 0, 0, "assignment resizes");
}

BOOST_AUTO_TEST_CASE(printing_copies_back_once_and_prints_like_the_host) {
  const auto A = rnd<double, 2>({3, 4}, 3);
  const auto dA = lz::to_device(A);
  std::ostringstream h, d, e;
  h << lz::transpose(A);
  lz::reset_device_stats();
  d << lz::transpose(dA);
  BOOST_TEST(lz::device_stats().d2h == 1u);
  BOOST_TEST(h.str() == d.str());
  std::ostringstream he;
  he << lz::eval(A * 2.0);
  e << dA * 2.0; // an expression: evaluated on the device, then printed
  BOOST_TEST(he.str() == e.str());
}

BOOST_AUTO_TEST_CASE(stream_work_is_asynchronous_until_sync) {
  const auto x = rnd<double, 1>({200000}, 4), y = rnd<double, 1>({200000}, 5);
  const auto dx = lz::to_device(x), dy = lz::to_device(y);
  lz::device_stream s1, s2;
  lz::device_tensor<double, 1> z1(lz::shape_t<1>{200000}), z2(lz::shape_t<1>{200000});
  lz::assign(lz::device.on(s1), z1, 2.5 * dx + 1.5 * dy);
  lz::assign(lz::device.on(s2), z2, dx - lz::mean(dx)); // nested reduction on s2
  auto e3 = lz::eval(lz::device.on(s1), lz::sqrt(lz::abs(z1)));
  s1.sync();
  lz::device.on(s2).sync();
  expect_match(lz::eval(2.5 * x + 1.5 * y), z1, 2, 1e-14, "stream 1");
  expect_match(lz::eval(x - lz::mean(x)), z2, 8, 1e-13, "stream 2");
  // e3 read z1 on stream 1: compare with the host's sqrt(|z1|) of the same z1 (recomputing z1 on
  // the host would let z1's last-bit differences, e.g. nvcc's FMA contraction, grow through sqrt
  // where z1 is near 0). sqrt and abs are correctly rounded on both sides.
  expect_match(lz::eval(lz::sqrt(lz::abs(lz::to_host(z1)))), e3, 0, 0, "eval on a stream");
  const double on_stream = lz::eval(lz::device.on(s1), lz::sum(dx));
  const double on_default = lz::eval(lz::device, lz::sum(dx));
#if defined(LZ_DEVICE_CUDA)
  BOOST_TEST(on_stream == on_default); // same plan, same grid: same bits
#else
  // Thrust's TBB host system reduces with tbb::parallel_reduce, whose split and join order
  // depends on which worker steals what: the last bits may differ from run to run
  // (docs/architecture-device.md, "Reproducibility").
  BOOST_TEST(lz_dtest::close(on_stream, on_default, 64, 1e-12));
#endif
}

BOOST_AUTO_TEST_CASE(allocation_failures_are_device_errors_with_the_cuda_name) {
  try {
    lz::device_tensor<double, 1> huge(lz::shape_t<1>{index_t(1) << 58}, lz::uninitialized);
    BOOST_FAIL("a 2 EiB device allocation succeeded");
  } catch (const lz::device_error& e) {
    BOOST_TEST(!e.error_name().empty());
    BOOST_TEST(std::string(e.what()).find("lz: ") == 0);
  }
  BOOST_CHECK_THROW((lz::device_tensor<double, 1>(lz::shape_t<1>{index_t(1) << 62})),
                    lz::layout_error); // the byte count itself overflows
}

// Captures what lazuli writes to stderr while f runs.
template <class F>
std::string capture_stderr(F&& f) {
  std::fflush(stderr);
  char name[] = "/tmp/lz_device_log_XXXXXX";
  const int fd = mkstemp(name);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(name);
  return ss.str();
}

BOOST_AUTO_TEST_CASE(lz_log_traces_kernel_launches_and_transfers) {
  const auto x = rnd<double, 2>({64, 32}, 6);
  const std::string out = capture_stderr([&] {
    lz::logging::enable("device,copy");
    auto dx = lz::to_device(x);
    lz::device_tensor<double, 2> dz(lz::shape_t<2>{32, 64});
    dz = lz::transpose(dx) * 2.0;
    const double s = lz::eval(lz::device, lz::sum(dx));
    (void)s;
    auto back = lz::to_host(dz);
    lz::logging::disable();
  });
  for (const char* want :
       {"[lz:copy] h2d 16384 B to_device (64,32)", "[lz:device] map rows (32,64)",
        "[lz:device] sum (full) flat 2048", "[lz:copy] d2h 16384 B to_host"})
    BOOST_TEST((out.find(want) != std::string::npos), "missing '" << want << "' in:\n" << out);
}

BOOST_AUTO_TEST_CASE(fast_divmod_is_exact) {
  std::mt19937_64 g(7);
  for (int rep = 0; rep < 200000; ++rep) {
    const index_t d = 1 + index_t(g() % (rep % 2 ? 70000 : 4294967295ull));
    const index_t n = index_t(g() % 4294967295ull);
    const auto f = lz::kernels::dev::fast_divmod::make(d, index_t(4294967295ll));
    BOOST_TEST_REQUIRE(f.div(n) == n / d, n << " / " << d);
  }
  for (index_t d : {index_t(1), index_t(2), index_t(3), index_t(7), index_t(641), index_t(65535),
                    index_t(65536), index_t(4294967295ll)})
    for (index_t n : {index_t(0), d - 1, d, index_t(4294967294ll)})
      BOOST_TEST_REQUIRE(lz::kernels::dev::fast_divmod::make(d, 4294967295ll).div(n) == n / d);
  // large loops fall back to the hardware divide
  const auto big = lz::kernels::dev::fast_divmod::make(3, index_t(1) << 40);
  BOOST_TEST(big.m == 0u);
  BOOST_TEST(big.div((index_t(1) << 40) + 1) == ((index_t(1) << 40) + 1) / 3);
}

BOOST_AUTO_TEST_SUITE_END()
