// Compile-cost benchmark (perf/compile/run.py): the cost of including eigen's main header alone.
#include <Eigen/Dense>
int lz_bench_header_only() { return 0; }
