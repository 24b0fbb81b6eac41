// Aliasing torture table: every way a destination can overlap its operands (identical,
// transposed, shifted both ways, reversed, broadcast sources, partial sub-views, diagonal,
// in-place reductions, product operands). Each case runs under every policy on one workspace
// buffer and must leave the WHOLE buffer as if the expression had been evaluated into fresh
// memory first and then copied into the destination (so nothing outside the destination
// changes either), match the reference evaluator, and take exactly the temporaries the table
// says: 0 where every operand is read at the destination's own position (x = x + y,
// C = C + A*B, y = A*x + y), else the one result temporary the aliasing analysis needs.
#include <boost/test/unit_test.hpp>

#include <support/check.hpp>

#include <cstring>

namespace {

using namespace lz_test;
using lz::index_t;
using lz::range;

constexpr index_t ws_size = 8192;

// A workspace: one buffer all of a case's operands and its destination live in. Whole numbers
// in [-4, 4]: sums and products of them are exact in any order, so results compare bit for bit
// with the reference even where BLAS and the reference sum in different orders.
struct workspace {
  lz::tensor<double, 1> buf = random_tensor<double, 1>({ws_size}, 0x7041, values::whole);
  double* p(index_t off) { return buf.data() + off; }
  lz::tensor_view<double, 2> mat(index_t off, index_t m, index_t n) {
    return lz::adopt(p(off), {m, n}, {n, 1});
  }
  lz::tensor_view<double, 1> vec(index_t off, index_t n) { return lz::adopt(p(off), {n}, {1}); }
};

// The checks of one policy's run, compiled once per file (not once per row and policy).
void check_fresh(const std::string& name, const char* pname, bool fresh_is_reference) {
  BOOST_TEST(fresh_is_reference, name << " under " << pname << ": fresh != reference");
}

void check_torture_outcome(const std::string& name, const char* pname, index_t bad, int temps,
                           unsigned temporaries) {
  BOOST_TEST(bad < 0, name << " under " << pname << ": workspace differs at " << bad
                           << " from evaluation into fresh memory");
  if (temps >= 0)
    BOOST_TEST(temporaries == unsigned(temps), name << " under " << pname << ": " << temporaries
                                                    << " temporaries, expected " << temps);
}

// Runs one table row. make(ws) returns {destination view, expression} built over ws; the
// destination and the expression may share any memory. `temps`: the plan temporaries the
// assignment takes (-1: the case only checks values). `compound`: += instead of =.
template <class Make>
void torture(const std::string& name, int temps, Make make, bool compound = false) {
  const workspace initial;
  for_each_policy([&](auto pol, const char* pname) {
    // Expected: the expression evaluated into fresh memory, copied into the destination.
    workspace want = initial;
    {
      auto [d, e] = make(want);
      const auto fresh = lz::eval(pol, e);
      const auto ref = reference(e);
      check_fresh(name, pname, same_values(fresh, ref));
      if (compound)
        lz::assign(lz::seq, d, lz::eval(lz::seq, d + fresh));
      else
        lz::assign(lz::seq, d, fresh);
    }
    workspace got = initial;
    auto [d, e] = make(got);
    lz::reset_stats();
    if (compound)
      d += e;
    else
      lz::assign(pol, d, e);
    const auto st = lz::stats();
    index_t bad = -1;
    for (index_t i = 0; i < ws_size && bad < 0; ++i)
      if (std::memcmp(got.p(i), want.p(i), sizeof(double)) != 0) bad = i;
    check_torture_outcome(name, pname, bad, temps, st.temporaries);
  });
}

BOOST_AUTO_TEST_CASE(identical_operands_need_no_temporary) {
  torture("x = x + y", 0, [](workspace& w) {
    auto x = w.vec(0, 1000), y = w.vec(2000, 1000);
    return std::pair{x, x + y};
  });
  torture("x = x * x - x", 0, [](workspace& w) {
    auto x = w.vec(3, 997);
    return std::pair{x, x * x - x};
  });
  torture(
      "A += A (compound)", 0,
      [](workspace& w) {
        auto A = w.mat(0, 30, 40);
        return std::pair{A, A * 1.0};
      },
      true);
  torture("A(::-1, :) = A(::-1, :) * 2 (same reversed view)", 0, [](workspace& w) {
    auto A = w.mat(0, 30, 40)(range(29, -1, -1), lz::all);
    return std::pair{A, A * 2.0};
  });
}

BOOST_AUTO_TEST_CASE(transposed_operands_take_one_temporary) {
  torture("A = transpose(A)", 1, [](workspace& w) {
    auto A = w.mat(0, 37, 37);
    return std::pair{A, lz::transpose(A) * 1.0};
  });
  torture("A = transpose(A) + A", 1, [](workspace& w) {
    auto A = w.mat(0, 64, 64);
    return std::pair{A, lz::transpose(A) + A};
  });
  torture("A = permute(A3) (rank 3, through a reshaped workspace)", 1, [](workspace& w) {
    auto A = lz::adopt(w.p(0), {9, 9, 9}, {81, 9, 1});
    return std::pair{A, lz::permute(A, {2, 0, 1}) - A};
  });
}

BOOST_AUTO_TEST_CASE(shifted_slices_in_both_directions_take_one_temporary) {
  for (index_t shift : {1, 3, 8, 33}) {
    const std::string s = " (shift " + std::to_string(shift) + ")";
    torture("x[s:] = x[:-s] + 1" + s, 1, [&](workspace& w) {
      auto x = w.vec(0, 2000);
      return std::pair{x(range(shift, 2000)), x(range(0, 2000 - shift)) + 1.0};
    });
    torture("x[:-s] = x[s:] * 2" + s, 1, [&](workspace& w) {
      auto x = w.vec(0, 2000);
      return std::pair{x(range(0, 2000 - shift)), x(range(shift, 2000)) * 2.0};
    });
  }
  torture("A[1:, :] = A[:-1, :]", 1, [](workspace& w) {
    auto A = w.mat(0, 40, 50);
    return std::pair{A(range(1, 40), lz::all), A(range(0, 39), lz::all) * 1.0};
  });
  torture("A[:, :-1] = A[:, 1:] - A[:, :-1]", 1, [](workspace& w) {
    auto A = w.mat(0, 40, 50);
    return std::pair{A(lz::all, range(0, 49)), A(lz::all, range(1, 50)) - A(lz::all, range(0, 49))};
  });
}

BOOST_AUTO_TEST_CASE(reversed_operands_take_one_temporary) {
  torture("x = x[::-1]", 1, [](workspace& w) {
    auto x = w.vec(0, 1001);
    return std::pair{x, x(range(1000, -1, -1)) * 1.0};
  });
  torture("A = A[::-1, ::-1] - A", 1, [](workspace& w) {
    auto A = w.mat(0, 33, 47);
    return std::pair{A, A(range(32, -1, -1), range(46, -1, -1)) - A};
  });
  torture("x[::-2] = x[::2] (interleaved reversed)", 1, [](workspace& w) {
    auto x = w.vec(0, 1001);
    return std::pair{x(range(1000, -1, -2)), x(range(0, 1001, 2)) * 1.0};
  });
}

BOOST_AUTO_TEST_CASE(broadcast_sources_take_one_temporary) {
  torture("A = A + broadcast(row(A, 0))", 1, [](workspace& w) {
    auto A = w.mat(0, 30, 40);
    return std::pair{A, A + lz::broadcast_to(lz::row(A, 0), {30, 40})};
  });
  torture("A = A * broadcast(col(A, 3))", 1, [](workspace& w) {
    auto A = w.mat(0, 30, 40);
    return std::pair{A, lz::hadamard(A, lz::transpose(lz::broadcast_to(lz::col(A, 3), {40, 30})))};
  });
  torture("x = x - x[0] (a stride-0 view of x)", 1, [](workspace& w) {
    auto x = w.vec(0, 500);
    return std::pair{x, x - lz::broadcast_to(x(range(0, 1)), {500})};
  });
  torture("x[1:] = broadcast(x[0]) (source never rewritten)", 0, [](workspace& w) {
    auto x = w.vec(0, 500);
    return std::pair{x(range(1, 500)), lz::broadcast_to(x(range(0, 1)), {499}) * 1.0};
  });
}

BOOST_AUTO_TEST_CASE(partially_overlapping_sub_views_take_one_temporary) {
  torture("A[2:12, 3:13] = A[5:15, 1:11] * 2", 1, [](workspace& w) {
    auto A = w.mat(0, 40, 40);
    return std::pair{A(range(2, 12), range(3, 13)), A(range(5, 15), range(1, 11)) * 2.0};
  });
  torture("A[10:30, 10:30] = transpose(A[0:20, 15:35])", 1, [](workspace& w) {
    auto A = w.mat(0, 40, 40);
    return std::pair{A(range(10, 30), range(10, 30)),
                     lz::transpose(A(range(0, 20), range(15, 35))) * 1.0};
  });
  torture("A[::2, :] = A[1::2, :] (interleaved rows never meet)", 0, [](workspace& w) {
    auto A = w.mat(0, 40, 40);
    return std::pair{A(range(0, 40, 2), lz::all), A(range(1, 40, 2), lz::all) * 1.0};
  });
}

BOOST_AUTO_TEST_CASE(diagonal_destinations) {
  torture("diag(A) = row(A, 0)", 1, [](workspace& w) {
    auto A = w.mat(0, 37, 37);
    return std::pair{lz::diagonal(A), lz::row(A, 0) * 1.0};
  });
  torture("diag(A) = diag(A) + 1", 0, [](workspace& w) {
    auto A = w.mat(0, 37, 37);
    return std::pair{lz::diagonal(A), lz::diagonal(A) + 1.0};
  });
  torture("row(A, 5) = diag(A) * col(A, 5)", 1, [](workspace& w) {
    auto A = w.mat(0, 37, 37);
    return std::pair{lz::row(A, 5), lz::diagonal(A) * lz::col(A, 5)};
  });
}

BOOST_AUTO_TEST_CASE(in_place_reductions_read_everything_first) {
  torture("x = x / sum(|x|)", -1, [](workspace& w) {
    auto x = w.vec(0, 1000);
    return std::pair{x, x / (lz::sum(lz::abs(x)) + 1.0)};
  });
  torture("A = A - mean(A, 0) (column means)", -1, [](workspace& w) {
    auto A = w.mat(0, 32, 48);
    return std::pair{A, A - lz::broadcast_to(lz::mean(A, 0), {32, 48})};
  });
  torture("A = A - mean(A, 1) (row means)", -1, [](workspace& w) {
    auto A = w.mat(0, 32, 48);
    return std::pair{A, A - lz::transpose(lz::broadcast_to(lz::mean(A, 1), {48, 32}))};
  });
  torture("row(A, 0) = sum(A, 0)", 1, [](workspace& w) {
    auto A = w.mat(0, 32, 48);
    return std::pair{lz::row(A, 0), lz::sum(A, 0)};
  });
  torture("x = x - max(x)", -1, [](workspace& w) {
    auto x = w.vec(0, 777);
    return std::pair{x, x - lz::max(x)};
  });
}

BOOST_AUTO_TEST_CASE(product_operands) {
  torture("C = A*C", 1, [](workspace& w) {
    auto A = w.mat(0, 24, 24), C = w.mat(1000, 24, 17);
    return std::pair{C, A * C};
  });
  torture("C = transpose(C)*B", 1, [](workspace& w) {
    auto C = w.mat(0, 20, 20), B = w.mat(1000, 20, 20);
    return std::pair{C, lz::transpose(C) * B};
  });
  torture("C = C*C", 1, [](workspace& w) {
    auto C = w.mat(0, 20, 20);
    return std::pair{C, C * C};
  });
  torture("x = A*x", 1, [](workspace& w) {
    auto A = w.mat(0, 50, 50);
    auto x = w.vec(4000, 50);
    return std::pair{x, A * x};
  });
  torture("x = transpose(A)*x", 1, [](workspace& w) {
    auto A = w.mat(0, 50, 50);
    auto x = w.vec(4000, 50);
    return std::pair{x, lz::transpose(A) * x};
  });
  torture("col(A, 0) = A*col(A, 1)", 1, [](workspace& w) {
    auto A = w.mat(0, 30, 30);
    return std::pair{lz::col(A, 0), A * lz::col(A, 1)};
  });
  // Accumulating into the destination: BLAS's beta, no temporary.
  torture("C = C + A*B", 0, [](workspace& w) {
    auto A = w.mat(0, 30, 20), B = w.mat(1000, 20, 25), C = w.mat(2000, 30, 25);
    return std::pair{C, C + A * B};
  });
  torture(
      "C += A*B", 0,
      [](workspace& w) {
        auto A = w.mat(0, 30, 20), B = w.mat(1000, 20, 25), C = w.mat(2000, 30, 25);
        return std::pair{C, A * B};
      },
      true);
  torture("y = A*x + y", 0, [](workspace& w) {
    auto A = w.mat(0, 40, 30);
    auto x = w.vec(2000, 30), y = w.vec(3000, 40);
    return std::pair{y, A * x + y};
  });
  torture("C = C + A*C (operand and accumulator)", -1, [](workspace& w) {
    auto A = w.mat(0, 20, 20), C = w.mat(1000, 20, 20);
    return std::pair{C, C + A * C};
  });
  torture("C[0:10, :] = A * C[5:25, :] (overlapping rows)", 1, [](workspace& w) {
    auto A = w.mat(0, 10, 20), C = w.mat(1000, 30, 20);
    return std::pair{C(range(0, 10), lz::all), A * C(range(5, 25), lz::all)};
  });
}

} // namespace
