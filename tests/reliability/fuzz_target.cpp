// libFuzzer target: the differential fuzzer's trees (fuzz_families.hpp) driven by fuzzer bytes.
// Bytes 0: family, 1-8: genome seed, 9: policy, 10: assignment operator, 11: destination
// alias, 12: tolerance tree, 13-15: root extents (each 0-63); missing bytes keep the seed's
// choice. Any mismatch with the reference aborts with the shrunk tree as C++ source.
// Built with -DLZ_FUZZ=ON (clang only): build/tests/lz_fuzz_target -max_total_time=60
#include "fuzz_families.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lz_test::tree;
  const auto& fams = lz_test::fuzz::families();
  if (size < 9) return 0;
  const auto& f = fams[data[0] % fams.size()];
  std::uint64_t seed = 0;
  std::memcpy(&seed, data + 1, 8);
  genome g = f.make(seed, false);
  if (size > 9) g.pol = policy(data[9] % 4);
  if (size > 10) { // the operators the family's genomes may use (see random_genome)
    const how h = how(data[10] % 6);
    if (h == how::assign || h == how::eval)
      g.op = h;
    else if (f.compound && (h == how::add || h == how::sub || (f.floating && !g.tol)))
      g.op = h;
  }
  if (size > 11) g.alias = alias_mode(data[11] % 5);
  if (size > 12) g.tol = f.floating && (data[12] & 1);
  if (g.tol && (g.op == how::mul || g.op == how::div)) g.op = how::add;
  for (std::size_t k = 0; k < g.shape.size() && 13 + k < size; ++k) g.shape[k] = data[13 + k] % 64;
  const outcome o = f.run(g, false);
  if (o.failure) {
    const genome m = f.shrink(g);
    genome mm = m;
    const outcome mo = f.run(mm, true);
    std::fprintf(stderr, "lazuli fuzz: %s (%s)\nminimal reproducer:\n%s\n", o.failure->c_str(),
                 f.name, mo.failure ? mo.source.c_str() : "(does not fail after shrinking)");
    std::abort();
  }
  return 0;
}
