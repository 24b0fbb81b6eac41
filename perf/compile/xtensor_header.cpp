// Compile-cost benchmark (perf/compile/run.py): the cost of including xtensor's main header alone.
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xnorm.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>
int lz_bench_header_only() { return 0; }
