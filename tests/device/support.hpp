// Device test support: comparisons of device results (copied back) against the CPU, random
// shapes and layouts, and the GPU-variant main that skips (77) without a GPU. The suites
// (*.inl) compile twice: by g++ on Thrust's host system (every CI run) and by nvcc for the GPU.
#pragma once

#include <boost/test/unit_test.hpp>

#include <lz/device.hpp>
#include <support/reference.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

namespace lz_dtest {

using lz::index_t;

/// a and b agree within `ulps` units in the last place or within `abs_tol` (cancellation near
/// zero); NaN matches NaN; non-floating values must be equal.
template <class T>
bool close(T a, T b, double ulps, double abs_tol) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (a == b) return true;
    if (std::fabs(double(a) - double(b)) <= abs_tol) return true;
    return lz_test::ulp_distance<T>(a, b) <= ulps;
  } else {
    return a == b;
  }
}

/// Compares a host result (tensor, view) with a device result (copied back with lz::to_host),
/// element by element, and reports the first mismatch.
template <class H, class D>
void expect_match(const H& host, const D& dev, double ulps = 0, double abs_tol = 0,
                  const std::string& what = "") {
  const auto back = lz::to_host(dev);
  BOOST_TEST_REQUIRE((back.shape() == host.shape()), what << ": shapes differ");
  bool ok = true;
  std::string first;
  lz_test::detail::for_each_index(host, [&](const auto& i) {
    const auto h = lz_test::ref_at(host, i);
    const auto d = lz_test::ref_at(back, i);
    if (ok && !close<decltype(h)>(h, static_cast<decltype(h)>(d), ulps, abs_tol)) {
      ok = false;
      first = "host " + std::to_string(double(h)) + " device " + std::to_string(double(d));
    }
  });
  BOOST_TEST(ok, what << ": " << first);
}

/// Random tensor with values in [lo, hi) (integers: [lo, hi)).
template <class T, std::size_t R>
lz::tensor<T, R> rnd(const lz::shape_t<R>& s, std::uint64_t seed, double lo = -2, double hi = 2) {
  if constexpr (std::is_floating_point_v<T>)
    return lz::random<T>(s, seed, lz::uniform{lo, hi});
  else
    return lz::random<T>(s, seed, lz::integers{std::int64_t(lo), std::int64_t(hi)});
}

/// Runs the GPU variant's tests, or skips (77) when there is no usable GPU; LZ_REQUIRE_GPU=1
/// turns the skip into a failure (the GPU runner sets it).
inline int gpu_main(int argc, char** argv, bool (*init)()) {
  if (!lz::device_available()) {
    try {
      lz::kernels::dev::require_device();
    } catch (const lz::device_error& e) {
      std::printf("no usable GPU (%s): %s\n", e.error_name().c_str(), e.what());
    }
    const char* req = std::getenv("LZ_REQUIRE_GPU");
    if (req && std::string(req) == "1") {
      std::printf("LZ_REQUIRE_GPU=1: failing instead of skipping\n");
      return 1;
    }
    return 77;
  }
  std::printf("%s\n", lz::device_info().c_str());
  return boost::unit_test::unit_test_main(init, argc, argv);
}

} // namespace lz_dtest
