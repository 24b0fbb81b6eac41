// Lowering one product term `C = coef·F1·F2·…·Fn + beta·C` into BLAS-level steps, shared by the
// gemm, gemv and sum-of-products rules (rules/*.hpp, through terms.hpp's lower_terms):
//   - operands: scalar factors and transposes are peeled off (Eigen's blas_traits idea), so
//     `2*(A*(3*Bᵀ))` reaches dgemm as α=6, B with trans=T, no copy; what remains becomes a
//     strided `mat` (an expression or another element type: a temporary first);
//   - CBLAS order/trans/ld come from the strides (trans flags from the layout, never a copy);
//     a layout BLAS cannot take goes to lazuli's own any-stride kernel (integers, small
//     products) or is copied into a BLAS layout (large ones; the same memory once);
//   - syrk when the two operands are one matrix and its transpose (same memory, swapped
//     strides): half the flops of gemm plus a mirror of the written triangle (disable with
//     lz::thresholds().use_syrk = false);
//   - the chain order for n >= 3 factors by dynamic programming on run-time sizes
//     (rules/chain.hpp).
#pragma once

#include <lz/expr/matmul.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/fusion/plan.hpp>
#include <lz/fusion/rules/chain.hpp>
#include <lz/kernels/cpu/parallel.hpp>

namespace lz::fusion {

namespace detail_operands {

template <class E>
using K = lz::detail::kind_t<E>;

template <class E>
constexpr bool is_scalar() {
  return std::is_same_v<K<E>, lz::detail::scalar_kind>;
}

// The scalar factors and transposes peeled off an operand, and what is left.
template <class E, class V>
const auto& peel(const E& e, V& scale, bool& trans) {
  if constexpr (std::is_same_v<K<E>, lz::detail::map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) -> const auto& {
      if constexpr (sizeof...(A) == 2) {
        using A0 = std::tuple_element_t<0, std::tuple<A...>>;
        using A1 = std::tuple_element_t<1, std::tuple<A...>>;
        if constexpr (std::is_same_v<F, fn::multiplies_fn> && is_scalar<A0>() && !is_scalar<A1>()) {
          scale = scale * V(lz::detail::get<0>(m.args).value);
          return peel(lz::detail::get<1>(m.args), scale, trans);
        } else if constexpr (std::is_same_v<F, fn::multiplies_fn> && is_scalar<A1>() &&
                             !is_scalar<A0>()) {
          scale = scale * V(lz::detail::get<1>(m.args).value);
          return peel(lz::detail::get<0>(m.args), scale, trans);
        } else if constexpr (std::is_same_v<F, fn::divides_fn> && is_scalar<A1>() &&
                             !is_scalar<A0>() && !std::is_integral_v<V>) {
          scale = scale / V(lz::detail::get<1>(m.args).value);
          return peel(lz::detail::get<0>(m.args), scale, trans);
        } else {
          return m;
        }
      } else if constexpr (sizeof...(A) == 1 && std::is_same_v<F, fn::negate_fn>) {
        scale = -scale;
        return peel(lz::detail::get<0>(m.args), scale, trans);
      } else {
        return m;
      }
    }
    (e);
  } else if constexpr (std::is_same_v<K<E>, lz::detail::permute_kind> && rank_v<E> == 2) {
    if (e.perm[0] == 1) trans = !trans;
    return peel(e.arg, scale, trans);
  } else {
    return e;
  }
}

// (The scale's type only has to take every scalar: complex<double> takes real and complex ones.)
template <class E>
using peeled_t = std::remove_cvref_t<decltype(peel(
    std::declval<const E&>(), std::declval<std::complex<double>&>(), std::declval<bool&>()))>;

} // namespace detail_operands

/// An evaluated operand: its scale and its strided memory (a user view or a temporary).
template <class V>
struct scaled_mat {
  V scale{1};
  mat<const V> m;
};

/// Makes a product operand BLAS-ready: peels scalars and transposes; evaluates whatever else
/// (sums, functions, other element types) into a temporary of type V with one planned step.
template <class V, class Sink, class P, class E>
scaled_mat<V> prepare_operand(Sink& s, const P& pol, const E& e, const char* rule) {
  scaled_mat<V> r;
  bool trans = false;
  const auto& core = detail_operands::peel(e, r.scale, trans);
  using C = std::remove_cvref_t<decltype(core)>;
  if constexpr (std::is_same_v<detail_operands::K<C>, lz::detail::leaf_kind> &&
                std::is_same_v<value_t<C>, V>) {
    r.m = mat_of<V>(core, s.origin_of(core.data()));
  } else {
    if (s.noting())
      s.note({rule, ": operand of shape ", core.shape(),
              std::is_same_v<detail_operands::K<C>, lz::detail::leaf_kind>
                  ? " has another element type; converting it into a temporary"
                  : " is an expression; evaluating it into a temporary"});
    auto t = s.template temp<V, rank_v<C>>(core.shape(), "product operand");
    const int id = s.last_temp();
    plan_assign<lz::detail::assign_op::set>(s, pol, t, core);
    r.m = mat_of<V>(t, origin{id});
  }
  if (trans) r.m = r.m.transposed();
  return r;
}

/// CBLAS view of a matrix operand in a call of order `o`: trans flag and leading dimension,
/// or nothing when the strides cannot be expressed (non-unit in both directions, negative).
struct blas_view {
  bool ok = false;
  kernels::blas::trans t = kernels::blas::trans::none;
  index_t ld = 0;
};

namespace detail_operands {
// Leading dimension for "inner dim contiguous, outer dim at ld", or 0 when impossible. Extent-1
// dims impose nothing, so their strides never block BLAS.
inline index_t fits(index_t inner_stride, index_t outer_stride, index_t inner_ext,
                    index_t outer_ext) {
  if (inner_ext > 1 && inner_stride != 1) return 0;
  const index_t need = inner_ext > 1 ? inner_ext : 1;
  if (outer_ext <= 1) return need;
  return outer_stride >= need ? outer_stride : 0;
}
} // namespace detail_operands

template <class V>
blas_view blas_view_of(const mat<V>& a, kernels::blas::order o) {
  using detail_operands::fits;
  using kernels::blas::trans;
  const bool row = o == kernels::blas::order::row_major;
  // As stored (no transpose): row-major wants contiguous rows, column-major contiguous columns.
  if (index_t ld = row ? fits(a.cs, a.rs, a.cols, a.rows) : fits(a.rs, a.cs, a.rows, a.cols))
    return {true, trans::none, ld};
  if (index_t ld = row ? fits(a.rs, a.cs, a.rows, a.cols) : fits(a.cs, a.rs, a.cols, a.rows))
    return {true, trans::transpose, ld};
  return {};
}

/// Copies `m` into a fresh row-major temporary (one planned loop) and returns the copy.
template <class V, class Sink, class P>
mat<const V> copy_to_blas_layout(Sink& s, const P& pol, const mat<const V>& m, const char* what,
                                 const char* rule) {
  if (s.noting())
    s.note({rule, ": ", what, " has strides (", m.rs, ",", m.cs, ") BLAS cannot take; copying it (",
            detail_plan::byte_count{std::size_t(m.rows * m.cols) * sizeof(V)}, ") into row-major"});
  auto t = s.template temp<V, 2>({m.rows, m.cols}, what);
  const int id = s.last_temp();
  plan_assign<lz::detail::assign_op::set>(s, pol, t, view_of<2>(s, m));
  return mat_of<V>(t, origin{id});
}

/// Emits syrk and returns true when B is Aᵀ in memory and C takes a BLAS layout.
template <class V, class Sink>
bool try_syrk(Sink& s, const char* rule, const mat<const V>& A, const mat<const V>& B,
              const mat<V>& C, V alpha, V beta) {
  using namespace kernels::blas;
  if constexpr (!(std::is_same_v<V, float> || std::is_same_v<V, double>)) {
    return false;
  } else {
    (void)rule;
    // syrk writes one triangle and the other is mirrored: right only when nothing else is in
    // C (β = 0). `AᵀA + C` with C not symmetric is not symmetric: that is a gemm.
    if (!thresholds().use_syrk || beta != V(0)) return false;
    const bool is_transpose_pair = A.ptr == B.ptr && A.rows == B.cols && A.cols == B.rows &&
                                   A.rs == B.cs && A.cs == B.rs && A.rows > 1;
    if (!is_transpose_pair) return false;
    syrk_step<V> g;
    blas_view cv = blas_view_of(C, order::row_major);
    g.o = order::row_major;
    if (!cv.ok || cv.t != trans::none) {
      cv = blas_view_of(C, order::col_major);
      g.o = order::col_major;
    }
    const blas_view av = blas_view_of(A, g.o);
    if (!cv.ok || cv.t != trans::none || !av.ok) return false;
    g.t = av.t, g.n = A.rows, g.k = A.cols, g.alpha = alpha, g.beta = beta;
    g.A = A, g.C = C, g.lda = av.ld, g.ldc = cv.ld;
    s.syrk("syrk", g);
    return true;
  }
}

namespace detail_products {

/// Number of factors in a (possibly nested, scaled, transposed) product.
template <class E>
constexpr std::size_t count_factors() {
  using C = detail_operands::peeled_t<E>;
  if constexpr (is_matmul_v<C>)
    return count_factors<decltype(std::declval<C>().lhs)>() +
           count_factors<decltype(std::declval<C>().rhs)>();
  else
    return 1;
}

// Appends the factors of e (peeled, prepared) to out; `trans` reverses and transposes them
// ((A·B)ᵀ = Bᵀ·Aᵀ: rules/transpose.hpp's algebra).
template <class V, class Sink, class P, class E>
void collect(Sink& s, const P& pol, const E& e, bool trans, V& scale, scaled_mat<V>* out,
             std::size_t& n, const char* rule) {
  bool t = trans;
  const auto& core = detail_operands::peel(e, scale, t);
  using C = std::remove_cvref_t<decltype(core)>;
  if constexpr (is_matmul_v<C>) {
    if (!t) {
      collect<V>(s, pol, core.lhs, false, scale, out, n, rule);
      collect<V>(s, pol, core.rhs, false, scale, out, n, rule);
    } else {
      collect<V>(s, pol, core.rhs, true, scale, out, n, rule);
      collect<V>(s, pol, core.lhs, true, scale, out, n, rule);
    }
  } else {
    scaled_mat<V> r = prepare_operand<V>(s, pol, core, rule);
    if (t) r.m = r.m.transposed();
    scale = scale * r.scale;
    r.scale = V(1);
    out[n++] = r;
  }
}

} // namespace detail_products

/// C = alpha·A·B + beta·C (A m×k, B k×n): BLAS gemm, own kernel, or copies, as decided here.
template <class V, class Sink, class P>
void emit_gemm(Sink& s, const P& pol, const char* rule, mat<const V> A, mat<const V> B, mat<V> C,
               V alpha, V beta) {
  using namespace kernels::blas;
  const index_t m = C.rows, n = C.cols, k = A.cols;
  if (m == 0 || n == 0) return;
  static_assert(blas_type_v<V> || generic_gemm_type_v<V>,
                "lz: products need float, double, complex or 32-/64-bit integer elements");
  gemm_step<V> g;
  g.m = m, g.n = n, g.k = k, g.alpha = alpha, g.beta = beta, g.A = A, g.B = B, g.C = C;
  const bool small = double(m) * double(n) * double(k) < double(thresholds().gemm_copy_flops);
  if constexpr (!blas_type_v<V>) { // integer types: the own kernel takes any strides
    g.generic = true;
    s.gemm(rule, g);
    return;
  } else {
    // The destination decides the order (CBLAS cannot transpose C).
    blas_view cv = blas_view_of(C, order::row_major);
    g.o = order::row_major;
    if (!cv.ok || cv.t != trans::none) {
      cv = blas_view_of(C, order::col_major);
      g.o = order::col_major;
    }
    if (!cv.ok || cv.t != trans::none) {
      if constexpr (generic_gemm_type_v<V>) {
        if (small) {
          if (s.noting())
            s.note({rule, ": destination strides (", C.rs, ",", C.cs,
                    ") are not a BLAS layout; small product, own kernel"});
          g.generic = true;
          s.gemm(rule, g);
          return;
        }
      }
      if (s.noting())
        s.note({rule, ": destination strides (", C.rs, ",", C.cs,
                ") are not a BLAS layout; product into a temporary"});
      auto t = s.template temp<V, 2>({m, n}, "gemm destination in BLAS layout");
      const int id = s.last_temp();
      mat<V> T = mat_of_dst(t, origin{id});
      if (beta != V(0))
        plan_assign<lz::detail::assign_op::set>(
            s, pol, t, view_of<2>(s, mat<const V>{C.ptr, C.rows, C.cols, C.rs, C.cs, C.from}));
      emit_gemm<V>(s, pol, rule, A, B, T, alpha, beta);
      typename Sink::template view<V, 2> cview(C.ptr, strided_layout<2>{{m, n}, {C.rs, C.cs}},
                                               lz::detail::trusted);
      plan_assign<lz::detail::assign_op::set>(
          s, pol, cview, view_of<2>(s, mat<const V>{T.ptr, m, n, T.rs, T.cs, T.from}));
      return;
    }
    g.ldc = cv.ld;
    blas_view av = blas_view_of(A, g.o), bv = blas_view_of(B, g.o);
    if (!av.ok || !bv.ok) {
      if constexpr (generic_gemm_type_v<V>) {
        if (small) {
          if (s.noting())
            s.note({rule, ": operand strides are not a BLAS layout; small product, own kernel"});
          g.generic = true;
          s.gemm(rule, g);
          return;
        }
      }
      // The same strided memory on both sides (S*S, transpose(S)*S) is copied once.
      const mat<const V> A0 = A;
      const auto same = [](const mat<const V>& x, const mat<const V>& y) {
        return x.ptr == y.ptr && x.rows == y.rows && x.cols == y.cols && x.rs == y.rs &&
               x.cs == y.cs;
      };
      if (!av.ok) {
        g.A = A = copy_to_blas_layout<V>(s, pol, A, "left operand", rule);
        av = blas_view_of(A, g.o);
      }
      if (!bv.ok) {
        const bool a_copied = A.ptr != A0.ptr;
        if (a_copied && same(B, A0))
          g.B = B = A;
        else if (a_copied && same(B, A0.transposed()))
          g.B = B = A.transposed();
        else
          g.B = B = copy_to_blas_layout<V>(s, pol, B, "right operand", rule);
        if (s.noting() && B.ptr == A.ptr)
          s.note({rule, ": the right operand is the left one's memory: copied once"});
        bv = blas_view_of(B, g.o);
      }
    }
    g.ta = av.t, g.tb = bv.t, g.lda = av.ld, g.ldb = bv.ld;
    s.gemm(rule, g);
  }
}

/// y = alpha·A·x + beta·y (A m×n as used, x n-vector, y m-vector; vectors are mats with cols 1).
template <class V, class Sink, class P>
void emit_gemv(Sink& s, const P& pol, const char* rule, mat<const V> A, mat<const V> x, mat<V> y,
               V alpha, V beta) {
  using namespace kernels::blas;
  if (y.rows == 0) return;
  gemv_step<V> g;
  g.alpha = alpha, g.beta = beta, g.A = A, g.x = x, g.y = y;
  if constexpr (!blas_type_v<V>) {
    g.generic = true;
    g.m = A.rows, g.n = A.cols;
    s.gemv(rule, g);
    return;
  } else {
    // BLAS rejects a zero increment (a broadcast vector); extent-1 vectors take any stride.
    if (x.rows <= 1) g.x.rs = x.rs = 1;
    if (y.rows <= 1) g.y.rs = y.rs = 1;
    const bool x_ok = x.rs != 0;
    blas_view av = blas_view_of(A, order::row_major);
    if (!av.ok || !x_ok) {
      const bool small =
          double(A.rows) * double(A.cols) * 64 < double(thresholds().gemm_copy_flops);
      if constexpr (generic_gemm_type_v<V>) {
        if (small) {
          if (s.noting())
            s.note({rule, ": operands are not BLAS layouts; small product, own gemv"});
          g.generic = true;
          g.m = A.rows, g.n = A.cols;
          s.gemv(rule, g);
          return;
        }
      }
      if (!av.ok) {
        g.A = A = copy_to_blas_layout<V>(s, pol, A, "matrix operand", rule);
        av = blas_view_of(A, order::row_major);
      }
      if (!x_ok) {
        g.x = x = copy_to_blas_layout<V>(s, pol, x, "vector operand", rule);
        g.x.rs = x.rs = 1;
      }
    }
    if constexpr (generic_gemm_type_v<V>) {
      // A few outputs, each a very long sum (transpose(X) * r for a tall row-major X): BLAS
      // threads gemv over its outputs, so it runs on one core; the own kernel splits the sums
      // over lazuli's threads (perf/RESULTS.md, "transpose(X)*r").
      constexpr bool threads = P::kind == exec_kind::automatic || P::kind == exec_kind::par;
      if (threads && A.rs == 1 && A.rows <= split_sum_max_rows && A.cols >= 16384 &&
          double(A.rows) * double(A.cols) >= double(1 << 20) && lz::num_threads() > 1) {
        if (s.noting())
          s.note({rule, ": few outputs of long sums: own gemv, the sums split over threads"});
        g.generic = true;
        g.m = A.rows, g.n = A.cols;
        s.gemv(rule, g);
        return;
      }
    }
    g.o = order::row_major;
    g.t = av.t;
    g.lda = av.ld;
    // BLAS dims are those of A as stored: transposed storage swaps them.
    g.m = av.t == trans::none ? A.rows : A.cols;
    g.n = av.t == trans::none ? A.cols : A.rows;
    s.gemv(rule, g);
  }
}

/// C = coef·A·B + beta·C for prepared operands: syrk, gemv or gemm.
template <class V, class Sink, class P>
void emit_product(Sink& s, const P& pol, const char* rule, const mat<const V>& A,
                  const mat<const V>& B, const mat<V>& C, V alpha, V beta, bool vector_result) {
  if (vector_result) {
    emit_gemv<V>(s, pol, rule, A, B, C, alpha, beta);
    return;
  }
  if (try_syrk<V>(s, rule, A, B, C, alpha, beta)) return;
  emit_gemm<V>(s, pol, rule, A, B, C, alpha, beta);
}

/// A sparse product term (fusion/sparse.hpp).
template <class V, class Sink, class P, class M>
void lower_spmul(Sink& s, const P& pol, const char* rule, const M& prod, const mat<V>& C, V coef,
                 V beta);

/// Lowers the product term `prod` (a matmul node, possibly scaled/transposed/nested, or a sparse
/// product) into `C = coef·prod + beta·C`. @pre no operand of the product overlaps C.
template <class V, class Sink, class P, class M>
void lower_product(Sink& s, const P& pol, const char* rule, const M& prod, const mat<V>& C, V coef,
                   V beta) {
  if constexpr (is_spmul_v<M>) {
    lower_spmul<V>(s, pol, rule, prod, C, coef, beta);
    return;
  } else {
    constexpr std::size_t N = detail_products::count_factors<M>();
    scaled_mat<V> f[N];
    std::size_t n = 0;
    V scale = coef;
    detail_products::collect<V>(s, pol, prod, false, scale, f, n, rule);
    const bool vec = rank_v<M> == 1;
    if constexpr (N == 2) {
      emit_product<V>(s, pol, rule, f[0].m, f[1].m, C, scale, beta, vec);
    } else {
      mat<const V> m[N];
      for (std::size_t i = 0; i < N; ++i) m[i] = f[i].m;
      lower_chain<V>(s, pol, m, N, C, scale, beta, vec);
    }
  }
}

// The product steps of the executing sink are compiled once, in the library, for every element
// type products take and every host policy (kernels/common/products.cpp): a user file that
// multiplies matrices only calls them (compile time, perf/compile). Explain and device sinks
// still instantiate their own.
#define LZ_FUSION_PRODUCT_STEPS(X, V, P)                                                           \
  X void emit_product<V, exec_sink, P>(exec_sink&, const P&, const char*, const mat<const V>&,     \
                                       const mat<const V>&, const mat<V>&, V, V, bool);            \
  X void lower_chain<V, exec_sink, P>(exec_sink&, const P&, const mat<const V>*, std::size_t,      \
                                      const mat<V>&, V, V, bool);
#define LZ_FUSION_PRODUCT_STEPS_OF(X, V)                                                           \
  LZ_FUSION_PRODUCT_STEPS(X, V, auto_policy)                                                       \
  LZ_FUSION_PRODUCT_STEPS(X, V, seq_policy)                                                        \
  LZ_FUSION_PRODUCT_STEPS(X, V, simd_policy)                                                       \
  LZ_FUSION_PRODUCT_STEPS(X, V, par_policy)
#define LZ_FUSION_PRODUCT_INSTANCES(X) LZ_FOR_EACH_COMPILED_TYPE(LZ_FUSION_PRODUCT_STEPS_OF, X)

LZ_FUSION_PRODUCT_INSTANCES(extern template)

} // namespace lz::fusion
