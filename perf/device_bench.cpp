// Device backend benchmark skeleton (W1, W2, W3 of shared/notes/anchors.md at n = 1e8 by
// default), each against a device-to-device copy measured in the same run, so the figure to read
// is "fraction of copy bandwidth". On Thrust's host system (this file under g++) it also runs the
// CPU lz::par path over the same memory, so the TBB backend is compared with the engine's own
// SIMD+TBB loop. The GPU build (device_bench.cu) runs the same code through nvcc.
//   device_bench [n=1e8] [reps=5]        prints one line per workload: median time, GB/s
//   device_bench products [n] [reps=5] [float]  W4, W6, W7 on n×n doubles (or floats) (n = 4096 on
//   a GPU, 1024 on
//                                        the host system) against the direct device BLAS call
//                                        (cuBLAS) / gemm + one hand-written bias+ReLU kernel
//   device_bench sparse [s] [reps=20]   W14 on the device: the 5-point Laplacian of an s × s grid
//                                        (s = 4000 on a GPU: 1.6e7 rows; 1000 on the host system),
//                                        y = A*x, y = 2*A*x - 3*y and C = A*B (16 columns) against
//                                        one cusparseSpMV / cusparseSpMM made directly
//   device_bench solve [n] [reps=5]     W12 on the device: x = solve(A, b) and X = inv(A)*B (64
//                                        columns), n = 4096 on a GPU (1024 on the host system),
//                                        against the same copies + getrf + getrs made directly
//                                        through the device LAPACK interface (cuSOLVER on a GPU)
#include <lz/device.hpp>
#include <lz/kernels/cuda/blas.hpp>
#include <lz/kernels/cuda/lapack.hpp>
#include <lz/kernels/cuda/sparse.hpp>
#include <lz/kernels/thrust/launch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#if LZ_DEVICE_IS_GPU
#include <cuda_runtime.h>
#include <cusparse.h>
#endif

namespace {

// Medians (ms) of the variants, measured interleaved: each repetition runs every variant once,
// in an order rotated by one per repetition, so drift (clocks, temperature, neighbours) reaches
// all of them alike. A warm-up round first (first touch, pool, handles, caches).
std::vector<double> interleaved_ms(int reps, const std::vector<std::function<void()>>& fs) {
  for (const auto& f : fs) f();
  const std::size_t v = fs.size();
  std::vector<std::vector<double>> t(v);
  for (int r = 0; r < reps; ++r)
    for (std::size_t j = 0; j < v; ++j) {
      const std::size_t i = (j + std::size_t(r)) % v;
      const auto t0 = std::chrono::steady_clock::now();
      fs[i]();
      t[i].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  std::vector<double> med(v);
  for (std::size_t i = 0; i < v; ++i) {
    std::sort(t[i].begin(), t[i].end());
    med[i] = t[i][t[i].size() / 2];
  }
  return med;
}

void row(const char* name, double ms, double bytes, double copy_gbs) {
  const double gbs = bytes / (ms * 1e6);
  std::printf("%-38s %10.2f ms %8.1f GB/s %6.2fx copy\n", name, ms, gbs, gbs / copy_gbs);
}

// The hand-written baseline of W7's elementwise half: C(i, j) = max(C(i, j) + b(j), 0).
template <class T>
struct bias_relu_fn {
  T* c;
  const T* b;
  lz::index_t n;
  LZ_HD void operator()(lz::index_t i) const {
    const T v = c[i] + b[i % n];
    c[i] = v > 0 || v != v ? v : T(0);
  }
};

void product_row(const char* name, double ms, double flops, double base_ms) {
  std::printf("%-52s %10.3f ms %8.1f GFLOP/s %6.3fx direct\n", name, ms, flops / (ms * 1e6),
              ms / base_ms);
}

// W4 C = transpose(A)*B, W6 C = 2*A*B + 3*C, W7 D = maximum(A*B + broadcast_to(b), 0): lazuli's
// device plan against the same device BLAS call made directly (one cuBLAS call on a GPU).
template <class T>
int products(lz::index_t n, int reps) {
  namespace dblas = lz::kernels::dev::blas;
  using dblas::order;
  using dblas::trans;
  std::printf("%s, products on %lld x %lld %s, median of %d (%s)\n", lz::device_info().c_str(),
              (long long)n, (long long)n, sizeof(T) == 8 ? "doubles" : "floats", reps,
              dblas::info());
  const lz::shape_t<2> s{n, n};
  auto A = lz::to_device(lz::random<T>(s, 1)), B = lz::to_device(lz::random<T>(s, 2));
  auto b = lz::to_device(lz::random<T>(lz::shape_t<1>{n}, 3));
  lz::device_tensor<T, 2> C(s), D(s);
  C = T(0.5) * A;
  const double flops = 2.0 * double(n) * double(n) * double(n);
  auto sync = [] { lz::kernels::dev::stream_sync(nullptr); };

  const auto w4 = interleaved_ms(reps, {[&] {
                                          dblas::gemm(nullptr, order::row_major, trans::transpose,
                                                      trans::none, n, n, n, T(1), A.data(), n,
                                                      B.data(), n, T(0), C.data(), n);
                                          sync();
                                        },
                                        [&] { C = lz::transpose(A) * B; }});
  product_row("W4 direct gemm(T, N)", w4[0], flops, w4[0]);
  product_row("W4 C = transpose(A)*B  (lazuli device)", w4[1], flops, w4[0]);

  const auto w6 =
      interleaved_ms(reps, {[&] {
                              dblas::gemm(nullptr, order::row_major, trans::none, trans::none, n, n,
                                          n, T(2), A.data(), n, B.data(), n, T(3), C.data(), n);
                              sync();
                            },
                            [&] { C = T(2) * A * B + T(3) * C; }});
  product_row("W6 direct gemm(alpha=2, beta=3)", w6[0], flops, w6[0]);
  product_row("W6 C = 2*A*B + 3*C  (lazuli device)", w6[1], flops, w6[0]);

  auto w7 = [&](dblas::epilogue_policy p) {
    return [&, p] {
      dblas::set_epilogue(p);
      D = lz::maximum(A * B + lz::broadcast_to(b, {n, n}), T(0));
      dblas::set_epilogue(dblas::epilogue_policy::automatic);
    };
  };
  const auto w7t = interleaved_ms(
      reps, {[&] {
               dblas::gemm(nullptr, order::row_major, trans::none, trans::none, n, n, n, T(1),
                           A.data(), n, B.data(), n, T(0), D.data(), n);
               lz::kernels::dev::with_policy({nullptr}, "bias+relu baseline", [&](auto&& pol) {
                 thrust::for_each_n(pol, thrust::counting_iterator<lz::index_t>(0), n * n,
                                    bias_relu_fn<T>{D.data(), b.data(), n});
               });
               sync();
             },
             w7(dblas::epilogue_policy::automatic), w7(dblas::epilogue_policy::always),
             w7(dblas::epilogue_policy::never)});
  product_row("W7 direct gemm + one bias/ReLU kernel", w7t[0], flops, w7t[0]);
  product_row("W7 D = maximum(A*B + b, 0)  (lazuli, default)", w7t[1], flops, w7t[0]);
  product_row("W7 (lazuli, epilogue on)", w7t[2], flops, w7t[0]);
  product_row("W7 (lazuli, epilogue off: gemm + one pass)", w7t[3], flops, w7t[0]);
  return 0;
}

// The 5-point Laplacian of an s × s grid (CSR, sorted columns), built row by row on the host.
lz::csr_matrix<double> laplacian(lz::index_t s) {
  const lz::index_t n = s * s;
  std::vector<int> rp(std::size_t(n) + 1, 0), ci;
  std::vector<double> v;
  ci.reserve(std::size_t(5 * n));
  v.reserve(std::size_t(5 * n));
  for (lz::index_t i = 0; i < s; ++i)
    for (lz::index_t j = 0; j < s; ++j) {
      const lz::index_t k = i * s + j;
      const auto put = [&](lz::index_t c, double x) { ci.push_back(int(c)), v.push_back(x); };
      if (i > 0) put(k - s, -1);
      if (j > 0) put(k - 1, -1);
      put(k, 4);
      if (j < s - 1) put(k + 1, -1);
      if (i < s - 1) put(k + s, -1);
      rp[std::size_t(k) + 1] = int(ci.size());
    }
  return lz::csr_matrix<double>(n, n, std::move(rp), std::move(ci), std::move(v));
}

// W14 on the device: lazuli's plan (one sparse step) against the same product called directly —
// on a GPU one cusparseSpMV / cusparseSpMM with its descriptors and work buffer made once, outside
// the timing; on the host system the device sparse interface's call.
int sparse(lz::index_t s, int reps) {
  constexpr lz::index_t k = 16;
  const auto hA = laplacian(s);
  const lz::index_t n = hA.rows();
  std::printf("%s, W14 sparse: Laplacian %lld x %lld (%lld stored), median of %d\n",
              lz::device_info().c_str(), (long long)n, (long long)n, (long long)hA.nnz(), reps);
  const auto A = lz::to_device(hA);
  const auto x = lz::to_device(lz::random<double>(lz::shape_t<1>{n}, 1));
  const auto B = lz::to_device(lz::random<double>(lz::shape_t<2>{n, k}, 2));
  lz::device_vector<double> y(lz::shape_t<1>{n});
  lz::device_tensor<double, 2> C(lz::shape_t<2>{n, k});
  auto sync = [] { lz::kernels::dev::stream_sync(nullptr); };
#if LZ_DEVICE_IS_GPU
  cusparseHandle_t h = nullptr;
  cusparseCreate(&h);
  cusparseConstSpMatDescr_t mA = nullptr;
  cusparseConstDnVecDescr_t vx = nullptr;
  cusparseDnVecDescr_t vy = nullptr;
  cusparseConstDnMatDescr_t mB = nullptr;
  cusparseDnMatDescr_t mC = nullptr;
  cusparseCreateConstCsr(&mA, n, n, hA.nnz(), A.row_ptr().data(), A.col_idx().data(),
                         A.values_expr().data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
  cusparseCreateConstDnVec(&vx, n, x.data(), CUDA_R_64F);
  cusparseCreateDnVec(&vy, n, y.data(), CUDA_R_64F);
  cusparseCreateConstDnMat(&mB, n, k, k, B.data(), CUDA_R_64F, CUSPARSE_ORDER_ROW);
  cusparseCreateDnMat(&mC, n, k, k, C.data(), CUDA_R_64F, CUSPARSE_ORDER_ROW);
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  std::size_t bv = 0, bm = 0;
  const double one = 1, zero = 0, two = 2, minus3 = -3;
  cusparseSpMV_bufferSize(h, op, &two, mA, vx, &minus3, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                          &bv);
  cusparseSpMM_bufferSize(h, op, op, &one, mA, mB, &zero, mC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT,
                          &bm);
  void* buf = nullptr;
  cudaMalloc(&buf, std::max<std::size_t>({bv, bm, 1}));
  auto direct_mv = [&](const double& a, const double& b) {
    return [&, pa = &a, pb = &b] {
      cusparseSpMV(h, op, pa, mA, vx, pb, vy, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
      sync();
    };
  };
  auto direct_mm = [&] {
    cusparseSpMM(h, op, op, &one, mA, mB, &zero, mC, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, buf);
    sync();
  };
#else
  namespace dsp = lz::kernels::dev::sparse;
  const dsp::csr<double> a{
      n, n, hA.nnz(), 32, A.row_ptr().data(), A.col_idx().data(), A.values_expr().data()};
  const double one = 1, zero = 0, two = 2, minus3 = -3;
  auto direct_mv = [&](const double& al, const double& be) {
    return [&, pa = &al, pb = &be] {
      dsp::spmv(nullptr, lz::kernels::blas::trans::none, a, *pa, x.data(), *pb, y.data());
      sync();
    };
  };
  auto direct_mm = [&] {
    dsp::spmm(nullptr, lz::kernels::blas::trans::none, a, k, 1.0, B.data(),
              lz::kernels::blas::order::row_major, k, 0.0, C.data(),
              lz::kernels::blas::order::row_major, k);
    sync();
  };
#endif
  const auto t1 = interleaved_ms(reps, {direct_mv(one, zero), [&] { y = A * x; }});
  product_row("W14 direct SpMV y = A*x", t1[0], 2.0 * double(hA.nnz()), t1[0]);
  product_row("W14 y = A * x  (lazuli device)", t1[1], 2.0 * double(hA.nnz()), t1[0]);
  const auto t2 = interleaved_ms(reps, {direct_mv(two, minus3), [&] { y = 2 * A * x - 3 * y; }});
  product_row("W14 direct SpMV (alpha=2, beta=-3)", t2[0], 2.0 * double(hA.nnz()), t2[0]);
  product_row("W14 y = 2*A*x - 3*y  (lazuli device)", t2[1], 2.0 * double(hA.nnz()), t2[0]);
  const auto t3 = interleaved_ms(reps, {direct_mm, [&] { C = A * B; }});
  product_row("W14 direct SpMM, 16 columns", t3[0], 2.0 * double(hA.nnz() * k), t3[0]);
  product_row("W14 C = A * B  (lazuli device)", t3[1], 2.0 * double(hA.nnz() * k), t3[0]);
#if LZ_DEVICE_IS_GPU
  cudaFree(buf);
  cusparseDestroySpMat(mA);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroyDnMat(mB);
  cusparseDestroyDnMat(mC);
  cusparseDestroy(h);
#endif
  return 0;
}

// W12 on the device: lazuli's plan (the matrix copied as stored — row-major, so factored as Aᵀ —
// then getrf, the right-hand side copied into the destination, getrs('T')) against the same
// copies and the same two calls made directly, with the pivots and the copy allocated once.
int solve(lz::index_t n, int reps) {
  constexpr lz::index_t k = 64;
  std::printf("%s, W12 solve: n = %lld, %s, median of %d\n", lz::device_info().c_str(),
              (long long)n, lz::kernels::dev::lapack::name(), reps);
  lz::matrix<double> hA = lz::random<double>(lz::shape_t<2>{n, n}, 1, lz::uniform{-1, 1});
  for (lz::index_t i = 0; i < n; ++i) hA(i, i) += double(n) / 4; // well conditioned
  const auto A = lz::to_device(hA);
  const auto b = lz::to_device(lz::random<double>(lz::shape_t<1>{n}, 2));
  const auto B = lz::to_device(lz::random<double>(lz::shape_t<2>{n, k}, 3));
  lz::device_vector<double> x(lz::shape_t<1>{n});
  lz::device_matrix<double> X(lz::shape_t<2>{n, k}), F(lz::shape_t<2>{n, n}),
      Xc(lz::shape_t<2>{k, n}); // Xc: X column-major (its transpose row-major)
  lz::device_tensor<int, 1> piv(lz::shape_t<1>{n});
  namespace dl = lz::kernels::dev::lapack;
  namespace kd = lz::kernels::dev;
  auto sync = [] { kd::stream_sync(nullptr); };
  const std::size_t abytes = std::size_t(n * n) * sizeof(double);
  auto direct = [&](const double* rhs, double* out, lz::index_t nrhs) {
    kd::copy(F.data(), A.data(), abytes, kd::copy_kind::device_to_device, nullptr);
    (void)dl::getrf<double>(nullptr, n, n, F.data(), n, piv.data());
    kd::copy(out, rhs, std::size_t(n * nrhs) * sizeof(double), kd::copy_kind::device_to_device,
             nullptr);
    dl::getrs<double>(nullptr, lz::kernels::blas::trans::transpose, n, nrhs, F.data(), n,
                      piv.data(), out, n);
    sync();
  };
  const double f1 = 2.0 / 3.0 * double(n) * double(n) * double(n) + 2.0 * double(n) * double(n);
  const auto t1 =
      interleaved_ms(reps, {[&] { direct(b.data(), x.data(), 1); }, [&] { x = lz::solve(A, b); }});
  product_row("W12 direct getrf + getrs (1 right-hand side)", t1[0], f1, t1[0]);
  product_row("W12 x = solve(A, b)  (lazuli device)", t1[1], f1, t1[0]);
  // X = inv(A)*B: B row-major is Bᵀ column-major; the direct call solves into Xc (k × n
  // row-major = n × k column-major) from a column-major copy of B.
  lz::device_matrix<double> Bc(lz::shape_t<2>{k, n});
  Bc = lz::transpose(B);
  const double f2 = 2.0 / 3.0 * double(n) * double(n) * double(n) + 2.0 * double(n * n) * k;
  const auto t2 =
      interleaved_ms(reps, {[&] { direct(Bc.data(), Xc.data(), k); }, [&] { X = lz::inv(A) * B; }});
  product_row("W12 direct getrf + getrs (64 right-hand sides)", t2[0], f2, t2[0]);
  product_row("W12 X = inv(A) * B  (lazuli device)", t2[1], f2, t2[0]);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "solve") {
    if (!lz::device_available()) {
      std::printf("no usable device: skipping\n");
      return 77;
    }
    const lz::index_t n =
        argc > 2 ? lz::index_t(std::atof(argv[2])) : lz::index_t(LZ_DEVICE_IS_GPU ? 4096 : 1024);
    return solve(n, argc > 3 ? std::atoi(argv[3]) : 5);
  }
  if (argc > 1 && std::string(argv[1]) == "sparse") {
    if (!lz::device_available()) {
      std::printf("no usable device: skipping\n");
      return 77;
    }
    const lz::index_t s =
        argc > 2 ? lz::index_t(std::atof(argv[2])) : lz::index_t(LZ_DEVICE_IS_GPU ? 4000 : 1000);
    return sparse(s, argc > 3 ? std::atoi(argv[3]) : 20);
  }
  if (argc > 1 && std::string(argv[1]) == "products") {
    if (!lz::device_available()) {
      std::printf("no usable device: skipping\n");
      return 77;
    }
    const lz::index_t n =
        argc > 2 ? lz::index_t(std::atof(argv[2])) : lz::index_t(LZ_DEVICE_IS_GPU ? 4096 : 1024);
    const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
    const bool f32 = argc > 4 && std::string(argv[4]) == "float";
    return f32 ? products<float>(n, reps) : products<double>(n, reps);
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

  double s = 0;
  const auto t = interleaved_ms(
      reps, {[&] {
               lz::kernels::dev::copy(z.data(), x.data(), std::size_t(d),
                                      lz::kernels::dev::copy_kind::device_to_device, nullptr);
               lz::kernels::dev::stream_sync(nullptr);
             },
             [&] { z = 2.5 * x + 1.5 * y; }, [&] { z = x * y + lz::sin(w) * lz::exp(-v); },
             [&] { s = lz::eval(lz::device, lz::sum(lz::square(x - y))); }});
  const double copy_gbs = 2 * d / (t[0] * 1e6);
  row("d2d copy (read + write)", t[0], 2 * d, copy_gbs);
  row("W1 z = 2.5*x + 1.5*y  (device)", t[1], 3 * d, copy_gbs);
  row("W2 z = x*y + sin(w)*exp(-v) (device)", t[2], 5 * d, copy_gbs);
  row("W3 s = sum((x-y)^2)   (device)", t[3], 2 * d, copy_gbs);
#if !LZ_DEVICE_IS_GPU
  // The same memory through the CPU engine (lz::par: xsimd + TBB), for comparison.
  auto hx = lz::adopt(x.data(), shape), hy = lz::adopt(y.data(), shape),
       hw = lz::adopt(w.data(), shape), hv = lz::adopt(v.data(), shape),
       hz = lz::adopt(z.data(), shape);
  double hs = 0;
  const auto c =
      interleaved_ms(reps, {[&] { lz::assign(lz::par, hz, 2.5 * hx + 1.5 * hy); },
                            [&] { lz::assign(lz::par, hz, hx * hy + lz::sin(hw) * lz::exp(-hv)); },
                            [&] { hs = lz::eval(lz::par, lz::sum(lz::square(hx - hy))); }});
  row("W1 z = 2.5*x + 1.5*y  (CPU lz::par)", c[0], 3 * d, copy_gbs);
  row("W2 (CPU lz::par)", c[1], 5 * d, copy_gbs);
  row("W3 (CPU lz::par)", c[2], 2 * d, copy_gbs);
  std::printf("W3 device %.17g, CPU %.17g\n", s, hs);
#else
  std::printf("W3 = %.17g\n", s);
#endif
}
