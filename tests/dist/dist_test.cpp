// lz::dist: every rule at the rank count CTest starts it with (1, 2, 3, 4: tests/CMakeLists.txt),
// on every grid shape those ranks allow (idle ranks included), against serial lazuli computed on
// each rank from the same seeded values. The PBLAS calls a statement makes are recorded through
// the LZ_LOG=dist channel (each rank logs what it calls). Every assertion is collective: a
// failure on one rank fails the run (mpiexec ends every rank), a hang ends at CTest's timeout.
#include <lz/dist.hpp>
#include <support/random_tree.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <filesystem>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace {

using lz::index_t;

struct mpi_fixture {
  lz::dist::environment env;
  mpi_fixture() { lz::dist::set_plan_checks(true); }
};
BOOST_TEST_GLOBAL_FIXTURE(mpi_fixture);

int ranks() { return lz::dist::rt::size(); }
int me() { return lz::dist::rt::rank(); }

// Every grid shape p × q with p·q <= ranks (so idle ranks too).
std::vector<std::pair<int, int>> grid_shapes() {
  std::vector<std::pair<int, int>> out;
  for (int p = 1; p <= ranks(); ++p)
    for (int q = 1; p * q <= ranks(); ++q) out.push_back({p, q});
  return out;
}

lz::tensor<double, 2> random_matrix(index_t m, index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  lz::tensor<double, 2> t(lz::shape_t<2>{m, n});
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) t(i, j) = u(gen);
  return t;
}
lz::tensor<double, 1> random_vector(index_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  lz::tensor<double, 1> t(lz::shape_t<1>{n});
  for (index_t i = 0; i < n; ++i) t(i) = u(gen);
  return t;
}

template <class A, class B>
double max_diff(const A& a, const B& b) {
  return double(lz::max(lz::abs(a - b)));
}

// The PBLAS routines this rank called during f (LZ_LOG=dist lines), in order.
template <class F>
std::vector<std::string> pblas_calls(F&& f) {
  std::vector<std::string> calls;
  std::mutex m;
  lz::logging::set_sink([&](lz::logging::channel, const std::string& line) {
    const auto p = line.find("] p");
    if (p == std::string::npos) return;
    const auto e = line.find_first_of("( ", p + 2);
    std::lock_guard<std::mutex> lock(m);
    calls.push_back(line.substr(p + 2, e - p - 2));
  });
  lz::logging::enable(lz::logging::dist);
  try {
    f();
  } catch (...) {
    lz::logging::disable(lz::logging::dist);
    lz::logging::set_sink(nullptr);
    throw;
  }
  lz::logging::disable(lz::logging::dist);
  lz::logging::set_sink(nullptr);
  return calls;
}

// True on every rank when `ok` holds on every rank (so one rank's failure fails all).
bool everywhere(bool ok) { return lz::dist::rt::all(ok); }

} // namespace

BOOST_AUTO_TEST_SUITE(dist)

BOOST_AUTO_TEST_CASE(scatter_and_gather_round_trip_exactly_on_every_grid_shape) {
  const auto h = random_matrix(37, 23, 1);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, h, {4, 3});
    const auto back = lz::dist::gather_all(A);
    BOOST_TEST(everywhere(back.shape() == h.shape() && max_diff(back, h) == 0.0));
    // Each element lives on exactly one rank.
    index_t mine = A.local().size(), all = 0;
    std::vector<index_t> counts(static_cast<std::size_t>(ranks()));
    lz::dist::rt::allgather(&mine, sizeof mine, counts.data());
    for (index_t c : counts) all += c;
    BOOST_TEST(all == 37 * 23);
    BOOST_TEST((g.member() || A.local().size() == 0));
  }
}

BOOST_AUTO_TEST_CASE(fill_by_global_index_and_local_blocks_agree_with_gather) {
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    lz::dist::matrix<double> A(g, 19, 11, {3, 2});
    lz::dist::fill(A, [](index_t i, index_t j) { return double(100 * i + j); });
    const auto h = lz::dist::gather_all(A);
    bool ok = true;
    for (index_t i = 0; i < 19; ++i)
      for (index_t j = 0; j < 11; ++j) ok = ok && h(i, j) == double(100 * i + j);
    BOOST_TEST(everywhere(ok));
  }
}

BOOST_AUTO_TEST_CASE(gemm_with_transposes_alpha_and_beta_is_one_pdgemm_in_place) {
  const index_t m = 29, n = 17, k = 23;
  const auto ha = random_matrix(m, k, 2), hb = random_matrix(k, n, 3), hc = random_matrix(m, n, 4);
  const auto hat = random_matrix(k, m, 5), hbt = random_matrix(n, k, 6);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {5, 4}), B = lz::dist::scatter(g, hb, {4, 6}),
         C = lz::dist::scatter(g, hc, {5, 6});
    auto At = lz::dist::scatter(g, hat, {4, 5}), Bt = lz::dist::scatter(g, hbt, {6, 4});
    auto calls = pblas_calls([&] { C = 2.0 * A * B + 3.0 * C; });
    lz::tensor<double, 2> ref = 2.0 * ha * hb + 3.0 * hc;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdgemm"}));

    calls = pblas_calls([&] { C = lz::transpose(At) * B; });
    ref = lz::transpose(hat) * hb;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdgemm"}));

    C = lz::transpose(At) * lz::transpose(Bt) - C;
    ref = lz::transpose(hat) * lz::transpose(hbt) - ref;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
  }
}

BOOST_AUTO_TEST_CASE(float_products_run_psgemm) {
  const auto ha = random_matrix(20, 12, 7), hb = random_matrix(12, 9, 8);
  lz::tensor<float, 2> fa = lz::cast<float>(ha), fb = lz::cast<float>(hb);
  lz::dist::grid g = lz::dist::grid::square();
  auto A = lz::dist::scatter<float>(g, fa, {4, 4}), B = lz::dist::scatter<float>(g, fb, {4, 4});
  lz::dist::matrix<float> C(g, 20, 9, {4, 4});
  const auto calls = pblas_calls([&] { C = A * B; });
  lz::tensor<float, 2> ref = fa * fb;
  BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-5));
  BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"psgemm"}));
}

BOOST_AUTO_TEST_CASE(complex_matrices_run_pzgemm_pzgemv_and_transposes_not_conjugates) {
  using cd = std::complex<double>;
  auto cplx = [](index_t m, index_t n, unsigned seed) {
    const auto re = random_matrix(m, n, seed), im = random_matrix(m, n, seed + 50);
    lz::tensor<cd, 2> t(lz::shape_t<2>{m, n});
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) t(i, j) = cd(re(i, j), im(i, j));
    return t;
  };
  const auto ha = cplx(17, 13, 60), hb = cplx(13, 11, 61), hc = cplx(17, 11, 62),
             hd = cplx(11, 17, 63);
  const cd alpha(0.5, -2), beta(1, 1);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter<cd>(g, ha, {4, 3}), B = lz::dist::scatter<cd>(g, hb, {3, 4});
    auto C = lz::dist::scatter<cd>(g, hc, {4, 4}), D = lz::dist::scatter<cd>(g, hd, {5, 2});
    const auto calls = pblas_calls([&] { C = alpha * A * B + beta * C; });
    lz::tensor<cd, 2> ref = alpha * ha * hb + beta * hc;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pzgemm"}));
    C = C + lz::transpose(D); // a transposed complex leaf: pztranu (no conjugation)
    ref = ref + lz::transpose(hd);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    const cd s = lz::sum(C);
    BOOST_TEST(std::abs(s - cd(lz::sum(ref))) < 1e-12);
  }
}

BOOST_AUTO_TEST_CASE(pblas_works_in_lazulis_panel_width_and_any_width_gives_the_same_product) {
  // PBLAS asks PILAENV for its panel width; lazuli_dist's answer must be the one it gets.
  BOOST_TEST(lz::dist::rt::pblas_panel_in_use());
  const int before = lz::dist::pblas_panel();
  BOOST_CHECK_THROW(lz::dist::set_pblas_panel(0), std::invalid_argument);
  BOOST_TEST(lz::dist::pblas_panel() == before);
  const auto ha = random_matrix(70, 45, 80), hb = random_matrix(45, 38, 81);
  const lz::tensor<double, 2> ref = ha * hb;
  lz::dist::grid g = lz::dist::grid::square();
  auto A = lz::dist::scatter(g, ha, {8, 8}), B = lz::dist::scatter(g, hb, {8, 8});
  lz::dist::matrix<double> C(g, 70, 38, {8, 8});
  for (int w : {1, 5, 32, 4096}) {
    lz::dist::set_pblas_panel(w);
    BOOST_TEST(lz::dist::pblas_panel() == w);
    C = A * B;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-13));
  }
  lz::dist::set_pblas_panel(before);
}

BOOST_AUTO_TEST_CASE(gemv_folds_beta_and_transposes_into_one_pdgemv) {
  const auto ha = random_matrix(31, 18, 9);
  const auto hx = random_vector(18, 10), hy = random_vector(31, 11), hz = random_vector(31, 12);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {4, 4});
    auto x = lz::dist::scatter_vector(g, hx, 4), y = lz::dist::scatter_vector(g, hy, 4);
    auto z = lz::dist::scatter_vector(g, hz, 4);
    auto calls = pblas_calls([&] { y = A * x + y; });
    lz::tensor<double, 1> ref = ha * hx + hy;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(y), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdgemv"}));

    lz::dist::vector<double> w(g, 18, 4);
    calls = pblas_calls([&] { w = 0.5 * lz::transpose(A) * z; });
    lz::tensor<double, 1> wref = 0.5 * lz::transpose(ha) * hz;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(w), wref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdgemv"}));
  }
}

BOOST_AUTO_TEST_CASE(transpose_a_times_a_is_pdsyrk_with_the_upper_triangle_mirrored) {
  const auto ha = random_matrix(26, 14, 13);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {4, 4});
    lz::dist::matrix<double> C(g, 14, 14, {4, 4});
    const auto calls = pblas_calls([&] { C = lz::transpose(A) * A; });
    lz::tensor<double, 2> ref = lz::transpose(ha) * ha;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() ||
                          calls == std::vector<std::string>{"pdsyrk", "pdtran", "pdlacpy"}));
  }
}

BOOST_AUTO_TEST_CASE(sums_chains_transposed_products_and_aliasing_plan_as_on_one_node) {
  const auto ha = random_matrix(18, 14, 40), hb = random_matrix(14, 16, 41),
             hd = random_matrix(16, 12, 42), he = random_matrix(18, 16, 43),
             hs = random_matrix(16, 16, 44);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {4, 4}), B = lz::dist::scatter(g, hb, {4, 4}),
         D = lz::dist::scatter(g, hd, {4, 4}), E = lz::dist::scatter(g, he, {4, 4}),
         S = lz::dist::scatter(g, hs, {4, 4});
    lz::dist::matrix<double> C(g, 18, 12, {4, 4}), F(g, 16, 18, {4, 4}), G(g, 18, 16, {4, 4});
    C = A * B * D; // a chain: ordered by size, the temporary on C's grid
    lz::tensor<double, 2> ref = ha * hb * hd;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    F = lz::transpose(A * B); // transpose of a product: Bᵀ·Aᵀ
    lz::tensor<double, 2> fref = lz::transpose(ha * hb);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(F), fref) < 1e-12));
    auto calls = pblas_calls([&] { G = A * B + 2.0 * E * S - E; }); // sum of products
    lz::tensor<double, 2> gref = ha * hb + 2.0 * he * hs - he;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(G), gref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || std::count(calls.begin(), calls.end(), "pdgemm") == 2));
    G = G * S; // the product reads its destination: a temporary first
    gref = gref * hs;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(G), gref) < 1e-11));
    G = lz::maximum(A * B + E, 0.0); // nested: the product into G, then one local loop
    gref = lz::maximum(ha * hb + he, 0.0);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(G), gref) < 1e-12));
  }
}

BOOST_AUTO_TEST_CASE(elementwise_trees_on_one_distribution_are_one_local_loop) {
  const auto hc = random_matrix(33, 21, 14), hd = random_matrix(33, 21, 15);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto C = lz::dist::scatter(g, hc, {4, 4}), D = lz::dist::scatter(g, hd, {4, 4});
    const auto calls =
        pblas_calls([&] { C = lz::hadamard(lz::maximum(C + 1.0, 0.0), D) - lz::sin(D); });
    lz::tensor<double, 2> ref = lz::hadamard(lz::maximum(hc + 1.0, 0.0), hd) - lz::sin(hd);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-15));
    BOOST_TEST(everywhere(calls.empty())); // no communication at all
  }
}

BOOST_AUTO_TEST_CASE(a_leaf_distributed_otherwise_moves_once_and_a_transposed_one_by_pdtran) {
  const auto ha = random_matrix(24, 24, 16), hb = random_matrix(24, 24, 17);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {4, 4}), B = lz::dist::scatter(g, hb, {3, 5});
    lz::dist::matrix<double> C(g, 24, 24, {4, 4});
    auto calls = pblas_calls([&] { C = A + 2.0 * B; });
    lz::tensor<double, 2> ref = ha + 2.0 * hb;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-15));
    BOOST_TEST(everywhere(calls == std::vector<std::string>{"pdgemr2d"}));

    calls = pblas_calls([&] { C = lz::transpose(A) - A; });
    ref = lz::transpose(ha) - ha;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-15));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdtran"}));

    // The destination read transposed (C = Cᵀ + A): moved into a temporary first, so safe.
    C = lz::transpose(C) + A;
    ref = lz::transpose(ref) + ha;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-15));

    // A transpose of a whole tree is a transpose of each leaf: A moves by pdtran, B (distributed
    // otherwise and transposed) by pdtran too, then one local loop; reductions see it the same way.
    calls = pblas_calls([&] { C = lz::transpose(A + 2.0 * lz::exp(B)) - 1.0; });
    ref = lz::transpose(ha + 2.0 * lz::exp(hb)) - 1.0;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-14));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdtran", "pdtran"}));
    const double s = lz::sum(lz::square(lz::transpose(A - B)) + A);
    BOOST_TEST(
        everywhere(std::abs(s - double(lz::sum(lz::square(lz::transpose(ha - hb)) + ha))) < 1e-12));
  }
}

BOOST_AUTO_TEST_CASE(operands_on_two_grids_meet_on_the_destinations_grid) {
  const auto ha = random_matrix(18, 12, 18), hb = random_matrix(12, 10, 19);
  lz::dist::grid g1(1, ranks()), g2(ranks(), 1);
  auto A = lz::dist::scatter(g1, ha, {4, 4});
  auto B = lz::dist::scatter(g2, hb, {4, 4});
  lz::dist::matrix<double> C(g2, 18, 10, {4, 4});
  C = A * B;
  lz::tensor<double, 2> ref = ha * hb;
  BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
  lz::dist::matrix<double> D(g1, 18, 12, {4, 4});
  auto A2 = lz::dist::scatter(g2, ha, {4, 4});
  D = A + 2.0 * A2; // A2 moves from g2 onto g1
  lz::tensor<double, 2> dref = 3.0 * ha;
  BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(D), dref) < 1e-15));
}

BOOST_AUTO_TEST_CASE(sub_matrices_are_pblas_operands_and_destinations) {
  const auto ha = random_matrix(20, 16, 20), hb = random_matrix(16, 12, 21);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto A = lz::dist::scatter(g, ha, {4, 4}), B = lz::dist::scatter(g, hb, {4, 4});
    lz::dist::matrix<double> C(g, 20, 12, {4, 4});
    const lz::range r(3, 11), c(0, 16);
    const auto calls = pblas_calls([&] { C(lz::range(2, 10), lz::all) = A(r, c) * B; });
    lz::tensor<double, 2> ref(lz::shape_t<2>{20, 12});
    ref(lz::range(2, 10), lz::all) = ha(r, c) * hb;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
    BOOST_TEST(everywhere(!g.member() || calls == std::vector<std::string>{"pdgemm"}));
    // An elementwise update of the same rows: block-aligned, so local.
    C(lz::range(0, 8), lz::all) += 1.0;
    ref(lz::range(0, 8), lz::all) += 1.0;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-12));
  }
}

BOOST_AUTO_TEST_CASE(full_reductions_are_local_then_combined_identically_on_every_rank) {
  const auto hc = random_matrix(27, 15, 22);
  const auto hx = random_vector(40, 23);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto C = lz::dist::scatter(g, hc, {4, 4});
    auto x = lz::dist::scatter_vector(g, hx, 6);
    const double s = lz::sum(lz::square(C)), n2 = lz::norm2(C), mx = lz::max(C),
                 mn = lz::min(C - 1.0), mean = lz::mean(x), sx = lz::sum(x * x);
    BOOST_TEST(std::abs(s - double(lz::sum(lz::square(hc)))) < 1e-12);
    BOOST_TEST(std::abs(n2 - double(lz::norm2(hc))) < 1e-12);
    BOOST_TEST(mx == double(lz::max(hc)));
    BOOST_TEST(mn == double(lz::min(hc - 1.0)));
    BOOST_TEST(std::abs(mean - double(lz::mean(hx))) < 1e-14);
    BOOST_TEST(std::abs(sx - double(lz::sum(hx * hx))) < 1e-12);
    BOOST_TEST(lz::index_t(lz::argmax(C)) == lz::index_t(lz::argmax(hc)));
    BOOST_TEST(lz::index_t(lz::argmin(lz::transpose(C))) ==
               lz::index_t(lz::argmin(lz::transpose(hc))));
    BOOST_TEST(lz::index_t(lz::argmax(x)) == lz::index_t(lz::argmax(hx)));
    // The same bits on every rank.
    std::vector<double> all(static_cast<std::size_t>(ranks()));
    lz::dist::rt::allgather(&s, sizeof s, all.data());
    BOOST_TEST(everywhere(std::all_of(all.begin(), all.end(), [&](double v) { return v == s; })));
    // A reduction inside a tree: computed first, then one local loop.
    C = C / lz::sum(lz::abs(C));
    lz::tensor<double, 2> ref = hc / double(lz::sum(lz::abs(hc)));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), ref) < 1e-15));
  }
}

BOOST_AUTO_TEST_CASE(axis_reductions_are_local_partials_combined_on_the_destinations_rows) {
  const auto hc = random_matrix(23, 17, 50), hd = random_matrix(23, 17, 51);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto C = lz::dist::scatter(g, hc, {4, 3}), D = lz::dist::scatter(g, hd, {5, 2});
    lz::dist::vector<double> r(g, 23, 4), c(g, 17, 3), w(g, 17, 5);
    r = lz::sum(C, 1);
    c = lz::max(C - D, 0);             // D is distributed otherwise: moved once, then local
    w = lz::mean(lz::transpose(C), 1); // a transposed operand: into a matrix first
    lz::tensor<double, 1> rref = lz::sum(hc, 1), cref = lz::max(hc - hd, 0),
                          wref = lz::mean(lz::transpose(hc), 1);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(r), rref) < 1e-13));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(c), cref) == 0.0));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(w), wref) < 1e-14));
    r += lz::norm2(C, 1);
    rref += lz::norm2(hc, 1);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(r), rref) < 1e-13));
    lz::dist::vector<double> r2(g, 23, 7); // other blocks than the operand's rows
    r2 = lz::min(C, 1);
    lz::tensor<double, 1> r2ref = lz::min(hc, 1);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(r2), r2ref) == 0.0));
    lz::dist::vector<std::complex<double>> z(g, 17, 3); // written as the destination's type
    z = lz::max(C, 0);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(z), lz::max(hc, 0)) == 0.0));
  }
}

BOOST_AUTO_TEST_CASE(argmin_and_argmax_along_an_axis_give_global_indices_first_on_ties) {
  // Values from {-1, 0, 1} (ties everywhere) and a few NaNs: the index must be the first in the
  // whole row or column, though its candidates lie on different ranks' interleaved blocks.
  auto hc = random_matrix(29, 19, 60), hd = random_matrix(29, 19, 61);
  for (index_t i = 0; i < 29; ++i)
    for (index_t j = 0; j < 19; ++j) hc(i, j) = std::round(hc(i, j));
  hc(3, 17) = hc(20, 2) = std::numeric_limits<double>::quiet_NaN();
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto C = lz::dist::scatter(g, hc, {3, 2}), D = lz::dist::scatter(g, hd, {4, 5});
    lz::dist::vector<double> r(g, 29, 4), c(g, 19, 3), t(g, 19, 2), s(g, 10, 3);
    r = lz::argmax(C, 1);
    c = lz::argmin(C, 0);
    const std::string plan = lz::explain(r, lz::argmax(C, 1));
    BOOST_TEST(plan.find("local argmax along axis 1") != std::string::npos);
    BOOST_TEST(plan.find("combined in index order") != std::string::npos);
    t = lz::argmax(lz::transpose(C - D), 1);                  // a tree with a transposed operand
    s = lz::argmin(C(lz::range(5, 25), lz::range(4, 14)), 0); // a sub-matrix off the cycle
    const auto as_double = [](const auto& e) { return lz::tensor<double, 1>(lz::cast<double>(e)); };
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(r), as_double(lz::argmax(hc, 1))) == 0.0));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(c), as_double(lz::argmin(hc, 0))) == 0.0));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(t),
                                   as_double(lz::argmax(lz::transpose(hc - hd), 1))) == 0.0));
    BOOST_TEST(everywhere(
        max_diff(lz::dist::gather_all(s),
                 as_double(lz::argmin(hc(lz::range(5, 25), lz::range(4, 14)), 0))) == 0.0));
    // float operands, indices into a float vector (exact below 2^24)
    auto F = lz::dist::scatter(g, lz::tensor<float, 2>(lz::cast<float>(hd)), {2, 3});
    lz::dist::vector<float> fr(g, 29, 5);
    fr = lz::argmin(F, 1);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(fr),
                                   lz::tensor<float, 1>(lz::cast<float>(lz::argmin(
                                       lz::tensor<float, 2>(lz::cast<float>(hd)), 1)))) == 0.0f));
    // Nothing to take the first of: the same error on every rank, the destination untouched.
    lz::dist::matrix<double> E(g, 6, 0);
    lz::dist::vector<double> e(g, 6);
    e = 7.0;
    BOOST_CHECK_THROW(e = lz::argmax(E, 1), lz::shape_error);
    BOOST_TEST(everywhere(double(lz::min(lz::dist::gather_all(e))) == 7.0));
  }
}

BOOST_AUTO_TEST_CASE(vectors_update_locally_and_axpy_shapes_stay_correct) {
  const auto hx = random_vector(53, 24), hy = random_vector(53, 25);
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto x = lz::dist::scatter_vector(g, hx, 5), y = lz::dist::scatter_vector(g, hy, 5);
    lz::dist::vector<double> z(g, 53, 5);
    z = 2.0 * x + 3.0 * y; // W1
    y = y + 0.5 * x;
    y *= 2.0;
    lz::tensor<double, 1> zref = 2.0 * hx + 3.0 * hy, yref = 2.0 * (hy + 0.5 * hx);
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(z), zref) < 1e-15));
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(y), yref) < 1e-15));
  }
}

BOOST_AUTO_TEST_CASE(level1_steps_are_pdgeadd_and_local_scaling_where_the_threshold_allows) {
  const index_t saved = lz::thresholds().level1_blas;
  lz::thresholds().level1_blas = 0; // the level1 rule for every size
  const auto hc = random_matrix(21, 13, 45), hd = random_matrix(21, 13, 46);
  const auto hx = random_vector(30, 47), hy = random_vector(30, 48);
  bool ok = true;
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    auto C = lz::dist::scatter(g, hc, {4, 4}), D = lz::dist::scatter(g, hd, {4, 4});
    auto x = lz::dist::scatter_vector(g, hx, 4), y = lz::dist::scatter_vector(g, hy, 4);
    const auto axpy = pblas_calls([&] { C = C + 2.0 * D; });
    const auto scal = pblas_calls([&] { C *= 3.0; });
    y += 0.5 * x;
    lz::tensor<double, 2> ref = 3.0 * (hc + 2.0 * hd);
    lz::tensor<double, 1> yref = hy + 0.5 * hx;
    ok = ok && max_diff(lz::dist::gather_all(C), ref) < 1e-14 &&
         max_diff(lz::dist::gather_all(y), yref) < 1e-15 &&
         (!g.member() || axpy == std::vector<std::string>{"pdgeadd"}) && scal.empty();
  }
  lz::thresholds().level1_blas = saved;
  BOOST_TEST(everywhere(ok));
}

BOOST_AUTO_TEST_CASE(explain_names_the_pblas_calls_and_the_local_loops) {
  lz::dist::grid g = lz::dist::grid::square();
  lz::dist::matrix<double> A(g, 64, 48), B(g, 48, 32), C(g, 64, 32), D(g, 64, 32, {16, 16});
  const std::string a = lz::explain(C, 2.0 * A * B + 3.0 * C);
  BOOST_TEST(a.find("pdgemm('N', 'N') m=64 n=32 k=48 alpha=2 beta=3") != std::string::npos, a);
  const std::string b = lz::explain(C, lz::maximum(C + 1.0, 0.0));
  BOOST_TEST(b.find("local loop dst = f(1 leaves)") != std::string::npos, b);
  BOOST_TEST(b.find("pd") == std::string::npos, b);
  const std::string c = lz::explain(C, C + D);
  BOOST_TEST(c.find("pdgemr2d") != std::string::npos, c);
}

BOOST_AUTO_TEST_CASE(bad_shapes_throw_on_every_rank_and_leave_the_destination_untouched) {
  lz::dist::grid g = lz::dist::grid::square();
  const auto hc = random_matrix(12, 8, 26);
  auto C = lz::dist::scatter(g, hc, {4, 4});
  lz::dist::matrix<double> A(g, 12, 9), B(g, 8, 8);
  BOOST_CHECK_THROW(C = A * B, lz::shape_error);
  BOOST_CHECK_THROW(C = C + A, lz::shape_error);
  BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(C), hc) == 0.0));
  BOOST_CHECK_THROW(lz::dist::grid(ranks() + 1, 1), std::invalid_argument);
  lz::dist::matrix<double> big(g, 4, 4);
  BOOST_CHECK_THROW(big = C(lz::range(0, 8, 2), lz::range(0, 8, 2)), lz::layout_error);
}

BOOST_AUTO_TEST_CASE(a_statement_only_some_ranks_make_is_a_collective_error_not_a_hang) {
  lz::dist::grid g = lz::dist::grid::square();
  const auto hc = random_matrix(12, 8, 27);
  auto C = lz::dist::scatter(g, hc, {4, 4});
  lz::dist::matrix<double> D(g, 12, 8, {4, 4});
  if (ranks() > 1) {
    // Rank 0 plans another tree than the others: every rank raises, naming ranks.
    BOOST_CHECK_THROW(me() == 0 ? (void)(D = C + 1.0) : (void)(D = C * 2.0),
                      lz::dist::collective_error);
  }
  // A user function that throws on one rank only: raised on every rank.
  auto f = [](double v) {
    if (me() == 0) throw std::runtime_error("bad value"); // rank 0 holds block (0, 0)
    return v;
  };
  BOOST_CHECK_THROW(D = lz::map(f, C), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(empty_and_degenerate_shapes_plan_and_run_like_any_other) {
  for (auto [p, q] : grid_shapes()) {
    lz::dist::grid g(p, q);
    lz::dist::matrix<double> E(g, 0, 5), F(g, 5, 0), Z(g, 0, 0), G(g, 7, 6, {2, 2});
    lz::dist::fill(G, [](index_t i, index_t j) { return double(i + j); });
    lz::dist::matrix<double> K(g, 7, 0), H(g, 6, 0);
    G = K * lz::transpose(H) + 0.0 * G; // inner dimension 0
    BOOST_TEST(everywhere(double(lz::max(lz::abs(lz::dist::gather_all(G)))) == 0.0));
    E = E + 1.0;
    Z = E * F;
    BOOST_TEST(
        everywhere(lz::dist::gather_all(E).size() == 0 && lz::dist::gather_all(Z).size() == 0));
    BOOST_TEST(double(lz::sum(E)) == 0.0);
    BOOST_CHECK_THROW((void)double(lz::max(E)), lz::shape_error); // max of nothing
    lz::dist::vector<double> one(g, 1, 3), x(g, 1, 1);
    lz::dist::fill(one, [](index_t) { return 4.0; });
    x = 2.0 * one + one;
    BOOST_TEST(everywhere(lz::dist::gather_all(x)(0) == 12.0));
    lz::dist::matrix<double> big_blocks(g, 3, 3, {100, 100}); // one block, on one rank
    lz::dist::fill(big_blocks, [](index_t i, index_t j) { return double(3 * i + j); });
    const lz::dist::matrix<double> copied = big_blocks; // a deep copy (each rank its part)
    lz::dist::matrix<double> P(g, 3, 3, {1, 1});
    P = big_blocks * copied;
    const lz::tensor<double, 2> hb = lz::dist::gather_all(big_blocks);
    lz::tensor<double, 2> ref = hb * hb;
    BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(P), ref) < 1e-12));
  }
}

BOOST_AUTO_TEST_CASE(npy_files_go_through_rank_zero) {
  const auto hc = random_matrix(10, 7, 28);
  lz::dist::grid g = lz::dist::grid::square();
  auto C = lz::dist::scatter(g, hc, {3, 3});
  const auto path =
      std::filesystem::temp_directory_path() / ("lz_dist_" + std::to_string(ranks()) + ".npy");
  lz::dist::save_npy(path, C);
  auto D = lz::dist::load_npy(g, path, {2, 4});
  BOOST_TEST(everywhere(max_diff(lz::dist::gather_all(D), hc) == 0.0));
  lz::dist::rt::barrier();
  if (me() == 0) std::filesystem::remove(path);
  BOOST_CHECK_THROW(lz::dist::load_npy(g, "/nonexistent/x.npy"), std::exception);
}

// Random elementwise trees (the random-tree suite's run-time operations, IEEE-exact: results must
// match bit for bit) over leaves distributed at random — the destination's blocks, other blocks,
// another grid, a transposed matrix, a sub-matrix — into a fresh destination or in place; and
// products inside such trees (nested rule: the product lands first, then one local loop).
BOOST_AUTO_TEST_CASE(random_trees_over_random_distributions_match_serial_lazuli) {
  using lz_test::tree::dyn_binary_fn;
  using lz_test::tree::dyn_unary_fn;
  std::mt19937 rng(2026); // the same draws on every rank
  const auto shapes = grid_shapes();
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  int moved = 0, local = 0;
  for (int trial = 0; trial < 48; ++trial) {
    const auto [p, q] = shapes[std::size_t(pick(int(shapes.size())))];
    lz::dist::grid g(p, q);
    const index_t m = 1 + pick(30), n = 1 + pick(30), k = 1 + pick(20);
    const lz::dist::blocking bd{1 + pick(6), 1 + pick(6)};
    // A leaf: its host values, and a distributed view of them laid out by `mode`.
    std::vector<lz::dist::matrix<double>> keep;
    keep.reserve(8);
    auto leaf = [&](index_t r, index_t c, unsigned seed) {
      const int mode = pick(5);
      const lz::dist::blocking bo{1 + pick(6), 1 + pick(6)};
      lz::dist::grid other = lz::dist::grid(shapes[std::size_t(pick(int(shapes.size())))].first, 1);
      lz::tensor<double, 2> h = random_matrix(r, c, seed);
      if (mode == 0) keep.push_back(lz::dist::scatter(g, h, bd));
      if (mode == 1) keep.push_back(lz::dist::scatter(g, h, bo));
      if (mode == 2) keep.push_back(lz::dist::scatter(other, h, bo));
      if (mode == 3) keep.push_back(lz::dist::scatter(g, lz::eval(lz::transpose(h)), bo));
      if (mode == 4) {
        lz::tensor<double, 2> big = random_matrix(r + 3, c + 2, seed + 1);
        big(lz::range(2, 2 + r), lz::range(1, 1 + c)) = h;
        keep.push_back(lz::dist::scatter(g, big, bd));
      }
      lz::dist::matrix<double>& d = keep.back();
      using view = lz::dist::tensor_view<const double, 2>;
      const view v = mode == 3   ? view(lz::transpose(d.view()))
                     : mode == 4 ? view(d.view()(lz::range(2, 2 + r), lz::range(1, 1 + c)))
                                 : view(d.view());
      return std::pair{h, v};
    };
    auto [h1, d1] = leaf(m, n, 100 + unsigned(trial));
    auto [h2, d2] = leaf(m, n, 200 + unsigned(trial));
    auto [h3, d3] = leaf(m, n, 300 + unsigned(trial));
    const dyn_unary_fn u{pick(9)};
    const dyn_binary_fn b1{pick(9)}, b2{pick(9)};
    const int skeleton = pick(3);
    const bool in_place = pick(3) == 0;
    auto tree = [&](const auto& x, const auto& y, const auto& z) {
      return lz::map(b1, lz::map(u, x), lz::map(b2, y, z));
    };
    lz::dist::matrix<double> C(g, m, n, bd);
    lz::tensor<double, 2> ref;
    std::vector<std::string> calls;
    if (skeleton == 0) {
      ref = tree(h1, h2, h3);
      calls = pblas_calls([&] { C = tree(d1, d2, d3); });
    } else if (skeleton == 1) { // in place: C holds h1 and is the first leaf
      C = d1;
      ref = tree(h1, h2, h3);
      calls = pblas_calls([&] { C = tree(C, d2, d3); });
    } else { // a product inside the tree
      auto [ha, da] = leaf(m, k, 400 + unsigned(trial));
      auto [hb, db] = leaf(k, n, 500 + unsigned(trial));
      ref = lz::map(b1, lz::map(u, ha * hb), lz::map(b2, h2, h3));
      if (in_place) C = d2;
      calls = pblas_calls([&] {
        if (in_place)
          C = lz::map(b1, lz::map(u, da * db), lz::map(b2, C, d3));
        else
          C = lz::map(b1, lz::map(u, da * db), lz::map(b2, d2, d3));
      });
    }
    const auto got = lz::dist::gather_all(C);
    const double tol = skeleton == 2 ? 1e-12 * (1.0 + double(lz::max(lz::abs(ref)))) : 0.0;
    bool ok = true;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        const double a = got(i, j), e = ref(i, j);
        ok = ok && ((std::isnan(a) && std::isnan(e)) || std::abs(a - e) <= tol);
      }
    BOOST_TEST(everywhere(ok), "trial " << trial << ": grid " << p << "x" << q << ", " << m << "x"
                                        << n << ", skeleton " << skeleton);
    (std::find(calls.begin(), calls.end(), "pdgemr2d") != calls.end() ? moved : local) += 1;
  }
  BOOST_TEST(everywhere(moved > 0 && local > 0)); // both paths were taken
}

BOOST_AUTO_TEST_SUITE_END()
