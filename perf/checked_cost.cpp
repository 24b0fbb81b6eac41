// What a checked build costs (LZ_CHECKED, docs/errors.md "Lifetimes"): W1 `z = 2.5*x + 1.5*y`
// over lz::vector tensors (three tracked operands: x, y and the destination), n = 8 and 1000,
// one thread. Built twice, as checked_cost_off (LZ_CHECKED=0, a Release build) and
// checked_cost_on (LZ_CHECKED=1): one setting per program, since a template instantiated by a
// checked and an unchecked file would run with either. Run them alternately:
//   for i in 1 2 3; do build/perf/checked_cost_off; build/perf/checked_cost_on; done
#include <support/bench_support.hpp>

#include <lz/lz.hpp>

#include <cstdio>
#include <vector>

int main() {
  lz::set_num_threads(1);
  for (const lz::index_t n : {lz::index_t(8), lz::index_t(1000)}) {
    lz::vector<double> x = lz::ones<double>({n}), y = lz::ones<double>({n}), z(n);
    std::vector<double> t;
    for (int r = 0; r < 31; ++r)
      t.push_back(lz_perf::ns_per_call([&] { z = 2.5 * x + 1.5 * y; }, 20000));
    if (z(0) != 4.0) return 1;
    std::printf("LZ_CHECKED=%d  W1 n=%-5ld %7.1f ns per assignment (median of 31 blocks)\n",
                LZ_CHECKED, long(n), lz_perf::median(t));
  }
  return 0;
}
