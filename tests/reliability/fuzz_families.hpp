// The differential fuzzer's tree families (tests/reliability): each family is one compile-time
// skeleton, element type and rank from support/random_tree.hpp; a tree is a family plus a
// genome. Shared by the fixed-seed CTest batch (fuzz_batch_test.cpp), the long run
// (scripts/fuzz_long.sh) and the libFuzzer target (fuzz_target.cpp), so all three build the
// same trees from the same seeds.
#pragma once

#include <support/random_tree.hpp>

#include <chrono>
#include <cstdio>

namespace lz_test::fuzz {

using namespace lz_test::tree;
using namespace lz_test::tree::skeletons;

/// One family: how to draw a genome, run it, and shrink a failing one.
struct family {
  const char* name;
  genome (*make)(std::uint64_t seed, bool big);
  outcome (*run)(genome& g, bool want_source);
  genome (*shrink)(genome g);
  bool floating;
  bool compound; ///< the family's trees may use +=, -= (and *=, /= when floating)
};

template <class Skel, class T, std::size_t R, bool Compound>
family make_family(const char* name) {
  return {name,
          // Half the floating trees are tolerance trees (general values in products and sums);
          // the others are exact (whole values there) and compared bit for bit.
          [](std::uint64_t seed, bool big) {
            return random_genome<T, R>(seed, big, Compound,
                                       std::is_floating_point_v<T> && (seed >> 7 & 1));
          },
          [](genome& g, bool src) { return run<Skel, T, R, Compound>(g, src); },
          [](genome g) { return tree::shrink<Skel, T, R, Compound>(std::move(g)); },
          std::is_floating_point_v<T>, Compound};
}

/// Every family: products (matrix*matrix, matrix*vector, transposed operands, C + A*B, nested in
/// elementwise trees), sums and means (axis and full), mixed element types, and the elementwise
/// skeletons with views, broadcasts, reductions and aliasing destinations; float, double,
/// int32, int64; ranks 1-3. Policies, assignment operators and destinations vary per genome.
inline const std::vector<family>& families() {
  static const std::vector<family> f = {
      make_family<products, double, 2, false>("products<double,2>"),
      make_family<products, float, 2, false>("products<float,2>"),
      make_family<products, std::int32_t, 2, false>("products<int32,2>"),
      make_family<gemm_like, double, 2, true>("gemm_like<double,2,compound>"),
      make_family<gemm_like, float, 2, true>("gemm_like<float,2,compound>"),
      make_family<gemm_like, std::int64_t, 2, false>("gemm_like<int64,2>"),
      make_family<gemv_like, double, 1, true>("gemv_like<double,1,compound>"),
      make_family<gemv_like, float, 1, false>("gemv_like<float,1>"),
      make_family<sums, double, 2, false>("sums<double,2>"),
      make_family<sums, float, 3, false>("sums<float,3>"),
      make_family<sums, std::int32_t, 2, false>("sums<int32,2>"),
      make_family<mixed_types, double, 2, false>("mixed_types<double,2>"),
      make_family<mixed_types, float, 2, true>("mixed_types<float,2,compound>"),
      make_family<mixed_types, std::int32_t, 2, false>("mixed_types<int32,2>"),
      make_family<mixed, double, 3, false>("mixed<double,3>"),
      make_family<views, float, 2, false>("views<float,2>"),
      make_family<deep_chain, std::int64_t, 1, true>("deep_chain<int64,1,compound>"),
  };
  return f;
}

/// Result of a batch.
struct batch_result {
  long trees = 0, failures = 0, tolerance_trees = 0;
  double seconds = 0;
  std::vector<std::string> reports; ///< the first few failures, shrunk, as source
};

/// Tree number i of the batch starting at `seed`: family i mod F, genome seed mixed from both.
/// Every `big_every`-th tree (0: none) is big (2.5e5-1.1e6 elements: threads, tiles).
inline batch_result run_batch(std::uint64_t seed, long count, long big_every = 0,
                              int max_reports = 3) {
  batch_result res;
  const auto& fams = families();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < count; ++i) {
    const family& f = fams[std::size_t(i) % fams.size()];
    const std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + std::uint64_t(i);
    genome g = f.make(s, big_every > 0 && i % big_every == big_every - 1);
    const outcome o = f.run(g, false);
    ++res.trees;
    res.tolerance_trees += g.tol;
    if (!o.failure) continue;
    ++res.failures;
    if (int(res.reports.size()) < max_reports) {
      genome m = f.shrink(g);
      const outcome mo = f.run(m, true);
      res.reports.push_back(std::string(f.name) + " tree #" + std::to_string(i) + " (batch seed " +
                            std::to_string(seed) + ", genome seed " + std::to_string(s) +
                            "): " + *o.failure + "\nminimal reproducer:\n" +
                            (mo.failure ? mo.source : "(does not fail after shrinking)"));
    }
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

} // namespace lz_test::fuzz
