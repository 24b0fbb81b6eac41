// The fixed cost of a small assignment, counted in instructions: `z = 2.5*x + 1.5*y` on n
// doubles (or, with `sum`, the full reduction `s = lz::sum(lz::square(x - y))`), `calls` times,
// on one thread, nothing else. Instruction counts do not move with the machine's load; the
// difference of two runs divided by the difference in calls is the cost of one assignment
// (docs/decisions/small-assignment-fixed-cost.md). Valgrind cannot run AVX-512 code: count on a
// build for an AVX2 target (-march=x86-64-v3).
//
//   for c in 1 10001; do valgrind --tool=cachegrind --cache-sim=no
//     --cachegrind-out-file=/dev/stdout build/perf/fixed_cost 8 $c | grep summary; done
//   (one line; `build/perf/fixed_cost 8 $c sum` for the reduction)
#include <lz/lz.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const bool sum = argc == 4 && std::strcmp(argv[3], "sum") == 0;
  if (argc != 3 && !sum) {
    std::fprintf(stderr, "usage: fixed_cost N CALLS [sum]\n");
    return 2;
  }
  const long n = std::atol(argv[1]), calls = std::atol(argv[2]);
  if (n < 1 || calls < 0) {
    std::fprintf(stderr, "fixed_cost: N must be >= 1 and CALLS >= 0\n");
    return 2;
  }
  std::vector<double> a(std::size_t(n), 1.0), b(std::size_t(n), 2.0), c(std::size_t(n), 0.0);
  auto x = lz::adopt(a.data(), {n}), y = lz::adopt(b.data(), {n}), z = lz::adopt(c.data(), {n});
  lz::set_num_threads(1);
  if (sum) {
    double s = 0;
    for (long i = 0; i < calls; ++i) {
      s += lz::sum(lz::square(x - y));
      asm volatile("" ::: "memory"); // each reduction is made
    }
    return s == double(calls) * double(n) ? 0 : 1;
  }
  for (long i = 0; i < calls; ++i) {
    z = 2.5 * x + 1.5 * y;
    asm volatile("" ::: "memory"); // each assignment is made
  }
  return calls == 0 || c[std::size_t(n - 1)] == 5.5 ? 0 : 1;
}
