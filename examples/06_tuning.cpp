// 06 — the tuning workflow: what the machine is (lz::info), what an assignment does
// (lz::explain, LZ_LOG), and thresholds measured on this machine (lz::calibrate, LZ_CONFIG).
//
// CI runs this example and checks these lines of its output (examples/check_output.cmake):
// output: plan: dst(1048576,):(1,) = ((2.5 * t(1048576,)) + (1.5 * t(1048576,)))
// output: saved; run with LZ_CONFIG=lazuli_tuning.cfg to start with these thresholds
#include <lz/lz.hpp>

#include <iostream>

int main() {
  std::cout << lz::info() << "\n";

  lz::vector<double> x = lz::random<double>({1 << 20}, 1), y = lz::random<double>({1 << 20}, 2);
  std::cout << lz::explain(y, 2.5 * x + 1.5 * y) << "\n";

  // Trace the decisions and calls as they happen (same as running with LZ_LOG=fusion,blas,loop).
  lz::logging::enable("fusion,blas,loop");
  auto A = lz::random<double>({64, 64}, 3);
  lz::matrix<double> C(64, 64);
  C = A * C; // aliasing: the fusion channel says why the product goes through a temporary
  y = 2.5 * x + 1.5 * y;
  lz::logging::disable();

  lz::calibrate_options quick;
  quick.seconds_per_point = 0.001;
  const lz::calibration c = lz::calibrate(quick); // measured and applied
  std::cout << "calibration:\n" << c.report;
  lz::save_tuning("lazuli_tuning.cfg", c.measured);
  std::cout << "saved; run with LZ_CONFIG=lazuli_tuning.cfg to start with these thresholds\n";
}
