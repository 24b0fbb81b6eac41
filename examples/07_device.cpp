// 07 — the same expressions on the device: explicit transfers, lz::device evaluation (Thrust),
// a stream, and the plan. Built twice: g++ on Thrust's TBB host system (runs everywhere) and
// nvcc for the GPU (07_device.cu; exits 77 where there is no GPU).
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: z[0:4] = [1.07879574 0.48127992 0.99621253 1.03340673]
#include <lz/device.hpp>

#include <cstdlib>
#include <iostream>

int main() {
  if (!lz::device_available()) { // 77: CTest's "skipped"; a GPU runner sets LZ_REQUIRE_GPU=1
    std::cout << "no usable GPU\n";
    return std::getenv("LZ_REQUIRE_GPU") ? 1 : 77;
  }
  std::cout << lz::device_info() << "\n";
  const lz::index_t n = 1 << 20;
  // Host data goes to the device only when asked: lz::to_device (one transfer each).
  const auto x = lz::to_device(lz::linspace(0.0, 1.0, n));
  const auto y = lz::to_device(lz::random<double>({n}, 42));
  lz::device_vector<double> z(lz::shape_t<1>{n});

  // One fused device loop (thrust::transform over the kernel tree), no temporaries.
  std::cout << lz::explain(lz::device, z, 2.5 * x + 1.5 * y);
  z = 2.5 * x + 1.5 * y;

  // Reductions run on the device and return their value explicitly.
  const double s = lz::eval(lz::device, lz::sum(lz::square(x - z)));
  std::cout << "sum((x - z)^2) = " << s << "\n";

  // Views are device views; a nested reduction becomes a pooled temporary.
  lz::device_matrix<double> A = lz::to_device(lz::random<double>({4, 3}, 7));
  lz::device_matrix<double> C(lz::shape_t<2>{3, 4});
  std::cout << lz::explain(lz::device, C, lz::transpose(A) - lz::mean(A));
  C = lz::transpose(A) - lz::mean(A);
  std::cout << "C =\n" << C << "\n"; // printing copies back (the one implicit transfer)

  // Asynchronous work on a stream: returns at once, completes at sync().
  lz::device_stream stream;
  lz::assign(lz::device.on(stream), z, lz::sqrt(lz::abs(z)) + x);
  stream.sync();
  const auto back = lz::to_host(z(lz::range(0, 4)));
  std::cout << "z[0:4] = " << back << "\n";
}
