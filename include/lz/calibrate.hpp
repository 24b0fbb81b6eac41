// lz::calibrate(): measures this machine's crossovers instead of trusting compile-time
// constants — single thread vs TBB threads by size and per-element cost, lazuli's own kernel vs
// copy + BLAS for products with awkward strides, BLAS level 1 vs the fused loop, software
// prefetch in reductions from memory, streaming stores by destination size — and returns thresholds
// that can be applied at run time and saved to a file LZ_CONFIG loads.
#pragma once

#include <lz/policy.hpp>

#include <string>

namespace lz {

struct calibrate_options {
  double seconds_per_point = 0.004; ///< time budget per measured point (min of 3 repeats)
  bool apply = true;                ///< install the measured thresholds (lz::thresholds())
};

struct calibration {
  tuning defaults;    ///< the thresholds before calibration
  tuning measured;    ///< what this machine measured
  std::string report; ///< one line per crossover: sizes, times, the decision
};

/// Measures the crossovers (about a second) and, by default, applies them.
calibration calibrate(const calibrate_options& opt = {});

} // namespace lz
