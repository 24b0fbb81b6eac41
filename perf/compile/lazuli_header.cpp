// Compile-cost benchmark (perf/compile/run.py): the cost of including lazuli's main header alone.
#include <lz/lz.hpp>
int lz_bench_header_only() { return 0; }
