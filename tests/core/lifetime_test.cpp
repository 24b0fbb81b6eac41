// Checked builds (LZ_CHECKED=1, set for this file by tests/CMakeLists.txt; docs/errors.md,
// "Lifetimes"): an expression evaluated after a tensor it reads was destroyed or reallocated
// throws lz::lifetime_error naming the operand's shape, and leaves the destination untouched,
// instead of reading freed memory. The three ways users meet it (a returned `a + b` over locals,
// a stored expression over a tensor gone out of scope, a generic `f(E&&)` called with a
// temporary), views and slices, reductions, writes through a stale view; and no false alarm:
// moved buffers, owned temporaries, computed reductions and user memory (lz::adopt).
#include <boost/test/unit_test.hpp>

#include <lz/lz.hpp>

#include <optional>
#include <string>
#include <thread>
#include <vector>

static_assert(LZ_CHECKED, "this suite is compiled with LZ_CHECKED=1");

namespace {

using vec = lz::vector<double>;

auto sum_of_locals(lz::index_t n) {
  vec a = lz::ones<double>({n}), b = lz::ones<double>({n});
  return a + b; // a and b are freed when the function returns
}

template <lz::expression E>
auto normalized(E&& x) {
  return x / lz::norm2(x); // x is an lvalue here: the node views it
}

// The message names the operand's shape and the section of docs/errors.md.
bool names_shape(const lz::lifetime_error& e, const std::string& shape) {
  const std::string w = e.what();
  return w.find("tensor of shape " + shape) != std::string::npos &&
         w.find("Lifetimes") != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(this_file_turns_lifetime_tracking_on) {
  BOOST_TEST(lz::detail::lifetime_tracking());
  vec x(3);
  BOOST_TEST(x.lz_serial() != 0u);
  BOOST_TEST(x.view().lz_serial() == x.lz_serial());
  BOOST_TEST(x(lz::range(0, 2)).lz_serial() == x.lz_serial());
  BOOST_TEST(lz::transpose(lz::reshape(x, {3, 1})).lz_serial() == x.lz_serial());
  vec y = x; // a copy is a new buffer
  BOOST_TEST(y.lz_serial() != x.lz_serial());
}

BOOST_AUTO_TEST_CASE(a_returned_sum_of_local_tensors_throws_lifetime_error_at_evaluation) {
  auto e = sum_of_locals(5);
  vec z = {1, 2, 3, 4, 5};
  BOOST_CHECK_EXCEPTION(z = e, lz::lifetime_error,
                        [](const auto& x) { return names_shape(x, "(5,)"); });
  BOOST_TEST(z(4) == 5.0); // untouched
  BOOST_CHECK_THROW(vec w = e, lz::lifetime_error);
  BOOST_CHECK_THROW(z += e, lz::lifetime_error);
  BOOST_CHECK_THROW((void)lz::eval(e), lz::lifetime_error);
  BOOST_TEST(z(0) == 1.0);
}

BOOST_AUTO_TEST_CASE(a_stored_expression_over_a_tensor_out_of_scope_throws) {
  lz::matrix<double> B = lz::ones<double>({2, 3});
  using E = decltype(std::declval<const lz::matrix<double>&>() * 2.0 + B);
  std::optional<E> stored;
  {
    lz::matrix<double> A = lz::ones<double>({2, 3});
    stored.emplace(A * 2.0 + B);
    lz::matrix<double> ok = *stored; // fine while A lives
    BOOST_TEST(ok(1, 2) == 3.0);
  }
  lz::matrix<double> C(2, 3);
  BOOST_CHECK_EXCEPTION(C = *stored, lz::lifetime_error,
                        [](const auto& x) { return names_shape(x, "(2,3)"); });
  BOOST_TEST(C(0, 0) == 0.0);
}

BOOST_AUTO_TEST_CASE(a_generic_function_called_with_a_temporary_throws) {
  auto e = normalized(vec{3, 4}); // the temporary is freed at the end of this statement
  vec y(2);
  BOOST_CHECK_THROW(y = e, lz::lifetime_error);
  vec kept = {3, 4};
  y = normalized(kept); // the same function over a variable is fine
  BOOST_TEST(y(0) == 0.6, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(a_reallocated_operand_throws_like_a_destroyed_one) {
  vec x = {1, 2, 3};
  auto e = x + 1.0;
  x.resize({4}); // new storage: e still points at the old
  vec y(3);
  BOOST_CHECK_EXCEPTION(y = e, lz::lifetime_error,
                        [](const auto& err) { return names_shape(err, "(3,)"); });
  x = lz::ones<double>({7}); // assigning another shape reallocates too
  auto f = x * 2.0;
  x = lz::ones<double>({8});
  vec z(7);
  BOOST_CHECK_THROW(z = f, lz::lifetime_error);
}

BOOST_AUTO_TEST_CASE(views_and_slices_of_a_dead_tensor_throw_when_read_or_written) {
  std::optional<lz::tensor_view<double, 1>> s;
  std::optional<lz::tensor_view<const double, 2>> t;
  {
    lz::matrix<double> A = lz::ones<double>({3, 4});
    s.emplace(A(1, lz::all));
    t.emplace(lz::transpose(A));
  }
  vec y(4);
  BOOST_CHECK_THROW(y = *s * 2.0, lz::lifetime_error);
  BOOST_CHECK_THROW(*s = 1.0, lz::lifetime_error); // writing through it
  BOOST_CHECK_THROW(*s = y, lz::lifetime_error);
  lz::matrix<double> M(4, 3);
  BOOST_CHECK_EXCEPTION(M = *t + 0.0, lz::lifetime_error,
                        [](const auto& err) { return names_shape(err, "(4,3)"); });
}

BOOST_AUTO_TEST_CASE(products_and_reductions_over_a_dead_tensor_throw) {
  auto product = [] {
    lz::matrix<double> A = lz::ones<double>({3, 3}), B = lz::ones<double>({3, 3});
    return lz::transpose(A) * B;
  }();
  lz::matrix<double> C(3, 3);
  BOOST_CHECK_THROW(C = product, lz::lifetime_error);
  auto total = [] {
    vec x = lz::ones<double>({10});
    return lz::sum(x * x);
  }();
  BOOST_CHECK_THROW((void)double(total), lz::lifetime_error); // the first use computes it
  auto rows = [] {
    lz::matrix<double> A = lz::ones<double>({2, 5});
    return lz::sum(A, 1);
  }();
  vec r(2);
  BOOST_CHECK_THROW(r = rows, lz::lifetime_error);
}

// Trees that check their own leaves where they read them (fusion::checks_own_leaves_v): BLAS 1
// in place (`y = 2 * x + y`, when the level1 rule is on) checks its terms before the call, the
// dot rule its two vectors (lz::sum(x * y) of up to dot_blas_max elements), an axis reduction
// at the root its operand; the loop behind each checks its leaves as it gathers them.
BOOST_AUTO_TEST_CASE(blas_1_dot_and_axis_reductions_over_a_dead_tensor_throw) {
  const lz::tuning saved = lz::thresholds();
  lz::thresholds().level1_blas = 0; // y = a*x + y in place: one axpy call
  vec y = lz::ones<double>({6});
  auto update = [&y] {
    vec x = lz::ones<double>({6});
    return 2.0 * x + y;
  }();
  BOOST_CHECK_EXCEPTION(y = update, lz::lifetime_error,
                        [](const auto& x) { return names_shape(x, "(6,)"); });
  BOOST_TEST(y(5) == 1.0); // untouched
  lz::thresholds() = saved;
  BOOST_CHECK_THROW(y = update, lz::lifetime_error); // the loop's check, with the rule off
  BOOST_TEST(y(5) == 1.0);
  auto dot = [&y] {
    vec x = lz::ones<double>({6});
    return lz::sum(x * y);
  }();
  BOOST_CHECK_EXCEPTION((void)double(dot), lz::lifetime_error,
                        [](const auto& x) { return names_shape(x, "(6,)"); });
  auto columns = [] {
    lz::matrix<double> A = lz::ones<double>({4, 3});
    return lz::sum(A, 0);
  }();
  vec c = {7, 7, 7};
  BOOST_CHECK_EXCEPTION(c = columns, lz::lifetime_error,
                        [](const auto& x) { return names_shape(x, "(4,3)"); });
  BOOST_TEST(c(2) == 7.0);
}

BOOST_AUTO_TEST_CASE(living_moved_owned_computed_and_adopted_operands_do_not_throw) {
  vec a = {1, 2, 3}, b = {10, 20, 30};
  auto e = a + b;
  vec moved = std::move(a); // the buffer lives on in `moved`
  vec y(3);
  y = e;
  BOOST_TEST(y(2) == 33.0);
  auto owned = b + lz::eval(b * 2.0); // the temporary is moved into the node
  y = owned;
  BOOST_TEST(y(0) == 30.0);
  std::optional<double> value;
  auto n = [&] {
    vec v = {3, 4};
    auto r = lz::norm2(v);
    value = double(r); // computed while v lives: the value stays
    return r;
  }();
  BOOST_TEST(double(n) == 5.0);
  vec w(1);
  w = n + lz::zeros<double>({1});
  BOOST_TEST(w(0) == 5.0);
  auto forwarded = [](auto&& x) { return std::forward<decltype(x)>(x) * 2.0; };
  y = forwarded(vec{1, 2, 3}); // a forwarded temporary is moved into the node
  BOOST_TEST(y(2) == 6.0);
  auto kept = forwarded(vec{4, 5, 6});
  y = kept;
  BOOST_TEST(y(0) == 8.0);
  std::vector<double> user = {1, 2, 3};
  auto u = lz::adopt(user.data(), {3}); // user memory: not tracked, never reported
  BOOST_TEST(u.lz_serial() == 0u);
  y = u * 2.0;
  BOOST_TEST(y(1) == 4.0);
}

BOOST_AUTO_TEST_CASE(tracking_is_thread_safe_while_threads_make_free_and_evaluate) {
  std::vector<std::thread> pool;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([t, &failures] {
      for (int i = 0; i < 300; ++i) {
        vec x = lz::ones<double>({16 + i % 7});
        vec y = x * 2.0 + 1.0;
        if (y(0) != 3.0) ++failures[t];
        auto dead = sum_of_locals(4);
        vec z(4);
        try {
          z = dead;
          ++failures[t];
        } catch (const lz::lifetime_error&) {
        }
      }
    });
  for (auto& th : pool) th.join();
  for (int f : failures) BOOST_TEST(f == 0);
}
