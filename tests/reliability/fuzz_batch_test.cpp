// Differential fuzzing, fixed-seed batch: 20,000 random expression trees (products, sums,
// mixed types, views, aliasing destinations, every policy) against the reference evaluator.
// LZ_FUZZ_SEED / LZ_FUZZ_TREES / LZ_FUZZ_BIG_EVERY change the batch (scripts/fuzz_long.sh runs
// many seeds in parallel). Prints trees/s; a failure prints the shrunk tree as C++ source.
#include <boost/test/unit_test.hpp>

#include "fuzz_families.hpp"

#include <cstdlib>

#ifndef LZ_FUZZ_DEFAULT_TREES // (the checked batch, tests/CMakeLists.txt, runs fewer)
#define LZ_FUZZ_DEFAULT_TREES 20000
#endif

namespace {

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

BOOST_AUTO_TEST_CASE(twenty_thousand_random_trees_match_the_reference) {
  const auto seed = std::uint64_t(env_or("LZ_FUZZ_SEED", 1));
  const long trees = env_or("LZ_FUZZ_TREES", LZ_FUZZ_DEFAULT_TREES);
  const long big_every = env_or("LZ_FUZZ_BIG_EVERY", 2500);
  const auto r = lz_test::fuzz::run_batch(seed, trees, big_every);
  std::printf("fuzz_batch seed %llu: %ld trees (%ld tolerance trees, %zu families), %ld "
              "mismatches, %.1f s, %.0f trees/s\n",
              static_cast<unsigned long long>(seed), r.trees, r.tolerance_trees,
              lz_test::fuzz::families().size(), r.failures, r.seconds, double(r.trees) / r.seconds);
  for (const auto& rep : r.reports) BOOST_ERROR(rep);
  BOOST_TEST(r.failures == 0);
  BOOST_TEST(r.trees == trees);
}

// The batch really mixes tolerance and exact trees, every family and every policy.
BOOST_AUTO_TEST_CASE(the_batch_covers_every_family_policy_and_both_comparisons) {
  using namespace lz_test::tree;
  const auto& fams = lz_test::fuzz::families();
  std::array<int, 4> policies{};
  int tol = 0, exact_floating = 0;
  for (std::size_t i = 0; i < 40 * fams.size(); ++i) {
    const auto& f = fams[i % fams.size()];
    const genome g = f.make(0x9e3779b97f4a7c15ULL + i, false);
    ++policies[std::size_t(g.pol)];
    if (f.floating) (g.tol ? tol : exact_floating)++;
  }
  for (int p : policies) BOOST_TEST(p > 0);
  BOOST_TEST(tol > 0);
  BOOST_TEST(exact_floating > 0);
}

// A checked batch evaluates returned and stored trees (after their leaves were freed) in every
// family; an unchecked one never does (it would read freed memory).
BOOST_AUTO_TEST_CASE(a_checked_batch_evaluates_returned_and_stored_trees_of_every_family) {
  using namespace lz_test::tree;
  const auto& fams = lz_test::fuzz::families();
  std::vector<std::array<int, 3>> modes(fams.size());
  for (std::size_t i = 0; i < 40 * fams.size(); ++i) {
    const genome g = fams[i % fams.size()].make(0x9e3779b97f4a7c15ULL + i, false);
    ++modes[i % fams.size()][std::size_t(g.life)];
  }
  for (const auto& m : modes) {
    BOOST_TEST(m[0] > 0);
    BOOST_TEST((m[1] > 0) == bool(LZ_CHECKED));
    BOOST_TEST((m[2] > 0) == bool(LZ_CHECKED));
  }
  if constexpr (LZ_CHECKED) { // and such a tree does throw (the check is not vacuous)
    genome g = fams[0].make(7, false);
    g.life = lifetime_mode::returned;
    BOOST_TEST(!fams[0].run(g, false).failure.has_value());
    g.life = lifetime_mode::stored;
    BOOST_TEST(!fams[0].run(g, false).failure.has_value());
  }
}

} // namespace
