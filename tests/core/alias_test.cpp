// Aliasing: assignments whose destination shares memory with their operands give the result of
// evaluating into fresh memory, under every policy; reads at the same position need no
// temporary, reads elsewhere get exactly one (fusion/rules/map.hpp, kernels/common/alias.cpp).
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cstring>

namespace {

using namespace lz_test;
using lz::index_t;

// What one policy's assignment produced, judged once per file (not once per case and policy).
struct alias_outcome {
  bool same_as_fresh;
  bool same_as_reference; // rel == 0
  double rel_error;       // rel != 0
  lz::alloc_stats stats;
};

void check_alias_outcome(const std::string& what, const char* pname, const alias_outcome& o,
                         unsigned temps, double rel) {
  const auto& st = o.stats;
  BOOST_TEST(o.same_as_fresh, what << " under " << pname << " differs from fresh memory");
  if (rel == 0)
    BOOST_TEST(o.same_as_reference, what << " under " << pname << " differs from the reference");
  else
    BOOST_TEST(o.rel_error <= rel, what << " under " << pname << " vs reference");
  BOOST_TEST(st.temporaries == temps, what << " under " << pname << ": " << st.temporaries
                                           << " temporaries, expected " << temps);
  BOOST_TEST(st.allocations == temps, what << " under " << pname << " allocated");
}

// Runs `assign(policy)` (which writes into memory of `t`) under every policy, each time from the
// same initial contents, and compares the destination `dst()` with `expr()` evaluated into fresh
// memory beforehand under the same policy (bit for bit) and with the reference (within
// `rel`: 0 for elementwise trees; reductions accumulate in another order than the reference).
// `temps` is how many plan temporaries the assignment may take.
template <class T, std::size_t R, class Dst, class Expr, class Assign>
void check_alias(const std::string& what, lz::tensor<T, R>& t, Dst dst, Expr expr, Assign assign,
                 unsigned temps, double rel = 0) {
  const lz::tensor<T, R> initial = t;
  for_each_policy([&](auto pol, const char* pname) {
    std::memcpy(t.data(), initial.data(), sizeof(T) * std::size_t(t.end() - t.begin()));
    const auto fresh = lz::eval(pol, expr());
    const auto ref = reference(expr());
    lz::reset_stats();
    assign(pol);
    alias_outcome o{};
    o.stats = lz::stats();
    o.same_as_fresh = same_values(dst(), fresh);
    if (rel == 0)
      o.same_as_reference = same_values(dst(), ref);
    else
      o.rel_error = max_rel_error(dst(), ref);
    check_alias_outcome(what, pname, o, temps, rel);
  });
}

// x = x + y: every operand read at the destination's position; no temporary, no allocation.
BOOST_AUTO_TEST_CASE(same_position_reads_need_no_temporary) {
  auto x = random_tensor<double, 1>({100003}, 1), y = random_tensor<double, 1>({100003}, 2);
  check_alias(
      "x = x + y", x, [&] { return x.view(); }, [&] { return x + y; },
      [&](auto pol) { lz::assign(pol, x, x + y); }, 0);
  lz::reset_stats();
  x = x + y;
  x += x * y;
  BOOST_TEST(lz::stats().temporaries == 0u);
  BOOST_TEST(lz::stats().allocations == 0u);
  // The same on strided, reversed and column-major views (the general loop, not the flat path).
  auto A = random_tensor<double, 2>({64, 96}, 3);
  auto v = A(lz::range(63, -1, -2), lz::range(1, 96, 3));
  check_alias(
      "v = 2 v - |v| (reversed, strided)", A, [&] { return v; },
      [&] { return 2.0 * v - lz::abs(v); },
      [&](auto pol) { lz::assign(pol, v, 2.0 * v - lz::abs(v)); }, 0);
  lz::matrix<double> C = random_tensor<double, 2>({31, 17}, 4);
  lz::matrix<double> Cl(31, 17, lz::layout_left);
  Cl = C;
  check_alias(
      "Cl = sqrt(|Cl|) + Cl (column-major)", Cl, [&] { return Cl.view(); },
      [&] { return lz::sqrt(lz::abs(Cl)) + Cl; },
      [&](auto pol) { lz::assign(pol, Cl, lz::sqrt(lz::abs(Cl)) + Cl); }, 0);
}

// A = transpose(A) + B reads A at other positions: one temporary, the right result.
BOOST_AUTO_TEST_CASE(transposed_self_reads_match_fresh_memory) {
  for (index_t n : {1, 7, 64, 129}) {
    auto A = random_tensor<double, 2>({n, n}, 5 + n), B = random_tensor<double, 2>({n, n}, 6);
    check_alias(
        "A = transpose(A) + B", A, [&] { return A.view(); }, [&] { return lz::transpose(A) + B; },
        [&](auto pol) { lz::assign(pol, A, lz::transpose(A) + B); }, n > 1 ? 1 : 0);
    lz::matrix<double> L(n, n, lz::layout_left);
    L = B;
    check_alias(
        "L = transpose(L) * L (column-major, elementwise)", L, [&] { return L.view(); },
        [&] { return lz::hadamard(lz::transpose(L), L); },
        [&](auto pol) { lz::assign(pol, L, lz::hadamard(lz::transpose(L), L)); }, n > 1 ? 1 : 0);
  }
  auto A = random_tensor<double, 2>({40, 40}, 7);
  const lz::matrix<double> At = reference(lz::transpose(A));
  A = lz::transpose(A);
  BOOST_TEST(same_values(A, At));
}

// x(range(1, n)) = x(range(0, n - 1)) and the reverse direction: a shifted copy of itself.
BOOST_AUTO_TEST_CASE(shifted_self_assignment_matches_fresh_memory) {
  for (index_t n : {2, 3, 17, 1000, 100001}) {
    auto x = random_tensor<double, 1>({n}, 8 + n);
    auto hi = x(lz::range(1, n)), lo = x(lz::range(0, n - 1));
    const unsigned temps = n > 2 ? 1 : 0; // n = 2: one element each, distinct
    const std::string at = " (n = " + std::to_string(n) + ")";
    check_alias(
        "x[1:] = x[:-1]" + at, x, [&] { return hi; }, [&] { return lo; },
        [&](auto pol) { lz::assign(pol, hi, lo); }, temps);
    check_alias(
        "x[:-1] = x[1:]" + at, x, [&] { return lo; }, [&] { return hi; },
        [&](auto pol) { lz::assign(pol, lo, hi); }, temps);
    check_alias(
        "x[1:] = x[:-1] * 2 + x[1:]" + at, x, [&] { return hi; }, [&] { return lo * 2.0 + hi; },
        [&](auto pol) { lz::assign(pol, hi, lo * 2.0 + hi); }, temps);
  }
  // Through the view operators too (automatic policy), with +=.
  auto x = random_tensor<double, 1>({50}, 9);
  auto want = reference(x(lz::range(1, 50)) + x(lz::range(0, 49)));
  x(lz::range(1, 50)) += x(lz::range(0, 49));
  BOOST_TEST(same_values(x(lz::range(1, 50)), want));
}

// Reversed views (negative strides) assigned onto their own source.
BOOST_AUTO_TEST_CASE(reversed_views_onto_their_source_match_fresh_memory) {
  for (index_t n : {1, 2, 9, 1000}) {
    auto x = random_tensor<double, 1>({n}, 10 + n);
    auto rev = x(lz::range(n - 1, -1, -1));
    check_alias(
        "x = reversed(x)", x, [&] { return x.view(); }, [&] { return rev; },
        [&](auto pol) { lz::assign(pol, x, rev); }, n > 1 ? 1 : 0);
  }
  auto A = random_tensor<double, 2>({33, 20}, 11);
  auto rows = A(lz::range(32, -1, -1), lz::all), cols = A(lz::all, lz::range(19, -1, -1));
  check_alias(
      "A = A[::-1, :] - A", A, [&] { return A.view(); }, [&] { return rows - A; },
      [&](auto pol) { lz::assign(pol, A, rows - A); }, 1);
  check_alias(
      "A[:, ::-1] = A + 1", A, [&] { return cols; }, [&] { return A + 1.0; },
      [&](auto pol) { lz::assign(pol, cols, A + 1.0); }, 1);
  // A tensor assigned a reversed view of itself (tensor::operator=, same shape).
  auto y = random_tensor<double, 1>({101}, 12);
  const auto yr = reference(y(lz::range(100, -1, -1)));
  y = y(lz::range(100, -1, -1));
  BOOST_TEST(same_values(y, yr));
}

// Overlapping sub-blocks: shifted by (1, 1) both ways, and partially overlapping blocks.
BOOST_AUTO_TEST_CASE(overlapping_sub_views_match_fresh_memory) {
  auto A = random_tensor<double, 2>({50, 61}, 13);
  auto tl = A(lz::range(0, 49), lz::range(0, 60)), br = A(lz::range(1, 50), lz::range(1, 61));
  check_alias(
      "A[1:, 1:] = A[:-1, :-1] * 2", A, [&] { return br; }, [&] { return tl * 2.0; },
      [&](auto pol) { lz::assign(pol, br, tl * 2.0); }, 1);
  check_alias(
      "A[:-1, :-1] = A[1:, 1:] - A[:-1, :-1]", A, [&] { return tl; }, [&] { return br - tl; },
      [&](auto pol) { lz::assign(pol, tl, br - tl); }, 1);
  auto b1 = A(lz::range(10, 30), lz::range(5, 35)), b2 = A(lz::range(20, 40), lz::range(20, 50));
  check_alias(
      "A[20:40, 20:50] = A[10:30, 5:35]", A, [&] { return b2; }, [&] { return b1; },
      [&](auto pol) { lz::assign(pol, b2, b1); }, 1);
  // Interleaved lattices never meet: no temporary.
  auto even = A(lz::range(0, 50, 2), lz::all), odd = A(lz::range(1, 50, 2), lz::all);
  check_alias(
      "A[::2] = A[1::2]", A, [&] { return even; }, [&] { return odd; },
      [&](auto pol) { lz::assign(pol, even, odd); }, 0);
  auto x = random_tensor<double, 1>({1001}, 14);
  auto xe = x(lz::range(0, 1000, 2)), xo = x(lz::range(1, 1001, 2));
  check_alias(
      "x[::2] = x[1::2] + x[::2]", x, [&] { return xe; }, [&] { return xo + xe; },
      [&](auto pol) { lz::assign(pol, xe, xo + xe); }, 0);
}

// The diagonal against rows and columns that cross it, and against itself.
BOOST_AUTO_TEST_CASE(diagonal_assignments_match_fresh_memory) {
  auto A = random_tensor<double, 2>({37, 37}, 15);
  auto d = lz::diagonal(A), r0 = lz::row(A, 0), c5 = lz::col(A, 5);
  check_alias(
      "diag(A) = row(A, 0)", A, [&] { return d; }, [&] { return r0; },
      [&](auto pol) { lz::assign(pol, d, r0); }, 1);
  check_alias(
      "col(A, 5) = diag(A) * 3", A, [&] { return c5; }, [&] { return d * 3.0; },
      [&](auto pol) { lz::assign(pol, c5, d * 3.0); }, 1);
  check_alias(
      "diag(A) = diag(A) * diag(A)", A, [&] { return d; }, [&] { return d * d; },
      [&](auto pol) { lz::assign(pol, d, d * d); }, 0);
  auto dr = lz::diagonal(A)(lz::range(36, -1, -1));
  check_alias(
      "diag(A) = reversed diag(A)", A, [&] { return d; }, [&] { return dr; },
      [&](auto pol) { lz::assign(pol, d, dr); }, 1);
}

// Reductions read their whole operand before anything is written: axis reductions into a row
// of their own operand, and full reductions inside trees over the destination.
BOOST_AUTO_TEST_CASE(reductions_of_the_destination_match_fresh_memory) {
  auto A = random_tensor<double, 2>({40, 40}, 16);
  auto r0 = lz::row(A, 0), d = lz::diagonal(A);
  check_alias(
      "row(A, 0) = sum(A, 0)", A, [&] { return r0; }, [&] { return lz::sum(A, 0); },
      [&](auto pol) { lz::assign(pol, r0, lz::sum(A, 0)); }, 1, 1e-13);
  check_alias(
      "diag(A) = max(A, 1)", A, [&] { return d; }, [&] { return lz::max(A, 1); },
      [&](auto pol) { lz::assign(pol, d, lz::max(A, 1)); }, 1);
  auto x = random_tensor<double, 1>({1000}, 17);
  const double m = lz::mean(x);
  const auto want = reference(x - m);
  x -= lz::mean(x); // the mean is computed before x changes
  BOOST_TEST(same_values(x, want));
  auto B = random_tensor<double, 2>({30, 30}, 18);
  const auto wb = reference(lz::row(B, 3) + lz::sum(B, 0));
  lz::row(B, 3) += lz::sum(B, 0); // the reduce rule must not write while it reads
  BOOST_TEST(max_rel_error(lz::row(B, 3), wb) <= 1e-12);
}

} // namespace
