// Device products (include/lz/device/plan.hpp): the fusion pass's plan with device steps. Each
// case checks the device BLAS calls made (kernels/include/lz/kernels/cuda/blas.hpp recorder)
// against the host plan's BLAS calls for the same tree and layouts (same decisions), the pooled
// temporaries (zero where the host promises none), and the numbers against the host lazuli
// result. Built by g++ on the host system (every CI run) and once by nvcc (GPU, skips without).
#include "support.hpp"

#include <support/recording.hpp>

#include <lz/kernels/cuda/blas.hpp>

#include <algorithm>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(device_products)

using lz::index_t;
using lz_dtest::expect_match;
using lz_dtest::rnd;
namespace dblas = lz::kernels::dev::blas;

namespace {

// Records the device BLAS calls made during its lifetime.
struct device_recording {
  device_recording() { dblas::record_calls(true); }
  ~device_recording() { dblas::record_calls(false); }
  device_recording(const device_recording&) = delete;
  device_recording& operator=(const device_recording&) = delete;
  std::vector<dblas::call> calls() const { return dblas::recorded_calls(); }
  dblas::call only() const {
    const auto c = calls();
    BOOST_TEST_REQUIRE(c.size() == 1u, "expected one device BLAS call, got " << c.size());
    return c.front();
  }
};

// A step as both sides record it: routine (syrk is a gemm on the device, the generic kernels
// lose their type suffix), flags, sizes, leading dims, α, β.
std::string step_text(std::string routine, char o, char ta, char tb, index_t m, index_t n,
                      index_t k, index_t lda, index_t ldb, index_t ldc, double alpha, double beta) {
  const auto lt = routine.find('<');
  if (lt != std::string::npos) routine.resize(lt);
  const bool generic = routine.find("generic") != std::string::npos;
  const bool level2 = routine.find("gemv") != std::string::npos;
  std::string s = routine + " " + o + ta + (level2 ? 'N' : tb) + " m=" + std::to_string(m) +
                  " n=" + std::to_string(n) + " k=" + std::to_string(level2 ? 0 : k);
  if (!generic)
    s += " lda=" + std::to_string(lda) +
         (level2 ? std::string() : " ldb=" + std::to_string(ldb) + " ldc=" + std::to_string(ldc));
  char buf[64];
  std::snprintf(buf, sizeof buf, " alpha=%g beta=%g", alpha, beta);
  return s + buf;
}
std::vector<std::string> host_steps(const lz_test::recording& r) {
  std::vector<std::string> out;
  for (const auto& c : r.calls) {
    std::string name = c.routine;
    char tb = char(c.tb);
    if (name == "dsyrk" || name == "ssyrk") { // the device runs syrk as one gemm with B = Aᵀ
      name = name[0] + std::string("gemm");
      tb = char(c.ta) == 'N' ? 'T' : 'N';
      out.push_back(step_text(name, char(c.o), char(c.ta), tb, c.m, c.n, c.k, c.lda, c.lda, c.ldc,
                              c.alpha, c.beta));
      continue;
    }
    out.push_back(step_text(name, char(c.o), char(c.ta), tb, c.m, c.n, c.k, c.lda, c.ldb, c.ldc,
                            c.alpha, c.beta));
  }
  return out;
}
std::vector<std::string> device_steps(const std::vector<dblas::call>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls)
    out.push_back(step_text(c.routine, char(c.o), char(c.ta), char(c.tb), c.m, c.n, c.k, c.lda,
                            c.ldb, c.ldc, c.alpha, c.beta));
  return out;
}
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

// A matrix operand of logical shape r×c in one of several layouts, on the host and (the same
// layout) on the device: row-major, column-major, padded rows, a transposed view, and a
// column-strided slice that no BLAS layout expresses.
enum class layout_kind { row, col, padded, strided, count };
const char* name_of(layout_kind k) {
  static const char* n[] = {"row", "col", "padded", "strided"};
  return n[int(k)];
}
template <class T>
struct operand {
  lz::tensor<T, 2> store;
  lz::device_tensor<T, 2> dstore;
  layout_kind kind;
  operand(index_t r, index_t c, layout_kind k, std::uint64_t seed) : kind(k) {
    const lz::shape_t<2> s = k == layout_kind::col       ? lz::shape_t<2>{c, r}
                             : k == layout_kind::padded  ? lz::shape_t<2>{r, c + 3}
                             : k == layout_kind::strided ? lz::shape_t<2>{r, 2 * c}
                                                         : lz::shape_t<2>{r, c};
    store = rnd<T, 2>(s, seed, -1, 1);
    dstore = lz::to_device(store);
  }
  template <class X>
  auto view_of(X& x) const {
    const index_t r = kind == layout_kind::col ? x.shape()[1] : x.shape()[0];
    const index_t c = kind == layout_kind::col       ? x.shape()[0]
                      : kind == layout_kind::padded  ? x.shape()[1] - 3
                      : kind == layout_kind::strided ? x.shape()[1] / 2
                                                     : x.shape()[1];
    if (kind == layout_kind::col) return lz::transpose(x);
    if (kind == layout_kind::padded) return lz::slice(x, lz::range(0, r), lz::range(0, c));
    if (kind == layout_kind::strided) return lz::slice(x, lz::all, lz::range(0, 2 * c, 2));
    return lz::slice(x, lz::all, lz::all);
  }
  auto h() { return view_of(store); }
  auto d() { return view_of(dstore); }
};

// Runs `assign` on host views and device views of the same layouts; checks the device calls
// equal the host calls, and the numbers agree.
template <class F>
void same_plan_and_numbers(F&& assign, index_t m, index_t n, layout_kind kc, std::uint64_t seed,
                           double abs_tol, const std::string& what) {
  operand<double> C(m, n, kc, seed);
  std::vector<std::string> hs, ds;
  {
    lz_test::recording rec;
    assign(C.h());
    hs = host_steps(rec);
  }
  {
    device_recording rec;
    assign(C.d());
    ds = device_steps(rec.calls());
  }
  BOOST_TEST(hs == ds, what << "\nhost:" << joined(hs) << "\ndevice:" << joined(ds));
  expect_match(C.h(), C.d(), 64, abs_tol, what);
}

} // namespace

BOOST_AUTO_TEST_CASE(transpose_times_matrix_is_one_device_gemm_without_temporaries) {
  const auto A = rnd<double, 2>({96, 64}, 1), B = rnd<double, 2>({96, 48}, 2);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  lz::device_tensor<double, 2> dC(lz::shape_t<2>{64, 48});
  device_recording rec;
  lz::reset_device_stats();
  dC = lz::transpose(dA) * dB; // W4
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  BOOST_TEST(lz::device_stats().h2d + lz::device_stats().d2h == 0u);
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dgemm");
  BOOST_TEST(char(c.ta) == 'T');
  BOOST_TEST(char(c.tb) == 'N');
  BOOST_TEST(c.m == 64);
  BOOST_TEST(c.n == 48);
  BOOST_TEST(c.k == 96);
  BOOST_TEST(c.lda == 64);
  BOOST_TEST(c.beta == 0.0);
  lz::matrix<double> C = lz::transpose(A) * B;
  expect_match(C, dC, 64, 1e-12, "transpose(A)*B");
}

BOOST_AUTO_TEST_CASE(scaled_sum_with_destination_is_one_gemm_with_alpha_and_beta) {
  const auto A = rnd<double, 2>({40, 30}, 3), B = rnd<double, 2>({30, 20}, 4);
  auto C = rnd<double, 2>({40, 20}, 5);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  auto dC = lz::to_device(C);
  device_recording rec;
  lz::reset_device_stats();
  dC = 2.0 * dA * dB + 3.0 * dC; // W6
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  const auto c = rec.only();
  BOOST_TEST(c.alpha == 2.0);
  BOOST_TEST(c.beta == 3.0);
  C = 2.0 * A * B + 3.0 * C;
  expect_match(C, dC, 64, 1e-12, "2AB + 3C");
}

BOOST_AUTO_TEST_CASE(matrix_vector_plus_y_is_one_in_place_gemv) {
  const auto A = rnd<double, 2>({50, 70}, 6);
  const auto x = rnd<double, 1>({70}, 7);
  auto y = rnd<double, 1>({50}, 8);
  const auto dA = lz::to_device(A);
  const auto dx = lz::to_device(x);
  auto dy = lz::to_device(y);
  device_recording rec;
  lz::reset_device_stats();
  dy = dA * dx + dy;
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dgemv");
  BOOST_TEST(c.beta == 1.0);
  y = A * x + y;
  expect_match(y, dy, 64, 1e-12, "Ax + y");
}

BOOST_AUTO_TEST_CASE(bias_relu_is_one_epilogue_call_without_temporaries) {
  const index_t m = 33, n = 27, k = 19;
  const auto A = rnd<double, 2>({m, k}, 9), B = rnd<double, 2>({k, n}, 10);
  const auto b = rnd<double, 1>({n}, 11);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto db = lz::to_device(b);
  lz::device_tensor<double, 2> dD(lz::shape_t<2>{m, n});
  dblas::set_epilogue(dblas::epilogue_policy::always); // double: automatic does not use it
  device_recording rec;
  lz::reset_device_stats();
  dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0); // W7
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  BOOST_TEST(lz::device_stats().launches == 0u); // no elementwise pass
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dgemm_bias_relu");
  BOOST_TEST(c.m == m);
  BOOST_TEST(c.n == n);
  BOOST_TEST(c.k == k);
  lz::matrix<double> D = lz::maximum(A * B + lz::broadcast_to(b, {m, n}), 0.0);
  expect_match(D, dD, 64, 1e-12, "relu(AB + b)");
  // Scalars and transposes peel as for gemm; maximum(0, x) is the same pattern.
  const auto At = lz::to_device(lz::eval(lz::transpose(A)));
  device_recording rec2;
  dD = lz::maximum(0.0, 0.5 * (lz::transpose(At) * dB) + lz::broadcast_to(db, {m, n}));
  const auto c2 = rec2.only();
  BOOST_TEST(c2.routine == "dgemm_bias_relu");
  BOOST_TEST(char(c2.ta) == 'T');
  BOOST_TEST(c2.alpha == 0.5);
  dblas::set_epilogue(dblas::epilogue_policy::automatic);
  D = lz::maximum(0.0, 0.5 * (A * B) + lz::broadcast_to(b, {m, n}));
  expect_match(D, dD, 64, 1e-12, "relu(0.5 AᵀᵀB + b)");
}

// The default policy: float through the epilogue, double as gemm + one fused pass (cuBLASLt's
// fp64 epilogue kernels run at half its DGEMM rate); the same plan on both builds.
BOOST_AUTO_TEST_CASE(bias_relu_uses_the_epilogue_for_float_and_gemm_plus_one_pass_for_double) {
  BOOST_TEST((dblas::epilogue() == dblas::epilogue_policy::automatic));
  const index_t m = 12, n = 10, k = 6;
  const auto Ad = rnd<double, 2>({m, k}, 51), Bd = rnd<double, 2>({k, n}, 52);
  const auto bd = rnd<double, 1>({n}, 53);
  const auto Af = lz::eval(lz::cast<float>(Ad)), Bf = lz::eval(lz::cast<float>(Bd));
  const auto bf = lz::eval(lz::cast<float>(bd));
  {
    const auto dA = lz::to_device(Af);
    const auto dB = lz::to_device(Bf);
    const auto db = lz::to_device(bf);
    lz::device_tensor<float, 2> dD(lz::shape_t<2>{m, n});
    device_recording rec;
    lz::reset_device_stats();
    dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0f);
    BOOST_TEST(lz::device_stats().launches == 0u);
    BOOST_TEST(rec.only().routine == "sgemm_bias_relu");
    lz::matrix<float> D = lz::maximum(Af * Bf + lz::broadcast_to(bf, {m, n}), 0.0f);
    expect_match(D, dD, 64, 1e-5, "float: epilogue");
  }
  const auto dA = lz::to_device(Ad);
  const auto dB = lz::to_device(Bd);
  const auto db = lz::to_device(bd);
  lz::device_tensor<double, 2> dD(lz::shape_t<2>{m, n});
  device_recording rec;
  lz::reset_device_stats();
  dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0);
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  BOOST_TEST(lz::device_stats().launches == 1u); // the one fused bias+relu pass
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dgemm");
  BOOST_TEST(c.beta == 0.0);
  lz::matrix<double> D = lz::maximum(Ad * Bd + lz::broadcast_to(bd, {m, n}), 0.0);
  expect_match(D, dD, 64, 1e-12, "double: gemm + one pass");
  const std::string plan =
      lz::explain(lz::device, dD, lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0));
  BOOST_TEST(plan.find("then one bias+relu pass") != std::string::npos, plan);
}

// lz::maximum(v, 0) keeps a NaN v (as on the CPU); so must the epilogue, in float and double,
// whether the NaN comes from A, from B or from the bias, and whichever path the build takes.
template <class T>
void check_bias_relu_nan(bool epilogue) {
  const index_t m = 9, n = 7, k = 5;
  auto A = rnd<T, 2>({m, k}, 31), B = rnd<T, 2>({k, n}, 32);
  auto b = rnd<T, 1>({n}, 33);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  A(2, 1) = nan;                                 // row 2 of the result
  B(3, 4) = nan;                                 // column 4
  b(6) = nan;                                    // column 6
  A(5, 0) = -std::numeric_limits<T>::infinity(); // row 5: -inf or NaN, never 0 by accident
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto db = lz::to_device(b);
  lz::device_tensor<T, 2> dD(lz::shape_t<2>{m, n});
  dblas::set_epilogue(epilogue ? dblas::epilogue_policy::always : dblas::epilogue_policy::never);
  dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), T(0));
  dblas::set_epilogue(dblas::epilogue_policy::automatic);
  lz::matrix<T> D = lz::maximum(A * B + lz::broadcast_to(b, {m, n}), T(0));
  BOOST_TEST(std::isnan(D(2, 0)));
  expect_match(D, dD, 64, sizeof(T) == 4 ? 1e-5 : 1e-12,
               std::string("relu(AB + b) with NaN, epilogue ") + (epilogue ? "on" : "off"));
}

BOOST_AUTO_TEST_CASE(bias_relu_keeps_nan_like_maximum) {
  for (const bool epilogue : {true, false}) {
    check_bias_relu_nan<double>(epilogue);
    check_bias_relu_nan<float>(epilogue);
  }
}

BOOST_AUTO_TEST_CASE(bias_relu_falls_back_to_gemm_and_one_elementwise_pass) {
  const index_t m = 21, n = 17, k = 12;
  const auto A = rnd<float, 2>({m, k}, 12), B = rnd<float, 2>({k, n}, 13);
  const auto b = rnd<float, 1>({n}, 14);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto db = lz::to_device(b);
  lz::device_tensor<float, 2> dD(lz::shape_t<2>{m, n});
  dblas::set_epilogue(dblas::epilogue_policy::never);
  device_recording rec;
  lz::reset_device_stats();
  dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0f);
  dblas::set_epilogue(dblas::epilogue_policy::automatic);
  BOOST_TEST(lz::device_stats().pool_requests == 0u);
  BOOST_TEST(lz::device_stats().launches == 1u); // the one elementwise pass
  const auto c = rec.only();
  BOOST_TEST(c.routine == "sgemm");
  BOOST_TEST(c.beta == 0.0);
  lz::matrix<float> D = lz::maximum(A * B + lz::broadcast_to(b, {m, n}), 0.0f);
  expect_match(D, dD, 64, 1e-5, "relu(AB + b) fallback");
}

BOOST_AUTO_TEST_CASE(bias_relu_that_does_not_fit_the_epilogue_uses_the_shared_rules) {
  const index_t m = 16, n = 12, k = 8;
  const auto A = rnd<double, 2>({m, k}, 15), B = rnd<double, 2>({k, n}, 16);
  const auto b = rnd<double, 1>({n}, 17), c = rnd<double, 1>({m}, 18);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto db = lz::to_device(b);
  const auto dc = lz::to_device(c);
  // A column-major destination, and a bias per row (not per column): the nested rule.
  lz::device_tensor<double, 2> dT(lz::shape_t<2>{n, m});
  auto dD = lz::transpose(dT);
  device_recording rec;
  dD = lz::maximum(dA * dB + lz::broadcast_to(db, {m, n}), 0.0);
  BOOST_TEST(rec.only().routine == "dgemm");
  lz::matrix<double> D = lz::maximum(A * B + lz::broadcast_to(b, {m, n}), 0.0);
  expect_match(D, dD, 64, 1e-12, "relu(AB + b) into a column-major destination");
  lz::device_tensor<double, 2> dE(lz::shape_t<2>{m, n});
  device_recording rec2;
  dE = lz::maximum(dA * dB + lz::transpose(lz::broadcast_to(dc, {n, m})), 0.0);
  BOOST_TEST(rec2.only().routine == "dgemm");
  lz::matrix<double> E = lz::maximum(A * B + lz::transpose(lz::broadcast_to(c, {n, m})), 0.0);
  expect_match(E, dE, 64, 1e-12, "relu(AB + row bias)");
}

BOOST_AUTO_TEST_CASE(chains_are_ordered_like_on_the_host) {
  const auto A = rnd<double, 2>({30, 200}, 19), B = rnd<double, 2>({200, 6}, 20),
             C = rnd<double, 2>({6, 40}, 21);
  const auto x = rnd<double, 1>({6}, 22);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto dC = lz::to_device(C);
  const auto dx = lz::to_device(x);
  {
    std::vector<std::string> hs, ds;
    lz::vector<double> r(lz::shape_t<1>{30});
    lz::device_tensor<double, 1> dr(lz::shape_t<1>{30});
    {
      lz_test::recording rec;
      r = A * B * x;
      hs = host_steps(rec);
    }
    device_recording rec;
    lz::reset_device_stats();
    dr = dA * dB * dx; // A·(B·x): two gemv, one intermediate
    ds = device_steps(rec.calls());
    BOOST_TEST(hs == ds, "host:" << joined(hs) << "\ndevice:" << joined(ds));
    BOOST_TEST(ds.size() == 2u);
    BOOST_TEST(lz::device_stats().pool_requests == 1u);
    expect_match(r, dr, 64, 1e-11, "ABx");
  }
  {
    std::vector<std::string> hs, ds;
    lz::matrix<double> M(lz::shape_t<2>{30, 40});
    lz::device_tensor<double, 2> dM(lz::shape_t<2>{30, 40});
    {
      lz_test::recording rec;
      M = A * B * C;
      hs = host_steps(rec);
    }
    device_recording rec;
    dM = dA * dB * dC; // (A·B)·C
    ds = device_steps(rec.calls());
    BOOST_TEST(hs == ds, "host:" << joined(hs) << "\ndevice:" << joined(ds));
    BOOST_TEST_REQUIRE(ds.size() == 2u);
    BOOST_TEST(ds[0].find("m=30 n=6 k=200") != std::string::npos);
    expect_match(M, dM, 64, 1e-11, "ABC");
  }
}

BOOST_AUTO_TEST_CASE(products_nested_in_elementwise_trees_match_the_host) {
  const auto A = rnd<double, 2>({24, 18}, 23), B = rnd<double, 2>({18, 20}, 24),
             E = rnd<double, 2>({24, 20}, 25);
  const auto x = rnd<double, 1>({18}, 26), z = rnd<double, 1>({24}, 27);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto dE = lz::to_device(E);
  const auto dx = lz::to_device(x);
  const auto dz = lz::to_device(z);
  lz::device_tensor<double, 2> dD(lz::shape_t<2>{24, 20});
  device_recording rec;
  dD = lz::sqrt(lz::abs(dA * dB)) + 2.0 * dE;
  BOOST_TEST(rec.calls().size() == 1u);
  lz::matrix<double> D = lz::sqrt(lz::abs(A * B)) + 2.0 * E;
  expect_match(D, dD, 64, 1e-12, "sqrt(|AB|) + 2E");
  lz::device_tensor<double, 1> dy(lz::shape_t<1>{24});
  dy = lz::tanh(dA * dx) - dz * lz::eval(lz::device, lz::sum(dz));
  lz::vector<double> y = lz::tanh(A * x) - z * lz::sum(z);
  expect_match(y, dy, 64, 1e-12, "tanh(Ax) - z·sum(z)");
  // A product under a reduction, and a reduction of a product assigned along an axis.
  const double s = lz::eval(lz::device, lz::sum(dA * dB));
  const double hsum = lz::sum(A * B);
  BOOST_TEST(std::fabs(s - hsum) <= 1e-10);
  dy = lz::sum(dA * dB, 1);
  y = lz::sum(A * B, 1);
  expect_match(y, dy, 64, 1e-12, "sum(AB, 1)");
}

BOOST_AUTO_TEST_CASE(random_shapes_and_layouts_take_the_host_plan_and_match_its_numbers) {
  std::mt19937_64 g(2024);
  auto pick = [&](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(g)); };
  for (int t = 0; t < 48; ++t) {
    const index_t m = pick(1, 40), n = pick(1, 40), k = pick(1, 40);
    const auto ka = layout_kind(pick(0, 3)), kb = layout_kind(pick(0, 3)),
               kc = layout_kind(pick(0, 2));
    operand<double> A(m, k, ka, 100 + t), At(k, m, ka, 200 + t), B(k, n, kb, 300 + t),
        D(m, k, kb, 400 + t), F(k, n, ka, 500 + t);
    const int form = t % 4;
    const std::string what = "case " + std::to_string(t) + " form " + std::to_string(form) + " " +
                             std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                             " A " + name_of(ka) + " B " + name_of(kb) + " C " + name_of(kc);
    same_plan_and_numbers(
        [&](auto C) {
          auto run = [&](auto a, auto at, auto b, auto d, auto f) {
            if (form == 0) C = a * b;
            if (form == 1) C = 2.0 * lz::transpose(at) * b + 3.0 * C;
            if (form == 2) C = a * b - 0.5 * (d * f) + C;
            if (form == 3) C = -lz::transpose(lz::transpose(b) * at);
          };
          if constexpr (lz::space_v<decltype(C)> == lz::memory_space::host)
            run(A.h(), At.h(), B.h(), D.h(), F.h());
          else
            run(A.d(), At.d(), B.d(), D.d(), F.d());
        },
        m, n, kc, 600 + t, 1e-12, what);
  }
}

BOOST_AUTO_TEST_CASE(inner_dimension_mismatch_throws_shape_error_and_leaves_the_destination) {
  const auto A = rnd<double, 2>({8, 5}, 30), B = rnd<double, 2>({6, 4}, 31);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto C0 = rnd<double, 2>({8, 4}, 32);
  auto dC = lz::to_device(C0);
  device_recording rec;
  lz::reset_device_stats();
  BOOST_CHECK_THROW(dC = dA * dB, lz::shape_error);
  BOOST_CHECK_THROW(dC = 2.0 * dC + dA * dB, lz::shape_error);
  // The product has the wrong shape for the destination (lz::assign and views never resize):
  // thrown before anything runs.
  const auto dB2 = lz::to_device(rnd<double, 2>({5, 7}, 33));
  BOOST_CHECK_THROW(lz::assign(lz::device, dC, dA * dB2), lz::shape_error);
  BOOST_CHECK_THROW(dC.view() = 2.0 * (dA * dB2) + 1.0, lz::shape_error);
  BOOST_CHECK_THROW((void)lz::explain(lz::device, dC, dA * dB2), lz::shape_error);
  BOOST_TEST(rec.calls().empty());
  BOOST_TEST(lz::device_stats().launches == 0u);
  expect_match(C0, dC, 0, 0, "destination untouched");
}

BOOST_AUTO_TEST_CASE(a_product_that_reads_its_destination_goes_through_one_temporary) {
  const auto A = rnd<double, 2>({20, 20}, 34);
  auto C = rnd<double, 2>({20, 20}, 35);
  const auto dA = lz::to_device(A);
  auto dC = lz::to_device(C);
  device_recording rec;
  lz::reset_device_stats();
  dC = dA * dC;
  BOOST_TEST(lz::device_stats().pool_requests == 1u);
  BOOST_TEST(rec.calls().size() == 1u);
  C = A * C;
  expect_match(C, dC, 64, 1e-12, "C = A*C");
  // Reading the destination transposed, in a sum.
  dC = lz::transpose(dC) * dA + dC;
  C = lz::transpose(C) * A + C;
  expect_match(C, dC, 64, 1e-11, "C = Cᵀ*A + C");
}

BOOST_AUTO_TEST_CASE(integer_products_run_the_own_thrust_kernel) {
  const auto A = rnd<std::int32_t, 2>({13, 9}, 36, -5, 5),
             B = rnd<std::int32_t, 2>({9, 11}, 37, -5, 5);
  const auto x = rnd<std::int64_t, 1>({9}, 38, -5, 5);
  const auto A64 = rnd<std::int64_t, 2>({13, 9}, 39, -5, 5);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  const auto dx = lz::to_device(x);
  const auto dA64 = lz::to_device(A64);
  lz::device_tensor<std::int32_t, 2> dC(lz::shape_t<2>{13, 11});
  device_recording rec;
  dC = 2 * lz::transpose(lz::transpose(dA)) * dB;
  BOOST_TEST(rec.only().routine == "gemm_generic");
  lz::matrix<std::int32_t> C = 2 * A * B;
  expect_match(C, dC, 0, 0, "int32 2AB");
  lz::device_tensor<std::int64_t, 1> dy(lz::shape_t<1>{13});
  dy = dA64 * dx;
  lz::vector<std::int64_t> y = A64 * x;
  expect_match(y, dy, 0, 0, "int64 Ax");
}

BOOST_AUTO_TEST_CASE(syrk_pattern_runs_as_one_device_gemm) {
  const auto A = rnd<double, 2>({30, 12}, 40);
  const auto dA = lz::to_device(A);
  lz::device_tensor<double, 2> dC(lz::shape_t<2>{30, 30});
  device_recording rec;
  dC = dA * lz::transpose(dA);
  const auto c = rec.only();
  BOOST_TEST(c.routine == "dgemm");
  BOOST_TEST(char(c.tb) == 'T');
  lz::matrix<double> C = A * lz::transpose(A);
  expect_match(C, dC, 64, 1e-12, "AAᵀ");
}

BOOST_AUTO_TEST_CASE(level1_threshold_sends_axpy_and_scal_to_device_blas) {
  const auto x = rnd<double, 1>({300}, 41);
  auto y = rnd<double, 1>({300}, 42);
  const auto dx = lz::to_device(x);
  auto dy = lz::to_device(y);
  const auto saved = lz::thresholds().level1_blas;
  lz::thresholds().level1_blas = 1;
  device_recording rec;
  dy = 2.5 * dx + dy;
  dy = 0.5 * dy;
  lz::thresholds().level1_blas = saved;
  const auto calls = rec.calls();
  BOOST_TEST_REQUIRE(calls.size() == 2u);
  BOOST_TEST(calls[0].routine == "daxpy");
  BOOST_TEST(calls[1].routine == "dscal");
  y = 0.5 * (2.5 * x + y);
  expect_match(y, dy, 4, 1e-14, "axpy, scal");
  device_recording none; // below the threshold: the one Thrust loop, no BLAS
  dy = 2.5 * dx + dy;
  BOOST_TEST(none.calls().empty());
}

BOOST_AUTO_TEST_CASE(explain_shows_the_device_plan) {
  const auto dA = lz::to_device(rnd<double, 2>({96, 64}, 43));
  const auto dB = lz::to_device(rnd<double, 2>({96, 48}, 44));
  const auto db = lz::to_device(rnd<double, 1>({48}, 45));
  lz::device_tensor<double, 2> dC(lz::shape_t<2>{64, 48});
  const std::string gemm = LZ_DEVICE_IS_GPU ? "cublasDgemm" : "cblas_dgemm";
  device_recording rec;
  const std::string w4 = lz::explain(lz::device, dC, lz::transpose(dA) * dB);
  BOOST_TEST(w4.find(gemm + "(RowMajor, T, N, m=64, n=48, k=96") != std::string::npos, w4);
  BOOST_TEST(w4.find("temporaries: 0") != std::string::npos, w4);
  const std::string w7 = lz::explain(
      lz::device, dC, lz::maximum(lz::transpose(dA) * dB + lz::broadcast_to(db, {64, 48}), 0.0));
  BOOST_TEST(w7.find("bias per column") != std::string::npos, w7);
  BOOST_TEST(w7.find("[rule bias+relu]") != std::string::npos, w7);
  const auto dQ = lz::to_device(rnd<double, 2>({64, 64}, 46));
  lz::device_tensor<double, 2> dS(lz::shape_t<2>{64, 64});
  const std::string alias = lz::explain(lz::device, dS, dQ * dS);
  BOOST_TEST(alias.find("temporaries: 1") != std::string::npos, alias);
  BOOST_TEST(rec.calls().empty()); // explain runs nothing
  BOOST_TEST_MESSAGE(w4 << w7 << alias);
}

BOOST_AUTO_TEST_CASE(products_on_a_stream_run_asynchronously_until_sync) {
  const auto A = rnd<double, 2>({40, 40}, 46), B = rnd<double, 2>({40, 40}, 47);
  const auto dA = lz::to_device(A);
  const auto dB = lz::to_device(B);
  lz::device_tensor<double, 2> dC(lz::shape_t<2>{40, 40});
  lz::device_stream st;
  lz::assign(lz::device.on(st), dC, lz::tanh(dA * dB) + dA * dB);
  st.sync();
  lz::matrix<double> C = lz::tanh(A * B) + A * B;
  expect_match(C, dC, 64, 1e-12, "async tanh(AB) + AB");
}

BOOST_AUTO_TEST_SUITE_END()
