// 11 — lz::dist: the same expressions on a cluster. Matrices are block-cyclic over a BLACS
// process grid (ScaLAPACK's layout); `C = 2*A*B + 3*C` is ONE pdgemm with α and β folded, in
// place; `y = A*x + y` is ONE pdgemv; an elementwise tree over matrices distributed alike is ONE
// local loop per rank with no communication; a full reduction is local, then one exchange. Every
// statement is collective: every rank runs the same program (SPMD). docs/distributed.md is the
// user's page. Run it as `mpiexec -n 2 ./11_distributed` (CI does; it also runs on one rank).
//
// CI runs this example on 2 ranks and checks these lines of its output:
// output: 2 ranks, grid 1x2, A: 300 x 200 in blocks of 64 x 64
// output contains: pdgemm('N', 'N') m=300 n=100 k=200 alpha=2 beta=3
// output: C = 2*A*B + 3*C matches serial lazuli: yes
// output: y = A*x + y matches serial lazuli: yes
// output: relu(C + 1) ran as one local loop, no communication: yes
// output: sum(square(C)) is the same number on every rank: yes
#include <lz/dist.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  lz::dist::environment env(argc, argv); // MPI up (and down at the end)
  lz::dist::grid g = lz::dist::grid::square();

  // The inputs, made on rank 0 (from a file or a computation in real programs) and scattered.
  lz::tensor<double, 2> ha(lz::shape_t<2>{300, 200}), hb(lz::shape_t<2>{200, 100}),
      hc(lz::shape_t<2>{300, 100});
  lz::tensor<double, 1> hx(lz::shape_t<1>{200}), hy(lz::shape_t<1>{300});
  for (lz::index_t i = 0; i < 300; ++i)
    for (lz::index_t j = 0; j < 200; ++j) ha(i, j) = std::sin(double(i * 200 + j));
  hb = lz::cos(lz::transpose(ha)(lz::all, lz::range(0, 100)));
  hc = 0.5;
  hx = lz::sin(lz::transpose(ha)(lz::all, 0));
  hy = 1.0;
  auto A = lz::dist::scatter(g, ha), B = lz::dist::scatter(g, hb), C = lz::dist::scatter(g, hc);
  auto x = lz::dist::scatter_vector(g, hx), y = lz::dist::scatter_vector(g, hy);
  const bool root = env.rank() == 0;
  if (root)
    std::printf("%d ranks, grid %dx%d, A: 300 x 200 in blocks of %ld x %ld\n", env.size(), g.rows(),
                g.cols(), long(A.blocks().mb), long(A.blocks().nb));

  // explain shows the PBLAS call before anything runs.
  const std::string plan = lz::explain(C, 2.0 * A * B + 3.0 * C);
  if (root) std::cout << plan;
  C = 2.0 * A * B + 3.0 * C; // one pdgemm, in place
  lz::tensor<double, 2> ref = 2.0 * ha * hb + 3.0 * hc;
  const auto back = lz::dist::gather(C); // the whole matrix on rank 0
  if (root)
    std::printf("C = 2*A*B + 3*C matches serial lazuli: %s\n",
                double(lz::max(lz::abs(back - ref))) < 1e-10 ? "yes" : "no");

  y = A * x + y; // one pdgemv, β = 1
  lz::tensor<double, 1> yref = ha * hx + hy;
  const auto yb = lz::dist::gather(y);
  if (root)
    std::printf("y = A*x + y matches serial lazuli: %s\n",
                double(lz::max(lz::abs(yb - yref))) < 1e-10 ? "yes" : "no");

  // Elementwise: every leaf is distributed like C, so each rank runs one fused loop on its block.
  const std::string local = lz::explain(C, lz::maximum(C + 1.0, 0.0));
  C = lz::maximum(C + 1.0, 0.0);
  if (root)
    std::printf("relu(C + 1) ran as one local loop, no communication: %s\n",
                local.find("local loop") != std::string::npos &&
                        local.find("pdgemr2d") == std::string::npos
                    ? "yes"
                    : "no");

  // A reduction: local sums, one exchange; every rank gets the same bits.
  const double s = lz::sum(lz::square(C));
  double lo = s, hi = s;
  std::vector<double> all(static_cast<std::size_t>(env.size()));
  lz::dist::rt::allgather(&s, sizeof s, all.data());
  for (double v : all) lo = std::min(lo, v), hi = std::max(hi, v);
  if (root)
    std::printf("sum(square(C)) is the same number on every rank: %s\n", lo == hi ? "yes" : "no");
  return 0;
}
