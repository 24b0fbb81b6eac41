// normal-equations rule: x = inv(Aᵀ·A)·Aᵀ·b (or inv(Aᵀ·A)·(Aᵀ·b)), the least-squares solution as
// textbooks write it, → ONE least-squares solve by QR: gels(A, b). Forming Aᵀ·A squares A's
// condition number and costs a syrk, a factorization and two products; QR reads A once, costs
// less for tall A and loses half as many digits. Applies when the three A's are one matrix at
// run time (same memory, Aᵀ its transpose view); otherwise the tree goes on to the solve and
// product rules as written. explain says which.
// Lowered by fusion/solvers.hpp; run by kernels/lapack.
#pragma once

#include <lz/fusion/solvers.hpp>

namespace lz::fusion::rules {

struct normal_equations {
  static constexpr const char* name = "normal equations";
  static constexpr rule_id id = rule_id::normal_equations;
  static constexpr bool always = false;

  template <class E>
  static constexpr bool leaf() {
    return lz::detail::is_kind_v<E, lz::detail::leaf_kind>;
  }
  // inv(L1·L2): a solve node over the product of two leaves.
  template <class S>
  static constexpr bool gram_solve() {
    if constexpr (is_solve_v<S>) {
      using G = std::remove_cvref_t<decltype(std::declval<S>().lhs)>;
      if constexpr (S::kind == solve_kind::lu && is_matmul_v<G>)
        return leaf<std::remove_cvref_t<decltype(std::declval<G>().lhs)>>() &&
               leaf<std::remove_cvref_t<decltype(std::declval<G>().rhs)>>();
      else
        return false;
    } else {
      return false;
    }
  }
  template <class E>
  static constexpr int form() {
    if constexpr (is_matmul_v<E>) { // (inv(Aᵀ·A)·Aᵀ)·b
      using S = std::remove_cvref_t<decltype(std::declval<E>().lhs)>;
      if constexpr (gram_solve<S>())
        return leaf<std::remove_cvref_t<decltype(std::declval<S>().rhs)>>() ? 1 : 0;
      else
        return 0;
    } else if constexpr (gram_solve<E>()) { // inv(Aᵀ·A)·(Aᵀ·b)
      using B = std::remove_cvref_t<decltype(std::declval<E>().rhs)>;
      if constexpr (is_matmul_v<B>)
        return leaf<std::remove_cvref_t<decltype(std::declval<B>().lhs)>>() ? 2 : 0;
      else
        return 0;
    } else {
      return 0;
    }
  }
  /// Compile time: inv(L1·L2)·L3·b or inv(L1·L2)·(L3·b) over leaves, of the destination's type.
  template <class T, std::size_t R, class E>
  static constexpr bool selects = [] {
    if constexpr (form<E>() != 0)
      return std::is_same_v<value_t<E>, T>;
    else
      return false;
  }();

  // True when t is the transpose view of a (same memory, swapped layout).
  template <class L1, class L2>
  static bool transpose_of(const L1& t, const L2& a) {
    return static_cast<const void*>(t.data()) == static_cast<const void*>(a.data()) &&
           t.layout() == permute_layout(a.layout(), {1, 0});
  }

  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    const auto& S = [&]() -> const auto& {
      if constexpr (form<E>() == 1)
        return e.lhs;
      else
        return e;
    }
    ();
    const auto& t1 = S.lhs.lhs;
    const auto& a = S.lhs.rhs;
    const auto& t3 = [&]() -> const auto& {
      if constexpr (form<E>() == 1)
        return S.rhs;
      else
        return S.rhs.lhs;
    }
    ();
    if (!transpose_of(t1, a) || !transpose_of(t3, a)) {
      if (s.noting())
        s.note({"normal equations: the pattern inv(Aᵀ·A)·Aᵀ·b, but not one matrix A: as written"});
      return false;
    }
    const auto& b = [&]() -> const auto& {
      if constexpr (form<E>() == 1)
        return e.rhs;
      else
        return S.rhs.rhs;
    }
    ();
    using A = std::remove_cvref_t<decltype(a)>;
    using B = std::remove_cvref_t<decltype(b)>;
    if (s.noting())
      s.note({"normal equations: inv(Aᵀ·A)·Aᵀ·b is the least-squares solution: one QR solve "
              "(gels), no Aᵀ·A formed"});
    shape_t<R> sh = b.shape();
    sh[0] = a.shape()[1];
    solve_expr<A, B, solve_kind::lstsq> ls{a, b, sh, S.alpha, {}};
    lower_solve<Op>(s, pol, dst, ls, name);
    return true;
  }
};

} // namespace lz::fusion::rules
