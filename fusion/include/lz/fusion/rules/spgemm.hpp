// spgemm rule: C = α·op(A)·op(B) with A, B sparse and C an lz::csr_matrix → ONE SpGEMM
// (kernels/sparse/spgemm.cpp: Gustavson, rows over threads). Each operand is read in place when
// it is a leaf stored as it is read, or c·(such a leaf) (c folded into α); a transposed leaf (a
// CSC view, lz::transpose(A)) is transposed into CSR once (a counting sort of its entries); any
// other values expression (abs(A), 2*A + 1) is one loop into a copy of its values, and a sum or
// product of sparse terms (A + B, A * B) is computed into new arrays first. The product's
// pattern is only known once computed, so the result is new arrays, which the destination takes
// only after the product succeeded (an error leaves it untouched). Not a plan step of the dense
// sinks: their destinations are dense views with a known shape and memory
// (docs/decisions/spgemm-outside-the-dense-sinks.md).
#pragma once

#include <lz/evaluate.hpp>
#include <lz/explain.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/fusion/products.hpp>
#include <lz/kernels/sparse/csr.hpp>

#include <string>
#include <vector>

namespace lz::fusion {

/// How the spgemm rule reads an operand, decided at compile time: a leaf in place (a transposed
/// one is transposed into CSR once, at run time: the flag is the view's), a scaled leaf in place
/// with its scalar in α, one loop over a values expression into a copy, or a sum or product of
/// sparse terms computed into new arrays (rules/sparse_sum.hpp, this file).
enum class spgemm_read { leaf, scaled_leaf, values_loop, computed };

namespace detail_spgemm {
template <class S>
constexpr spgemm_read read_of() {
  if constexpr (computed_sparse<S>)
    return spgemm_read::computed;
  else if constexpr (requires(const S& s) { s.values_; })
    return spgemm_read::leaf;
  else {
    using E = std::remove_cvref_t<decltype(std::declval<const S&>().values_expr())>;
    using V = value_t<S>;
    using C = std::remove_cvref_t<decltype(detail_operands::peel(
        std::declval<const E&>(), std::declval<V&>(), std::declval<bool&>()))>;
    if constexpr (lz::detail::is_kind_v<C, lz::detail::leaf_kind> && std::is_same_v<value_t<C>, V>)
      return spgemm_read::scaled_leaf;
    else
      return spgemm_read::values_loop;
  }
}
} // namespace detail_spgemm

template <class S>
inline constexpr spgemm_read spgemm_read_v = detail_spgemm::read_of<std::remove_cvref_t<S>>();

/// A product's (or sum's) result: the arrays a csr_matrix adopts (the values in the tensor it
/// keeps them in: written there by the kernel, never copied).
template <class V, class I>
struct spgemm_result {
  std::vector<I> row_ptr, col_idx;
  tensor<V, 1> values;

  /// Where the kernel writes the values: a new tensor of nnz elements, uninitialized.
  kernels::sparse::value_buffer<V> value_sink() {
    return {this, [](void* self, index_t nnz) {
              auto& r = *static_cast<spgemm_result*>(self);
              r.values = tensor<V, 1>(shape_t<1>{nnz}, uninitialized);
              return r.values.data();
            }};
  }
};

template <class V, class I, class G>
spgemm_result<V, I> run_spgemm(const G& g);
/// Computes a sparse sum (lz::sparse_sum_expr) into new arrays (rules/sparse_sum.hpp).
template <class V, class I, class G>
spgemm_result<V, I> run_sparse_sum(const G& g);
/// Computes a function of a sparse sum or product (lz::sparse_apply_expr) into new arrays
/// (rules/sparse_apply.hpp).
template <class V, class I, class G>
spgemm_result<V, I> run_sparse_apply(const G& g);

/// Computes any computed sparse term (a product, a sum, a function of one) into new arrays.
template <class V, class I, class G>
spgemm_result<V, I> run_computed(const G& g) {
  if constexpr (spgemm_expression<G>)
    return run_spgemm<V, I>(g);
  else if constexpr (sparse_sum_expression<G>)
    return run_sparse_sum<V, I>(g);
  else
    return run_sparse_apply<V, I>(g);
}

namespace detail_spgemm {

// An operand as the kernel reads it, with what it took to get there.
template <class V, class I>
struct operand {
  kernels::sparse::csr<V, I> m;
  V scale{1};
  std::vector<I> rp, ci;  // a transposed copy's or computed term's pattern
  std::vector<V> vals;    // an evaluated or transposed copy's values
  tensor<V, 1> term_vals; // a computed term's values
};

// (The kernel reads o.m, which points into o's own vectors when it made copies: moving an
// operand keeps them where they are.)
template <class V, class I, class S>
operand<V, I> prepare(const S& s) {
  operand<V, I> o;
  constexpr spgemm_read how = spgemm_read_v<S>;
  if constexpr (how == spgemm_read::computed) {
    spgemm_result<V, I> r = run_computed<V, I>(s);
    o.rp = std::move(r.row_ptr);
    o.ci = std::move(r.col_idx);
    o.term_vals = std::move(r.values);
    o.m = {s.shape()[0], s.shape()[1], index_t(o.ci.size()),
           o.rp.data(),  o.ci.data(),  o.term_vals.data()};
    return o;
  } else {
    const auto& p = s.pattern();
    const V* values = nullptr;
    if constexpr (how == spgemm_read::leaf) {
      values = s.values_;
    } else if constexpr (how == spgemm_read::scaled_leaf) {
      bool trans = false;
      values = detail_operands::peel(s.values_expr(), o.scale, trans).data();
    } else {
      o.vals.resize(std::size_t(p.nnz));
      auto dst = tensor_view<V, 1>(o.vals.data(), strided_layout<1>::right(shape_t<1>{p.nnz}),
                                   lz::detail::trusted);
      lz::detail::assign_to<lz::detail::assign_op::set>(dst, s.values_expr());
      values = o.vals.data();
    }
    o.m = {p.rows, p.cols, p.nnz, p.row_ptr, p.col_idx, values};
    if (p.trans) {
      std::vector<V> t;
      o.m = kernels::sparse::transpose(o.m, false, o.rp, o.ci, t);
      o.vals = std::move(t); // (moving keeps the buffer o.m points into)
    }
    return o;
  }
}

// What a computed term is, in words.
template <class S>
constexpr const char* computed_text() {
  if constexpr (spgemm_expression<S>)
    return "a sparse product";
  else if constexpr (sparse_sum_expression<S>)
    return "a sparse sum";
  else
    return "a function of a sparse sum or product";
}

// How an operand is read, for explain; `scalar` names the coefficient its scalar folds into.
template <class S>
std::string read_text(const char* name, const S& s, const char* scalar = "α") {
  if constexpr (spgemm_read_v<S> == spgemm_read::computed) {
    (void)s;
    return std::string("  ") + name + ": " + computed_text<S>() +
           ": computed into new arrays first (its pattern is known only then)\n";
  } else {
    const auto& p = s.pattern();
    const std::string bytes = std::to_string(std::size_t(p.nnz) * sizeof(value_t<S>));
    std::string t = std::string("  ") + name + ": ";
    constexpr spgemm_read how = spgemm_read_v<S>;
    if constexpr (how == spgemm_read::values_loop)
      t += "its values are an expression: one loop writes them into a copy (" + bytes + " B); ";
    else if constexpr (how == spgemm_read::scaled_leaf)
      t += std::string("its scalar folded into ") + scalar + "; ";
    if (p.trans)
      t += "stored transposed (CSC): transposed into CSR once, a counting sort of its " +
           std::to_string(p.nnz) + " entries (" +
           std::to_string(std::size_t(p.nnz) *
                              (sizeof(value_t<S>) + sizeof(typename S::index_type)) +
                          std::size_t(p.cols + 1) * sizeof(typename S::index_type)) +
           " B)\n";
    else
      t += how == spgemm_read::values_loop ? "pattern read in place\n" : "read in place\n";
    return t;
  }
}

} // namespace detail_spgemm

/// Computes the product g (an lz::spgemm_expr) into new CSR arrays: one kernels::sparse::spgemm
/// call, its α the product's times the operands' folded scalars.
template <class V, class I, class G>
spgemm_result<V, I> run_spgemm(const G& g) {
  const auto a = detail_spgemm::prepare<V, I>(g.lhs);
  const auto b = detail_spgemm::prepare<V, I>(g.rhs);
  spgemm_result<V, I> r;
  kernels::sparse::spgemm<V, I>(a.m, b.m, g.alpha * a.scale * b.scale, nullptr, V(0), r.row_ptr,
                                r.col_idx, r.value_sink(), true);
  return r;
}

/// What run_spgemm will do, as lz::explain prints it.
template <class G>
std::string explain_spgemm(const shape_t<2>& dst, const G& g) {
  using lz::detail::cat;
  std::string s = cat("plan: csr", lz::detail::to_string(dst), " = ");
  if (g.alpha != typename G::value_type(1)) s += "α · ";
  s += cat("(", lz::detail::expr_text(g.lhs), " · ", lz::detail::expr_text(g.rhs), ")\n");
  s += "  1. spgemm C = α·A·B: Gustavson, two passes over A's rows (count, then fill), rows split "
       "over threads by their multiply-adds; C's pattern is new   [rule spgemm]\n";
  s += detail_spgemm::read_text("A", g.lhs);
  s += detail_spgemm::read_text("B", g.rhs);
  s += "  the destination takes the new arrays once the product has succeeded\n";
  return s;
}

} // namespace lz::fusion
