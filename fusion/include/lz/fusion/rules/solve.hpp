// solve rule: X = α·op(A)⁻¹·B — lz::solve(A, B), inv(A)*B, inv(A)*x, B*inv(A) (the transposed
// solve), lz::solve(lz::sympd(A), B), lz::lstsq(A, B), and a factorization's .solve(B):
//   LU        A copied once (in its own memory order; row-major → trans 'T'), getrf, then getrs
//             in the destination; no inverse is ever formed (no getri)
//   sympd     potrf + potrs (Cholesky: a third of LU's flops, no pivots)
//   lstsq     gels (QR) into a column-major temporary of max(m, n) rows
//   factored  only the solve (getrs / potrs) with the factorization's stored factors
// α (2*inv(A)*B, -lz::solve(A, b)) is folded into the copy of B. The destination holds the
// solution when it is column-major (for B*inv(A): row-major) and is assigned, else a temporary
// does (one loop copies it out, `+=` included). Inside a larger tree (inv(A)*B + C) the nested
// rule plans the solve as a group into the destination, and the rest is one pass.
// Lowered by fusion/solvers.hpp; run by kernels/lapack.
#pragma once

#include <lz/fusion/solvers.hpp>

namespace lz::fusion::rules {

struct solve : solver_rule<solve> {
  static constexpr const char* name = "solve";
  static constexpr rule_id id = rule_id::solve;
  template <class E>
  static constexpr bool solve_node() {
    if constexpr (is_solve_v<E>)
      return E::kind != solve_kind::lower && E::kind != solve_kind::upper;
    else
      return false;
  }
  /// Compile time: a solve node, or its transpose (B * inv(A)).
  template <class E>
  static constexpr bool matches() {
    if constexpr (std::is_same_v<lz::detail::kind_t<E>, lz::detail::permute_kind>)
      return rank_v<E> == 2 && solve_node<std::remove_cvref_t<decltype(std::declval<E>().arg)>>();
    else
      return solve_node<E>();
  }
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    if constexpr (is_solve_v<E>)
      lower_solve<Op>(s, pol, dst, e, name);
    else // (op(A)⁻¹·Bᵀ)ᵀ into dst: the solve into dstᵀ
      lower_solve<Op>(s, pol, detail_solve::transposed_view(dst), e.arg, name);
    return true;
  }
};

} // namespace lz::fusion::rules
