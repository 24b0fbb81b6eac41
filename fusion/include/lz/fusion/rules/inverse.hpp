// inverse rule: X = α·A⁻¹ for lz::inv(A) on its own (inv(A)*B never gets here: it is a solve)
//   → A copied once into a temporary in its own memory order, getrf, getri there (a singular A
//   throws lz::linalg_error before the destination is written), then X = α·tmp (or its
//   transpose, for a column-major copy) as one loop, `+=` included.
// Lowered here and by fusion/solvers.hpp; run by kernels/lapack.
#pragma once

#include <lz/fusion/solvers.hpp>

namespace lz::fusion::rules {

struct inverse : solver_rule<inverse> {
  static constexpr const char* name = "inverse";
  static constexpr rule_id id = rule_id::inverse;
  /// Compile time: lz::inv(A).
  template <class E>
  static constexpr bool matches() {
    return is_inv_v<E>;
  }
  template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
            class T, std::size_t R, class E>
  static bool apply(Sink& s, const P& pol, View<T, R> dst, const E& e) {
    using V = value_t<E>;
    using namespace detail_solve;
    const index_t n = e.shape()[0];
    if (n == 0) return true;
    const factored<V> F = copy_for_factor<V>(s, pol, e.arg, true, "the inverse, in place");
    const auto piv = s.template temp<int, 1>(shape_t<1>{n}, "LU pivots");
    auto g = step<V>(lapack_op::getrf, "lz::inv", F);
    g.ipiv = piv.data();
    s.lapack(name, g);
    g.op = lapack_op::getri;
    s.lapack(name, g);
    // The copy holds M⁻¹ column-major: A⁻¹ row-major when M = Aᵀ (flip), else (A⁻¹)ᵀ.
    using read_view = typename Sink::template view<const V, 2>;
    const auto l = strided_layout<2>::right(shape_t<2>{n, n});
    const read_view t(F.M.ptr, l, lz::detail::trusted);
    if (s.noting())
      s.note({"inverse: formed by getri in a temporary (inv(A) * B would be a solve)"});
    auto out = [&](const auto& x) {
      if (e.alpha == V(1))
        plan_assign<Op>(s, pol, dst, x);
      else
        plan_assign<Op>(s, pol, dst,
                        make_map("*", fn::multiplies_fn{}, scalar_expr<V>{e.alpha}, x));
    };
    if (F.flip)
      out(t);
    else
      out(detail_solve::transposed_view(t));
    return true;
  }
};

} // namespace lz::fusion::rules
