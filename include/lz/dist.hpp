// lz::dist: the same expressions on a cluster, through MPI and ScaLAPACK/PBLAS
// (docs/distributed.md). Link lazuli::dist (find_package(lazuli COMPONENTS dist)); programs that
// do not include this header never link MPI.
//   lz::dist::environment env(argc, argv);
//   lz::dist::grid g = lz::dist::grid::square();
//   lz::dist::matrix<double> A(g, m, k), B(g, k, n), C(g, m, n);
//   C = 2.0 * A * B + 3.0 * C;          // ONE pdgemm(α=2, β=3), in place
#pragma once

#include <lz/dist/matrix.hpp>
#include <lz/dist/plan.hpp>
