// Lowering one product term `C = coef·F1·F2·…·Fn + beta·C` into BLAS-level steps. Shared by the
// gemm, gemv and sum-of-products rules (rules/*.hpp). Decides, per step:
//   - syrk when the two operands are one matrix and its transpose (rules/syrk.hpp);
//   - the chain order for n >= 3 factors by dynamic programming on run-time sizes
//   (rules/chain.hpp);
//   - BLAS with order/trans/ld from the strides, or lazuli's own any-stride kernel (integers,
//     small products with awkward strides), or a copy into a BLAS layout (large ones).
#pragma once

#include <lz/expr/matmul.hpp>
#include <lz/fusion/operands.hpp>
#include <lz/fusion/rules/chain.hpp>
#include <lz/fusion/rules/syrk.hpp>

namespace lz::fusion {

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
void collect(Sink& s, const P& pol, const E& e, bool trans, V& scale, operand_ref<V>* out,
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
    operand_ref<V> r = prepare_operand<V>(s, pol, core, rule);
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
                "lz: products need float, double, complex, int32 or int64 elements");
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

/// Lowers the product term `prod` (a matmul node, possibly scaled/transposed/nested) into
/// `C = coef·prod + beta·C`. @pre no operand of the product overlaps C.
template <class V, class Sink, class P, class M>
void lower_product(Sink& s, const P& pol, const char* rule, const M& prod, const mat<V>& C, V coef,
                   V beta) {
  constexpr std::size_t N = detail_products::count_factors<M>();
  operand_ref<V> f[N];
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
