// float, int32 and int64 random expression trees; see random_tree_test.cpp (double). Thousands
// of random expression trees (depth >= 6, mixed ops, views, reductions, aliasing
// destinations, every policy and assignment operator) against the reference evaluator, bit for
// bit. A failure is shrunk and printed as a minimal C++-like reproducer (support/random_tree.hpp).
#include <boost/test/unit_test.hpp>

#include <support/random_tree.hpp>

namespace {

using namespace lz_test::tree;
using namespace lz_test::tree::skeletons;

static_assert(depth_v<deep_chain> >= 6 && depth_v<bushy> >= 6 && depth_v<views> >= 6 &&
              depth_v<reductions> >= 6 && depth_v<mixed> >= 6);

// The trees must run the SIMD kernels for every element type (the dyn functors' bodies take
// batches), else lz::simd/par would silently test the scalar loop again.
template <class T, std::size_t R>
using view_t = lz::tensor_view<const T, R>;
static_assert(lz::kernels::cpu::simd_ok<
              float, lz::map_expr<dyn_ternary_fn, view_t<float, 2>, view_t<float, 2>,
                                  lz::map_expr<dyn_binary_fn, view_t<float, 2>,
                                               lz::map_expr<dyn_unary_fn, view_t<float, 2>>>>>());
static_assert(lz::kernels::cpu::simd_ok<
              std::int64_t,
              lz::map_expr<dyn_ternary_fn, view_t<std::int64_t, 2>, view_t<std::int64_t, 2>,
                           lz::map_expr<dyn_binary_fn, view_t<std::int64_t, 2>,
                                        lz::map_expr<dyn_unary_fn, view_t<std::int64_t, 2>>>>>());
static_assert(
    lz::kernels::cpu::simd_ok<std::int32_t, lz::map_expr<dyn_unary_fn, view_t<std::int32_t, 2>>>());
static_assert(lz::kernels::cpu::simd_ok<double, lz::map_expr<dyn_unary_fn, view_t<double, 2>>>());

int trees_run = 0;

// Runs `count` small trees and `big` trees of 2.5e5-1.1e6 elements; reports up to 3 failures,
// each shrunk to a minimal reproducer.
template <class Skel, class T, std::size_t R, bool Compound = false>
void run_trees(const char* name, int count, std::uint64_t seed, int big = 0) {
  int failures = 0;
  for (int i = 0; i < count + big; ++i) {
    genome g = random_genome<T, R>(seed * 1000003u + std::uint64_t(i), i >= count, Compound);
    const outcome o = run<Skel, T, R, Compound>(g, false);
    ++trees_run;
    if (!o.failure) continue;
    genome m = shrink<Skel, T, R, Compound>(g);
    const outcome mo = run<Skel, T, R, Compound>(m, true);
    BOOST_ERROR(name << " rank " << R << " tree #" << i << " (seed " << g.seed
                     << "): " << *o.failure << "\nminimal reproducer:\n"
                     << (mo.failure ? mo.source : "(does not fail after shrinking)"));
    if (++failures == 3) return;
  }
}

// Each (skeleton, type, rank) instantiates the engine for that tree type, so the suite picks
// a spread rather than the full product (compile time); compound assignment on a few.
BOOST_AUTO_TEST_CASE(random_float_trees_match_the_reference) {
  run_trees<deep_chain, float, 2, true>("deep_chain", 300, 0xf1, 1);
  run_trees<views, float, 2>("views", 200, 0xf2, 1);
  run_trees<reductions, float, 2>("reductions", 200, 0xf3);
  run_trees<mixed, float, 3>("mixed", 200, 0xf4);
}
BOOST_AUTO_TEST_CASE(random_integer_trees_match_the_reference) {
  run_trees<deep_chain, std::int32_t, 2, true>("deep_chain", 300, 0x321, 1);
  run_trees<views, std::int32_t, 3>("views", 200, 0x322);
  run_trees<reductions, std::int32_t, 2>("reductions", 200, 0x323);
  run_trees<deep_chain, std::int64_t, 1, true>("deep_chain", 200, 0x641, 1);
  run_trees<mixed, std::int64_t, 2>("mixed", 200, 0x642);
  BOOST_TEST_MESSAGE(trees_run << " trees in total");
}

} // namespace
