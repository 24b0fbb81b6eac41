// triangular rule: X = α·op(T)⁻¹·B for lz::solve(lz::triangular<lz::lower / lz::upper>(T), B)
//   → ONE trtrs (LAPACK's trsm after a check of the diagonal) reading T in place when it is a
//   leaf of LAPACK's layout (column-major, or row-major read as its transpose with the triangle
//   and the trans flag flipped), B copied (α folded) into the destination when it is
//   column-major. The other triangle is never read. A zero on the diagonal throws
//   lz::linalg_error with the destination untouched.
// Lowered by fusion/solvers.hpp; run by kernels/lapack.
#pragma once

#include <lz/fusion/solvers.hpp>

namespace lz::fusion::rules {

struct triangular : solver_rule<triangular> {
  static constexpr const char* name = "triangular";
  static constexpr rule_id id = rule_id::triangular;
  /// Compile time: a triangular solve node.
  template <class E>
  static constexpr bool matches() {
    if constexpr (is_solve_v<E>)
      return E::kind == solve_kind::lower || E::kind == solve_kind::upper;
    else
      return false;
  }
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    lower_solve<Op>(s, pol, dst, e, name);
    return true;
  }
};

} // namespace lz::fusion::rules
