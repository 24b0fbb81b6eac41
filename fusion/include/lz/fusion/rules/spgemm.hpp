// spgemm rule: C = α·op(A)·op(B) with A, B sparse and C an lz::csr_matrix → ONE SpGEMM
// (kernels/sparse/spgemm.cpp: Gustavson, rows over threads). Each operand is read in place when
// it is a leaf stored as it is read, or c·(such a leaf) (c folded into α); a transposed leaf (a
// CSC view, lz::transpose(A)) is transposed into CSR once (a counting sort of its entries); any
// other values expression (abs(A), A + A) is one loop into a copy of its values. The product's
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
/// with its scalar in α, or one loop over a values expression into a copy.
enum class spgemm_read { leaf, scaled_leaf, values_loop };

namespace detail_spgemm {
template <class S>
constexpr spgemm_read read_of() {
  if constexpr (requires(const S& s) { s.values_; })
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

/// A product's result: the arrays a csr_matrix adopts.
template <class V, class I>
struct spgemm_result {
  std::vector<I> row_ptr, col_idx;
  std::vector<V> values;
};

namespace detail_spgemm {

// CSR arrays of the transpose of the stored (rows × cols) matrix: a counting sort by column,
// which leaves each new row's columns sorted. (csr_matrix's transposed copies too.)
template <class V, class I>
void transpose_arrays(const lz::detail::pattern_ref<I>& p, const V* vals, std::vector<I>& rp,
                      std::vector<I>& ci, std::vector<V>& v) {
  rp.assign(std::size_t(p.cols) + 1, I(0));
  ci.resize(std::size_t(p.nnz));
  v.resize(std::size_t(p.nnz));
  for (index_t k = 0; k < p.nnz; ++k) ++rp[std::size_t(p.col_idx[k]) + 1];
  for (index_t j = 0; j < p.cols; ++j) rp[std::size_t(j) + 1] += rp[std::size_t(j)];
  std::vector<I> next(rp.begin(), rp.end() - 1);
  for (index_t i = 0; i < p.rows; ++i)
    for (I k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
      const I at = next[std::size_t(p.col_idx[k])]++;
      ci[std::size_t(at)] = I(i);
      v[std::size_t(at)] = vals[k];
    }
}

// An operand as the kernel reads it, with what it took to get there.
template <class V, class I>
struct operand {
  kernels::sparse::csr<V, I> m;
  V scale{1};
  std::vector<I> rp, ci; // a transposed copy's pattern
  std::vector<V> vals;   // an evaluated or transposed copy's values
};

template <class V, class I, class S>
operand<V, I> prepare(const S& s) {
  operand<V, I> o;
  const auto& p = s.pattern();
  const V* values = nullptr;
  constexpr spgemm_read how = spgemm_read_v<S>;
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
  if (p.trans) {
    std::vector<V> t;
    transpose_arrays<V, I>(p, values, o.rp, o.ci, t);
    o.vals = std::move(t);
    o.m = {p.cols, p.rows, p.nnz, o.rp.data(), o.ci.data(), o.vals.data()};
  } else {
    o.m = {p.rows, p.cols, p.nnz, p.row_ptr, p.col_idx, values};
  }
  return o;
}

template <class S>
std::string read_text(const char* name, const S& s) {
  const auto& p = s.pattern();
  const std::string bytes = std::to_string(std::size_t(p.nnz) * sizeof(value_t<S>));
  std::string t = std::string("  ") + name + ": ";
  constexpr spgemm_read how = spgemm_read_v<S>;
  if constexpr (how == spgemm_read::values_loop)
    t += "its values are an expression: one loop writes them into a copy (" + bytes + " B); ";
  else if constexpr (how == spgemm_read::scaled_leaf)
    t += "its scalar folded into α; ";
  if (p.trans)
    t += "stored transposed (CSC): transposed into CSR once, a counting sort of its " +
         std::to_string(p.nnz) + " entries (" +
         std::to_string(std::size_t(p.nnz) * (sizeof(value_t<S>) + sizeof(typename S::index_type)) +
                        std::size_t(p.cols + 1) * sizeof(typename S::index_type)) +
         " B)\n";
  else
    t += how == spgemm_read::values_loop ? "pattern read in place\n" : "read in place\n";
  return t;
}

} // namespace detail_spgemm

/// Computes the product g (an lz::spgemm_expr) into new CSR arrays: one kernels::sparse::spgemm
/// call, its α the product's times the operands' folded scalars.
template <class V, class I, class G>
spgemm_result<V, I> run_spgemm(const G& g) {
  const auto a = detail_spgemm::prepare<V, I>(g.lhs);
  const auto b = detail_spgemm::prepare<V, I>(g.rhs);
  spgemm_result<V, I> r;
  kernels::sparse::spgemm<V, I>(a.m, b.m, g.alpha * a.scale * b.scale, r.row_ptr, r.col_idx,
                                r.values, true);
  return r;
}

/// What run_spgemm will do, as lz::explain prints it.
template <class G>
std::string explain_spgemm(const shape_t<2>& dst, const G& g) {
  using lz::detail::cat;
  using lz::detail::expr_text;
  std::string s = cat("plan: csr", lz::detail::to_string(dst), " = ");
  if (g.alpha != typename G::value_type(1)) s += "α · ";
  s += cat("(", expr_text(g.lhs), " · ", expr_text(g.rhs), ")\n");
  s += "  1. spgemm C = α·A·B: Gustavson, two passes over A's rows (count, then fill), rows split "
       "over threads by their multiply-adds; C's pattern is new   [rule spgemm]\n";
  s += detail_spgemm::read_text("A", g.lhs);
  s += detail_spgemm::read_text("B", g.rhs);
  s += "  the destination takes the new arrays once the product has succeeded\n";
  return s;
}

} // namespace lz::fusion
