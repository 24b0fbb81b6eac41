// dist_bench: lz::dist against direct ScaLAPACK/PBLAS calls and hand loops, in the same
// processes, interleaved, medians over repetitions (wall time of the slowest rank).
//   OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec -n P perf/dist_bench [n]
//   [reps]
//       [block] [p q]   (defaults: 2048 5 64, the square grid)
//   gemm: C = 2*A*B + 3*C (one pdgemm through the fusion pass) against a direct pdgemm_ call
//         on the same descriptors, n × n, blocks 64 × 64, on the square grid of P ranks;
//   W1:   Z = 2*X + 3*Y on matching distributions (one local fused loop per rank) against a hand
//         loop over each rank's local blocks (the per-rank speed the issue asks ≥ 90% of).
// One OpenBLAS thread per rank (lz::dist::environment sets it); LZ_NUM_THREADS=1 for one
// lazuli thread per rank.
#include <lz/dist.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" void pdgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
                        const double*, const int*, const int*, const int*, const double*,
                        const int*, const int*, const int*, const double*, double*, const int*,
                        const int*, const int*);

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Wall time of f on the slowest rank.
template <class F>
double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f();
  double t = MPI_Wtime() - t0, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

} // namespace

int main(int argc, char** argv) {
  lz::dist::environment env(argc, argv);
  const lz::index_t n = argc > 1 ? std::atol(argv[1]) : 2048;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const lz::index_t nb = argc > 3 ? std::atol(argv[3]) : 64;
  lz::dist::grid g =
      argc > 5 ? lz::dist::grid(std::atoi(argv[4]), std::atoi(argv[5])) : lz::dist::grid::square();
  const lz::dist::blocking bl{nb, nb};
  lz::dist::matrix<double> A(g, n, n, bl), B(g, n, n, bl), C(g, n, n, bl), C2(g, n, n, bl);
  lz::dist::fill(A, [](lz::index_t i, lz::index_t j) { return double((i * 7 + j * 3) % 11) - 5; });
  lz::dist::fill(B, [](lz::index_t i, lz::index_t j) { return double((i * 5 + j) % 13) - 6; });
  lz::dist::fill(C, [](lz::index_t i, lz::index_t j) { return double((i + j) % 3); });
  C2 = C;

  // ---- gemm ----
  std::vector<double> t_lz, t_direct;
  const int ni = int(n), one = 1;
  const double alpha = 2, beta = 3;
  for (int r = 0; r < reps; ++r) {
    auto lz_run = [&] { t_lz.push_back(timed([&] { C = 2.0 * A * B + 3.0 * C; })); };
    auto direct = [&] {
      t_direct.push_back(timed([&] {
        if (g.member())
          pdgemm_("N", "N", &ni, &ni, &ni, &alpha, A.local().data(), &one, &one, A.descriptor(),
                  B.local().data(), &one, &one, B.descriptor(), &beta, C2.local().data(), &one,
                  &one, C2.descriptor());
      }));
    };
    if (r % 2)
      lz_run(), direct();
    else
      direct(), lz_run();
  }
  const double gl = median(t_lz), gd = median(t_direct);

  // ---- W1 on matching distributions ----
  lz::dist::matrix<double> X(g, n, n, bl), Y(g, n, n, bl), Z(g, n, n, bl);
  lz::dist::fill(X, [](lz::index_t i, lz::index_t j) { return double(i - j); });
  lz::dist::fill(Y, [](lz::index_t i, lz::index_t j) { return double(i + j); });
  std::vector<double> w_lz, w_hand;
  const int wreps = std::max(reps * 4, 9);
  for (int r = 0; r < wreps; ++r) {
    auto lz_run = [&] { w_lz.push_back(timed([&] { Z = 2.0 * X + 3.0 * Y; })); };
    auto hand = [&] {
      w_hand.push_back(timed([&] {
        auto z = Z.local();
        const auto x = X.local(), y = Y.local();
        const lz::index_t rows = z.shape()[0], cols = z.shape()[1], ld = Z.local_ld();
        double* zp = z.data();
        const double *xp = x.data(), *yp = y.data();
        for (lz::index_t j = 0; j < cols; ++j)
          for (lz::index_t i = 0; i < rows; ++i)
            zp[i + j * ld] = 2.0 * xp[i + j * ld] + 3.0 * yp[i + j * ld];
      }));
    };
    if (r % 2)
      lz_run(), hand();
    else
      hand(), lz_run();
  }
  const double wl = median(w_lz), wh = median(w_hand);
  if (env.rank() == 0) {
    std::printf("ranks %d, grid %dx%d, n %ld, blocks %ldx%ld, %d reps (W1 %d), lazuli threads "
                "per rank %d\n",
                env.size(), g.rows(), g.cols(), long(n), long(nb), long(nb), reps, wreps,
                lz::num_threads());
    std::printf("gemm C = 2*A*B + 3*C: lz::dist %.4f s  direct pdgemm_ %.4f s  ratio %.3f  "
                "(%.1f GFLOP/s)\n",
                gl, gd, gl / gd, 2.0 * double(n) * double(n) * double(n) / gl * 1e-9);
    std::printf("W1 Z = 2*X + 3*Y: lz::dist %.5f s  hand loop over local blocks %.5f s  speed "
                "%.1f%% of the hand loop\n",
                wl, wh, 100.0 * wh / wl);
  }
  return 0;
}
