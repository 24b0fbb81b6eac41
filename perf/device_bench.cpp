// Device backend benchmark skeleton (W1, W2, W3 of shared/notes/anchors.md at n = 1e8 by
// default), each against a device-to-device copy measured in the same run, so the figure to read
// is "fraction of copy bandwidth". On Thrust's host system (this file under g++) it also runs the
// CPU lz::par path over the same memory, so the TBB backend is compared with the engine's own
// SIMD+TBB loop. The GPU build (device_bench.cu) runs the same code through nvcc.
//   device_bench [n=1e8] [reps=5]        prints one line per workload: median time, GB/s
//   device_bench products [n] [reps=5]   W4, W6, W7 on n×n doubles (n = 4096 on a GPU, 1024 on
//                                        the host system) against the direct device BLAS call
//                                        (cuBLAS) / gemm + one hand-written bias+ReLU kernel
#include <lz/device.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/thrust/launch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

template <class F>
double median_ms(int reps, F&& f) {
  f(); // warm-up: first touch, pool, caches
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void row(const char* name, double ms, double bytes, double copy_gbs) {
  const double gbs = bytes / (ms * 1e6);
  std::printf("%-38s %10.2f ms %8.1f GB/s %6.2fx copy\n", name, ms, gbs, gbs / copy_gbs);
}

// The hand-written baseline of W7's elementwise half: C(i, j) = max(C(i, j) + b(j), 0).
struct bias_relu_fn {
  double* c;
  const double* b;
  lz::index_t n;
  LZ_HD void operator()(lz::index_t i) const {
    const double v = c[i] + b[i % n];
    c[i] = v > 0 || v != v ? v : 0.0;
  }
};

void product_row(const char* name, double ms, double flops, double base_ms) {
  std::printf("%-52s %10.3f ms %8.1f GFLOP/s %6.3fx direct\n", name, ms, flops / (ms * 1e6),
              ms / base_ms);
}

// W4 C = transpose(A)*B, W6 C = 2*A*B + 3*C, W7 D = maximum(A*B + broadcast_to(b), 0): lazuli's
// device plan against the same device BLAS call made directly (one cuBLAS call on a GPU).
int products(lz::index_t n, int reps) {
  namespace dblas = lz::kernels::dev::blas;
  using dblas::order;
  using dblas::trans;
  std::printf("%s, products on %lld x %lld doubles, median of %d (%s)\n", lz::device_info().c_str(),
              (long long)n, (long long)n, reps, dblas::info());
  const lz::shape_t<2> s{n, n};
  auto A = lz::to_device(lz::random<double>(s, 1)), B = lz::to_device(lz::random<double>(s, 2));
  auto b = lz::to_device(lz::random<double>(lz::shape_t<1>{n}, 3));
  lz::device_tensor<double, 2> C(s), D(s);
  C = 0.5 * A;
  const double flops = 2.0 * double(n) * double(n) * double(n);
  auto sync = [] { lz::kernels::dev::stream_sync(nullptr); };

  const double w4_direct = median_ms(reps, [&] {
    dblas::gemm(nullptr, order::row_major, trans::transpose, trans::none, n, n, n, 1.0, A.data(), n,
                B.data(), n, 0.0, C.data(), n);
    sync();
  });
  product_row("W4 direct gemm(T, N)", w4_direct, flops, w4_direct);
  product_row("W4 C = transpose(A)*B  (lazuli device)",
              median_ms(reps, [&] { C = lz::transpose(A) * B; }), flops, w4_direct);

  const double w6_direct = median_ms(reps, [&] {
    dblas::gemm(nullptr, order::row_major, trans::none, trans::none, n, n, n, 2.0, A.data(), n,
                B.data(), n, 3.0, C.data(), n);
    sync();
  });
  product_row("W6 direct gemm(alpha=2, beta=3)", w6_direct, flops, w6_direct);
  product_row("W6 C = 2*A*B + 3*C  (lazuli device)",
              median_ms(reps, [&] { C = 2.0 * A * B + 3.0 * C; }), flops, w6_direct);

  const double w7_direct = median_ms(reps, [&] {
    dblas::gemm(nullptr, order::row_major, trans::none, trans::none, n, n, n, 1.0, A.data(), n,
                B.data(), n, 0.0, D.data(), n);
    lz::kernels::dev::with_policy({nullptr}, "bias+relu baseline", [&](auto&& pol) {
      thrust::for_each_n(pol, thrust::counting_iterator<lz::index_t>(0), n * n,
                         bias_relu_fn{D.data(), b.data(), n});
    });
    sync();
  });
  product_row("W7 direct gemm + one bias/ReLU kernel", w7_direct, flops, w7_direct);
  auto w7 = [&] { D = lz::maximum(A * B + lz::broadcast_to(b, {n, n}), 0.0); };
  product_row("W7 D = maximum(A*B + b, 0)  (lazuli, epilogue)", median_ms(reps, w7), flops,
              w7_direct);
  dblas::set_epilogue_enabled(false);
  product_row("W7 (lazuli, epilogue off: gemm + one pass)", median_ms(reps, w7), flops, w7_direct);
  dblas::set_epilogue_enabled(true);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "products") {
    if (!lz::device_available()) {
      std::printf("no usable device: skipping\n");
      return 77;
    }
    const lz::index_t n =
        argc > 2 ? lz::index_t(std::atof(argv[2])) : lz::index_t(LZ_DEVICE_IS_GPU ? 4096 : 1024);
    return products(n, argc > 3 ? std::atoi(argv[3]) : 5);
  }
  const lz::index_t n = argc > 1 ? lz::index_t(std::atof(argv[1])) : lz::index_t(100000000);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (!lz::device_available()) {
    std::printf("no usable device: skipping\n");
    return 77;
  }
  std::printf("%s, n = %lld doubles, median of %d\n", lz::device_info().c_str(), (long long)n,
              reps);
  const lz::shape_t<1> shape{n};
  lz::device_vector<double> x = lz::to_device(lz::random<double>(shape, 1)); // one transfer
  lz::device_vector<double> y(shape), w(shape), v(shape), z(shape);
  y = 0.5 * x + 0.25; // the rest is made on the device
  w = 1.0 - x;
  v = x * 0.75;
  const double d = double(n) * sizeof(double);

  const double copy_ms = median_ms(reps, [&] {
    lz::kernels::dev::copy(z.data(), x.data(), std::size_t(d),
                           lz::kernels::dev::copy_kind::device_to_device, nullptr);
    lz::kernels::dev::stream_sync(nullptr);
  });
  const double copy_gbs = 2 * d / (copy_ms * 1e6);
  row("d2d copy (read + write)", copy_ms, 2 * d, copy_gbs);
  row("W1 z = 2.5*x + 1.5*y  (device)", median_ms(reps, [&] { z = 2.5 * x + 1.5 * y; }), 3 * d,
      copy_gbs);
  row("W2 z = x*y + sin(w)*exp(-v) (device)",
      median_ms(reps, [&] { z = x * y + lz::sin(w) * lz::exp(-v); }), 5 * d, copy_gbs);
  double s = 0;
  row("W3 s = sum((x-y)^2)   (device)",
      median_ms(reps, [&] { s = lz::eval(lz::device, lz::sum(lz::square(x - y))); }), 2 * d,
      copy_gbs);
#if !LZ_DEVICE_IS_GPU
  // The same memory through the CPU engine (lz::par: xsimd + TBB), for comparison.
  auto hx = lz::adopt(x.data(), shape), hy = lz::adopt(y.data(), shape),
       hw = lz::adopt(w.data(), shape), hv = lz::adopt(v.data(), shape),
       hz = lz::adopt(z.data(), shape);
  row("W1 z = 2.5*x + 1.5*y  (CPU lz::par)",
      median_ms(reps, [&] { lz::assign(lz::par, hz, 2.5 * hx + 1.5 * hy); }), 3 * d, copy_gbs);
  row("W2 (CPU lz::par)",
      median_ms(reps, [&] { lz::assign(lz::par, hz, hx * hy + lz::sin(hw) * lz::exp(-hv)); }),
      5 * d, copy_gbs);
  double hs = 0;
  row("W3 (CPU lz::par)",
      median_ms(reps, [&] { hs = lz::eval(lz::par, lz::sum(lz::square(hx - hy))); }), 2 * d,
      copy_gbs);
  std::printf("W3 device %.17g, CPU %.17g\n", s, hs);
#else
  std::printf("W3 = %.17g\n", s);
#endif
}
