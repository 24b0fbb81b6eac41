// Thousands of random expression trees (depth >= 6, mixed ops, views, reductions, aliasing
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
BOOST_AUTO_TEST_CASE(random_double_trees_match_the_reference) {
  run_trees<deep_chain, double, 1>("deep_chain", 300, 0xd1, 1);
  run_trees<deep_chain, double, 2, true>("deep_chain", 400, 0xd2, 1);
  run_trees<deep_chain, double, 3>("deep_chain", 200, 0xd3);
  run_trees<bushy, double, 2>("bushy", 300, 0xd4, 1);
  run_trees<views, double, 2>("views", 300, 0xd5, 1);
  run_trees<views, double, 3>("views", 200, 0xd6);
  run_trees<reductions, double, 2>("reductions", 300, 0xd7);
  run_trees<mixed, double, 2, true>("mixed", 300, 0xd8, 1);
  run_trees<mixed, double, 3>("mixed", 200, 0xd9);
}
// The shrinker and printer themselves: a fault planted in the result (element 0 is off by one
// whenever shape[0] >= 3) must shrink to pass-through operations, row-major leaves, seq, '=' and
// shape (3, 1), and print as source.
BOOST_AUTO_TEST_CASE(a_planted_fault_shrinks_to_a_minimal_reproducer) {
  genome g = random_genome<double, 2>(42, false, true);
  g.shape = {37, 11};
  g.plant_fault = true;
  g.op = how::add;
  g.pol = policy::par;
  const bool planted_fails = run<deep_chain, double, 2, true>(g, false).failure.has_value();
  BOOST_TEST_REQUIRE(planted_fails);
  genome m = shrink<deep_chain, double, 2, true>(g);
  BOOST_TEST(m.shape[0] == 3);
  BOOST_TEST(m.shape[1] == 1);
  BOOST_TEST((m.pol == policy::seq));
  BOOST_TEST((m.op == how::assign));
  for (const auto& n : m.nodes) BOOST_TEST(n.which == 0);
  for (const auto& l : m.leaves) BOOST_TEST(l.simple());
  const outcome o = run<deep_chain, double, 2, true>(m, true);
  BOOST_TEST_REQUIRE(o.failure.has_value());
  BOOST_TEST(o.source.find("auto L0 = lz::adopt(b0 + 0, {3, 1}, {1, 1});") != std::string::npos,
             o.source);
  BOOST_TEST(o.source.find("lz::assign(lz::seq, D, ") != std::string::npos, o.source);
  BOOST_TEST(o.source.find("first mismatch at (0,0)") != std::string::npos, o.source);
}

} // namespace
