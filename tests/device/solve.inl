// Device solves (the device sink's lapack step): the same solver rules as the host (solve,
// inverse, triangular, normal_equations) with device steps — cuSOLVER (and cuBLAS's trsm) on a
// GPU, lazuli's LAPACK door on the host system. Each case checks the device calls made (the
// device recorder: "dgetrf", "dgetrs", ...; never "dgetri" for inv(A)*B) and the numbers against
// the host lazuli result for the same tree, and that a singular or indefinite matrix is an
// lz::linalg_error with the destination untouched. Built by g++ on the host system (every CI
// run) and by nvcc (cuSOLVER; skips without a GPU).
#include "support.hpp"

#include <lz/kernels/cuda/blas.hpp>

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(device_solve)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;
namespace dblas = lz::kernels::dev::blas;

namespace {

struct device_recording {
  device_recording() { dblas::record_calls(true); }
  ~device_recording() { dblas::record_calls(false); }
  device_recording(const device_recording&) = delete;
  device_recording& operator=(const device_recording&) = delete;
  std::vector<std::string> routines() const {
    std::vector<std::string> out;
    for (const auto& c : dblas::recorded_calls())
      if (c.routine != "dgeam" && c.routine != "sgeam" && c.routine != "dtrsm" &&
          c.routine != "strsm") // (the steps' insides on a GPU)
        out.push_back(c.routine);
    return out;
  }
};

// A random n×n matrix with a dominant diagonal (well conditioned).
template <class T>
lz::matrix<T> well_conditioned(index_t n, std::uint64_t seed) {
  lz::matrix<T> A = rnd<T, 2>({n, n}, seed, -1, 1);
  for (index_t i = 0; i < n; ++i) A(i, i) += T(2 + n / 4);
  return A;
}

bool has(const std::vector<std::string>& calls, const std::string& r) {
  for (const auto& c : calls)
    if (c == r) return true;
  return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(solve_is_one_device_getrf_and_one_getrs_and_matches_the_host) {
  const auto A = well_conditioned<double>(40, 1);
  const auto b = rnd<double, 1>({40}, 2);
  const auto dA = lz::to_device(A);
  const auto db = lz::to_device(b);
  lz::device_vector<double> dx(lz::shape_t<1>{40});
  std::vector<std::string> calls;
  {
    device_recording rec;
    dx = lz::solve(dA, db);
    calls = rec.routines();
  }
  BOOST_TEST((calls == std::vector<std::string>{"dgetrf", "dgetrs"}));
  lz::vector<double> x = lz::solve(A, b);
  expect_match(x, dx, 64, 1e-12, "solve");
}

BOOST_AUTO_TEST_CASE(inv_times_b_never_forms_the_inverse_on_the_device) {
  const auto A = well_conditioned<double>(30, 3);
  const auto B = rnd<double, 2>({30, 7}, 4);
  const auto C0 = rnd<double, 2>({30, 7}, 5);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  auto dC = lz::to_device(C0);
  std::vector<std::string> calls;
  {
    device_recording rec;
    dC = 2.0 * lz::inv(dA) * dB + 3.0 * dC;
    calls = rec.routines();
  }
  BOOST_TEST(has(calls, "dgetrf"));
  BOOST_TEST(has(calls, "dgetrs"));
  BOOST_TEST(!has(calls, "dgetri"));
  lz::matrix<double> C = C0;
  C = 2.0 * lz::inv(A) * B + 3.0 * C;
  expect_match(C, dC, 256, 1e-11, "2 inv(A) B + 3 C");
  // Transposed factors and the right-hand inverse: the transposed solve, no copy of Aᵀ.
  const auto dBt = lz::to_device(lz::eval(lz::transpose(B)));
  lz::device_matrix<double> dX(lz::shape_t<2>{30, 7}), dY(lz::shape_t<2>{7, 30});
  dX = lz::inv(lz::transpose(dA)) * dB;
  dY = dBt * lz::inv(dA);
  lz::matrix<double> X = lz::inv(lz::transpose(A)) * B, Y = lz::eval(lz::transpose(B)) * lz::inv(A);
  expect_match(X, dX, 256, 1e-11, "inv(Aᵀ) B");
  expect_match(Y, dY, 256, 1e-11, "B inv(A)");
}

BOOST_AUTO_TEST_CASE(sympd_triangular_inverse_and_least_squares_take_their_routines) {
  const auto M = rnd<double, 2>({24, 24}, 6, -1, 1);
  lz::matrix<double> S = lz::transpose(M) * M;
  for (index_t i = 0; i < 24; ++i) S(i, i) += 24;
  lz::matrix<double> L = well_conditioned<double>(24, 7);
  for (index_t i = 0; i < 24; ++i)
    for (index_t j = i + 1; j < 24; ++j) L(i, j) = 0;
  const auto b = rnd<double, 1>({24}, 8);
  const auto dS = lz::to_device(S);
  const auto dL = lz::to_device(L);
  const auto db = lz::to_device(b);
  lz::device_vector<double> dx(lz::shape_t<1>{24});
  {
    device_recording rec;
    dx = lz::solve(lz::sympd(dS), db);
    BOOST_TEST((rec.routines() == std::vector<std::string>{"dpotrf", "dpotrs"}));
  }
  expect_match(lz::vector<double>(lz::solve(lz::sympd(S), b)), dx, 64, 1e-12, "sympd");
  {
    device_recording rec;
    dx = lz::solve(lz::triangular<lz::lower>(dL), db);
    BOOST_TEST((rec.routines() == std::vector<std::string>{"dtrtrs"}));
  }
  expect_match(lz::vector<double>(lz::solve(lz::triangular<lz::lower>(L), b)), dx, 64, 1e-12,
               "triangular");
  lz::device_matrix<double> dI(lz::shape_t<2>{24, 24});
  {
    device_recording rec;
    dI = lz::inv(dS);
    const auto r = rec.routines();
    BOOST_TEST(has(r, "dgetrf"));
    BOOST_TEST(has(r, "dgetri"));
  }
  expect_match(lz::matrix<double>(lz::inv(S)), dI, 1024, 1e-12, "inv");
  // Least squares, tall and (the minimum-norm solution) wide, row-major operands.
  for (const bool wide : {false, true}) {
    const index_t m = wide ? 12 : 40, n = wide ? 30 : 12;
    const auto A = rnd<double, 2>({m, n}, 9 + wide, -1, 1);
    const auto y = rnd<double, 1>({m}, 11);
    const auto dA = lz::to_device(A);
    const auto dy = lz::to_device(y);
    lz::device_vector<double> dz(lz::shape_t<1>{n});
    {
      device_recording rec;
      dz = lz::lstsq(dA, dy);
      BOOST_TEST((rec.routines() == std::vector<std::string>{"dgels"}));
    }
    expect_match(lz::vector<double>(lz::lstsq(A, y)), dz, 4096, 1e-10, "lstsq");
  }
}

BOOST_AUTO_TEST_CASE(float_solves_run_on_the_device_too) {
  const auto A = well_conditioned<float>(20, 12);
  const auto B = rnd<float, 2>({20, 3}, 13);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  lz::device_matrix<float> dX(lz::shape_t<2>{20, 3});
  {
    device_recording rec;
    dX = lz::solve(dA, dB);
    BOOST_TEST((rec.routines() == std::vector<std::string>{"sgetrf", "sgetrs"}));
  }
  expect_match(lz::matrix<float>(lz::solve(A, B)), dX, 64, 1e-5, "float");
}

BOOST_AUTO_TEST_CASE(a_singular_or_indefinite_matrix_throws_and_leaves_the_destination_alone) {
  lz::matrix<double> A = well_conditioned<double>(10, 14);
  A(lz::all, 4) = 0.0; // singular: U(5, 5) = 0
  const auto b = rnd<double, 1>({10}, 15);
  const auto x0 = rnd<double, 1>({10}, 16);
  const auto dA = lz::to_device(A);
  const auto db = lz::to_device(b);
  auto dx = lz::to_device(x0);
  BOOST_CHECK_THROW(dx = lz::solve(dA, db), lz::linalg_error);
  expect_match(x0, dx, 0, 0, "destination untouched (LU)");
  lz::matrix<double> N = well_conditioned<double>(10, 17);
  N(3, 3) = -100; // not positive definite
  const auto dN = lz::to_device(lz::eval(lz::transpose(N) + N));
  BOOST_CHECK_THROW(dx = lz::solve(lz::sympd(dN), db), lz::linalg_error);
  expect_match(x0, dx, 0, 0, "destination untouched (Cholesky)");
  lz::matrix<double> L = well_conditioned<double>(10, 18);
  L(6, 6) = 0;
  const auto dL = lz::to_device(L);
  BOOST_CHECK_THROW(dx = lz::solve(lz::triangular<lz::upper>(dL), db), lz::linalg_error);
  expect_match(x0, dx, 0, 0, "destination untouched (triangular)");
  try {
    dx = lz::solve(dA, db);
  } catch (const lz::linalg_error& e) {
    BOOST_TEST(std::string(e.what()).find("lz::solve") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(explain_names_the_device_solver_routines) {
  const auto dA = lz::to_device(well_conditioned<double>(16, 19));
  const auto db = lz::to_device(rnd<double, 1>({16}, 20));
  lz::device_vector<double> dx(lz::shape_t<1>{16});
  const std::string text = lz::explain(lz::device, dx, lz::solve(dA, db));
  const std::string getrf = LZ_DEVICE_IS_GPU ? "cusolverDnDgetrf" : "host system dgetrf";
  BOOST_TEST(text.find(getrf) != std::string::npos, text);
  BOOST_TEST(text.find("getri") == std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()
