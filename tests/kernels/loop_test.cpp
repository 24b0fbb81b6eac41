// CPU loop driver paths added for speed (kernels/cpu/loop.cpp, row.hpp): streaming stores for
// large outputs, and staged (SIMD-transposed) tiles for transposed reads. Every result is
// compared with the reference evaluator on random shapes, offsets and element types.
#include <boost/test/unit_test.hpp>

#include <support/reference.hpp>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

namespace {

// Restores the process-wide thresholds and thread count a test changes.
struct tuning_guard {
  lz::tuning saved = lz::thresholds();
  int threads = lz::num_threads();
  ~tuning_guard() {
    lz::thresholds() = saved;
    lz::set_num_threads(threads);
  }
};

template <class T>
lz::tensor<T, 2> random_matrix(lz::index_t m, lz::index_t n, std::uint64_t seed) {
  if constexpr (std::is_integral_v<T>)
    return lz::random<T>({m, n}, seed, lz::integers{-50, 50});
  else
    return lz::random<T>({m, n}, seed, lz::uniform{-2.0, 2.0});
}

template <class T>
lz::tensor<T, 1> random_vector(lz::index_t n, std::uint64_t seed) {
  if constexpr (std::is_integral_v<T>)
    return lz::random<T>({n}, seed, lz::integers{-50, 50});
  else
    return lz::random<T>({n}, seed, lz::uniform{-2.0, 2.0});
}

template <class A, class B>
void check_same(const A& got, const B& ref) {
  using T = lz::value_t<A>;
  if constexpr (std::is_floating_point_v<T>)
    BOOST_TEST(lz_test::max_ulp(got, ref) <= 1.0); // FMA contraction may differ by one rounding
  else
    BOOST_TEST(lz_test::max_ulp(got, ref) == 0.0);
}

// Plans z = transpose(x) + y over m x n row-major operands with the given tile.
lz::kernels::cpu::loop_plan plan_transpose_add(lz::detail::operand* ops, lz::index_t m,
                                               lz::index_t n, lz::index_t esize, lz::index_t tile) {
  static char dummy[64];
  for (int j = 0; j < 3; ++j) {
    ops[j] = {};
    ops[j].ptr = dummy;
    ops[j].esize = esize;
  }
  ops[0].strides[0] = n, ops[0].strides[1] = 1; // z (m x n)
  ops[1].strides[0] = 1, ops[1].strides[1] = m; // transpose of x (n x m)
  ops[2].strides[0] = n, ops[2].strides[1] = 1; // y (m x n)
  const lz::index_t ext[2] = {m, n};
  lz::kernels::cpu::loop_options o;
  o.tile = tile;
  return lz::kernels::cpu::plan_loop(2, ext, 3, ops, o);
}

} // namespace

BOOST_AUTO_TEST_CASE(transposed_read_is_staged_and_runs_contiguous_tiles) {
  lz::detail::operand ops[3];
  const auto p = plan_transpose_add(ops, 200, 300, 8, 32);
  BOOST_TEST(p.tiled);
  BOOST_TEST(p.staged == 1);
  BOOST_TEST(p.staged_ops[0] == 1);
  BOOST_TEST((p.tile_mode == lz::kernels::cpu::mode::unit));
  BOOST_TEST(lz::kernels::cpu::describe(p, 4).find("staged") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(wide_tiles_shrink_their_rows_to_fit_the_stage_buffer) {
  lz::detail::operand ops[3];
  const auto p = plan_transpose_add(ops, 600, 600, 8, 128); // 128 x 128 doubles = 128 KiB
  BOOST_TEST(p.staged == 1);
  BOOST_TEST(p.tile == 128);
  BOOST_TEST(p.tile_rows * p.tile * 8 <= lz::kernels::cpu::stage_bytes);
  BOOST_TEST(p.row_block == p.tile_rows);
}

BOOST_AUTO_TEST_CASE(more_transposed_operands_than_stage_slots_run_strided_tiles) {
  constexpr int count = 2 + lz::kernels::cpu::max_staged;
  static char dummy[64];
  lz::detail::operand ops[count];
  for (int j = 0; j < count; ++j) {
    ops[j] = {};
    ops[j].ptr = dummy;
    ops[j].esize = 8;
    ops[j].strides[0] = j ? 1 : 300;
    ops[j].strides[1] = j ? 200 : 1;
  }
  const lz::index_t ext[2] = {200, 300};
  lz::kernels::cpu::loop_options o;
  o.tile = 32;
  const auto p = lz::kernels::cpu::plan_loop(2, ext, count, ops, o);
  BOOST_TEST(p.tiled);
  BOOST_TEST(p.staged == 0);
}

template <class T>
void check_transpose_add(std::mt19937_64& g) {
  std::uniform_int_distribution<lz::index_t> ext(1, 90);
  for (int trial = 0; trial < 12; ++trial) {
    const lz::index_t m = ext(g), n = ext(g);
    auto X = random_matrix<T>(n, m, g());
    auto Y = random_matrix<T>(m, n, g());
    auto W = random_matrix<T>(n, m, g());
    auto r = random_vector<T>(n, g());
    lz::tensor<T, 2> Z(m, n);
    lz::assign(lz::simd, Z, lz::transpose(X) + Y);
    check_same(Z, lz_test::reference(lz::transpose(X) + Y));
    // two staged operands, and a broadcast row next to them
    lz::assign(lz::simd, Z,
               lz::hadamard(lz::transpose(X), lz::transpose(W)) - lz::broadcast_to(r, {m, n}));
    check_same(Z, lz_test::reference(lz::hadamard(lz::transpose(X), lz::transpose(W)) -
                                     lz::broadcast_to(r, {m, n})));
    // an update (no streaming), threads
    lz::tensor<T, 2> Z2 = lz_test::reference(Y);
    lz::assign(lz::par, Z2, Z2 + lz::transpose(X));
    check_same(Z2, lz_test::reference(Y + lz::transpose(X)));
    // a transposed view of a sub-block (rows of the source not contiguous with each other)
    if (m > 2 && n > 2) {
      auto Xs = lz::slice(X, lz::range(1, n), lz::range(1, m));
      lz::tensor<T, 2> Z3(m - 1, n - 1);
      auto Ys = lz::slice(Y, lz::range(0, m - 1), lz::range(0, n - 1));
      lz::assign(lz::simd, Z3, lz::transpose(Xs) + Ys);
      check_same(Z3, lz_test::reference(lz::transpose(Xs) + Ys));
    }
  }
}

BOOST_AUTO_TEST_CASE(staged_transposed_tiles_match_the_reference) {
  tuning_guard guard;
  lz::set_num_threads(2);
  std::mt19937_64 g(2024);
  for (lz::index_t tile : {4, 7, 16, 32, 64})
    for (lz::index_t stream : {0, 1}) { // staged tiles with and without streaming stores
      lz::thresholds().tile = tile;
      lz::thresholds().stream_bytes = stream;
      check_transpose_add<double>(g);
      check_transpose_add<float>(g);
      check_transpose_add<std::int32_t>(g);
      check_transpose_add<std::int64_t>(g);
      check_transpose_add<std::int16_t>(g);
    }
}

BOOST_AUTO_TEST_CASE(staged_complex_transposes_match_the_reference) {
  tuning_guard guard;
  lz::thresholds().tile = 8;
  using C = std::complex<double>;
  lz::tensor<C, 2> X(33, 21), Y(21, 33), Z(21, 33);
  for (lz::index_t i = 0; i < X.size(); ++i) X.data()[i] = C(double(i), -0.5 * double(i));
  for (lz::index_t i = 0; i < Y.size(); ++i) Y.data()[i] = C(1.0 / double(i + 1), double(i % 7));
  lz::assign(lz::simd, Z, lz::transpose(X) + Y);
  const auto ref = lz_test::reference(lz::transpose(X) + Y);
  for (lz::index_t i = 0; i < Z.size(); ++i) BOOST_TEST((Z.data()[i] == ref.data()[i]));
}

template <class T>
void check_streaming(std::mt19937_64& g) {
  std::uniform_int_distribution<lz::index_t> len(1, 3000), off(0, 9);
  for (int trial = 0; trial < 10; ++trial) {
    const lz::index_t n = len(g), o = off(g);
    auto x = random_vector<T>(n + o, g());
    auto y = random_vector<T>(n + o, g());
    lz::tensor<T, 1> z(n + o);
    // an offset destination start exercises the peel to the first aligned batch
    auto zs = lz::slice(z, lz::range(o, n + o));
    auto xs = lz::slice(x, lz::range(o, n + o));
    auto ys = lz::slice(y, lz::range(o, n + o));
    lz::assign(lz::simd, zs, T(3) * xs + ys);
    check_same(zs, lz_test::reference(T(3) * xs + ys));
    lz::assign(lz::par, zs, xs - T(2) * ys);
    check_same(zs, lz_test::reference(xs - T(2) * ys));
    // an update reads the destination: it must not go through the streaming buffer
    lz::tensor<T, 1> before = lz_test::reference(zs);
    zs += xs;
    check_same(zs, lz_test::reference(before + xs));
    // strided (non-contiguous) rows through the general driver: a 2-d block of a matrix
    auto M = random_matrix<T>(40, 70, g());
    lz::tensor<T, 2> D(40, 70);
    auto Ds = lz::slice(D, lz::range(1, 39), lz::range(o, 70));
    auto Ms = lz::slice(M, lz::range(1, 39), lz::range(o, 70));
    lz::assign(lz::simd, Ds, lz::hadamard(Ms, Ms));
    check_same(Ds, lz_test::reference(lz::hadamard(Ms, Ms)));
  }
}

BOOST_AUTO_TEST_CASE(streaming_stores_match_the_reference) {
  tuning_guard guard;
  lz::set_num_threads(2);
  lz::thresholds().stream_bytes = 1; // stream every `=` so small tests reach the path
  std::mt19937_64 g(77);
  check_streaming<double>(g);
  check_streaming<float>(g);
  check_streaming<std::int32_t>(g);
  check_streaming<std::int64_t>(g);
}

// Compile time: a kernel is instantiated per kernel tree (functors, scalars, operand indices),
// so expressions that differ only in their leaves' types (vectors, a transposed matrix, a row
// and a column, a broadcast) share one; another functor, scalar position or element type does
// not. Run time: each gives the reference's numbers through the shared kernel.
BOOST_AUTO_TEST_CASE(expressions_that_differ_only_in_leaf_types_share_one_kernel) {
  namespace cpu = lz::kernels::cpu;
  constexpr auto set = lz::detail::assign_op::set;
  lz::tensor<double, 1> x = lz::random<double>({40}, 51), y = lz::random<double>({40}, 52), z;
  lz::tensor<double, 2> A = lz::random<double>({6, 40}, 53), B = lz::random<double>({40, 6}, 54);
  lz::tensor<double, 1> b = lz::random<double>({6}, 55);
  lz::tensor<double, 2> Z;
  lz::tensor<float, 1> xf(4);
  using vv = std::remove_cvref_t<decltype(x + y)>;
  using tm = std::remove_cvref_t<decltype(lz::transpose(A) + B)>;
  using rc = std::remove_cvref_t<decltype(lz::row(A, 2) + lz::col(B, 3))>;
  using bc = std::remove_cvref_t<decltype(B + lz::broadcast_to(b, {40, 6}))>;
  static_assert(std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<tm>>);
  static_assert(std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<rc>>);
  static_assert(std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<bc>>);
  static_assert(!std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<decltype(x - y)>>);
  static_assert(!std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<decltype(x + 2.0)>>);
  static_assert(!std::is_same_v<cpu::kernel_tree_t<vv>, cpu::kernel_tree_t<decltype(xf + xf)>>);
  // Leaves are numbered depth-first: (x + 2.0) * y reads operands 1 and 2.
  using num = cpu::kernel_tree_t<decltype((x + 2.0) * y)>;
  static_assert(num::leaves == 2);
  constexpr auto kv = cpu::map_kernel_for<double, vv, true, set>();
  static_assert(kv.fn == cpu::map_kernel_for<double, tm, true, set>().fn);
  static_assert(kv.fn == cpu::map_kernel_for<double, rc, true, set>().fn);
  static_assert(kv.fn != cpu::map_kernel_for<double, vv, false, set>().fn); // scalar kernel
  z = x + y;
  BOOST_TEST(lz_test::max_rel_error(z, lz_test::reference(x + y)) == 0.0);
  Z = lz::transpose(A) + B;
  BOOST_TEST(lz_test::max_rel_error(Z, lz_test::reference(lz::transpose(A) + B)) == 0.0);
  z = lz::row(A, 2) + lz::col(B, 3);
  BOOST_TEST(lz_test::max_rel_error(z, lz_test::reference(lz::row(A, 2) + lz::col(B, 3))) == 0.0);
  Z = B + lz::broadcast_to(b, {40, 6});
  BOOST_TEST(lz_test::max_rel_error(Z, lz_test::reference(B + lz::broadcast_to(b, {40, 6}))) ==
             0.0);
  z = (x + 2.0) * y;
  BOOST_TEST(lz_test::max_rel_error(z, lz_test::reference((x + 2.0) * y)) < 1e-15);
}

BOOST_AUTO_TEST_CASE(transcendental_trees_stream_only_on_avx512_others_everywhere) {
  using lz::kernels::cpu::map_kernel_for;
  lz::tensor<double, 1> x(64), y(64), w(64), v(64);
  const auto cheap = 2.5 * x + 1.5 * y;
  const auto dear = x * y + lz::sin(w) * lz::exp(-v); // W2
  constexpr auto set = lz::detail::assign_op::set;
  constexpr auto kc = map_kernel_for<double, std::remove_cvref_t<decltype(cheap)>, true, set>();
  constexpr auto kd = map_kernel_for<double, std::remove_cvref_t<decltype(dear)>, true, set>();
  const auto norm = lz::sqrt(x * x + y * y) / (x - y); // costly, but no transcendental: streams
  constexpr auto kn = map_kernel_for<double, std::remove_cvref_t<decltype(norm)>, true, set>();
  BOOST_TEST(kn.can_stream);
  BOOST_TEST(kc.simd_width > 1);
  BOOST_TEST(kd.simd_width > 1);
  BOOST_TEST(kc.can_stream);
  // Below AVX-512 an expensive tree's batch body goes through memory (xsimd's int64 lanes), and
  // behind non-temporal stores that waits on DRAM: W2 ran 3x slower streaming on AVX2.
  BOOST_TEST(kd.can_stream == (XSIMD_WITH_AVX512DQ != 0));
  BOOST_TEST(kd.can_stream == lz::kernels::cpu::stream_expensive_trees);
  // Past stream_bytes the expensive tree gives the same bits as with streaming off.
  tuning_guard guard;
  const lz::index_t n = lz::thresholds().stream_bytes / lz::index_t(sizeof(double)) + 513;
  lz::tensor<double, 1> a = lz::linspace(-3.0, 3.0, n), b = lz::cos(a), big(n), ref(n);
  big = a * b + lz::sin(a) * lz::exp(-b);
  lz::thresholds().stream_bytes = 0;
  ref = a * b + lz::sin(a) * lz::exp(-b);
  BOOST_TEST(lz_test::max_ulp(big, ref) == 0.0);
}

BOOST_AUTO_TEST_CASE(large_assignment_streams_and_matches_the_reference) {
  // Past the default threshold with the default policy, on 1 and 2 threads.
  tuning_guard guard;
  const lz::index_t n = lz::thresholds().stream_bytes / lz::index_t(sizeof(double)) + 1001;
  auto x = lz::random<double>({n}, 5), y = lz::random<double>({n}, 6);
  for (int t : {1, 2}) {
    lz::set_num_threads(t);
    lz::vector<double> z = 2.5 * x + 1.5 * y;
    check_same(z, lz_test::reference(2.5 * x + 1.5 * y));
  }
}

BOOST_AUTO_TEST_CASE(inner_stride_zero_operands_match_the_reference) {
  // A (m, 1) column stretched across the columns has inner stride 0: the broadcast kernels of
  // loops and reductions (mode::bcast), plain and through the general driver.
  tuning_guard guard;
  std::mt19937_64 g(9);
  std::uniform_int_distribution<lz::index_t> ext(1, 70);
  for (int trial = 0; trial < 20; ++trial) {
    const lz::index_t m = ext(g), n = ext(g);
    auto A = random_matrix<double>(m, n, g());
    auto c = random_matrix<double>(m, 1, g());
    lz::tensor<double, 2> Z(m, n);
    lz::assign(lz::simd, Z, A + c);
    check_same(Z, lz_test::reference(A + c));
    lz::assign(lz::simd, Z, lz::sqrt(lz::abs(A)) - 2.0 * c);
    check_same(Z, lz_test::reference(lz::sqrt(lz::abs(A)) - 2.0 * c));
    const double s = lz::eval(lz::simd, lz::sum(A - c));
    long double ref = 0;
    for (lz::index_t i = 0; i < m; ++i)
      for (lz::index_t j = 0; j < n; ++j) ref += (long double)A(i, j) - (long double)c(i, 0);
    BOOST_TEST(std::abs(double(s - ref)) <= 1e-12 * (1.0 + std::abs(double(ref))));
  }
}

// Operands whose inner stride is not 1 are packed into the driver's 16 KiB buffer a row chunk
// at a time (loop.cpp, run_block), so that each tree compiles one contiguous kernel: rows far
// longer than a chunk, strided destinations (scattered back; gathered first for updates),
// 4-, 8- and 16-byte elements, 1 and 2 threads.
template <class T>
lz::tensor<T, 2> random_any(lz::index_t m, lz::index_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    auto re = random_matrix<double>(m, n, seed), im = random_matrix<double>(m, n, seed + 1);
    lz::tensor<T, 2> r(m, n);
    for (lz::index_t i = 0; i < r.size(); ++i) r.data()[i] = T(re.data()[i], im.data()[i]);
    return r;
  } else {
    return random_matrix<T>(m, n, seed);
  }
}

template <class A, class B>
void check_close(const A& got, const B& ref) {
  using T = lz::value_t<A>;
  if constexpr (std::is_same_v<T, std::complex<double>>) {
    for (lz::index_t i = 0; i < got.size(); ++i)
      BOOST_TEST(std::abs(got.data()[i] - ref.data()[i]) <= 1e-13 * (1 + std::abs(ref.data()[i])));
  } else {
    check_same(got, ref);
  }
}

template <class T>
void check_packed_rows(std::mt19937_64& g) {
  std::uniform_int_distribution<lz::index_t> rows(1, 4), cols(1500, 5000), step(2, 3);
  for (int trial = 0; trial < 4; ++trial) {
    const lz::index_t m = rows(g), n = cols(g), sx = step(g), sz = step(g);
    auto X = random_any<T>(m, n * sx, g());
    auto Y = random_any<T>(m, n, g());
    auto Z0 = random_any<T>(m, n * sz, g());
    auto x = lz::slice(X, lz::all, lz::range(0, n * sx, sx)); // inner stride sx
    for (int threads : {1, 2}) {
      lz::set_num_threads(threads);
      lz::tensor<T, 2> Z = Z0;
      auto z = lz::slice(Z, lz::all, lz::range(0, n * sz, sz)); // strided destination
      lz::assign(lz::par, z, lz::hadamard(x, Y) + x);
      check_close(lz::eval(z), lz_test::reference(lz::hadamard(x, Y) + x));
      lz::tensor<T, 2> expect = lz_test::reference(z + (x - Y));
      z += x - Y;
      check_close(lz::eval(z), expect);
      // the columns between the strided ones are untouched
      for (lz::index_t i = 0; i < m; ++i)
        for (lz::index_t j = 0; j < n * sz; ++j)
          if (j % sz != 0) BOOST_TEST((Z(i, j) == Z0(i, j)));
    }
  }
}

BOOST_AUTO_TEST_CASE(packed_rows_longer_than_the_pack_buffer_match_the_reference) {
  tuning_guard guard;
  lz::thresholds().parallel_work = 0;
  std::mt19937_64 g(31);
  check_packed_rows<double>(g);
  check_packed_rows<float>(g);
  check_packed_rows<std::int32_t>(g);
  check_packed_rows<std::complex<double>>(g);
}

BOOST_AUTO_TEST_CASE(packed_reductions_match_the_reference) {
  // Full and axis reductions over strided leaves run the one contiguous slab on packed chunks.
  std::mt19937_64 g(32);
  for (int trial = 0; trial < 6; ++trial) {
    const lz::index_t m = 1 + lz::index_t(g() % 5), n = 1500 + lz::index_t(g() % 4000);
    auto X = random_matrix<double>(m, 3 * n, g());
    auto x = lz::slice(X, lz::all, lz::range(0, 3 * n, 3));
    const double s = lz::eval(lz::simd, lz::sum(lz::square(x)));
    long double ref = 0;
    for (lz::index_t i = 0; i < m; ++i)
      for (lz::index_t j = 0; j < n; ++j) ref += (long double)X(i, 3 * j) * X(i, 3 * j);
    BOOST_TEST(std::abs(double(s - ref)) <= 1e-12 * (1.0 + std::abs(double(ref))));
    lz::vector<double> r = lz::sum(x, 1);
    for (lz::index_t i = 0; i < m; ++i) {
      long double ri = 0;
      for (lz::index_t j = 0; j < n; ++j) ri += X(i, 3 * j);
      BOOST_TEST(std::abs(double(r(i) - ri)) <= 1e-12 * (1.0 + std::abs(double(ri))));
    }
    const auto am = lz::eval(lz::argmax(x));
    lz::index_t best = 0;
    for (lz::index_t k = 1; k < m * n; ++k)
      if (X(k / n, 3 * (k % n)) > X(best / n, 3 * (best % n))) best = k;
    BOOST_TEST(lz::index_t(am) == best);
  }
}

// A SIMD kernel takes whole batches only, and streams only from batch-aligned rows: the
// driver runs each row's unaligned head and last partial batch on copies padded to a whole
// batch (loop.cpp, run_rows / run_kernel). A recording kernel, z = x + y + 1 on doubles with a
// declared batch of 8, checks what it is given; the results are checked element by element.
namespace {

struct kernel_log {
  std::vector<lz::index_t> sizes; // n of every call
  int misaligned_streams = 0;     // streaming calls whose rows were not 64-byte aligned
  int streaming_calls = 0;
  double smallest_seen = 1e300;  // smallest x or y value the kernel read (padding included)
  int empty_calls = 0;           // calls of no row or no element (a kernel's precondition: none)
  lz::index_t* x_base = nullptr; // if set: x's element offset (from x_start) of each call
  const double* x_start = nullptr;
  std::vector<lz::index_t> wide_sizes; // n of every call of the full-width kernel
  std::mutex m;                        // (calls from the driver's threads)
};

void add_one_kernel(const void* ctx, char* const* p, const lz::index_t* so, lz::index_t rows,
                    lz::index_t n, int flags) {
  auto& log = *static_cast<kernel_log*>(const_cast<void*>(ctx));
  const std::lock_guard<std::mutex> lock(log.m);
  log.sizes.push_back(n);
  if (log.x_base && log.sizes.size() <= 2)
    log.x_base[log.sizes.size() - 1] = reinterpret_cast<const double*>(p[1]) - log.x_start;
  if (rows <= 0 || n <= 0) ++log.empty_calls;
  if (flags & lz::kernels::cpu::slab_stream) {
    ++log.streaming_calls;
    for (lz::index_t r = 0; r < rows; ++r)
      if (reinterpret_cast<std::uintptr_t>(p[0] + r * so[0]) % 64 != 0) ++log.misaligned_streams;
  }
  for (lz::index_t r = 0; r < rows; ++r) {
    auto* z = reinterpret_cast<double*>(p[0] + r * so[0]);
    auto* x = reinterpret_cast<const double*>(p[1] + r * so[1]);
    auto* y = reinterpret_cast<const double*>(p[2] + r * so[2]);
    for (lz::index_t i = 0; i < n; ++i) {
      log.smallest_seen = std::min({log.smallest_seen, x[i], y[i]});
      z[i] = x[i] + y[i] + 1.0;
    }
  }
}

// The call of `info` over ops and extents with the recording log as its tree.
lz::kernels::cpu::map_call recorded_call(const lz::kernels::cpu::map_info& info, kernel_log& log,
                                         lz::detail::operand* ops, const lz::index_t* extents) {
  lz::kernels::cpu::map_call c;
  c.info = &info;
  c.tree = &log;
  c.ops = ops;
  c.extents = extents;
  return c;
}

// z(m x n, rows ld apart, starting `off` elements past a 64-byte boundary) = x + y + 1 through
// run_map.
void run_recorded(kernel_log& log, lz::index_t m, lz::index_t n, lz::index_t ld, lz::index_t off,
                  bool stream, int width = 8) {
  std::vector<double> x(std::size_t(m * ld + off + 8)), y(x.size()), zbuf(x.size() + 8, -7.0);
  // z: zbuf from its first 64-byte boundary
  double* const z =
      zbuf.data() + (64 - reinterpret_cast<std::uintptr_t>(zbuf.data()) % 64) % 64 / 8;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 100.0 + double(i), y[i] = 1000.0 + double(i);
  log.x_start = x.data() + off;
  lz::detail::operand ops[3];
  double* base[3] = {z, x.data(), y.data()};
  for (int j = 0; j < 3; ++j) {
    ops[j].ptr = reinterpret_cast<char*>(base[j] + off);
    ops[j].esize = 8;
    ops[j].strides[0] = ld, ops[j].strides[1] = 1;
  }
  const lz::index_t ext[2] = {m, n};
  lz::kernels::cpu::map_info info;
  info.k = {&add_one_kernel, width, stream, false};
  info.count = 3;
  info.rank = 2;
  lz::kernels::cpu::run_map(recorded_call(info, log, ops, ext));
  for (lz::index_t i = 0; i < m; ++i)
    for (lz::index_t j = 0; j < ld; ++j) {
      const std::size_t k = std::size_t(off + i * ld + j);
      const double want = j < n ? x[k] + y[k] + 1.0 : -7.0; // the gap between rows untouched
      if (z[k] != want) {
        BOOST_ERROR("z(" << i << ", " << j << ") = " << z[k] << ", want " << want << " (m=" << m
                         << " n=" << n << " ld=" << ld << " off=" << off << ")");
        return;
      }
    }
  BOOST_TEST(z[0] == (off > 0 || n == 0 ? -7.0 : x[0] + y[0] + 1.0)); // nothing before the start
}

} // namespace

BOOST_AUTO_TEST_CASE(simd_kernels_get_whole_batches_and_tails_are_padded_with_seen_values) {
  tuning_guard guard;
  lz::set_num_threads(1);
  for (lz::index_t m : {1, 2, 5, 300}) // 300 rows of 3-element tails: several padded calls
    for (lz::index_t n = 0; n <= 27; ++n)
      for (lz::index_t gap : {0, 3}) { // gap 0 with m > 1: coalesced into one flat run
        kernel_log log;
        run_recorded(log, m, n, n + gap, 0, false);
        for (lz::index_t s : log.sizes) BOOST_TEST(s % 8 == 0);
        BOOST_TEST(log.smallest_seen >= 100.0); // padding repeats real elements
        if (m * n > 0 && (n % 8 != 0)) BOOST_TEST(!log.sizes.empty());
        BOOST_TEST(log.empty_calls == 0);
      }
}

BOOST_AUTO_TEST_CASE(streaming_kernels_get_aligned_rows_and_the_driver_peels_the_head) {
  tuning_guard guard;
  lz::set_num_threads(1);
  lz::thresholds().stream_bytes = 1; // stream every `=`
  for (lz::index_t off = 0; off < 9; ++off)
    for (lz::index_t n : {1, 7, 8, 9, 63, 64, 65, 1000, 1029}) {
      kernel_log log;
      run_recorded(log, 1, n, n, off, true); // one flat row, offset from the aligned buffer
      for (lz::index_t s : log.sizes) BOOST_TEST(s % 8 == 0);
      BOOST_TEST(log.misaligned_streams == 0);
      BOOST_TEST(log.smallest_seen >= 100.0);
      BOOST_TEST(log.empty_calls == 0); // (an aligned row has no head to peel)
      // rows of 600 doubles (4800 bytes, past the per-row floor) 611 apart: each row peeled
      kernel_log log2;
      run_recorded(log2, 3, 600, 611, off, true);
      BOOST_TEST(log2.misaligned_streams == 0);
      BOOST_TEST(log2.streaming_calls >= 3);
      BOOST_TEST(log2.empty_calls == 0);
    }
  // rows 104 doubles (13 x 64 bytes) apart from an aligned start: all rows stream in one call
  kernel_log log3;
  run_recorded(log3, 4, 100, 104, 0, true);
  BOOST_TEST(log3.streaming_calls == 1);
  BOOST_TEST(log3.misaligned_streams == 0);
  for (lz::index_t s : log3.sizes) BOOST_TEST(s % 8 == 0);
}

// One row of n >= 8 elements with a partial last batch (the flat path, W1 n = 1001): the kernel
// runs the row's last 8 elements into a buffer from the operands where they are (no operand
// copied: the sources' pointers are theirs, 8 back from the row's end), then the whole batches
// on the row itself; the destination's last n % 8 elements come from the buffer. Values:
// run_recorded, and tails_updates_and_same_position_aliasing_match_the_reference below.
BOOST_AUTO_TEST_CASE(a_row_with_a_partial_batch_ends_on_its_last_batch_read_in_place) {
  tuning_guard guard;
  lz::set_num_threads(1);
  for (lz::index_t n : {9, 15, 17, 37, 1001}) {
    kernel_log log;
    lz::index_t x_off[2] = {-1, -1}; // x's element offsets of the two calls
    log.x_base = &x_off[0];
    run_recorded(log, 1, n, n, 0, false);
    BOOST_TEST_CONTEXT("n = " << n) {
      BOOST_TEST_REQUIRE(log.sizes.size() == 2u);
      BOOST_TEST(log.sizes[0] == 8);
      BOOST_TEST(log.sizes[1] == n / 8 * 8);
      BOOST_TEST(x_off[0] == n - 8); // in place: the operand itself, not a padded copy
      BOOST_TEST(x_off[1] == 0);
      BOOST_TEST(log.smallest_seen >= 100.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_row_shorter_than_a_batch_runs_one_batch_padded_with_its_own_values) {
  // n < w (the batch): one call of a whole batch on copies, the padding lanes holding values of
  // the operands (x >= 100, y >= 1000: never a zero a division could trap on), and nothing of
  // the destination written past its n elements (run_recorded checks the values and that).
  // 4 doubles: one 32-byte batch (the AVX2 path, one store per operand); 8: the general copies.
  tuning_guard guard;
  lz::set_num_threads(1);
  for (int w : {4, 8})
    for (lz::index_t n = 1; n < w; ++n) {
      kernel_log log;
      lz::index_t x_off[2] = {-1, -1};
      log.x_base = &x_off[0];
      run_recorded(log, 1, n, n, 0, false, w);
      BOOST_TEST_CONTEXT("w = " << w << ", n = " << n) {
        BOOST_TEST_REQUIRE(log.sizes.size() == 1u);
        BOOST_TEST(log.sizes[0] == w);
        BOOST_TEST(x_off[0] != 0); // a copy: x's n elements are not a whole batch
        BOOST_TEST(log.smallest_seen >= 100.0);
      }
    }
}

BOOST_AUTO_TEST_CASE(tails_updates_and_same_position_aliasing_match_the_reference) {
  // Real trees on every length around the batch size: `=`, `+=`, `/=` (integers: the padding
  // must not divide by zero), x = x * y + x (the destination read at the same position),
  // transcendentals, 2-d narrow blocks whose rows are shorter than a batch.
  tuning_guard guard;
  std::mt19937_64 g(31);
  for (lz::index_t stream : {0, 1}) {
    lz::thresholds().stream_bytes = stream;
    for (lz::index_t n = 0; n <= 40; ++n) {
      auto x = random_vector<double>(n + 3, g()), y = random_vector<double>(n + 3, g());
      auto xs = lz::slice(x, lz::range(1, n + 1)), ys = lz::slice(y, lz::range(2, n + 2));
      lz::tensor<double, 1> z(n);
      lz::assign(lz::simd, z, lz::sin(xs) * ys + 2.0);
      BOOST_TEST(lz_test::max_ulp(z, lz_test::reference(lz::sin(xs) * ys + 2.0)) <= 4.0);
      lz::tensor<double, 1> before = lz_test::reference(z);
      lz::assign(lz::simd, z, z * xs + z); // same position
      check_same(z, lz_test::reference(before * xs + before));
      auto a = random_vector<std::int32_t>(n, g()), b = random_vector<std::int32_t>(n, g());
      for (lz::index_t i = 0; i < n; ++i) b(i) = b(i) == 0 ? 3 : b(i);
      lz::tensor<std::int32_t, 1> q = lz_test::reference(a);
      q /= b;
      check_same(q, lz_test::reference(a / b));
      q += a;
      check_same(q, lz_test::reference(a / b + a));
      auto F = random_matrix<float>(37, n + 5, g());
      auto Fs = lz::slice(F, lz::all, lz::range(2, n + 2)); // rows of n, 5 apart
      lz::tensor<float, 2> D(37, n);
      lz::assign(lz::simd, D, lz::hadamard(Fs, Fs) - 1.0f);
      check_same(D, lz_test::reference(lz::hadamard(Fs, Fs) - 1.0f));
    }
  }
}

BOOST_AUTO_TEST_CASE(
    one_dimensional_loops_run_flat_only_when_every_operand_is_contiguous_and_apart) {
  // run_map tests rank 1 apart from the general dense test, and run_map_vector (the entry
  // vector trees take) is rank 1 alone (the fixed cost of a small assignment): both make the
  // same decisions. z = x + y + 1 on n doubles of one buffer, operands placed by (offset,
  // stride): the flat path (one call over the row) only for a contiguous destination and
  // operands addressed as it, apart from it or at its position; otherwise the planned loop,
  // through a temporary where an operand reads the destination elsewhere. Values checked
  // either way.
  namespace cpu = lz::kernels::cpu;
  tuning_guard guard;
  lz::set_num_threads(1);
  struct placed {
    lz::index_t off, stride;
  };
  struct case_ {
    lz::index_t n;
    placed z, x, y;
    bool flat, via_temp;
  };
  const case_ cases[] = {
      {37, {0, 1}, {100, 1}, {200, 1}, true, false},  // apart, contiguous
      {37, {0, 1}, {0, 1}, {200, 1}, true, false},    // x is z, same position
      {37, {0, 1}, {100, 2}, {200, 1}, false, false}, // x strided
      {37, {0, 2}, {100, 2}, {200, 2}, false, false}, // destination strided
      {37, {0, 1}, {1, 1}, {200, 1}, false, true},    // x is z one element on: overlaps
      {37, {0, 1}, {200, 1}, {36, 1}, false, true},   // y's first element is z's last
      {37, {0, 1}, {37, 1}, {200, 1}, true, false},   // x starts just past z: apart
      {1, {0, 5}, {100, 7}, {200, 1}, true, false},   // one element: strides do not matter
      {0, {0, 1}, {0, 1}, {200, 1}, true, false},     // empty
  };
  using entry_fn = void (*)(const cpu::map_call&);
  const entry_fn vector_entry = [](const cpu::map_call& c) {
    char* p[3]; // the caller's room for the kernel's pointers
    cpu::run_map_vector<3>(c, p);
  };
  for (entry_fn entry : {entry_fn(&cpu::run_map), vector_entry})
    for (const case_& t : cases) {
      std::vector<double> buf(400);
      for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = 100.0 + double(i);
      const std::vector<double> before = buf;
      auto at = [&](const std::vector<double>& v, placed p, lz::index_t i) {
        return v[std::size_t(p.off + i * p.stride)];
      };
      lz::detail::operand ops[3];
      const placed where[3] = {t.z, t.x, t.y};
      for (int j = 0; j < 3; ++j) {
        ops[j].ptr = reinterpret_cast<char*>(buf.data() + where[j].off);
        ops[j].esize = 8;
        ops[j].strides[0] = where[j].stride;
      }
      cpu::map_info info;
      info.k = {&add_one_kernel, 8, false, false};
      info.count = 3;
      info.rank = 1;
      kernel_log log;
      const cpu::map_call c = recorded_call(info, log, ops, &t.n);
      bool aliased = false;
      const std::string text = cpu::describe_map(c, "z", &aliased);
      BOOST_TEST_CONTEXT((entry == &cpu::run_map ? "run_map" : "run_map_vector")
                         << " n=" << t.n << " z@" << t.z.off << "/" << t.z.stride << " x@"
                         << t.x.off << "/" << t.x.stride << " y@" << t.y.off << "/" << t.y.stride
                         << ": " << text) {
        BOOST_TEST((text.find("flat ") != std::string::npos) == t.flat);
        BOOST_TEST(aliased == t.via_temp);
        entry(c);
        // the flat path: one kernel call for the row's last batch (into a buffer), then one
        // over its whole batches (of 8), last
        if (t.flat) {
          const lz::index_t whole = t.n / 8 * 8;
          BOOST_TEST(log.sizes.size() == std::size_t(whole > 0) + std::size_t(t.n > whole));
          if (whole > 0) BOOST_TEST(log.sizes.back() == whole);
        }
        for (lz::index_t i = 0; i < t.n; ++i)
          BOOST_TEST(at(buf, t.z, i) == at(before, t.x, i) + at(before, t.y, i) + 1.0);
        for (std::size_t i = 0; i < buf.size(); ++i) { // nothing else written
          const auto d = lz::index_t(i) - t.z.off;
          const bool in_z = d >= 0 && d % t.z.stride == 0 && d / t.z.stride < t.n;
          if (!in_z && buf[i] != before[i]) BOOST_ERROR("element " << i << " written");
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(cheap_trees_run_narrow_batches_and_expensive_trees_the_widest) {
  // docs/decisions/batch-width-256-for-cheap-trees.md: a tree of a few adds per element is
  // load/store-bound and runs 256-bit batches on an AVX-512 target; transcendentals keep xsimd's
  // widest.
  namespace cpu = lz::kernels::cpu;
  using set = std::integral_constant<lz::detail::assign_op, lz::detail::assign_op::set>;
  lz::tensor<double, 1> x(64), y(64);
  lz::tensor<float, 1> xf(64);
  using cheap = decltype(2.5 * x + 1.5 * y);
  using cheap_f = decltype(xf * xf - 1.0f);
  using costly = decltype(lz::sin(x) * y);
  static_assert(lz::detail::cost_v<cheap> <= cpu::unroll_cost);
  static_assert(lz::detail::cost_v<costly> > cpu::unroll_cost);
  constexpr auto kc = cpu::map_kernel_for<double, cheap, true, set::value>();
  constexpr auto kf = cpu::map_kernel_for<float, cheap_f, true, set::value>();
  constexpr auto ke = cpu::map_kernel_for<double, costly, true, set::value>();
#if XSIMD_WITH_AVX512F
  static_assert(kc.simd_width == 4 && kf.simd_width == 8);
  static_assert(ke.simd_width == 8);
#else
  static_assert(kc.simd_width == int(xsimd::batch<double>::size));
  static_assert(kf.simd_width == int(xsimd::batch<float>::size));
  static_assert(ke.simd_width == int(xsimd::batch<double>::size));
#endif
  // The widths are powers of two (the driver splits off a row's tail with a mask).
  for (int w : {kc.simd_width, kf.simd_width, ke.simd_width}) BOOST_TEST((w & (w - 1)) == 0);
  // Both kinds give the reference's numbers on lengths around both widths.
  std::mt19937_64 g(77);
  for (lz::index_t n : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 1000}) {
    auto a = random_vector<double>(n, g()), b = random_vector<double>(n, g());
    lz::tensor<double, 1> z(n), w(n);
    z = a + b - 0.5; // (no product: nothing for FMA contraction to round differently)
    static_assert(
        cpu::map_kernel_for<double, decltype(a + b - 0.5), true, set::value>().simd_width ==
        kc.simd_width);
    check_same(z, lz_test::reference(a + b - 0.5));
    w = lz::sin(a) * b;
    BOOST_TEST(lz_test::max_ulp(w, lz_test::reference(lz::sin(a) * b)) <= 4.0);
  }
}

// docs/decisions/cheap-tree-width-per-cpu.md: on an AVX-512 target a cheap tree also has a
// full-width kernel (the plan, at compile time); expensive trees, scalar policies and targets
// of one width have none.
BOOST_AUTO_TEST_CASE(cheap_trees_also_get_a_full_width_kernel_on_avx512_targets) {
  namespace cpu = lz::kernels::cpu;
  constexpr auto set = lz::detail::assign_op::set, add = lz::detail::assign_op::add;
  lz::tensor<double, 1> x(64), y(64);
  lz::tensor<float, 1> xf(64);
  lz::tensor<std::int32_t, 1> xi(64);
  using cheap = decltype(2.5 * x + 1.5 * y);
  using cheap_f = decltype(xf * xf - 1.0f);
  using cheap_i = decltype(xi + xi * 3);
  using costly = decltype(lz::sin(x) * y);
  constexpr auto wc = cpu::wide_kernel_for<double, cheap, true, set>();
  constexpr auto wa = cpu::wide_kernel_for<double, cheap, true, add>();
  constexpr auto wf = cpu::wide_kernel_for<float, cheap_f, true, set>();
  constexpr auto wi = cpu::wide_kernel_for<std::int32_t, cheap_i, true, set>();
  constexpr auto we = cpu::wide_kernel_for<double, costly, true, set>();
  constexpr auto ws = cpu::wide_kernel_for<double, cheap, false, set>(); // lz::seq
  static_assert(we.fn == nullptr && ws.fn == nullptr);
#if XSIMD_WITH_AVX512F
  static_assert(wc.simd_width == 8 && !wc.can_stream && !wc.reads_dst);
  static_assert(wa.simd_width == 8 && wa.reads_dst);
  static_assert(wf.simd_width == 16);
  static_assert(wi.simd_width == 16);
  static_assert(wc.fn != cpu::map_kernel_for<double, cheap, true, set>().fn);
#else
  static_assert(wc.fn == nullptr && wa.fn == nullptr && wf.fn == nullptr && wi.fn == nullptr);
#endif
  // What an assignment carries: the same kernel.
  constexpr auto& info =
      lz::fusion::detail_map::map_info_v<set, lz::auto_policy, double, 1, cheap, false>;
  static_assert(info.wide.fn == wc.fn);
}

namespace {
void add_one_wide_kernel(const void* ctx, char* const* p, const lz::index_t* so, lz::index_t rows,
                         lz::index_t n, int flags) {
  {
    auto& log = *static_cast<kernel_log*>(const_cast<void*>(ctx));
    const std::lock_guard<std::mutex> lock(log.m);
    log.wide_sizes.push_back(n);
  }
  add_one_kernel(ctx, p, so, rows, n, flags);
}
} // namespace

// The run time: a flat pass of one thread runs the full-width kernel (here a recording one of 8
// lanes beside a narrow one of 4) when it touches at most wide_bytes bytes (elements x 3
// operands x 8 bytes) and does not stream; threads, streaming and larger passes run the narrow
// one, as does every pass on a target of one width (the driver's test is compiled out there).
// explain says which width; the values are the tree's.
BOOST_AUTO_TEST_CASE(small_cheap_passes_run_the_full_width_kernel_up_to_wide_bytes) {
  namespace cpu = lz::kernels::cpu;
  tuning_guard guard;
  lz::set_num_threads(1);
  constexpr lz::index_t huge = lz::index_t(1) << 62;
  struct case_ {
    lz::index_t n, wide_bytes, stream_bytes;
    bool threads;
    int threads_on;
    bool wide;
  };
  const case_ cases[] = {
      {8, 48 << 10, 8 << 20, false, 1, true},
      {1000, 48 << 10, 8 << 20, false, 1, true},
      {2048, 48 << 10, 8 << 20, false, 1, true},
      {2049, 48 << 10, 8 << 20, false, 1, false},
      {4000, 48 << 10, 8 << 20, false, 1, false},
      {1000, 0, 8 << 20, false, 1, false},
      {1000, 24000, 8 << 20, false, 1, true},
      {1000, 23999, 8 << 20, false, 1, false},
      {3, huge, 8 << 20, false, 1, true},
      {1001, huge, 8 << 20, true, 1, true},
      {1000, huge, 4096, false, 1, false},
      {100000, huge, 0, true, 1, true},
      {100000, huge, 0, true, 2, false},
      {100000, huge, 0, false, 2, true},
      // short rows ending in a partial wide batch that narrow batches divide: narrow
      {100, huge, 8 << 20, false, 1, false},
      {252, huge, 8 << 20, false, 1, false},
      {255, huge, 8 << 20, false, 1, true},
      {256, huge, 8 << 20, false, 1, true},
      {260, huge, 8 << 20, false, 1, true},
      {96, huge, 8 << 20, false, 1, true},
  };
  for (const case_& t : cases) {
    lz::thresholds().wide_bytes = t.wide_bytes;
    lz::thresholds().stream_bytes = t.stream_bytes;
    lz::set_num_threads(t.threads_on);
    for (bool vector_entry : {false, true}) {
      std::vector<double> x(std::size_t(t.n)), y(x.size()), z(x.size() + 8, -7.0);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = 100.0 + double(i), y[i] = 3.0 * double(i);
      lz::detail::operand ops[3];
      double* base[3] = {z.data(), x.data(), y.data()};
      for (int j = 0; j < 3; ++j) {
        ops[j].ptr = reinterpret_cast<char*>(base[j]);
        ops[j].esize = 8;
        ops[j].strides[0] = 1;
      }
      cpu::map_info info;
      info.k = {&add_one_kernel, 4, true, false};
      info.wide = {&add_one_wide_kernel, 8, false, false};
      info.count = 3;
      info.rank = 1;
      info.threads = t.threads;
      kernel_log log;
      const cpu::map_call c = recorded_call(info, log, ops, &t.n);
      const std::string text = cpu::describe_map(c, "z", nullptr);
      if (vector_entry) {
        char* p[3];
        cpu::run_map_vector<3>(c, p);
      } else {
        cpu::run_map(c);
      }
      BOOST_TEST_CONTEXT("n=" << t.n << " wide_bytes=" << t.wide_bytes << " stream_bytes="
                              << t.stream_bytes << " threads " << t.threads << "/" << t.threads_on
                              << (vector_entry ? " run_map_vector" : " run_map") << ": " << text) {
        const bool wide = t.wide && !std::is_same_v<cpu::narrow_arch, xsimd::default_arch>;
        BOOST_TEST(!log.sizes.empty());
        BOOST_TEST(log.wide_sizes.size() == (wide ? log.sizes.size() : 0u));
        const int w = wide ? 8 : 4;
        for (lz::index_t s : log.sizes) BOOST_TEST(s % w == 0);
        BOOST_TEST((text.find(wide ? "simd x8" : "simd x4") != std::string::npos));
        BOOST_TEST(log.smallest_seen >= 0.0);
        BOOST_TEST(log.empty_calls == 0);
        bool right = true;
        for (lz::index_t i = 0; i < t.n; ++i)
          right = right && z[std::size_t(i)] == x[std::size_t(i)] + y[std::size_t(i)] + 1.0;
        BOOST_TEST(right);
        for (std::size_t i = x.size(); i < z.size(); ++i) BOOST_TEST(z[i] == -7.0);
      }
    }
  }
}

// Real trees at both widths (wide_bytes 0: never; huge: every single-thread pass that does not
// stream) on lengths around both batch sizes, four element types, `=` and `+=`: the same values
// as the reference, and the same bits as each other for trees without a product to contract.
BOOST_AUTO_TEST_CASE(both_widths_of_a_cheap_tree_give_the_same_values) {
  tuning_guard guard;
  lz::set_num_threads(1);
  std::mt19937_64 g(2046);
  for (lz::index_t n : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1000, 1001, 2047}) {
    BOOST_TEST_CONTEXT("n = " << n) {
      auto a = random_vector<double>(n, g()), b = random_vector<double>(n, g());
      auto af = random_vector<float>(n, g()), bf = random_vector<float>(n, g());
      auto ai = random_vector<std::int32_t>(n, g()), bi = random_vector<std::int32_t>(n, g());
      auto al = random_vector<std::int64_t>(n, g());
      lz::tensor<double, 1> z[2] = {lz::tensor<double, 1>(n), lz::tensor<double, 1>(n)};
      lz::tensor<double, 1> u[2] = {b, b};
      lz::tensor<float, 1> zf[2] = {lz::tensor<float, 1>(n), lz::tensor<float, 1>(n)};
      lz::tensor<std::int32_t, 1> zi[2] = {lz::tensor<std::int32_t, 1>(n),
                                           lz::tensor<std::int32_t, 1>(n)};
      lz::tensor<std::int64_t, 1> zl[2] = {lz::tensor<std::int64_t, 1>(n),
                                           lz::tensor<std::int64_t, 1>(n)};
      for (int k = 0; k < 2; ++k) {
        lz::thresholds().wide_bytes = k == 0 ? 0 : lz::index_t(1) << 62;
        z[k] = a + b - 0.5;
        u[k] += lz::abs(a) - b;
        zf[k] = lz::maximum(af, bf) - af;
        zi[k] = ai * 3 - bi;
        zl[k] = al + al * 2;
      }
      for (int k = 0; k < 2; ++k) {
        check_same(z[k], lz_test::reference(a + b - 0.5));
        check_same(u[k], lz_test::reference(b + (lz::abs(a) - b)));
        check_same(zf[k], lz_test::reference(lz::maximum(af, bf) - af));
        check_same(zi[k], lz_test::reference(ai * 3 - bi));
        check_same(zl[k], lz_test::reference(al + al * 2));
      }
      BOOST_TEST(lz_test::max_ulp(z[0], z[1]) == 0.0);
      BOOST_TEST(lz_test::max_ulp(u[0], u[1]) == 0.0);
      BOOST_TEST(lz_test::max_ulp(zf[0], zf[1]) == 0.0);
    }
  }
}

BOOST_AUTO_TEST_CASE(each_vector_entry_tests_every_operand_of_its_count) {
  // run_map_vector<N> is compiled per operand count N: a tree of N - 1 leaves whose last leaf
  // alone is strided must not run flat (it would read that leaf contiguously), for every N.
  std::mt19937_64 g(11);
  const lz::index_t n = 37;
  std::vector<lz::tensor<double, 1>> v;
  for (int i = 0; i < 15; ++i) v.push_back(random_vector<double>(2 * n + 1, g()));
  auto c = [&](int i) { return lz::slice(v[std::size_t(i)], lz::range(0, n)); };
  auto s = [&](int i) { return lz::slice(v[std::size_t(i)], lz::range(0, 2 * n, 2)); };
  [&]<int... L>(std::integer_sequence<int, L...>) {
    (
        [&] {
          constexpr int leaves = L + 1;
          auto tree = [&]<int... I>(std::integer_sequence<int, I...>) {
            return (c(I) + ... + (s(leaves - 1) * 1.0)); // (* 1.0: a tree, not a plain copy)
          }
          (std::make_integer_sequence<int, leaves - 1>{});
          static_assert(lz::detail::leaf_count_v<decltype(tree)> == leaves);
          lz::tensor<double, 1> z(n);
          z = tree;
          BOOST_TEST_CONTEXT("leaves " << leaves) { check_same(z, lz_test::reference(tree)); }
        }(),
        ...);
  }
  (std::make_integer_sequence<int, lz::kernels::cpu::vector_operands - 1>{});
}

BOOST_AUTO_TEST_CASE(vector_trees_wider_than_the_vector_entry_match_the_reference) {
  // A vector tree of at most kernels::cpu::vector_operands operands goes to run_map_vector,
  // a wider one to run_map (fusion/rules/map.hpp): both sides of the bound, contiguous,
  // strided, and reading the destination at its own and at another position.
  namespace cpu = lz::kernels::cpu;
  std::mt19937_64 g(5);
  const lz::index_t n = 203;
  std::vector<lz::tensor<double, 1>> v;
  for (int i = 0; i < 16; ++i) v.push_back(random_vector<double>(2 * n + 1, g()));
  auto c = [&](int i) { return lz::slice(v[std::size_t(i)], lz::range(0, n)); };
  auto s = [&](int i) { return lz::slice(v[std::size_t(i)], lz::range(0, 2 * n, 2)); };
  auto first14 = [&](auto x) {
    return x(0) + x(1) - x(2) + x(3) + x(4) - x(5) + x(6) + x(7) + x(8) - x(9) + x(10) + x(11) +
           x(12) - x(13);
  };
  auto narrow = [&](auto x) { return first14(x) + x(14); }; // 16 operands with the destination
  auto wide = [&](auto x) { return narrow(x) + x(15); };
  static_assert(1 + lz::detail::leaf_count_v<decltype(narrow(c))> == cpu::vector_operands);
  static_assert(1 + lz::detail::leaf_count_v<decltype(wide(c))> == cpu::vector_operands + 1);
  lz::tensor<double, 1> z(n);
  z = narrow(c);
  check_same(z, lz_test::reference(narrow(c)));
  z = wide(c);
  check_same(z, lz_test::reference(wide(c)));
  z = narrow(s);
  check_same(z, lz_test::reference(narrow(s)));
  z = wide(s);
  check_same(z, lz_test::reference(wide(s)));
  // the destination among the leaves (one more operand): at its own position (flat), then one
  // element on (through a temporary); each side of the bound
  static_assert(1 + lz::detail::leaf_count_v<decltype(first14(c) - c(0))> == cpu::vector_operands);
  for (int shift : {0, 1}) {
    const lz::tensor<double, 1> before = lz_test::reference(v[0]);
    auto at = [&](auto& t) { return lz::slice(t, lz::range(shift, n + shift)); };
    const lz::tensor<double, 1> want_wide = lz_test::reference(narrow(c) - at(before));
    const lz::tensor<double, 1> want_narrow = lz_test::reference(first14(c) - at(before));
    at(v[0]) = narrow(c) - at(v[0]);
    check_same(at(v[0]), want_wide);
    v[0] = before;
    at(v[0]) = first14(c) - at(v[0]);
    check_same(at(v[0]), want_narrow);
    v[0] = before;
  }
}
