// lz::explain(dst, expr): the plan of an assignment as text, before anything runs — each BLAS
// call with trans flags, sizes, leading dimensions, α and β; each loop with its SIMD width,
// threads and cost; each temporary with its bytes; the rule behind each step; and notes on rules
// that were close but did not apply. lz::explain_dot gives the same plan as Graphviz DOT.
#pragma once

#include <lz/evaluate.hpp>
#include <lz/expr/matmul.hpp>
#include <lz/expr/sparse.hpp>
#include <lz/ops/reductions.hpp>

#include <string>

namespace lz {
namespace detail {

std::string number_text(double v);

// Concatenation by appending (GCC 12's -Wrestrict misfires on "literal" + std::string&&).
template <class... A>
std::string cat(const A&... parts) {
  std::string s;
  ((s += parts), ...);
  return s;
}

template <class G>
std::string function_text(const G& g, const std::string& arg);

/// A compact rendering of an expression tree: leaves by shape, operators infix.
template <class E>
std::string expr_text(const E& e) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    const auto& l = e.layout();
    std::string s(1, 't');
    s += to_string(l.extents);
    if constexpr (rank_v<E> == 2)
      if (l.extents[0] > 1 && l.extents[1] > 1 && l.strides[0] == 1 && l.strides[1] != 1)
        s += "ᵀ-layout";
    return s;
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    if constexpr (is_complex_v<value_t<E>>)
      return cat("(", number_text(double(e.value.real())), "+", number_text(double(e.value.imag())),
                 "i)");
    else
      return number_text(double(e.value));
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) {
      std::string args[sizeof...(A)];
      std::size_t i = 0;
      for_each_arg(m, [&](const auto& c) { args[i++] = expr_text(c); });
      const std::string name = fn::name_of<F>();
      const bool infix =
          sizeof...(A) == 2 && (name == "+" || name == "-" || name == "*" || name == "/" ||
                                name == "<" || name == ">" || name == "==" || name == "!=" ||
                                name == "<=" || name == ">=" || name == "&&" || name == "||");
      if (infix) return cat("(", args[0], " ", name, " ", args[1], ")");
      if (sizeof...(A) == 1 && name == "-") return cat("-", args[0]);
      std::string s = name + "(";
      for (std::size_t j = 0; j < sizeof...(A); ++j) s += (j ? ", " : "") + args[j];
      return s + ")";
    }(e);
  } else if constexpr (std::is_same_v<K, permute_kind>) {
    return cat("transpose(", expr_text(e.arg), ")");
  } else if constexpr (std::is_same_v<K, broadcast_kind>) {
    return cat("broadcast_to(", expr_text(e.arg), ", ", to_string(e.shape()), ")");
  } else if constexpr (std::is_same_v<K, sparse_kind>) {
    const auto& p = e.pattern();
    std::string t =
        cat(p.trans ? "cscᵀ" : "csr", to_string(e.shape()), "[nnz ", std::to_string(p.nnz), "]");
    if constexpr (requires { e.placeholder; }) // a computed term explain did not compute
      if (e.placeholder) t = cat("csr", to_string(e.shape()), "[nnz ?]");
    if constexpr (requires { e.values_; })
      return t;
    else
      return cat(t, "{", expr_text(e.values_expr()), "}");
  } else if constexpr (computed_sparse<E>) {
    // a sparse × sparse product, a sparse sum, a function of one (computed at assignment)
    const auto scalar = [](const auto& v) -> std::string {
      if constexpr (is_complex_v<std::remove_cvref_t<decltype(v)>>)
        return cat("(", number_text(double(v.real())), "+", number_text(double(v.imag())), "i)");
      else
        return number_text(double(v));
    };
    using V = value_t<E>;
    if constexpr (spgemm_expression<E>) {
      return cat("(", e.alpha == V(1) ? "" : scalar(e.alpha) + " * ", expr_text(e.lhs), " · ",
                 expr_text(e.rhs), ")");
    } else if constexpr (sparse_sum_expression<E>) {
      return cat("(", e.alpha == V(1) ? "" : scalar(e.alpha) + " * ", expr_text(e.lhs),
                 e.beta == V(-1) ? " - " : " + ",
                 e.beta == V(1) || e.beta == V(-1) ? "" : scalar(e.beta) + " * ", expr_text(e.rhs),
                 ")");
    } else {
      return function_text(e, expr_text(e.arg));
    }
  } else if constexpr (is_matmul_v<std::remove_cvref_t<E>> || is_spmul_v<std::remove_cvref_t<E>>) {
    if constexpr (is_sparse_identity_v<std::remove_cvref_t<decltype(e.rhs)>>)
      return expr_text(e.lhs); // a sparse operand added as a dense term (A + D)
    else
      return cat("(", expr_text(e.lhs), " · ", expr_text(e.rhs), ")");
  } else if constexpr (requires { e.lhs, e.rhs, std::remove_cvref_t<E>::op_name(); }) {
    return cat(std::remove_cvref_t<E>::op_name(), "(", expr_text(e.lhs), ", ", expr_text(e.rhs),
               ")");
  } else if constexpr (requires { e.axis; }) {
    return cat(std::remove_cvref_t<E>::op_name(), "(", expr_text(e.arg), ", axis ",
               std::to_string(e.axis), ")");
  } else if constexpr (requires { e.arg; }) {
    return cat(std::remove_cvref_t<E>::op_name(), "(", expr_text(e.arg), ")");
  } else {
    return "expr";
  }
}

/// The function of a sparse sum or product g (lz::sparse_apply_expr) as text, with `arg` for
/// the term: f applied to a placeholder of the values, the placeholder's text replaced.
template <class G>
std::string function_text(const G& g, const std::string& arg) {
  const typename G::values_view v(nullptr, strided_layout<1>::right(shape_t<1>{0}), trusted);
  std::string t = expr_text(g.f(v));
  const std::string hole = expr_text(v);
  for (std::size_t at = t.find(hole); at != std::string::npos; at = t.find(hole, at + arg.size()))
    t.replace(at, hole.size(), arg);
  return t;
}

// The destination an assignment would write: the view itself, or for a tensor whose shape
// differs, a placeholder of the new shape (the tensor is resized before anything runs).
template <class T, std::size_t R, class E>
tensor_view<T, R> explain_dst(tensor<T, R>& t, const E& e, bool& resized) {
  if constexpr (rank_v<E> == R && R > 0) {
    if (t.shape() != e.shape()) {
      resized = true;
      return tensor_view<T, R>(reinterpret_cast<T*>(alignment), strided_layout<R>::right(e.shape()),
                               trusted);
    }
  }
  return t.view();
}
template <class T, std::size_t R, class E>
tensor_view<T, R> explain_dst(tensor_view<T, R> v, const E&, bool&) {
  return v;
}

template <class T, index_t... N, class E>
tensor_view<T, sizeof...(N)> explain_dst(fixed_tensor<T, N...>& t, const E&, bool&) {
  return t.view();
}

template <class T>
inline constexpr bool is_tensor_v = false;
template <class T, std::size_t R>
inline constexpr bool is_tensor_v<tensor<T, R>> = true;

template <assign_op Op, class P, class D, class E>
fusion::explain_sink plan_text(const P& pol, D&& dst, const E& e, std::string& title) {
  fusion::explain_sink s;
  bool resized = false;
  auto v = explain_dst(dst, e, resized);
  using V = decltype(v);
  constexpr std::size_t R = rank_v<V>;
  const char* sym = assign_op_symbol(Op);
  if constexpr (!scalar_like<E>) {
    static_assert(rank_v<E> == R || rank_v<E> == 0,
                  "lz: the expression's rank differs from the destination's rank");
    if constexpr (rank_v<E> == R && R > 0)
      if ((resized && Op != assign_op::set) || !broadcasts_to(e.shape(), v.shape()))
        throw shape_error(cat("lz: cannot assign shape ", to_string(e.shape()),
                              " to a destination of shape ", to_string(dst.shape()), " in '", sym,
                              "'"));
    title = cat("plan: dst", to_string(v.layout()), resized ? " (resized)" : "", " ", sym, " ",
                expr_text(e));
  } else {
    title = cat("plan: dst", to_string(v.layout()), " ", sym, " scalar");
  }
  s.set_dst(v.data());
  if constexpr (!scalar_like<E>) {
    if constexpr (static_tree_v<E> && rank_v<E> == R) { // evaluate.hpp: the inline path
      if (static_shape_of<E>::value == v.shape()) {
        constexpr auto S = static_shape_of<E>::value;
        constexpr index_t n = extents_product(S);
        constexpr auto pk = fixed_eval::packet_plan<std::remove_const_t<value_t<V>>, E, R, S>();
        s.loop(cat("inline, fixed: ", std::to_string(n), " elements computed in the caller",
                   pk.lanes > 1 ? cat(" on ", std::to_string(pk.lanes), "-lane vectors",
                                      pk.flat ? " (the elements as one row)" : " along rows")
                                : std::string(" element by element"),
                   n <= fixed_eval::unroll_limit ? ", unrolled" : "",
                   ", all before any is stored (aliasing-safe)"),
               "fixed");
        s.note({"no plan object, no BLAS, no heap, no threads (fixed-size operands only)"});
        return s;
      }
    }
  }
  // As fusion::execute: computed sparse terms first, as CSR leaves; full reductions, as scalars.
  const auto plan = [&](const auto& t) {
    if constexpr (scalar_like<std::remove_cvref_t<decltype(t)>>) // x *= 2.0
      fusion::plan_assign<Op>(s, pol, v, t);
    else if constexpr (fusion::settles_v<decltype(t)>)
      fusion::plan_assign<Op>(s, pol, v, fusion::settle_reductions(t, [&](const auto& r) {
                                return s.settled(pol, r);
                              }));
    else
      fusion::plan_assign<Op>(s, pol, v, t);
  };
  if constexpr (fusion::holds_computed_sparse_v<E>)
    plan(fusion::settle_sparse(e, [&](const auto& g) { return s.settled_sparse(g); }));
  else
    plan(e);
  return s;
}

} // namespace detail

/// Tags for explaining a compound assignment without running it: `lz::explain(W, lz::minus_eq,
/// e)` is the plan of `W -= e` (`lz::explain(W -= e)` would run the update first: a compile
/// error, below).
template <detail::assign_op Op>
struct compound_tag {
  static constexpr detail::assign_op op = Op;
};
inline constexpr compound_tag<detail::assign_op::add> plus_eq{};
inline constexpr compound_tag<detail::assign_op::sub> minus_eq{};
inline constexpr compound_tag<detail::assign_op::mul> times_eq{};
inline constexpr compound_tag<detail::assign_op::div> divides_eq{};

/// The plan of `dst = e` as text, computed without running anything.
template <host_policy P, class D, class E>
std::string explain(const P& pol, D&& dst, const E& e) {
  std::string title;
  auto s = detail::plan_text<detail::assign_op::set>(pol, std::forward<D>(dst), e, title);
  return s.text(title);
}
template <class D, class E>
requires(!host_policy<std::remove_cvref_t<D>>) std::string explain(D&& dst, const E& e) {
  return explain(automatic, std::forward<D>(dst), e);
}
/// The plan of `dst += e` (-=, *=, /=: plus_eq, minus_eq, times_eq, divides_eq), nothing run.
template <host_policy P, class D, detail::assign_op Op, class E>
std::string explain(const P& pol, D&& dst, compound_tag<Op>, const E& e) {
  std::string title;
  auto s = detail::plan_text<Op>(pol, std::forward<D>(dst), e, title);
  return s.text(title);
}
template <class D, detail::assign_op Op, class E>
requires(!host_policy<std::remove_cvref_t<D>>) std::string
    explain(D&& dst, compound_tag<Op> op, const E& e) {
  return explain(automatic, std::forward<D>(dst), op, e);
}
/// The plan of `lz::eval(e)` (a new tensor of e's shape).
template <expression E>
std::string explain(const E& e) {
  static_assert(!detail::is_tensor_v<std::remove_cvref_t<E>>,
                "lz::explain(t) of a tensor: nothing to plan. `lz::explain(W -= e)` runs the "
                "update before explain sees W; write lz::explain(W, lz::minus_eq, e)");
  tensor<value_t<E>, rank_v<E>> placeholder;
  return explain(automatic, placeholder, e);
}

/// The same plan as Graphviz DOT (one node per step, in execution order).
template <class D, class E>
std::string explain_dot(D&& dst, const E& e) {
  std::string title;
  auto s = detail::plan_text<detail::assign_op::set>(automatic, std::forward<D>(dst), e, title);
  return s.dot(title);
}

} // namespace lz
