// gemm rule: C = α·op(A)·op(B) + β·C → ONE gemm. Each case checks the plan chosen at compile
// time, the BLAS calls made (recording backend), the allocations (lz::stats) and the numbers
// (reference evaluator, error bound from the operation).
#include <boost/test/unit_test.hpp>

#include <support/products.hpp>
#include <support/recording.hpp>

using namespace lz_test;
using lz::fusion::rule_id;
using lz::fusion::rule_v;
using lz::kernels::blas::trans;

namespace {
lz::matrix<double> rnd(index_t m, index_t n, std::uint64_t seed) {
  return lz::random<double>({m, n}, seed, lz::uniform{-1, 1});
}
template <class E>
lz::matrix<double> abs_ref(const E& e) {
  return reference(e);
}
} // namespace

BOOST_AUTO_TEST_CASE(transpose_times_matrix_is_one_gemm_call_without_copies) {
  auto A = rnd(256, 128, 1), B = rnd(256, 64, 2);
  lz::matrix<double> C(128, 64);
  static_assert(rule_v<double, decltype(lz::transpose(A) * B)> == rule_id::gemm);
  recording rec;
  lz::reset_stats();
  C = lz::transpose(A) * B;
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto& c = rec.only();
  BOOST_TEST(std::string(c.routine) == "dgemm");
  BOOST_TEST(char(c.ta) == 'T');
  BOOST_TEST(char(c.tb) == 'N');
  BOOST_TEST(c.m == 128);
  BOOST_TEST(c.n == 64);
  BOOST_TEST(c.k == 256);
  BOOST_TEST(c.lda == 128); // A as stored: 256 x 128 row-major
  BOOST_TEST(c.alpha == 1.0);
  BOOST_TEST(c.beta == 0.0);
  const auto want = reference(lz::transpose(A) * B);
  const auto scale = reference(lz::transpose(lz::abs(A)) * lz::abs(B));
  BOOST_TEST(worst_ratio(C, want, scale, gamma_k<double>(256)) <= 1.0);
}

BOOST_AUTO_TEST_CASE(scaled_sum_with_destination_is_one_gemm_with_alpha_and_beta) {
  auto A = rnd(64, 48, 3), B = rnd(48, 32, 4);
  lz::matrix<double> C = rnd(64, 32, 5);
  const lz::matrix<double> C0 = C;
  recording rec;
  lz::reset_stats();
  C = 2.0 * A * B + 3.0 * C;
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto& c = rec.only();
  BOOST_TEST(c.alpha == 2.0);
  BOOST_TEST(c.beta == 3.0);
  const auto want = reference(2.0 * A * B + 3.0 * C0);
  const auto scale = reference(2.0 * lz::abs(A) * lz::abs(B) + 3.0 * lz::abs(C0));
  BOOST_TEST(worst_ratio(C, want, scale, gamma_k<double>(48)) <= 1.0);
}

BOOST_AUTO_TEST_CASE(scalars_are_gathered_from_anywhere_in_the_term) {
  auto A = rnd(20, 30, 6), B = rnd(30, 10, 7);
  lz::matrix<double> C(20, 10);
  struct expect {
    double alpha;
  };
  {
    recording rec;
    C = 2.0 * (A * (3.0 * B));
    BOOST_TEST(rec.only().alpha == 6.0);
  }
  {
    recording rec;
    C = -(A * B);
    BOOST_TEST(rec.only().alpha == -1.0);
  }
  {
    recording rec;
    C = (A * B) / 4.0;
    BOOST_TEST(rec.only().alpha == 0.25);
  }
  {
    recording rec;
    C = (A * 0.5) * (-B) * 2.0;
    BOOST_TEST(rec.only().alpha == -1.0);
  }
  const auto want = reference((A * 0.5) * (-B) * 2.0);
  BOOST_TEST(max_rel_error(C, want) < 1e-12);
}

BOOST_AUTO_TEST_CASE(arbitrary_beta_is_folded_not_only_zero_and_one) {
  auto A = rnd(8, 8, 8), B = rnd(8, 8, 9);
  lz::matrix<double> C = rnd(8, 8, 10);
  const lz::matrix<double> C0 = C;
  recording rec;
  C = A * B - 0.37 * C;
  BOOST_TEST(rec.only().beta == -0.37);
  BOOST_TEST(max_rel_error(C, reference(A * B - 0.37 * C0)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(compound_assignment_accumulates_with_beta_one) {
  auto A = rnd(16, 12, 11), B = rnd(12, 9, 12);
  lz::matrix<double> C = rnd(16, 9, 13);
  const lz::matrix<double> C0 = C;
  {
    recording rec;
    lz::reset_stats();
    C += A * B;
    BOOST_TEST(lz::stats().allocations == 0u);
    BOOST_TEST(rec.only().beta == 1.0);
    BOOST_TEST(rec.only().alpha == 1.0);
  }
  {
    recording rec;
    C -= 2.0 * A * B;
    BOOST_TEST(rec.only().beta == 1.0);
    BOOST_TEST(rec.only().alpha == -2.0);
  }
  BOOST_TEST(max_rel_error(C, reference(C0 - A * B)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(other_c_term_is_copied_into_the_destination_then_beta_one) {
  auto A = rnd(10, 7, 14), B = rnd(7, 5, 15), D = rnd(10, 5, 16);
  lz::matrix<double> C(10, 5);
  recording rec;
  lz::reset_stats();
  C = A * B + 3.0 * D;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec.only().beta == 1.0);
  BOOST_TEST(max_rel_error(C, reference(A * B + 3.0 * D)) < 1e-12);
}

BOOST_AUTO_TEST_CASE(every_layout_pair_gives_the_reference_result) {
  // Random shapes (including 1 and primes) over every layout of A, B and C; BLAS layouts make
  // exactly one gemm call and no allocation, the others still compute the right numbers.
  std::mt19937_64 rng(42);
  const index_t sizes[] = {1, 2, 3, 7, 16, 31};
  int cases = 0;
  for (auto ka : all_layouts)
    for (auto kb : all_layouts)
      for (auto kc : {matrix_layout::row, matrix_layout::col, matrix_layout::submatrix,
                      matrix_layout::strided2}) {
        const index_t m = sizes[rng() % 6], n = sizes[rng() % 6], k = sizes[rng() % 6];
        matrix_factory<double> f(rng());
        auto A = f.make(m, k, ka), B = f.make(k, n, kb), C = f.make(m, n, kc);
        const lz::matrix<double> C0 = C;
        const double alpha = 0.5 + double(rng() % 4), beta = double(rng() % 3) - 1.0;
        recording rec;
        lz::assign(C, alpha * A * B + beta * C);
        BOOST_TEST_CONTEXT("A " << name(ka) << " B " << name(kb) << " C " << name(kc) << " m=" << m
                                << " n=" << n << " k=" << k) {
          BOOST_TEST(rec.count("gemm") == 1u);
          const auto want = reference(alpha * A * B + beta * C0);
          const auto scale =
              reference(alpha * lz::abs(A) * lz::abs(B) + std::fabs(beta) * lz::abs(C0));
          BOOST_TEST(worst_ratio(C, want, scale, gamma_k<double>(k)) <= 1.0);
        }
        ++cases;
      }
  BOOST_TEST(cases == 6 * 6 * 4);
}

BOOST_AUTO_TEST_CASE(blas_layouts_never_copy_and_trans_flags_come_from_strides) {
  matrix_factory<double> f(7);
  for (auto ka : {matrix_layout::row, matrix_layout::col, matrix_layout::padded,
                  matrix_layout::transposed, matrix_layout::submatrix})
    for (auto kb : {matrix_layout::row, matrix_layout::col, matrix_layout::transposed}) {
      auto A = f.make(33, 17, ka), B = f.make(17, 9, kb);
      lz::matrix<double> C(33, 9);
      recording rec;
      lz::reset_stats();
      C = A * B;
      BOOST_TEST(lz::stats().allocations == 0u);
      const auto& c = rec.only();
      const bool a_colwise = A.strides()[0] == 1; // column-major storage → T in a row-major call
      const bool b_colwise = B.strides()[0] == 1;
      BOOST_TEST((char(c.ta) == 'T') == a_colwise);
      BOOST_TEST((char(c.tb) == 'T') == b_colwise);
    }
}

BOOST_AUTO_TEST_CASE(rule_notes_join_text_integers_shapes_and_byte_counts) {
  using lz::fusion::detail_plan::byte_count;
  using lz::fusion::detail_plan::join;
  const lz::shape_t<2> s{3, 40};
  const lz::shape_t<1> v{7};
  const std::string name = "gemm";
  BOOST_TEST(join({}) == "");
  BOOST_TEST(join({name, ": strides (", index_t(-3), ",", std::size_t(12), ") shape ", s, " / ", v,
                   " copy ", byte_count{1000}, ", ", byte_count{2048}, ", ",
                   byte_count{3 * 1024 * 1024}}) ==
             "gemm: strides (-3,12) shape (3,40) / (7,) copy 1000 B, 2.0 KiB, 3.0 MiB");
}

BOOST_AUTO_TEST_CASE(non_blas_operand_is_explained_and_still_correct) {
  matrix_factory<double> f(9);
  auto A = f.make(64, 64, matrix_layout::strided2);
  auto B = f.make(64, 64, matrix_layout::row);
  lz::matrix<double> C(64, 64);
  const std::string plan = lz::explain(C, A * B);
  // 64^3 multiply-adds is above the copy threshold: the operand is copied into a BLAS layout,
  // and the note says which strides and how many bytes.
  const std::string strides = "has strides (" + std::to_string(A.strides()[0]) + "," +
                              std::to_string(A.strides()[1]) + ") BLAS cannot take; copying it " +
                              "(32.0 KiB) into row-major";
  BOOST_TEST(plan.find(strides) != std::string::npos, plan);
  // A nested product of the destination's shape lands in the destination, with the same note.
  lz::vector<double> x = lz::random<double>({64}, 3), y(64);
  const std::string nested = lz::explain(y, lz::exp(A * x));
  BOOST_TEST(nested.find("a group lands in the destination of shape (64,)") != std::string::npos,
             nested);
  BOOST_TEST(nested.find(strides) != std::string::npos, nested);
  recording rec;
  C = A * B;
  BOOST_TEST(rec.count("dgemm") == 1u);
  BOOST_TEST(max_rel_error(C, reference(A * B)) < 1e-12);
  // Small products with awkward strides run lazuli's own kernel, allocating nothing.
  auto As = f.make(5, 6, matrix_layout::strided2), Bs = f.make(6, 4, matrix_layout::strided2);
  lz::matrix<double> Cs(5, 4);
  recording rec2;
  lz::reset_stats();
  Cs = As * Bs;
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(rec2.count("gemm_generic") == 1u);
  BOOST_TEST(max_rel_error(Cs, reference(As * Bs)) < 1e-12);
}

// The same strided operand on both sides of a large product is copied into a BLAS layout once:
// S*S reads the copy twice, S*transpose(S) reads it once as is and once transposed.
BOOST_AUTO_TEST_CASE(a_strided_operand_used_twice_in_one_product_is_copied_once) {
  matrix_factory<double> f(19);
  for (const index_t n : {64, 97}) {
    const auto S = f.make(n, n, matrix_layout::strided2);
    lz::matrix<double> C(n, n);
    for (int variant = 0; variant < 2; ++variant) {
      recording rec;
      lz::reset_stats();
      if (variant == 0)
        C = S * S;
      else
        C = S * lz::transpose(S);
      BOOST_TEST(lz::stats().temporaries == 1u, "n=" << n << " variant " << variant);
      BOOST_TEST(lz::stats().bytes_allocated == std::uint64_t(n * n) * sizeof(double));
      const auto& c = rec.only();
      BOOST_TEST(c.routine == std::string("dgemm"));
      BOOST_TEST(char(c.tb) == (variant == 0 ? 'N' : 'T'));
      const auto St = lz::transpose(S);
      const auto want = variant == 0 ? reference(S * S) : reference(S * St);
      const auto scale =
          variant == 0 ? reference(lz::abs(S) * lz::abs(S)) : reference(lz::abs(S) * lz::abs(St));
      BOOST_TEST(worst_ratio(C, want, scale, gamma_k<double>(n)) <= 1.0);
    }
    const std::string plan = lz::explain(C, S * S);
    BOOST_TEST(plan.find("the right operand is the left one's memory: copied once") !=
                   std::string::npos,
               plan);
    BOOST_TEST(plan.find("temporaries: 1") != std::string::npos, plan);
  }
  // Two different strided operands are still copied once each.
  const auto P = f.make(64, 64, matrix_layout::strided2),
             Q = f.make(64, 64, matrix_layout::strided2);
  lz::matrix<double> C(64, 64);
  lz::reset_stats();
  C = P * Q;
  BOOST_TEST(lz::stats().temporaries == 2u);
  BOOST_TEST(worst_ratio(C, reference(P * Q), reference(lz::abs(P) * lz::abs(Q)),
                         gamma_k<double>(64)) <= 1.0);
}

BOOST_AUTO_TEST_CASE(transpose_of_a_product_is_one_gemm_with_swapped_operands) {
  auto A = rnd(12, 8, 17), B = rnd(8, 6, 18);
  lz::matrix<double> C(6, 12);
  recording rec;
  lz::reset_stats();
  C = lz::transpose(A * B);
  BOOST_TEST(lz::stats().allocations == 0u);
  const auto& c = rec.only();
  BOOST_TEST(c.m == 6);
  BOOST_TEST(c.n == 12);
  BOOST_TEST(max_rel_error(C, reference(lz::transpose(B) * lz::transpose(A))) < 1e-12);
  // transpose(transpose(A)) is A again: a view, no flag.
  lz::matrix<double> D(12, 6);
  recording rec2;
  D = lz::transpose(lz::transpose(A)) * rnd(8, 6, 19);
  BOOST_TEST(char(rec2.only().ta) == 'N');
}

BOOST_AUTO_TEST_CASE(aliasing_products_go_through_a_temporary) {
  auto A = rnd(9, 9, 20);
  lz::matrix<double> C = rnd(9, 9, 21);
  {
    const lz::matrix<double> C0 = C;
    lz::reset_stats();
    C = A * C; // reads C while writing it
    BOOST_TEST(lz::stats().temporaries == 1u);
    BOOST_TEST(max_rel_error(C, reference(A * C0)) < 1e-12);
  }
  {
    const lz::matrix<double> C0 = C;
    C = lz::transpose(C) * A;
    BOOST_TEST(max_rel_error(C, reference(lz::transpose(C0) * A)) < 1e-12);
  }
  {
    // The in-place β forms need none.
    const lz::matrix<double> C0 = C;
    lz::reset_stats();
    C = C + A * A;
    BOOST_TEST(lz::stats().allocations == 0u);
    BOOST_TEST(max_rel_error(C, reference(C0 + A * A)) < 1e-12);
  }
}

BOOST_AUTO_TEST_CASE(inner_dimension_mismatch_names_both_shapes_and_leaves_the_destination) {
  auto A = rnd(4, 5, 22), B = rnd(6, 3, 23);
  lz::matrix<double> C = rnd(4, 3, 24);
  const lz::matrix<double> C0 = C;
  try {
    C = A * B;
    BOOST_FAIL("expected shape_error");
  } catch (const lz::shape_error& e) {
    const std::string m = e.what();
    BOOST_TEST(m.find("(4,5)") != std::string::npos, m);
    BOOST_TEST(m.find("(6,3)") != std::string::npos, m);
    BOOST_TEST(m.find("matrix product") != std::string::npos, m);
  }
  BOOST_TEST(max_rel_error(C, C0) == 0.0);
}

BOOST_AUTO_TEST_CASE(integer_products_are_exact_through_the_own_kernel) {
  matrix_factory<std::int32_t> f32(31);
  matrix_factory<std::int64_t> f64(32);
  for (auto k : all_layouts) {
    auto A = f32.make(13, 11, k), B = f32.make(11, 7, matrix_layout::row);
    lz::matrix<std::int32_t> C(13, 7);
    recording rec;
    C = 3 * A * B;
    BOOST_TEST(rec.count("gemm_generic") == 1u);
    BOOST_TEST(max_ulp(C, reference(3 * A * B)) == 0.0);
    auto A8 = f64.make(5, 9, k), B8 = f64.make(9, 4, matrix_layout::col);
    lz::matrix<std::int64_t> C8(5, 4);
    C8 = A8 * B8;
    BOOST_TEST(max_ulp(C8, reference(A8 * B8)) == 0.0);
  }
}

BOOST_AUTO_TEST_CASE(float_and_complex_products_use_their_blas_routines) {
  auto Af = lz::random<float>({20, 10}, 1), Bf = lz::random<float>({10, 5}, 2);
  lz::matrix<float> Cf(20, 5);
  recording rec;
  Cf = 2.0f * lz::transpose(lz::transpose(Af)) * Bf;
  BOOST_TEST(std::string(rec.only().routine) == "sgemm");
  BOOST_TEST(max_rel_error(Cf, reference(2.0f * Af * Bf)) < 1e-5);
  using Z = std::complex<double>;
  lz::matrix<Z> Az(3, 4), Bz(4, 2), Cz(3, 2);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) Az(i, j) = Z(double(i + j), double(i - j));
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 2; ++j) Bz(i, j) = Z(1.0 + double(i), double(j));
  recording rec2;
  Cz = Az * Bz;
  BOOST_TEST(std::string(rec2.only().routine) == "zgemm");
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 2; ++j) {
      Z want{};
      for (index_t k = 0; k < 4; ++k) want += Az(i, k) * Bz(k, j);
      BOOST_TEST(std::abs(Cz(i, j) - want) < 1e-12);
    }
}

BOOST_AUTO_TEST_CASE(empty_and_degenerate_products) {
  lz::matrix<double> A(0, 5), B(5, 3), C(0, 3);
  C = A * B; // nothing to do
  BOOST_TEST(C.size() == 0);
  lz::matrix<double> A2(4, 0), B2(0, 3), C2 = rnd(4, 3, 25);
  C2 = A2 * B2; // k = 0: C = 0
  for (double v : C2) BOOST_TEST(v == 0.0);
  lz::matrix<double> C3 = rnd(4, 3, 26);
  const lz::matrix<double> C30 = C3;
  C3 = A2 * B2 + 2.0 * C3; // k = 0 with beta: C = 2 C
  BOOST_TEST(max_rel_error(C3, reference(2.0 * C30)) == 0.0);
}

BOOST_AUTO_TEST_CASE(explain_names_the_call_before_anything_runs) {
  auto A = rnd(512, 256, 27), B = rnd(512, 128, 28);
  lz::matrix<double> C = rnd(256, 128, 29);
  const lz::matrix<double> C0 = C;
  recording rec;
  const std::string plan = lz::explain(C, 2.0 * lz::transpose(A) * B + 3.0 * C);
  BOOST_TEST(rec.calls.empty()); // explaining runs nothing
  BOOST_TEST(max_rel_error(C, C0) == 0.0);
  BOOST_TEST(plan.find("dgemm(RowMajor, T, N, m=256, n=128, k=512, alpha=2") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("beta=3") != std::string::npos, plan);
  BOOST_TEST(plan.find("[rule gemm]") != std::string::npos, plan);
  BOOST_TEST(plan.find("temporaries: 0") != std::string::npos, plan);
  const std::string dot = lz::explain_dot(C, 2.0 * lz::transpose(A) * B + 3.0 * C);
  BOOST_TEST(dot.rfind("digraph lz_plan {", 0) == 0u, dot);
  BOOST_TEST(dot.find("dgemm") != std::string::npos);
}

// `W -= e` explained without running (lz::minus_eq); the plan is the one `W -= e` runs: the
// product folds into one gemm with beta = 1 and alpha = -2.
// NumPy's `np.sum(Y * np.log(P))` written with lazuli's `*` is a matrix product: explain says
// so when both operands are square of the same shape, inside a reduction.
BOOST_AUTO_TEST_CASE(explain_notes_a_square_matrix_product_inside_a_reduction) {
  auto Y = rnd(2, 2, 40), P = rnd(2, 2, 41), R = rnd(2, 3, 42);
  const std::string note = "elementwise product is lz::hadamard(A, B)";
  const std::string square = lz::explain(lz::sum(Y * lz::log(lz::abs(P))));
  BOOST_TEST(square.find(note) != std::string::npos, square);
  const std::string axis = lz::explain(lz::sum(2.0 * (Y * P), 0));
  BOOST_TEST(axis.find(note) != std::string::npos, axis);
  BOOST_TEST(lz::explain(lz::sum(Y * R)).find(note) == std::string::npos); // (2,2)*(2,3)
  BOOST_TEST(lz::explain(lz::sum(lz::hadamard(Y, P))).find(note) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(compound_assignments_are_explained_without_running) {
  auto A = rnd(64, 32, 30), B = rnd(32, 48, 31);
  lz::matrix<double> W = rnd(64, 48, 32);
  const lz::matrix<double> W0 = W;
  recording rec;
  lz::reset_stats();
  const std::string plan = lz::explain(W, lz::minus_eq, 2.0 * A * B);
  BOOST_TEST(rec.calls.empty());
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(max_rel_error(W, W0) == 0.0);
  BOOST_TEST(plan.find(" -= ") != std::string::npos, plan);
  BOOST_TEST(plan.find("dgemm(RowMajor, N, N, m=64, n=48, k=32, alpha=-2") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("beta=1") != std::string::npos, plan);
  W -= 2.0 * A * B; // what it explained
  BOOST_TEST(rec.calls.size() == 1u);
  BOOST_TEST(max_rel_error(W, reference(W0 - 2.0 * A * B)) < 1e-10); // (cancellation)
  BOOST_TEST(lz::explain(W, lz::plus_eq, W * 2.0).find(" += ") != std::string::npos);
  BOOST_CHECK_THROW((void)lz::explain(W, lz::times_eq, A), lz::shape_error); // (64,32) into (64,48)
}
