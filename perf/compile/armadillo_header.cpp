// Compile-cost benchmark (perf/compile/run.py): the cost of including armadillo's main header
// alone.
#include <armadillo>
int lz_bench_header_only() { return 0; }
