// Solver lowering, shared by the solver rules (rules/solve.hpp, triangular.hpp, inverse.hpp,
// normal_equations.hpp): a solve node becomes LAPACK steps on column-major operands.
//
//   the matrix   copied once into a temporary in its own memory order (a row-major copy IS Aᵀ
//                column-major: it is factored as such and the solve takes trans = 'T'), then
//                factored (getrf / potrf) before anything is written, so a singular matrix
//                leaves the destination untouched; a triangular leaf and a factorization value
//                are used in place.
//   the RHS      copied (α folded into the copy) straight into the destination when it is
//                column-major (a vector of stride 1, a column-major matrix, the transpose of a
//                row-major one for B * inv(A)) and nothing else writes it; else into a
//                column-major temporary, assigned to the destination afterwards (one loop).
//   the solve    getrs / potrs / trtrs / gels in place.
#pragma once

#include <lz/expr/solve.hpp>
#include <lz/fusion/terms.hpp>

namespace lz::fusion {
namespace detail_solve {

using lz::detail::assign_op;

template <class V>
struct factored {
  mat<V> M;          ///< column-major (rs == 1, cs = lda)
  bool flip = false; ///< M is Aᵀ
};

// The column-major mat over a 2-D layout whose row stride is 1 (a vector: one column).
template <class V, class L>
mat<V> columns(V* p, const L& l, index_t ld_rows, origin from) {
  const index_t rows = l.extents[0];
  index_t cols = 1, ld = std::max<index_t>({ld_rows, rows, 1});
  if constexpr (L::rank() == 2) {
    cols = l.extents[1];
    if (cols > 1) ld = l.strides[1];
  }
  return {p, rows, cols, 1, ld, from};
}
// LAPACK takes the layout as it is: unit row stride (or one row), a leading dimension ≥ rows.
template <class L>
bool lapack_columns(const L& l) {
  const index_t rows = l.extents[0];
  if (rows > 1 && l.strides[0] != 1) return false;
  if constexpr (L::rank() == 2)
    if (l.extents[1] > 1 && l.strides[1] < std::max<index_t>(rows, 1)) return false;
  return true;
}

/// A sink's view of a matrix, transposed (strides swapped).
template <template <class, std::size_t> class View, class T>
View<T, 2> transposed_view(View<T, 2> v) {
  return View<T, 2>(v.data(), permute_layout(v.layout(), {1, 0}), lz::detail::trusted);
}

template <class A>
inline constexpr bool leaf_v = lz::detail::is_kind_v<A, lz::detail::leaf_kind>;

/// The matrix a copied into a fresh temporary as LAPACK factors it. With `may_flip`, a copy
/// in a's own memory order: row-major → M = Aᵀ (flip); without, always M = A.
template <class V, class Sink, class P, class A>
factored<V> copy_for_factor(Sink& s, const P& pol, const A& a, bool may_flip, const char* why) {
  const auto sh = a.shape();
  bool col = !may_flip;
  if constexpr (leaf_v<A>)
    if (may_flip) col = sh[0] > 1 && a.layout().strides[0] == 1;
  if (col) {
    const auto t = s.template temp<V, 2>(shape_t<2>{sh[1], sh[0]}, why);
    plan_assign<assign_op::set>(s, pol, t, lz::detail::transposed_closure(a));
    return {{t.data(), sh[0], sh[1], 1, std::max<index_t>(sh[0], 1), s.origin_of(t.data())}, false};
  }
  const auto t = s.template temp<V, 2>(sh, why);
  plan_assign<assign_op::set>(s, pol, t, a);
  return {{t.data(), sh[1], sh[0], 1, std::max<index_t>(sh[1], 1), s.origin_of(t.data())}, true};
}

template <class V>
lapack_step<V> step(lapack_op op, const char* call, const factored<V>& f) {
  lapack_step<V> g;
  g.op = op;
  g.call = call;
  g.A = f.M;
  g.m = f.M.rows;
  g.n = f.M.cols;
  return g;
}

// target ⊕= alpha·b (the RHS copy; skipped when b is the target itself and alpha is 1).
template <class Sink, class P, class Tgt, class B, class V>
void copy_rhs(Sink& s, const P& pol, Tgt target, const B& b, const V& alpha) {
  if constexpr (leaf_v<B>)
    if (alpha == V(1) && static_cast<const void*>(b.data()) == target.data() &&
        b.layout() == target.layout())
      return;
  if (alpha == V(1))
    plan_assign<assign_op::set>(s, pol, target, b);
  else
    plan_assign<assign_op::set>(s, pol, target,
                                make_map("*", fn::multiplies_fn{}, scalar_expr<V>{alpha}, b));
}

/// The call's name in errors: lz::solve, lz::lstsq.
template <solve_kind K>
constexpr const char* call_name() {
  return K == solve_kind::lstsq ? "lz::lstsq" : "lz::solve";
}

} // namespace detail_solve

/// What the solver rules share: they select the trees `Derived::matches<E>()` accepts when the
/// result has the destination's element type (else the nested rule converts), and their apply
/// never declines.
template <class Derived>
struct solver_rule {
  static constexpr bool always = true; ///< apply never declines once selected
  template <class T, std::size_t R, class E>
  static constexpr bool selects = [] {
    if constexpr (Derived::template matches<E>())
      return std::is_same_v<value_t<E>, T>;
    else
      return false;
  }();
};

/// dst ⊕= e for a solve node e (any kind): the steps in this file's header.
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void lower_solve(Sink& s, const P& pol, View<T, R> dst, const E& e, const char* rule) {
  using namespace detail_solve;
  using V = value_t<E>;
  using kernels::blas::trans;
  using kernels::blas::uplo;
  constexpr solve_kind K = E::kind;
  constexpr bool cplx = lz::detail::is_complex_v<V>;
  constexpr const char* call = call_name<K>();
  using A = std::remove_cvref_t<decltype(e.lhs)>;
  const index_t m = e.lhs.shape()[0], n = e.lhs.shape()[1];
  const index_t k = R == 2 ? e.shape()[1] : 1;
  if (dst.size() == 0) return;

  // 1. The matrix, factored before the destination is written.
  factored<V> F;
  int* ipiv = nullptr;
  uplo tri = K == solve_kind::upper ? uplo::upper : uplo::lower;
  if constexpr (K == solve_kind::factored_lu || K == solve_kind::factored_cholesky) {
    F = {{const_cast<V*>(e.lhs.data()), n, n, 1, std::max<index_t>(n, 1), s.origin_of(nullptr)},
         e.factors.transposed};
    ipiv = const_cast<int*>(e.factors.ipiv);
  } else if constexpr (K == solve_kind::lower || K == solve_kind::upper) {
    bool in_place = false;
    if constexpr (leaf_v<A>) {
      const auto& l = e.lhs.layout();
      auto* p = const_cast<V*>(e.lhs.data());
      if (lapack_columns(l)) {
        F = {columns(p, l, n, s.origin_of(p)), false};
        in_place = true;
      } else if (const auto t = permute_layout(l, {1, 0}); lapack_columns(t)) {
        F = {columns(p, t, n, s.origin_of(p)), true};
        in_place = true;
      }
    }
    if (!in_place) F = copy_for_factor<V>(s, pol, e.lhs, true, "the triangular matrix, copied");
    if (F.flip) tri = tri == uplo::lower ? uplo::upper : uplo::lower;
    if (s.noting())
      s.note({in_place ? "triangular: the matrix is read in place"
                       : "triangular: the matrix's layout is not LAPACK's: copied once"});
  } else if constexpr (K == solve_kind::lstsq) {
    F = copy_for_factor<V>(s, pol, e.lhs, !cplx, "least squares: the matrix, factored by QR");
  } else {
    F = copy_for_factor<V>(s, pol, e.lhs, K == solve_kind::lu || !cplx,
                           K == solve_kind::lu ? "LU factors" : "Cholesky factor");
    if constexpr (K == solve_kind::lu) {
      const auto piv = s.template temp<int, 1>(shape_t<1>{n}, "LU pivots");
      ipiv = piv.data();
      auto g = step<V>(lapack_op::getrf, call, F);
      g.ipiv = ipiv;
      s.lapack(rule, g);
    } else {
      auto g = step<V>(lapack_op::potrf, call, F);
      g.u = uplo::lower;
      s.lapack(rule, g);
    }
  }

  // 2. The right-hand side, into the destination when LAPACK can solve there.
  const index_t brows = K == solve_kind::lstsq ? std::max(m, n) : n;
  bool direct = Op == assign_op::set && K != solve_kind::lstsq && lapack_columns(dst.layout());
  if constexpr (K == solve_kind::lower || K == solve_kind::upper || K == solve_kind::factored_lu ||
                K == solve_kind::factored_cholesky)
    direct = direct && !touches_dst(dst, e.lhs); // the matrix is read in place
  using tgt_view = typename Sink::template view<V, R>;
  tgt_view target = [&] {
    if (direct) return tgt_view(dst.data(), dst.layout(), lz::detail::trusted);
    // column-major temporary: row-major of shape (k, brows)
    strided_layout<R> l;
    l.extents[0] = K == solve_kind::lstsq ? m : n;
    l.strides[0] = 1;
    V* p;
    if constexpr (R == 2) {
      p = s.template temp<V, 2>(shape_t<2>{k, brows}, "right-hand sides, column-major").data();
      l.extents[1] = k;
      l.strides[1] = brows;
    } else {
      p = s.template temp<V, 1>(shape_t<1>{brows}, "right-hand side").data();
    }
    return tgt_view(p, l, lz::detail::trusted);
  }();
  if (s.noting())
    s.note({direct ? "solve: the right-hand side is copied into the destination and solved there"
                   : "solve: the destination is not column-major (or is accumulated into): "
                     "solved in a column-major temporary"});
  if constexpr (K == solve_kind::lower || K == solve_kind::upper) {
    if (direct) { // trtrs's singularity test first: a zero on the diagonal leaves dst untouched
      lapack_step<V> c = step<V>(lapack_op::trcheck, call, F);
      s.lapack(rule, c);
    }
  }
  copy_rhs(s, pol, target, e.rhs, e.alpha);

  // 3. The solve, in place.
  lapack_step<V> g;
  g.call = call;
  g.A = F.M;
  g.B = columns(target.data(), target.layout(), brows, s.origin_of(target.data()));
  g.m = F.M.rows;
  g.n = F.M.cols;
  g.nrhs = k;
  g.t = F.flip ? trans::transpose : trans::none;
  if constexpr (K == solve_kind::lu || K == solve_kind::factored_lu) {
    g.op = lapack_op::getrs;
    g.ipiv = ipiv;
  } else if constexpr (K == solve_kind::cholesky || K == solve_kind::factored_cholesky) {
    g.op = lapack_op::potrs;
    g.t = trans::none;
    g.u = uplo::lower;
  } else if constexpr (K == solve_kind::lower || K == solve_kind::upper) {
    g.op = lapack_op::trtrs;
    g.u = tri;
  } else {
    g.op = lapack_op::gels;
  }
  s.lapack(rule, g);

  // 4. From the temporary into the destination.
  if (!direct) {
    strided_layout<R> l = target.layout();
    l.extents[0] = n;
    using read_view = typename Sink::template view<const V, R>;
    plan_assign<Op>(s, pol, dst, read_view(target.data(), l, lz::detail::trusted));
  }
}

} // namespace lz::fusion
