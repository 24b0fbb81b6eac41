// Computed sparse terms (a sparse sum, product, or a function of one, whose pattern is known only
// once computed) where the earlier rules stopped: functions of them (`lz::abs(A + B)`: rule
// sparse_apply, fusion/rules/sparse_apply.hpp) and as operands of dense expressions
// (`lz::abs(A + B) * x`, `D + lz::abs(A * B)`, `(A + B) * C + D`: settled into CSR leaves before
// planning, fusion/sparse.hpp). The plan chosen (compile time), the sparse calls and temporaries
// (recording backend, lz::stats), the numbers against the dense engine on random patterns, shapes,
// types and layouts with fixed seeds, and bad inputs (nothing written before the terms computed).
#include <boost/test/unit_test.hpp>

#include <support/recording.hpp>
#include <support/sparse.hpp>

#include <lz/lz.hpp>
#include <lz/sparse.hpp>

#include <complex>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

using lz::index_t;
using lz::fusion::rule_id;
using lz::fusion::rule_v;
using cf = std::complex<float>;
using cd = std::complex<double>;
using namespace lz_test::sparse;

// ---- plans (compile time) ----------------------------------------------------------------------

namespace computed_plan_checks {
using S = lz::csr_matrix<double>;
using A = const S&;
using x = const lz::vector<double>&;
using D = const lz::matrix<double>&;
using lz::fusion::holds_computed_sparse_v;
using lz::fusion::settled_csr;
using lz::fusion::sparse_computer;
template <class E>
using settled_t = decltype(lz::fusion::settle_sparse(std::declval<E>(), sparse_computer{}));
template <class E>
constexpr rule_id rule = rule_v<double, std::remove_cvref_t<E>>;

using absum = decltype(lz::abs(std::declval<A>() + std::declval<A>()));
// A function of a sum is a computed sparse term, read by the sparse result rules as computed.
static_assert(lz::computed_sparse<absum> && lz::sparse_term<absum>);
static_assert(!lz::expression<absum> && !lz::sparse_expression<absum>);
static_assert(lz::fusion::spgemm_read_v<absum> == lz::fusion::spgemm_read::computed);
// Functions and scalars compose into one node over the sum (one loop over its values).
using composed = decltype(2 * lz::sqrt(lz::abs(std::declval<A>() * std::declval<A>())) / 3);
static_assert(lz::sparse_apply_expression<composed>);
static_assert(lz::spgemm_expression<decltype(std::declval<composed>().arg)>);
// Times a dense vector or matrix: ONE SpMV / SpMM over the merge (spmv / spmm rule, summv
// step), nothing settled.
using times_x = decltype(std::declval<absum>() * std::declval<x>());
static_assert(lz::fusion::merges_sum_into_product<times_x>() && !holds_computed_sparse_v<times_x>);
static_assert(rule<times_x> == rule_id::spmv);
using times_d = decltype(std::declval<absum>() * std::declval<D>());
static_assert(lz::fusion::merges_sum_into_product<times_d>() && !holds_computed_sparse_v<times_d>);
static_assert(rule<times_d> == rule_id::spmm);
// Plus a dense matrix (op(·)·I): settled, then scattered.
using apply_plus_d = decltype(std::declval<D>() + std::declval<absum>());
static_assert(holds_computed_sparse_v<apply_plus_d>);
// A user function (it may throw once y is partly written) or a product inside: settled into a
// CSR leaf, then the spmv rule (one SpMV).
const auto user_fn = [](double v) { return 2 * v; };
using user_times_x =
    decltype(lz::map(user_fn, std::declval<A>() + std::declval<A>()) * std::declval<x>());
static_assert(!lz::fusion::merges_sum_into_product<user_times_x>());
static_assert(holds_computed_sparse_v<user_times_x>);
static_assert(std::is_same_v<decltype(std::declval<settled_t<user_times_x>>().lhs),
                             settled_csr<double, std::int32_t>>);
static_assert(rule<settled_t<user_times_x>> == rule_id::spmv);
using product_times_x =
    decltype(lz::abs(std::declval<A>() * std::declval<A>()) * std::declval<x>());
static_assert(!lz::fusion::merges_sum_into_product<product_times_x>());
static_assert(holds_computed_sparse_v<product_times_x>);
// Plus a dense matrix: a scatter of the settled leaf (rule sparse_add).
using plus_d = decltype(std::declval<D>() + lz::abs(std::declval<A>() * std::declval<A>()));
static_assert(holds_computed_sparse_v<plus_d> && rule<settled_t<plus_d>> == rule_id::sparse_add);
// A product of a sum plus a dense matrix: the sum settled, the product stays ONE csrmultd.
using sum_times_plus_d =
    decltype((std::declval<A>() + std::declval<A>()) * std::declval<A>() + std::declval<D>());
static_assert(holds_computed_sparse_v<sum_times_plus_d>);
static_assert(rule<settled_t<sum_times_plus_d>> == rule_id::sparse_add);
static_assert(lz::fusion::term_counts_v<settled_t<sum_times_plus_d>>.scatter == 1);
// Inside a function and a transpose: still found.
static_assert(holds_computed_sparse_v<decltype(lz::tanh(std::declval<product_times_x>() +
                                                        std::declval<x>()))>);
static_assert(
    holds_computed_sparse_v<decltype(lz::transpose(lz::abs(std::declval<A>() * std::declval<A>()) *
                                                   std::declval<const lz::matrix<double>&>()))>);
// Nothing to settle: plain operands, and a product of two plain operands (one csrmultd).
static_assert(!holds_computed_sparse_v<decltype(std::declval<A>() * std::declval<x>())>);
static_assert(
    !holds_computed_sparse_v<decltype(std::declval<A>() * std::declval<A>() + std::declval<D>())>);
} // namespace computed_plan_checks

// ---- calls and temporaries (run time) ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_function_of_a_sum_is_one_merge_then_one_loop_over_its_values_in_place) {
  const auto A = random_sparse<double>(50, 40, 0.1, 301);
  const auto B = random_sparse<double>(50, 40, 0.1, 302);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B);
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  lz::reset_stats();
  C = lz::abs(2 * A - B);
  BOOST_TEST(rec.summary() == "dcsrgeam "); // the union, once; abs is a loop, not a call
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(rec.only().beta == -1.0);
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 1u); // the result's values: abs runs in place on them
  BOOST_TEST(C.nnz() == lz::csr_matrix<double>(2 * A - B).nnz()); // the union's pattern
  BOOST_TEST(close(lz::to_dense(C), lz::eval(lz::abs(2.0 * DA - DB)), 1e-15));
  rec.calls.clear();
  const auto S = random_sparse<double>(50, 50, 0.05, 316);
  C = 2 * lz::sqrt(lz::abs(A * lz::transpose(B))) / 4 - S; // composed: one loop; then a merge
  BOOST_TEST(rec.summary() == "dcsrgemm dcsrgeam ");
  BOOST_TEST(close(lz::to_dense(C),
                   lz::eval(0.5 * lz::sqrt(lz::abs(DA * lz::transpose(DB))) - lz::to_dense(S)),
                   1e-14));
  rec.calls.clear();
  C = lz::map([](double v) { return v * v * v; }, A + B);
  BOOST_TEST(rec.summary() == "dcsrgeam ");
  BOOST_TEST(close(lz::to_dense(C), lz::eval(lz::map([](double v) { return v * v * v; }, DA + DB)),
                   1e-15));
  // The pattern is the term's: an entry that cancels in the sum stays stored (as 0).
  C = lz::abs(A - A * 1.0);
  BOOST_TEST(C.nnz() == A.nnz());
  BOOST_TEST(double(lz::sum(C)) == 0.0);
  // A sum of operands with the same pattern: ONE loop over the values, the pattern shared.
  const lz::csr_matrix<double> A3 = 3 * A;
  rec.calls.clear();
  lz::reset_stats();
  lz::csr_matrix<double> E;
  E = lz::abs(A - A3);
  BOOST_TEST(rec.calls.empty());
  BOOST_TEST(lz::stats().allocations == 1u); // E's values
  BOOST_TEST(E.shares_pattern_with(A));
  BOOST_TEST(close(lz::to_dense(E), lz::eval(2.0 * lz::abs(DA)), 1e-15));
  const std::string same = lz::explain(C, lz::abs(A - A3));
  BOOST_TEST(same.find("1. one loop over the values: abs(α·A + β·B), A and B have the same "
                       "pattern, which C takes") != std::string::npos,
             same);
  const std::string plan = lz::explain(C, lz::abs(2 * A - B));
  BOOST_TEST(plan.find("plan: csr(50,40) = abs((csr(50,40)[nnz " + std::to_string(A.nnz()) +
                       "]{(2 * t(") != std::string::npos,
             plan);
  BOOST_TEST(plan.find("1. csrgeam C = α·A + β·B") != std::string::npos, plan);
  BOOST_TEST(plan.find("2. one loop over C's values: abs(C), in place (C's pattern kept)   [rule "
                       "sparse_apply]") != std::string::npos,
             plan);
}

BOOST_AUTO_TEST_CASE(a_function_changing_the_type_writes_new_values_and_keeps_the_pattern) {
  const auto A = random_sparse<cd>(30, 30, 0.1, 303);
  const auto B = random_sparse<cd>(30, 30, 0.1, 304);
  lz::reset_stats();
  lz::csr_matrix<double> R = lz::abs(A * B); // |complex| is real: a second values buffer
  BOOST_TEST(lz::stats().allocations == 2u);
  const lz::csr_matrix<cd> P = A * B;
  BOOST_TEST(R.nnz() == P.nnz());
  BOOST_TEST(close(lz::to_dense(R), lz::eval(lz::abs(lz::to_dense(A) * lz::to_dense(B))), 1e-14));
  const std::string plan = lz::explain(R, lz::abs(A * B));
  BOOST_TEST(plan.find("into new values (C's pattern kept)") != std::string::npos, plan);
}

BOOST_AUTO_TEST_CASE(a_function_of_a_sum_times_a_vector_is_one_merged_spmv_others_settle_first) {
  const auto A = random_sparse<double>(60, 45, 0.1, 305);
  const auto B = random_sparse<double>(60, 45, 0.1, 306);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B);
  const auto x = random_dense<double, 1>({45}, 307);
  const auto X = random_dense<double, 2>({45, 7}, 308);
  lz::vector<double> y = random_dense<double, 1>({60}, 309);
  const lz::vector<double> y0 = y;
  lz_test::recording rec;
  lz::reset_stats();
  y = 2 * lz::abs(A + B) * x - 3 * y; // ONE SpMV over the merge, β folded, no sum formed
  BOOST_TEST(rec.summary() == "dcsrsummv ");
  BOOST_TEST(rec.only().alpha == 1.0); // (the 2 is part of the function: in its loop)
  BOOST_TEST(rec.only().beta == -3.0);
  BOOST_TEST(rec.only().k == A.nnz()); // (nnz of A and B)
  BOOST_TEST(rec.only().lda == B.nnz());
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 0u);
  BOOST_TEST(close(y, lz::eval(2.0 * lz::abs(DA + DB) * x - 3.0 * y0), 1e-14));
  rec.calls.clear();
  lz::vector<double> ref = lz::eval(2.0 * lz::abs(DA + DB) * x);
  y = lz::abs(A + B) * x;
  BOOST_TEST(close(y, lz::eval(lz::abs(DA + DB) * x), 1e-14));
  rec.calls.clear();
  // A user function may throw: the term is settled first (nothing written before it succeeds).
  y = lz::map([](double v) { return v * v; }, A - 2 * B) * x;
  BOOST_TEST(rec.summary() == "dcsrgeam dcsrmv ");
  BOOST_TEST(close(y, lz::eval(lz::square(DA - 2.0 * DB) * x), 1e-14));
  rec.calls.clear();
  lz::matrix<double> Y(60, 7);
  Y = lz::square(A - B) * X + 1.0; // ONE SpMM over the merge into Y, then one pass
  BOOST_TEST(rec.summary() == "dcsrsummm ");
  BOOST_TEST(rec.only().k == 7);
  BOOST_TEST(close(Y, lz::eval(lz::square(DA - DB) * X + 1.0), 1e-14));
  rec.calls.clear();
  const auto z = random_dense<double, 1>({60}, 315);
  y = lz::tanh(lz::abs(A * lz::transpose(B)) * z + 0.5); // SpMV into y, then one pass
  BOOST_TEST(rec.summary() == "dcsrgemm dcsrmv ");
  BOOST_TEST(close(y, lz::eval(lz::tanh(lz::abs(DA * lz::transpose(DB)) * z + 0.5)), 1e-14));
  std::string plan = lz::explain(y, 2 * lz::abs(A + B) * x);
  BOOST_TEST(plan.find("1. dcsrsummv(N, N, m=60, n=45, alpha=1, f(a·A + b·B), a=1, b=1, A nnz=" +
                       std::to_string(A.nnz()) + ", B nnz=" + std::to_string(B.nnz())) !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("the sum's pattern is never formed") != std::string::npos, plan);
  BOOST_TEST(plan.find("sparse tmp") == std::string::npos, plan);
  plan = lz::explain(Y, lz::square(A - B) * X);
  BOOST_TEST(plan.find("1. dcsrsummm(N, N, m=60, n=45, k=7, alpha=1, f(a·A + b·B), a=1, b=-1") !=
                 std::string::npos,
             plan);
  plan = lz::explain(y, lz::map([](double v) { return v; }, A + B) * x);
  BOOST_TEST(plan.find("1. sparse tmp0 = map((csr(60,45)") != std::string::npos, plan);
  BOOST_TEST(plan.find("computed into new CSR arrays before the rest is planned") !=
                 std::string::npos,
             plan);
  BOOST_TEST(plan.find("note:   1. csrgeam C = α·A + β·B") != std::string::npos, plan);
  BOOST_TEST(plan.find("2. dcsrmv(N, 60x45 nnz=?, alpha=1, tmp0") != std::string::npos, plan);
  // Reductions of such a product compute it through the same path.
  BOOST_TEST(std::abs(double(lz::sum(lz::abs(A + B) * x)) - double(lz::sum(ref)) / 2) < 1e-12);
}

BOOST_AUTO_TEST_CASE(a_computed_term_plus_a_dense_matrix_is_settled_then_one_scatter_or_multd) {
  const auto A = random_sparse<double>(40, 30, 0.1, 310);
  const auto B = random_sparse<double>(30, 35, 0.1, 311);
  const auto B2 = random_sparse<double>(30, 35, 0.1, 312);
  const auto A2 = random_sparse<double>(40, 30, 0.1, 313);
  const auto D = random_dense<double, 2>({40, 35}, 314);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DB2 = lz::to_dense(B2),
             DA2 = lz::to_dense(A2);
  lz::matrix<double> M(40, 35);
  lz_test::recording rec;
  M = D + lz::abs(A * B); // the product computed, abs in place, D written, one scatter
  BOOST_TEST(rec.summary() == "dcsrgemm dcsradd ");
  BOOST_TEST(close(M, lz::eval(D + lz::abs(DA * DB)), 1e-14));
  rec.calls.clear();
  M = A * (B + B2) + D; // the sum settled; the product stays ONE csrmultd into M's rows
  BOOST_TEST(rec.summary() == "dcsrgeam dcsrmultd ");
  BOOST_TEST(close(M, lz::eval(DA * (DB + DB2) + D), 1e-14));
  rec.calls.clear();
  lz::matrix<double> before = M;
  M -= 0.5 * (A - A2) * lz::abs(B); // the scalar in the sum's α and β; in place: β = 1
  BOOST_TEST(rec.summary() == "dcsrgeam dcsrmultd ");
  BOOST_TEST(rec.calls[0].alpha == 0.5);
  BOOST_TEST(rec.calls[0].beta == -0.5);
  BOOST_TEST(rec.calls[1].alpha == -1.0);
  BOOST_TEST(rec.calls[1].beta == 1.0);
  BOOST_TEST(close(M, lz::eval(before - 0.5 * (DA - DA2) * lz::abs(DB)), 1e-14));
  rec.calls.clear();
  before = M;
  M += lz::sqrt(lz::abs(A * B)); // a function of a product: computed, then one scatter
  BOOST_TEST(rec.summary() == "dcsrgemm dcsradd ");
  BOOST_TEST(close(M, lz::eval(before + lz::sqrt(lz::abs(DA * DB))), 1e-14));
  const std::string plan = lz::explain(M, A * (B + B2) + D);
  BOOST_TEST(plan.find("1. sparse tmp0 = (csr(30,35)") != std::string::npos, plan);
  BOOST_TEST(plan.find("[rule sparse_sum]") != std::string::npos, plan);
  BOOST_TEST(plan.find("dcsrmultd(N, N, m=40, n=35, k=30, alpha=1, A nnz=" +
                       std::to_string(A.nnz()) + ", tmp0 nnz=?") != std::string::npos,
             plan);
}

BOOST_AUTO_TEST_CASE(a_transposed_sum_product_or_function_is_pushed_down_to_its_operands) {
  const auto A = random_sparse<double>(30, 20, 0.15, 340);
  const auto B = random_sparse<double>(30, 20, 0.15, 341);
  const auto P = random_sparse<double>(20, 25, 0.15, 342);
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DP = lz::to_dense(P);
  using V = lz::csr_view<const double, std::int32_t>;
  // Nothing computed for the transpose: a term of the same kind over CSC views.
  static_assert(std::is_same_v<decltype(lz::transpose(A + B)), lz::sparse_sum_expr<V, V>>);
  static_assert(std::is_same_v<decltype(lz::transpose(2 * (A * P))), lz::spgemm_expr<V, V>>);
  const auto t = lz::transpose(2 * (A * P));
  BOOST_TEST(t.lhs.pattern().trans); // Pᵀ
  BOOST_TEST(t.lhs.pattern().row_ptr == P.pattern().row_ptr);
  BOOST_TEST(t.alpha == 2.0);
  BOOST_TEST((t.shape() == lz::shape_t<2>{25, 30}));
  lz::csr_matrix<double> C;
  lz_test::recording rec;
  C = lz::transpose(A - 3 * B); // Aᵀ - 3·Bᵀ: one merge of the transposed operands
  BOOST_TEST(rec.summary() == "dcsrgeam ");
  BOOST_TEST(close(lz::to_dense(C), lz::eval(lz::transpose(DA - 3.0 * DB)), 1e-15));
  rec.calls.clear();
  C = lz::transpose(lz::abs(2 * A * P)); // |2·Pᵀ·Aᵀ|: one SpGEMM, one loop
  BOOST_TEST(rec.summary() == "dcsrgemm ");
  BOOST_TEST(close(lz::to_dense(C), lz::eval(lz::abs(2.0 * lz::transpose(DA * DP))), 1e-14));
  rec.calls.clear();
  const auto x = random_dense<double, 1>({30}, 343);
  lz::vector<double> y(20);
  lz::reset_stats();
  y = lz::transpose(A + B) * x; // distributed: two transposed SpMVs, no union, no temporary
  BOOST_TEST(rec.summary() == "dcsrmv dcsrmv ");
  BOOST_TEST(char(rec.calls[0].ta) == 'T');
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(close(y, lz::eval(lz::transpose(DA + DB) * x), 1e-14));
  rec.calls.clear();
  y = lz::transpose(2 * A) * x; // a values expression transposes too: α = 2, op = T
  BOOST_TEST(rec.summary() == "dcsrmv ");
  BOOST_TEST(rec.only().alpha == 2.0);
  BOOST_TEST(char(rec.only().ta) == 'T');
  BOOST_TEST(close(y, lz::eval(2.0 * lz::transpose(DA) * x), 1e-14));
  rec.calls.clear();
  lz::matrix<double> M = random_dense<double, 2>({25, 30}, 344);
  const lz::matrix<double> M0 = M;
  M += lz::transpose(A * P); // Pᵀ·Aᵀ accumulated into M's rows: one csrmultd, both transposed
  BOOST_TEST(rec.summary() == "dcsrmultd ");
  BOOST_TEST(char(rec.only().ta) == 'T');
  BOOST_TEST(char(rec.only().tb) == 'T');
  BOOST_TEST(close(M, lz::eval(M0 + lz::transpose(DA * DP)), 1e-14));
  // Transposing twice gives back the term.
  lz::csr_matrix<double> S = lz::transpose(lz::transpose(A + B));
  BOOST_TEST(close(lz::to_dense(S), lz::eval(DA + DB), 1e-15));
}

BOOST_AUTO_TEST_CASE(cast_converts_a_sparse_operand_or_term_so_mixed_types_combine) {
  const auto A = random_sparse<double>(20, 20, 0.2, 345);
  const auto Bf = random_sparse<float>(20, 20, 0.2, 346);
  const lz::matrix<double> DA = lz::to_dense(A), DB = lz::cast<double>(lz::to_dense(Bf));
  lz::csr_matrix<double> C = A * lz::cast<double>(Bf); // the values converted in one loop
  BOOST_TEST(close(lz::to_dense(C), lz::eval(DA * DB), 1e-13));
  lz::csr_matrix<float> F = lz::cast<float>(A * A) + Bf; // a term converted, then merged
  BOOST_TEST(close(lz::to_dense(F), lz::eval(lz::cast<float>(DA * DA) + lz::to_dense(Bf)), 1e-5));
}

// ---- numbers -----------------------------------------------------------------------------------

template <class T, class I>
void computed_terms_match_the_dense_engine(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  for (int trial = 0; trial < 8; ++trial) {
    const index_t m = index_t(g() % 25), n = index_t(g() % 25), k = index_t(g() % 25);
    const double d = 0.01 + 0.4 * double(g() % 10) / 10;
    const auto A = random_sparse<T, I>(m, k, d, seed + trial);
    const auto A2 = random_sparse<T, I>(m, k, d, seed + 30 + trial);
    const auto B = random_sparse<T, I>(k, n, d, seed + 60 + trial);
    const auto Bt = random_sparse<T, I>(n, k, d, seed + 90 + trial);
    const auto D = random_dense<T, 2>({m, n}, seed + 120 + trial);
    const auto x = random_dense<T, 1>({k}, seed + 150 + trial);
    const auto DA = lz::to_dense(A), DA2 = lz::to_dense(A2), DB = lz::to_dense(B),
               DBt = lz::to_dense(Bt);
    const T a = random_value<T>(g);
    const std::string at = "trial " + std::to_string(trial) + " m=" + std::to_string(m) +
                           " n=" + std::to_string(n) + " k=" + std::to_string(k);
    // Into a csr_matrix: the computed term's pattern, f applied to its values.
    lz::csr_matrix<T, I> C = a * lz::square(A - A2);
    if (m > 0 && k > 0) // (max over an empty matrix has no value)
      BOOST_TEST(close(lz::to_dense(C), lz::eval(a * lz::square(DA - DA2)), tol<T>()), at);
    C = lz::sin(A * B) - lz::square(A * lz::transpose(Bt)); // two terms computed, then merged
    if (m > 0 && n > 0)
      BOOST_TEST(close(lz::to_dense(C),
                       lz::eval(lz::sin(DA * DB) - lz::square(DA * lz::transpose(DBt))),
                       tol<T>() * 8),
                 at);
    // Dense destinations in both orders and a strided view; vectors with a stride.
    lz::tensor<T, 2> ref;
    const auto check = [&](auto&& M) {
      switch (trial % 3) {
      case 0:
        M = (A + a * A2) * B + D;
        ref = lz::eval((DA + a * DA2) * DB + D);
        break;
      case 1:
        M = D - a * lz::sqrt(lz::square(A * B));
        ref = lz::eval(D - a * lz::sqrt(lz::square(DA * DB)));
        break;
      default:
        M = lz::square(A) * (B + a * B) - D; // the sum settled, the values into a temporary
        ref = lz::eval(lz::square(DA) * (DB + a * DB) - D);
      }
      if (m > 0 && n > 0) BOOST_TEST(close(lz::eval(M), ref, tol<T>() * 8), at);
    };
    for_each_destination<T>(m, n, check);
    lz::tensor<T, 1> ybig(lz::shape_t<1>{2 * m + 1});
    auto y = ybig(lz::range(0, 2 * m, 2));
    y = lz::square(A - A2) * x + a * lz::sin(A + A2) * x; // two merged SpMVs (summv), β = 1
    if (m > 0)
      BOOST_TEST(close(lz::eval(y),
                       lz::eval(lz::square(DA - DA2) * x + a * lz::eval(lz::sin(DA + DA2)) * x),
                       tol<T>() * 8),
                 at);
  }
}

BOOST_AUTO_TEST_CASE(computed_terms_match_the_dense_engine_for_every_type_index_and_layout) {
  computed_terms_match_the_dense_engine<double, std::int32_t>(3100);
  computed_terms_match_the_dense_engine<double, std::int64_t>(3110);
  computed_terms_match_the_dense_engine<float, std::int32_t>(3120);
  computed_terms_match_the_dense_engine<cd, std::int64_t>(3130);
  computed_terms_match_the_dense_engine<cf, std::int32_t>(3140);
}

BOOST_AUTO_TEST_CASE(a_merged_product_matches_the_dense_engine_over_long_rows_transposes_strides) {
  // Rows 0 and 5 hold 2500 and 4000 entries in each operand: longer than the kernel's
  // 2048-entry block, so their sums carry over blocks; the rest are random.
  const index_t m = 40, n = 5000;
  const auto A = long_rows<double>(m, n, 0.01, 350), B = long_rows<double>(m, n, 0.02, 351);
  const auto Bt = random_sparse<double>(n, m, 0.02, 352); // read as its transpose
  const auto DA = lz::to_dense(A), DB = lz::to_dense(B), DBt = lz::to_dense(Bt);
  const auto x = random_dense<double, 1>({n}, 353);
  lz::tensor<double, 1> ybig = random_dense<double, 1>({3 * m}, 354);
  auto y = ybig(lz::range(1, 3 * m, 3)); // a strided destination
  const lz::vector<double> y0 = lz::eval(y);
  lz_test::recording rec;
  y = lz::sqrt(lz::abs(A - 0.5 * B)) * x + 2 * y; // β = 2 folded
  BOOST_TEST(rec.summary() == "dcsrsummv ");
  BOOST_TEST(rec.only().beta == 2.0);
  BOOST_TEST(close(y, lz::eval(lz::sqrt(lz::abs(DA - 0.5 * DB)) * x + 2.0 * y0), 1e-12));
  rec.calls.clear();
  lz::tensor<double, 1> xbig(lz::shape_t<1>{2 * n});
  auto xs = xbig(lz::range(0, 2 * n, 2)); // a strided x
  xs = x;
  y = lz::sin(lz::transpose(Bt) + A) * xs; // op(Bt) = T: transposed in the kernel's workspace
  BOOST_TEST(rec.summary() == "dcsrsummv ");
  BOOST_TEST(char(rec.only().ta) == 'T');
  BOOST_TEST(char(rec.only().tb) == 'N');
  BOOST_TEST(close(y, lz::eval(lz::sin(lz::transpose(DBt) + DA) * x), 1e-12));
  rec.calls.clear();
  // Times a matrix: ONE SpMM over the merge, long rows included, strided X and Y (a column
  // view of a row-major matrix and a transposed layout), β folded.
  lz::tensor<double, 2> Xbig = random_dense<double, 2>({n, 8}, 358);
  const auto X = Xbig(lz::all, lz::range(1, 6)); // n × 5, rows 8 apart
  lz::tensor<double, 2> Y(lz::shape_t<2>{m, 5}, lz::layout_left);
  Y = random_dense<double, 2>({m, 5}, 359);
  const lz::tensor<double, 2> Y0 = Y;
  Y = lz::abs(A - 0.5 * B) * X - Y;
  BOOST_TEST(rec.summary() == "dcsrsummm ");
  BOOST_TEST(rec.only().beta == -1.0);
  BOOST_TEST(close(Y, lz::eval(lz::abs(DA - 0.5 * DB) * X - Y0), 1e-12));
  rec.calls.clear();
  // y read by the product: declined, the product into a temporary first.
  lz::vector<double> z = random_dense<double, 1>({m}, 355);
  const lz::csr_matrix<double> S1 = random_sparse<double>(m, m, 0.2, 356),
                               S2 = random_sparse<double>(m, m, 0.2, 357);
  const lz::vector<double> z0 = z;
  z = lz::abs(S1 + S2) * z;
  BOOST_TEST(close(z, lz::eval(lz::abs(lz::to_dense(S1) + lz::to_dense(S2)) * z0), 1e-13));
  // Empty operands: y = β·y (and nothing read for β = 0).
  const lz::csr_matrix<double> E1(0, 7), E2(0, 7);
  lz::vector<double> e(0);
  e = lz::abs(E1 + E2) * lz::vector<double>(7);
  const lz::csr_matrix<double> Z1(3, 0), Z2(3, 0);
  lz::vector<double> w{1.0, std::nan(""), 3.0};
  w = lz::abs(Z1 + Z2) * lz::vector<double>(0);
  BOOST_TEST((w(0) == 0.0 && w(1) == 0.0 && w(2) == 0.0));
}

BOOST_AUTO_TEST_CASE(a_merged_spmv_or_spmm_gives_the_same_bits_on_one_thread_or_two) {
  const auto A = random_sparse<double>(3000, 3000, 0.01, 360);
  const auto B = random_sparse<double>(3000, 3000, 0.01, 361);
  const auto x = random_dense<double, 1>({3000}, 362);
  BOOST_TEST(A.nnz() + B.nnz() > 150000); // (well past the kernel's threading threshold)
  const int before = lz::num_threads();
  const auto X = random_dense<double, 2>({3000, 3}, 363);
  lz::vector<double> y1(3000), y2(3000);
  lz::matrix<double> Y1(3000, 3), Y2(3000, 3);
  lz::set_num_threads(1);
  y1 = lz::tanh(A + B) * x;
  Y1 = lz::tanh(A + B) * X;
  lz::set_num_threads(2);
  y2 = lz::tanh(A + B) * x;
  Y2 = lz::tanh(A + B) * X;
  lz::set_num_threads(before);
  BOOST_TEST(close(y1, y2, 0));
  BOOST_TEST(close(Y1, Y2, 0));
  BOOST_TEST(close(Y1, lz::eval(lz::tanh(lz::to_dense(lz::csr_matrix<double>(A + B))) * X), 1e-12));
  BOOST_TEST(close(y1, lz::eval(lz::tanh(lz::to_dense(lz::csr_matrix<double>(A + B))) * x), 1e-12));
}

BOOST_AUTO_TEST_CASE(a_computed_term_works_in_every_position_a_sparse_product_takes) {
  const auto A = random_sparse<double>(30, 30, 0.15, 330);
  const auto B = random_sparse<double>(30, 30, 0.15, 331);
  const auto x = random_dense<double, 1>({30}, 332);
  lz::matrix<double> D = random_dense<double, 2>({30, 30}, 333);
  for (index_t i = 0; i < 30; ++i) D(i, i) += 30; // well conditioned
  const lz::matrix<double> AB = lz::eval(lz::abs(lz::to_dense(A) + lz::to_dense(B)));
  const lz::matrix<double> P = lz::eval(lz::abs(lz::to_dense(A) * lz::to_dense(B)));
  lz::vector<double> y(30);
  lz::matrix<double> M(30, 30);
  y = lz::sum(lz::abs(A + B) * D, 0); // an axis reduction of the product
  BOOST_TEST(close(y, lz::eval(lz::sum(AB * D, 0)), 1e-12));
  const double r = lz::dot(lz::abs(A + B) * x, x);
  BOOST_TEST(std::abs(r - double(lz::dot(lz::eval(AB * x), x))) < 1e-11);
  const double nr = lz::norm2(lz::abs(A + B) * x);
  BOOST_TEST(std::abs(nr - double(lz::norm2(lz::eval(AB * x)))) < 1e-11);
  M = lz::transpose(lz::abs(A * B) * D) + D; // under a transpose
  BOOST_TEST(close(M, lz::eval(lz::transpose(P * D) + D), 1e-12));
  y = lz::solve(D + lz::abs(A + B), x); // a solve's matrix (settled, then scattered into it)
  BOOST_TEST(close(lz::eval(lz::eval(D + AB) * y), x, 1e-10));
  M = D * (lz::abs(A + B) * D); // a dense product's operand
  BOOST_TEST(close(M, lz::eval(D * lz::eval(AB * D)), 1e-10));
  y = x + lz::sum(lz::abs(A + B) * x); // a full reduction in a tree
  BOOST_TEST(close(y, lz::eval(x + lz::sum(lz::eval(AB * x))), 1e-11));
}

// ---- semantics and bad input -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_computed_term_is_computed_at_assignment_from_the_operands_then) {
  auto A = random_sparse<double>(20, 20, 0.2, 320);
  const auto B = random_sparse<double>(20, 20, 0.2, 321);
  const auto x = random_dense<double, 1>({20}, 322);
  const auto e = lz::abs(A + B) * x;   // nothing computed yet
  for (double& v : A.values()) v *= 2; // the operand changes before the assignment
  lz::vector<double> y(20);
  y = e;
  BOOST_TEST(close(y, lz::eval(lz::abs(lz::to_dense(A) + lz::to_dense(B)) * x), 1e-14));
}

BOOST_AUTO_TEST_CASE(a_throwing_function_or_bad_shape_leaves_every_destination_untouched) {
  const auto A = random_sparse<double>(20, 15, 0.2, 323);
  const auto B = random_sparse<double>(15, 20, 0.2, 324);
  const auto D = random_dense<double, 2>({20, 20}, 325);
  lz::matrix<double> M = random_dense<double, 2>({20, 20}, 326);
  const lz::matrix<double> M0 = M;
  const auto boom = [](double v) -> double {
    if (v != 0) throw std::runtime_error("boom");
    return v;
  };
  // The term is settled before D is written into M: M keeps its values.
  BOOST_CHECK_THROW(M = D + lz::map(boom, A * B), std::runtime_error);
  BOOST_TEST(close(M, M0, 0));
  lz::csr_matrix<double> C = A * B;
  const lz::csr_matrix<double> C0 = C;
  BOOST_CHECK_THROW(C = lz::map(boom, A * B), std::runtime_error);
  BOOST_TEST(close(lz::to_dense(C), lz::to_dense(C0), 0));
  BOOST_TEST(C.nnz() == C0.nnz());
  // Shapes: checked when the expression is built, naming both.
  const auto x = random_dense<double, 1>({15}, 327);
  try {
    auto e = lz::abs(A * B) * x; // (20,20) · (15,)
    (void)e;
    BOOST_FAIL("no shape_error");
  } catch (const lz::shape_error& err) {
    const std::string w = err.what();
    BOOST_TEST(w.find("(20,20)") != std::string::npos, w);
    BOOST_TEST(w.find("(15,)") != std::string::npos, w);
  }
  const lz::matrix<double> W(20, 15);
  BOOST_CHECK_THROW(M = W + lz::abs(A * B), lz::shape_error);
  BOOST_CHECK_THROW(M += lz::abs(B * A), lz::shape_error); // (15,15)
  BOOST_TEST(close(M, M0, 0));
}
