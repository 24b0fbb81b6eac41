// Lowering a sparse product term `C = coef·op(S)·X + beta·C` (S sparse, X a dense vector or
// matrix) into ONE sparse step (SpMV or SpMM), shared by the sparse rules (rules/spmv.hpp,
// rules/spmm.hpp) and every rule that lowers product terms (lower_product dispatches here):
//   - the sparse operand: a leaf's own arrays; a transposed leaf (a CSC view) sets op = T; a
//     values expression that is c·(the values) (2*A, -A, A/4) folds c into α and reads the
//     values in place; any other values expression (abs(A), A + A) is computed inside an SpMV
//     or SpMM a block of entries at a time (kernels::sparse::spmv_fill: host operands, lazuli's
//     own functions; a transposed one scatters its blocks), else ONE loop into a temporary of
//     nnz values; the pattern is read in place;
//   - the dense operand: scalars and transposes peeled (prepare_operand), an expression
//     evaluated into a temporary;
//   - α = coef · the scalars of both sides; β from the caller (the destination folded, or 1
//     after another term). The kernels take any strides: no copy for a strided x, y, B or C.
// A sparse operand added as a dense term (`A + D`: op(A)·I) is one `add` step instead: α·op(A)
// scattered into C (rule sparse_add); a sparse × sparse product added as one (`A * B + D`) is
// one `multd` step: α·op(A)·op(B) accumulated into C's rows, no pattern formed, each operand
// prepared as above (the product's α and both operands' scalars folded into one α); a function
// of a sum of two sparse operands times a vector or matrix (`abs(A + B) * x`) is one `summv`
// step: the operands' rows merged a block at a time, f applied to each block, then summed
// against x (merges_sum_into_product; docs/decisions/spmv-over-a-merge.md).
#pragma once

#include <lz/expr/sparse.hpp>
#include <lz/fusion/products.hpp>

#include <memory>

namespace lz::fusion {

// ---- computed sparse terms in a dense tree: settled before planning --------------------------
//
// `y = lz::map(f, A + B) * x`, `M = D + lz::abs(A * B)`, `M = (A + B) * C + D` hold a sparse term
// whose pattern is known only once it is computed (a sparse sum, product or function of one, as
// the left operand of a product node). Before the tree is planned, fusion::execute computes each
// such term into new CSR arrays (as assigning it to a csr_matrix would: rules/spgemm.hpp,
// sparse_sum.hpp, sparse_apply.hpp) and rebuilds the tree with a `settled_csr` leaf over them,
// so the rules see a plain CSR operand (one SpMV, SpMM, scatter or csrmultd) and the arrays live
// as long as the rebuilt tree. Everything is computed before anything is written: an error
// leaves the destination untouched. lz::explain settles through explain_sink::settled_sparse
// (a described step and a placeholder of unknown nnz). The walk covers the elementwise nodes
// (map, transpose, broadcast), products (dense and sparse) and solves, as settle_reductions does
// for reductions; a reduction's operand is evaluated through fusion::execute, which settles it
// (docs/decisions/computed-sparse-terms-settled-before-planning.md).

/// A computed sparse term's CSR arrays as a leaf: a csr_view of them that keeps them alive.
template <class V, class I>
struct settled_csr : csr_view<const V, I> {
  std::shared_ptr<const void> keep; ///< the arrays' owner (null for explain's placeholder)
  bool placeholder = false;         ///< explain's: no arrays, nnz unknown (printed "?")
};

/// Computes a sparse term into a settled_csr (defined in rules/sparse_apply.hpp).
struct sparse_computer {
  template <class G>
  settled_csr<value_t<G>, typename G::index_type> operator()(const G& g) const;
};

namespace detail_sparse {

template <class X>
struct rebind2;
template <template <class, class> class N, class A, class B>
struct rebind2<N<A, B>> {
  template <class A2, class B2>
  using type = N<A2, B2>;
};

// A sparse operand that must be settled (a computed term other than a product kept as one
// csrmultd: `A * B + D` stays a product of two plain operands).
template <class S>
constexpr bool settles_operand() {
  if constexpr (spgemm_expression<S>)
    return computed_sparse<decltype(S::lhs)> || computed_sparse<decltype(S::rhs)>;
  else
    return computed_sparse<S>;
}

// Whether every functor of dense expression E is one of lazuli's own (they never throw).
template <class E>
constexpr bool never_throws() {
  using X = std::remove_cvref_t<E>;
  using K = lz::detail::kind_t<X>;
  if constexpr (std::is_same_v<K, lz::detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return fn::never_throws<F> && (true && ... && never_throws<A>());
    }(static_cast<const X*>(nullptr));
  else if constexpr (std::is_same_v<K, lz::detail::permute_kind> ||
                     std::is_same_v<K, lz::detail::broadcast_kind>)
    return never_throws<decltype(X::arg)>();
  else
    return std::is_same_v<K, lz::detail::leaf_kind> || std::is_same_v<K, lz::detail::scalar_kind>;
}

} // namespace detail_sparse

/// True when G is a function of a sum of two sparse operands (no product term): the kind a
/// product merges (merges_sum_into_product) and the only one for which sparse_apply_same_pattern
/// can hold (rules/sparse_apply.hpp; its operands' values loop compiles).
template <class G>
consteval bool sparse_apply_of_operand_sum() {
  if constexpr (sparse_apply_expression<G>) {
    using T = std::remove_cvref_t<decltype(G::arg)>;
    if constexpr (sparse_sum_expression<T>)
      return sparse_expression<decltype(T::lhs)> && sparse_expression<decltype(T::rhs)>;
    else
      return false;
  } else {
    return false;
  }
}

namespace detail_sparse {

template <class S>
consteval bool merged_operand() {
  if constexpr (sparse_apply_of_operand_sum<S>())
    return std::is_same_v<typename S::value_type, typename S::term_value_type> &&
           never_throws<
               std::invoke_result_t<const decltype(S::f)&, const typename S::values_view&>>();
  else
    return false;
}

} // namespace detail_sparse

/// True for a product `f(a·A + b·B) * X` (A and B sparse operands, f lazuli's own functions
/// keeping the element type, X a dense vector or matrix) that runs as ONE merged step
/// (sparse_op::summv: rows merged a block at a time, f applied to the block, then summed against
/// X): the sum is never settled into CSR arrays. Other computed terms (a user function, which may
/// throw after the destination was partly written; a type-changing f; a product inside) are
/// settled first.
template <class M>
consteval bool merges_sum_into_product() {
  if constexpr (is_spmul_v<M>) // (not `f(A + B) + D`: op(·)·I is a scatter of a settled term)
    return !is_sparse_identity_v<std::remove_cvref_t<decltype(M::rhs)>> &&
           detail_sparse::merged_operand<std::remove_cvref_t<decltype(M::lhs)>>();
  else
    return false;
}

namespace detail_sparse {

// The sparse operand of product M, when it must be settled.
template <class M>
constexpr bool settles_product_operand() {
  return !merges_sum_into_product<M>() && settles_operand<decltype(M::lhs)>();
}

template <class E>
constexpr bool holds_computed() {
  using X = std::remove_cvref_t<E>;
  if constexpr (computed_sparse<X> || sparse_expression<X> || scalar_like<X>)
    return false;
  else if constexpr (is_spmul_v<X>)
    return settles_product_operand<X>() || holds_computed<decltype(X::rhs)>();
  else if constexpr (is_matmul_v<X> || is_solve_v<X>)
    return holds_computed<decltype(X::lhs)>() || holds_computed<decltype(X::rhs)>();
  else if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (false || ... || holds_computed<A>());
    }(static_cast<const X*>(nullptr));
  else if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::permute_kind> ||
                     std::is_same_v<lz::detail::kind_t<X>, lz::detail::broadcast_kind>)
    return holds_computed<decltype(X::arg)>();
  else
    return false;
}

template <class S, class F>
auto settle_operand(const S& a, const F& make) {
  if constexpr (!settles_operand<S>()) {
    return a;
  } else if constexpr (spgemm_expression<S>) {
    const auto one = [&](const auto& t) {
      if constexpr (computed_sparse<std::remove_cvref_t<decltype(t)>>)
        return make(t);
      else
        return t;
    };
    auto l = one(a.lhs);
    auto r = one(a.rhs);
    return spgemm_expr<decltype(l), decltype(r)>{std::move(l), std::move(r), a.alpha, a.shape_};
  } else {
    return make(a);
  }
}

} // namespace detail_sparse

/// True when tree E holds a computed sparse term that fusion::execute settles first.
template <class E>
inline constexpr bool holds_computed_sparse_v = detail_sparse::holds_computed<E>();

/// e with each computed sparse term (as a product's sparse operand) replaced by `make(term)`, a
/// settled_csr, in the tree's left-to-right order; the other nodes copied as they are.
template <class E, class F>
auto settle_sparse(const E& e, const F& make) {
  using X = std::remove_cvref_t<E>;
  if constexpr (!holds_computed_sparse_v<X>) {
    return e;
  } else if constexpr (is_spmul_v<X> || is_matmul_v<X>) {
    auto l = [&] {
      if constexpr (merges_sum_into_product<X>())
        return e.lhs;
      else if constexpr (is_spmul_v<X>)
        return detail_sparse::settle_operand(e.lhs, make);
      else
        return settle_sparse(e.lhs, make);
    }();
    auto r = settle_sparse(e.rhs, make);
    using N = typename detail_sparse::rebind2<X>::template type<decltype(l), decltype(r)>;
    return N{std::move(l), std::move(r), e.shape_};
  } else if constexpr (is_solve_v<X>) {
    auto l = settle_sparse(e.lhs, make);
    auto r = settle_sparse(e.rhs, make);
    return solve_expr<decltype(l), decltype(r), X::kind>{std::move(l), std::move(r), e.shape_,
                                                         e.alpha, e.factors};
  } else {
    return lz::detail::rebuild_elementwise(e,
                                           [&](const auto& c) { return settle_sparse(c, make); });
  }
}

namespace detail_sparse {

template <class X>
constexpr bool is_rank1_view = false;
template <class T>
constexpr bool is_rank1_view<tensor_view<T, 1>> = true;

// Whether a values expression can be computed a block of entries at a time (values_block): maps
// over rank-1 views and scalars only, every function lazuli's own (the product writes the
// destination while it computes them: a user function that throws would leave it half written).
template <class E>
constexpr bool fills_by_block() {
  using X = std::remove_cvref_t<E>;
  using K = lz::detail::kind_t<X>;
  if constexpr (std::is_same_v<K, lz::detail::map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return fn::never_throws<F> && (true && ... && fills_by_block<A>());
    }(static_cast<const X*>(nullptr));
  else
    return std::is_same_v<K, lz::detail::scalar_kind> || is_rank1_view<X>;
}

// Entries [k0, k0 + n) of values expression e (fills_by_block), as the same expression over
// them.
template <class E>
auto values_block(const E& e, index_t k0, index_t n) {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_rank1_view<X>) {
    strided_layout<1> l = e.layout();
    l.extents[0] = n;
    return X(e.data() + k0 * l.strides[0], l, lz::detail::trusted);
  } else if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::map_kind>) {
    return [&]<class G, class... A>(const map_expr<G, A...>& m) {
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return map_expr<G, decltype(values_block(lz::detail::get<J>(m.args), k0, n))...>{
            m.f, {{values_block(lz::detail::get<J>(m.args), k0, n)}...}, shape_t<1>{n}};
      }
      (std::index_sequence_for<A...>{});
    }(e);
  } else {
    return e; // a scalar
  }
}

// spmv_fill's f: values [k0, k0 + n) of expression E into v (one vector loop on the calling
// thread; the kernel calls it from its threads, for disjoint blocks).
template <class V, class E>
void fill_block(const void* ctx, index_t k0, V* v, index_t n) {
  const E& e = *static_cast<const E*>(ctx);
  const strided_layout<1> l = strided_layout<1>::right(shape_t<1>{n});
  lz::detail::assign_with<lz::detail::assign_op::set>(
      lz::simd, tensor_view<V, 1>(v, l, lz::detail::trusted), values_block(e, k0, n));
}

// Whether values expression C of sparse operand S is computed a block at a time (see
// prepare_sparse_operand).
template <class V, class S, class C>
bool fills_block_now(const kernels::sparse::value_fill<V>* fill) {
  if constexpr (space_v<S> == memory_space::host && std::is_same_v<value_t<C>, V> &&
                fills_by_block<C>())
    return fill != nullptr;
  else
    return false;
}

// spmv_fill's hint: prefetches entries [k0, k0 + n) of e's arrays (a line at a time; the values
// arrays of a sparse operand are contiguous: values_expr).
template <class X>
void touch_values(const X& e, index_t k0, index_t n);
template <class G, class... A, std::size_t... J>
void touch_args(const map_expr<G, A...>& m, std::index_sequence<J...>, index_t k0, index_t n) {
  (touch_values(lz::detail::get<J>(m.args), k0, n), ...);
}
template <class G, class... A>
void touch_args(const map_expr<G, A...>& m, index_t k0, index_t n) {
  touch_args(m, std::index_sequence_for<A...>{}, k0, n);
}
template <class X>
void touch_values(const X& e, index_t k0, index_t n) {
  if constexpr (is_rank1_view<X>) {
    const char* p = reinterpret_cast<const char*>(e.data() + k0);
    const char* end = reinterpret_cast<const char*>(e.data() + k0 + n);
    for (; p < end; p += 64) __builtin_prefetch(p);
  } else if constexpr (std::is_same_v<lz::detail::kind_t<X>, lz::detail::map_kind>) {
    touch_args(e, k0, n);
  }
}
template <class E>
void touch_block(const void* ctx, index_t k0, index_t n) {
  touch_values(*static_cast<const E*>(ctx), k0, n);
}

// The function a real SpMV applies itself as it reads each stored value (value_fill::fn): abs or
// square of a sparse operand's own values; none for any other values expression.
template <class C>
constexpr kernels::sparse::value_fn read_fn_v = kernels::sparse::value_fn::none;
template <class T>
constexpr kernels::sparse::value_fn read_fn_v<map_expr<fn::abs_fn, tensor_view<T, 1>>> =
    kernels::sparse::value_fn::abs;
template <class T>
constexpr kernels::sparse::value_fn read_fn_v<map_expr<fn::square_fn, tensor_view<T, 1>>> =
    kernels::sparse::value_fn::square;

// Sets f's read function when values expression `core` has one and reads contiguous real values.
template <class V, class C>
bool set_read_fn(const C& core, kernels::sparse::value_fill<V>& f) {
  if constexpr (read_fn_v<C> != kernels::sparse::value_fn::none && std::is_floating_point_v<V>) {
    const auto& v = lz::detail::get<0>(core.args);
    if (v.layout().strides[0] != 1) return false;
    f.fn = read_fn_v<C>;
    f.src = v.data();
    return true;
  } else {
    return false;
  }
}

// A sparse operand (a leaf or a values expression) ready for a step.
// `fill`: the caller (an SpMV or SpMM) can take values computed a block at a time; a values
// expression that allows it (host, fills_by_block; op(A) = A or a transpose) is then set there
// instead of written into a temporary.
template <class V, class Sink, class P, class S>
sparse_mat<V> prepare_sparse_operand(Sink& s, const P& pol, const S& a, V& scale, const char* rule,
                                     kernels::sparse::value_fill<V>* fill = nullptr) {
  using I = typename S::index_type;
  const auto& p = a.pattern();
  sparse_mat<V> m;
  m.rows = p.rows, m.cols = p.cols, m.nnz = p.nnz;
  m.index_bits = int(sizeof(I) * 8);
  m.row_ptr = p.row_ptr, m.col_idx = p.col_idx;
  m.trans = p.trans;
  m.lower = p.lower, m.upper = p.upper;
  if constexpr (requires { a.placeholder; })
    if (a.placeholder) m.nnz = -1;         // (explain's: unknown until computed)
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
    } else if (fills_block_now<V, S, C>(fill)) {
      *fill = {&core, &fill_block<V, C>, &touch_block<C>};
      if (!set_read_fn(core, *fill)) {
        if (s.noting())
          s.note({rule, ": the sparse operand's values are an expression: computed inside the "
                        "product a block of 2048 entries at a time, the pattern read in place (no "
                        "temporary)"});
      } else if (s.noting()) {
        s.note({rule, ": the sparse operand's values are ",
                fill->fn == kernels::sparse::value_fn::abs ? "abs" : "square",
                "(A): an SpMV applies it as it reads each one (an SpMM: a block of 2048 entries at "
                "a time), the pattern read in place (no temporary)"});
      }
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
  if (p.strips_of && m.values)
    m.strips = p.strips_of(p.strips_owner, m.values, lz::detail::strips_tag<V>(), m.nstrips);
  if (m.strips) {
    if (s.noting())
      s.note({rule, ": the sparse operand keeps a copy cut into ", m.nstrips,
              " column strips (csr_matrix::optimize_products): an SpMV runs them in order, "
              "y accumulating; a transposed one scatters each into its own range of y (threads "
              "taking whole strips); an SpMM reads the matrix itself"});
  }
  return m;
}

/// The sparse operand of a product, ready for a step; its scalar factor goes into `scale`.
template <class V, class Sink, class P, class S>
sparse_mat<V> prepare_sparse(Sink& s, const P& pol, const S& a, V& scale, const char* rule,
                             kernels::sparse::value_fill<V>* fill = nullptr) {
  if constexpr (computed_sparse<S>) {
    static_assert(lz::detail::dependent_false<S>,
                  "lz: a sparse sum or product as the operand of this node: assign it to an "
                  "lz::csr_matrix first (its pattern is computed at assignment)");
    return {};
  } else {
    return prepare_sparse_operand<V>(s, pol, a, scale, rule, fill);
  }
}

// summv's f: g's function applied to n merged values in place (one vector loop on the calling
// thread; the kernel calls it from its threads, on disjoint blocks).
template <class V, class G>
void apply_to_block(const void* ctx, V* v, index_t n) {
  const G& g = *static_cast<const G*>(ctx);
  const strided_layout<1> l = strided_layout<1>::right(shape_t<1>{n});
  const typename G::values_view in(v, l, lz::detail::trusted);
  lz::detail::assign_with<lz::detail::assign_op::set>(
      lz::simd, tensor_view<V, 1>(v, l, lz::detail::trusted), g.f(in));
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
  if constexpr (merges_sum_into_product<M>()) {
    // f(a·A + b·B)·X: ONE step merging A's and B's rows a block at a time (summv).
    const auto& fn = prod.lhs;
    const auto& sum = fn.arg;
    V sa = sum.alpha, sb = sum.beta;
    g.A = detail_sparse::prepare_sparse<V>(s, pol, sum.lhs, sa, rule);
    g.S = detail_sparse::prepare_sparse<V>(s, pol, sum.rhs, sb, rule);
    const scaled_mat<V> x = prepare_operand<V>(s, pol, prod.rhs, rule);
    g.t = op_of(g.A);
    g.ts = op_of(g.S);
    g.op = sparse_op::summv;
    g.a = sa, g.b = sb;
    g.f = {&fn, &detail_sparse::apply_to_block<V, std::remove_cvref_t<decltype(fn)>>};
    g.alpha = scale * x.scale;
    g.B = x.m;
    g.k = rank_v<M> == 1 ? 1 : C.cols;
    if (s.noting())
      s.note({rule,
              ": the sparse operand is a function of a sum, f(a·A + b·B): A's and B's rows "
              "merged a block at a time, f applied to each block's values, then summed "
              "against ",
              rank_v<M> == 1 ? "x" : "X's rows", " (the sum's pattern is never formed)"});
    s.sparse(rule, g);
  } else if constexpr (spgemm_expression<decltype(prod.lhs)>) {
    // A * B + D: (α·op(A)·op(B))·I, the product accumulated into C (a computed operand was
    // settled into a CSR leaf before planning; prepare_sparse refuses one that was not).
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
  } else {
    constexpr bool scatter = is_sparse_identity_v<std::remove_cvref_t<decltype(prod.rhs)>>;
    g.A = detail_sparse::prepare_sparse<V>(s, pol, prod.lhs, scale, rule,
                                           scatter ? nullptr : &g.fill);
    g.t = op_of(g.A);
    if constexpr (scatter) {
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
