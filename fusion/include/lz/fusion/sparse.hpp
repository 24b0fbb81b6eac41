// Lowering a sparse product term `C = coef·op(S)·X + beta·C` (S sparse, X a dense vector or
// matrix) into ONE sparse step (SpMV or SpMM), shared by the sparse rules (rules/spmv.hpp,
// rules/spmm.hpp) and every rule that lowers product terms (lower_product dispatches here):
//   - the sparse operand: a leaf's own arrays; a transposed leaf (a CSC view) sets op = T; a
//     values expression that is c·(the values) (2*A, -A, A/4) folds c into α and reads the
//     values in place; any other values expression (abs(A), A + A) is ONE loop into a
//     temporary of nnz values, the pattern read in place;
//   - the dense operand: scalars and transposes peeled (prepare_operand), an expression
//     evaluated into a temporary;
//   - α = coef · the scalars of both sides; β from the caller (the destination folded, or 1
//     after another term). The kernels take any strides: no copy for a strided x, y, B or C.
// A sparse operand added as a dense term (`A + D`: op(A)·I) is one `add` step instead: α·op(A)
// scattered into C (rule sparse_add); a sparse × sparse product added as one (`A * B + D`) is
// one `multd` step: α·op(A)·op(B) accumulated into C's rows, no pattern formed, each operand
// prepared as above (the product's α and both operands' scalars folded into one α).
#pragma once

#include <lz/expr/sparse.hpp>
#include <lz/fusion/products.hpp>

namespace lz::fusion {

namespace detail_sparse {

/// The sparse operand of a product, ready for a step; its scalar factor goes into `scale`.
template <class V, class Sink, class P, class S>
sparse_mat<V> prepare_sparse(Sink& s, const P& pol, const S& a, V& scale, const char* rule) {
  using I = typename S::index_type;
  const auto& p = a.pattern();
  sparse_mat<V> m;
  m.rows = p.rows, m.cols = p.cols, m.nnz = p.nnz;
  m.index_bits = int(sizeof(I) * 8);
  m.row_ptr = p.row_ptr, m.col_idx = p.col_idx;
  m.trans = p.trans;
  if constexpr (requires { a.values_; }) { // a leaf
    m.values = a.values_data();
    m.from = s.origin_of(m.values);
  } else {
    bool trans = false;
    const auto& core = detail_operands::peel(a.values_expr(), scale, trans);
    using C = std::remove_cvref_t<decltype(core)>;
    if constexpr (lz::detail::is_kind_v<C, lz::detail::leaf_kind> &&
                  std::is_same_v<value_t<C>, V>) {
      m.values = core.data();
      m.from = s.origin_of(m.values);
    } else {
      if (s.noting())
        s.note({rule, ": the sparse operand's values are an expression; one loop writes them (",
                detail_plan::byte_count{std::size_t(p.nnz) * sizeof(V)},
                ") into a temporary, the pattern is read in place"});
      auto t = s.template temp<V, 1>(shape_t<1>{p.nnz}, "sparse values");
      const int id = s.last_temp();
      plan_assign<lz::detail::assign_op::set>(s, pol, t, core);
      m.values = t.data();
      m.from = origin{id};
    }
  }
  return m;
}

} // namespace detail_sparse

/// Lowers the sparse product term `prod` (an spmul node) into `C = coef·prod + beta·C`: one
/// SpMV (vector result) or SpMM step. @pre no operand of the product overlaps C.
template <class V, class Sink, class P, class M>
void lower_spmul(Sink& s, const P& pol, const char* rule, const M& prod, const mat<V>& C, V coef,
                 V beta) {
  sparse_step<V> g;
  V scale = coef;
  g.C = C;
  g.beta = beta;
  g.threads = P::kind == exec_kind::automatic || P::kind == exec_kind::par;
  const auto op_of = [](const sparse_mat<V>& m) {
    return m.trans ? kernels::blas::trans::transpose : kernels::blas::trans::none;
  };
  if constexpr (spgemm_expression<decltype(prod.lhs)>) {
    // A * B + D: (α·op(A)·op(B))·I, the product accumulated into C (expr/sparse.hpp refuses
    // other operands than sparse operands and values expressions: nothing to lower then).
    if constexpr (sparse_expression<decltype(prod.lhs.lhs)> &&
                  sparse_expression<decltype(prod.lhs.rhs)>) {
      scale = scale * prod.lhs.alpha;
      g.A = detail_sparse::prepare_sparse<V>(s, pol, prod.lhs.lhs, scale, rule);
      g.S = detail_sparse::prepare_sparse<V>(s, pol, prod.lhs.rhs, scale, rule);
      g.t = op_of(g.A);
      g.ts = op_of(g.S);
      if (s.noting())
        for (const sparse_mat<V>* m : {&g.A, &g.S})
          if (m->trans)
            s.note({rule, ": ", m == &g.A ? "A" : "B",
                    " is stored transposed (CSC): the kernel transposes it into CSR once, a "
                    "counting sort of its ",
                    m->nnz, " entries in its own workspace"});
      g.op = sparse_op::multd;
      g.alpha = scale;
      g.k = C.cols;
      s.sparse(rule, g);
    }
  } else {
    g.A = detail_sparse::prepare_sparse<V>(s, pol, prod.lhs, scale, rule);
    g.t = op_of(g.A);
    if constexpr (is_sparse_identity_v<std::remove_cvref_t<decltype(prod.rhs)>>) {
      // A + D: op(A)·I is op(A) itself, added into C (a scatter of the stored entries).
      g.op = sparse_op::add;
      g.alpha = scale;
      g.k = C.cols;
      s.sparse(rule, g);
      return;
    }
    const scaled_mat<V> x = prepare_operand<V>(s, pol, prod.rhs, rule);
    g.op = rank_v<M> == 1 ? sparse_op::spmv : sparse_op::spmm;
    g.alpha = scale * x.scale;
    g.B = x.m;
    g.k = rank_v<M> == 1 ? 1 : C.cols;
    s.sparse(rule, g);
  }
}

} // namespace lz::fusion
