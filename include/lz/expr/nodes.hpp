// Expression nodes: small aggregates (children + functor + shape), structure only, no work.
// The closure rule lives here too: how an operand is held inside its parent node.
//   lvalue tensor or any view  -> tensor_view<const T, R>   (a view: cheap, never dangles
//                                                             while the tensor lives)
//   rvalue tensor              -> tensor<T, R>              (moved in and owned, so
//                                                             `auto e = a + lz::eval(b * c);` is
//                                                             safe)
//   scalar                     -> scalar_expr<S>            (broadcasts to every element)
//   other nodes                -> held by value (copied if lvalue; nodes are views + functors)
#pragma once

#include <lz/expr/fwd.hpp>
#include <lz/layout/layout.hpp>

#include <utility>

namespace lz {
namespace detail {

template <std::size_t... N>
inline constexpr std::size_t max_of = [] {
  std::size_t m = 0;
  ((m = N > m ? N : m), ...);
  return m;
}();

template <class E>
using kind_t = typename std::remove_cvref_t<E>::lz_kind;
template <class E, class K>
inline constexpr bool is_kind_v = std::is_same_v<kind_t<E>, K>;

// A tiny tuple: aggregate, trivially copyable when its members are, cheap to compile.
template <std::size_t I, class T>
struct pack_elem {
  T value;
};
template <class Seq, class... T>
struct pack_impl;
template <std::size_t... I, class... T>
struct pack_impl<std::index_sequence<I...>, T...> : pack_elem<I, T>... {};
template <class... T>
using pack = pack_impl<std::index_sequence_for<T...>, T...>;

// Code instantiated per tree type reads a child as `static_cast<const pack_elem<J, A>&>(p).value`
// instead: each get<I, T> is one more function to compile (perf/compile).
template <std::size_t I, class T>
LZ_HD constexpr const T& get(const pack_elem<I, T>& e) noexcept {
  return e.value;
}
template <std::size_t I, class T>
LZ_HD constexpr T& get(pack_elem<I, T>& e) noexcept {
  return e.value;
}

} // namespace detail

/// A constant operand; rank 0, broadcasts to any shape.
template <class S>
struct scalar_expr {
  using lz_expression = void;
  using lz_kind = detail::scalar_kind;
  using value_type = S;
  static constexpr std::size_t rank = 0;
  S value;
  static constexpr shape_t<0> shape() noexcept { return {}; }
};

namespace detail {

// Type a scalar takes when it meets an operand of element type V: a double literal does not
// widen a float tensor (2.5 * xf stays float), but a floating scalar does widen an integer one.
template <class S, class V>
struct scalar_as {
  using type = S;
};
template <class S, class V>
requires(std::is_arithmetic_v<S>&& std::is_floating_point_v<V>) struct scalar_as<S, V> {
  using type = V;
};
template <class S, class V>
requires(std::is_integral_v<S>&& std::is_integral_v<V> &&
         !std::is_same_v<V, bool>) struct scalar_as<S, V> {
  using type = V;
};
template <class S, class V>
requires(std::is_arithmetic_v<S>&& is_complex_v<V>) struct scalar_as<S, V> {
  using type = V;
};

template <class E>
struct closure {
  using type = std::remove_cvref_t<E>;
};
template <class T, std::size_t R>
struct closure<tensor<T, R>&> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<const tensor<T, R>&> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<tensor<T, R>> {
  using type = tensor<T, R>;
};
template <class T, std::size_t R>
struct closure<const tensor<T, R>> { // const rvalue: cannot move, so view it
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<tensor_view<T, R>> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<tensor_view<T, R>&> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<const tensor_view<T, R>&> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<tensor_view<T, R>&&> {
  using type = tensor_view<const T, R>;
};
template <class T, std::size_t R>
struct closure<const tensor_view<T, R>> {
  using type = tensor_view<const T, R>;
};

} // namespace detail

/// How operand E is stored in a node (see the rule at the top of this file).
template <class E>
using closure_t = typename detail::closure<E>::type;

/// Wraps an operand according to the closure rule.
template <class E>
closure_t<E&&> make_closure(E&& e) {
  return closure_t<E&&>(std::forward<E>(e));
}

/// Wraps a scalar next to an operand of element type V (see scalar_as).
template <class V, class S>
scalar_expr<typename detail::scalar_as<std::remove_cvref_t<S>, V>::type> make_scalar(S s) {
  return {static_cast<typename detail::scalar_as<std::remove_cvref_t<S>, V>::type>(s)};
}

/// Shape of any expression.
template <class E>
auto shape(const E& e) noexcept {
  return e.shape();
}

namespace detail {
/// The value of a rank-0 host expression (defined by the engine, lz/evaluate.hpp).
template <class E>
auto scalar_value(const E& e);
} // namespace detail

/// Elementwise node: f applied to its children at every index. Children of rank 0 (scalars,
/// full reductions) broadcast; the others have the node's rank and broadcast NumPy-style.
template <class F, class... A>
struct map_expr {
  using lz_expression = void;
  using lz_kind = detail::map_kind;
  static constexpr std::size_t rank = detail::max_of<rank_v<A>...>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, value_t<A>...>>;

  [[no_unique_address]] F f;
  detail::pack<A...> args;
  shape_t<rank> shape_;

  const shape_t<rank>& shape() const noexcept { return shape_; }

  /// A rank-0 tree (arithmetic on scalars and full reductions: `rr / lz::dot(p, q)`,
  /// `-lz::mean(x)`) converts to its value like a full reduction does (evaluating now).
  operator value_type() const requires(rank == 0) { return detail::scalar_value(*this); }
};

/// Calls v(child) for each child of a map node, in order.
template <class F, class... A, class V>
LZ_HD constexpr void for_each_arg(const map_expr<F, A...>& e, V&& v) {
  [&]<std::size_t... I>(std::index_sequence<I...>) { (v(detail::get<I>(e.args)), ...); }
  (std::index_sequence_for<A...>{});
}

/// Where an expression's memory lives: a set of spaces, one bit each (room for 16; a backend
/// that brings its own memory takes the next bit). Leaves say it (device leaves declare
/// `static constexpr memory_space lz_space = memory_space::device`; host tensors and views are
/// host); scalars go anywhere (`any`, the empty set); a node is the union of its children. A node
/// over more than one space (`mixes_spaces`) is a compile error at the line that builds it:
/// lazuli never moves data between spaces behind the user's back.
enum class memory_space : std::uint16_t { any = 0, host = 1u << 0, device = 1u << 1 };

/// The union of two sets of memory spaces.
constexpr memory_space operator|(memory_space a, memory_space b) noexcept {
  return memory_space(static_cast<std::uint16_t>(a) | static_cast<std::uint16_t>(b));
}
/// True when the set holds more than one space.
constexpr bool mixes_spaces(memory_space s) noexcept {
  const auto v = static_cast<std::uint16_t>(s);
  return (v & (v - 1u)) != 0;
}
/// True when the set holds both host and device (the message names the transfer functions).
constexpr bool mixes_host_and_device(memory_space s) noexcept {
  return (s | memory_space::host) == s && (s | memory_space::device) == s;
}

namespace detail {
template <class E>
constexpr memory_space space_of() {
  using X = std::remove_cvref_t<E>;
  if constexpr (requires { X::lz_space; })
    return X::lz_space;
  else if constexpr (!expression<X>) // plain scalars
    return memory_space::any;
  else if constexpr (is_kind_v<X, scalar_kind>)
    return memory_space::any;
  else if constexpr (is_kind_v<X, leaf_kind>)
    return memory_space::host;
  else if constexpr (is_kind_v<X, map_kind>)
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (memory_space::any | ... | space_of<A>());
    }(static_cast<const X*>(nullptr));
  else if constexpr (requires(const X& x) { x.arg; })
    return space_of<decltype(std::declval<const X&>().arg)>();
  else if constexpr (requires(const X& x) { x.lhs, x.rhs; }) // products
    return space_of<decltype(std::declval<const X&>().lhs)>() |
           space_of<decltype(std::declval<const X&>().rhs)>();
  else
    return memory_space::host;
}
} // namespace detail

/// Memory space of an expression (or `any` for scalars).
template <class E>
inline constexpr memory_space space_v = detail::space_of<E>();
/// True when every operand of E lives in space `s` (scalars live anywhere).
template <class E>
inline constexpr bool within_space(memory_space s) {
  return (space_v<E> | s) == s;
}

namespace detail {

// s: the shapes of a node's operands so far broadcast with `a`; rank-0 operands broadcast to any
// shape (other ranks are make_map's static_assert). One function per rank, not per operand type
// (compile time).
template <std::size_t R>
void fold_shape(shape_t<R>& s, bool& first, const shape_t<R>& a, const char* op) {
  if (first)
    s = a;
  else
    s = broadcast_shapes(s, a, op);
  first = false;
}
template <std::size_t R, std::size_t K>
requires(K != R) void fold_shape(shape_t<R>&, bool&, const shape_t<K>&, const char*) {}

/// layout_error: the result of `op` has shape s[0..rank), whose size overflows (errors.cpp).
[[noreturn]] void throw_result_overflow(const char* op, const index_t* s, std::size_t rank);

// Operands that each fit in memory (stride-0 broadcasts need none) can broadcast to a shape
// of more than 2^63 elements; loops and reductions over it would overflow their indices.
template <std::size_t R>
void check_size(const shape_t<R>& s, const char* op) {
  index_t n = 1;
  for (std::size_t k = 0; k < R; ++k)
    if (__builtin_mul_overflow(n, s[k], &n)) throw_result_overflow(op, s.data(), R);
}

} // namespace detail

namespace detail {
/// The shape of E when every leaf's shape is a compile-time constant (fixed-size tensors,
/// expr/fixed.hpp): `known`, `value` (the shape), `fixed_leaves` (how many fixed leaves) and
/// `batched` (how many of them are batches of fixed tensors, lz/batch.hpp: `value` is then the
/// shape of one item). Each node kind declares its own next to its definition; anything else
/// is not known.
template <class E>
struct static_shape_of {
  static constexpr bool known = false;
  static constexpr int fixed_leaves = 0;
  static constexpr int batched = 0;
};
template <class S>
struct static_shape_of<scalar_expr<S>> {
  static constexpr bool known = true;
  static constexpr int fixed_leaves = 0;
  static constexpr int batched = 0;
  static constexpr shape_t<0> value{};
};
/// The broadcast shape of operands A... (rank: the largest; rank-0 operands broadcast).
template <class... A>
struct static_broadcast {
  /// Every operand's shape known (agreeing or not: check_fixed_operands reports a mismatch).
  static constexpr bool operands_known = (static_shape_of<A>::known && ...);
  static constexpr int fixed_leaves = (0 + ... + static_shape_of<A>::fixed_leaves);
  static constexpr int batched = (0 + ... + static_shape_of<A>::batched);
  static constexpr std::size_t rank = max_of<rank_v<A>...>;
  static constexpr shape_t<rank> value = [] {
    shape_t<rank> s{};
    s.fill(1);
    if constexpr (operands_known)
      (
          [&] {
            if constexpr (rank_v<A> == rank && rank > 0)
              for (std::size_t k = 0; k < rank; ++k)
                if (static_shape_of<A>::value[k] != 1) s[k] = static_shape_of<A>::value[k];
          }(),
          ...);
    return s;
  }();
  /// Known: the operands' shapes are known and broadcast to `value`.
  static constexpr bool known = [] {
    if constexpr (!operands_known) {
      return false;
    } else {
      bool ok = true;
      (
          [&] {
            if constexpr (rank_v<A> == rank && rank > 0)
              for (std::size_t k = 0; k < rank; ++k)
                ok = ok && (static_shape_of<A>::value[k] == value[k] ||
                            static_shape_of<A>::value[k] == 1);
          }(),
          ...);
      return ok;
    }
  }();
};
/// No fixed-size leaf below: not known (what the primary template says), without working out
/// a broadcast shape (every dynamic map node instantiates this: compile time, perf/compile).
struct no_static_shape {
  static constexpr bool known = false;
  static constexpr int fixed_leaves = 0;
  static constexpr int batched = 0;
};
/// How many fixed-size leaves the operands A... have.
template <class... A>
inline constexpr int fixed_leaves_v = (0 + ... + static_shape_of<A>::fixed_leaves);
template <class F, class... A>
struct static_shape_of<map_expr<F, A...>>
    : std::conditional_t<(fixed_leaves_v<A...> > 0), static_broadcast<A...>, no_static_shape> {};
template <class... A>
struct static_shape_of<static_broadcast<A...>> : static_broadcast<A...> {};
/// A tree whose shape (or, over batches, whose items' shape) is known at compile time and that
/// reads a fixed-size leaf.
template <class E>
inline constexpr bool static_shaped_v =
    static_shape_of<std::remove_cvref_t<E>>::known&&
        static_shape_of<std::remove_cvref_t<E>>::fixed_leaves > 0;
/// A fixed tree: static_shaped_v and no batch operand; evaluated inline (expr/fixed.hpp), never
/// by the fusion pass.
template <class E>
inline constexpr bool static_tree_v =
    static_shaped_v<E>&& static_shape_of<std::remove_cvref_t<E>>::batched == 0;
/// A tree over batches of fixed tensors (lz/batch.hpp): evaluated item by item, SIMD across items.
template <class E>
inline constexpr bool batched_tree_v =
    static_shaped_v<E>&& static_shape_of<std::remove_cvref_t<E>>::batched > 0;

/// Compile-time shape check of a node over fixed-size operands (defined in expr/fixed.hpp).
template <class... A>
constexpr void check_fixed_operands();
} // namespace detail

/// Builds a map node from closures, computing (and checking) the broadcast shape now, at the
/// line the user wrote. `op` names the operation in error messages.
template <class F, class... A>
map_expr<F, A...> make_map(const char* op, F f, A... args) {
  constexpr std::size_t R = map_expr<F, A...>::rank;
  static_assert(((rank_v<A> == R || rank_v<A> == 0) && ...),
                "lz: elementwise operands must have the same rank (or be scalars); use "
                "lz::broadcast_to(x, shape) to broadcast across ranks");
  constexpr memory_space space = (memory_space::any | ... | space_v<A>);
  static_assert(!mixes_host_and_device(space),
                "lz: an expression mixes host and device operands; copy one side explicitly "
                "with lz::to_device(x) or lz::to_host(d)");
  static_assert(mixes_host_and_device(space) || !mixes_spaces(space),
                "lz: an expression mixes memory spaces; move one side explicitly first");
  if constexpr (detail::fixed_leaves_v < A... >> 0 &&
                detail::static_broadcast<A...>::operands_known) {
    detail::check_fixed_operands<A...>(); // a mismatch: one diagnostic naming both shapes
  }
  if constexpr (detail::fixed_leaves_v < A... >> 0 &&
                detail::static_shaped_v<map_expr<F, A...>>) { // fixed-size: shape known now
    return map_expr<F, A...>{f, {{std::move(args)}...}, detail::static_broadcast<A...>::value};
  } else {
    shape_t<R> s{};
    bool first = true;
    (detail::fold_shape<R>(s, first, args.shape(), op), ...);
    detail::check_size(s, op);
    return map_expr<F, A...>{f, {{std::move(args)}...}, s};
  }
}

/// A child expression with its dimensions reordered: result dim k is child dim perm[k]. Used
/// for lz::transpose / lz::permute of trees (views of tensors permute their layout instead).
template <class E>
struct permute_expr {
  using lz_expression = void;
  using lz_kind = detail::permute_kind;
  static constexpr std::size_t rank = rank_v<E>;
  using value_type = value_t<E>;
  E arg;
  std::array<std::size_t, rank> perm;
  shape_t<rank> shape_;
  const shape_t<rank>& shape() const noexcept { return shape_; }
};

/// A child expression broadcast to a shape of rank R (trailing dims align, NumPy).
template <class E, std::size_t R>
struct broadcast_expr {
  using lz_expression = void;
  using lz_kind = detail::broadcast_kind;
  static constexpr std::size_t rank = R;
  using value_type = value_t<E>;
  E arg;
  shape_t<R> shape_;
  const shape_t<R>& shape() const noexcept { return shape_; }
};

namespace detail {
/// The elementwise node e (map, permute or broadcast) rebuilt over f(child) for each child,
/// called left to right: the tree rewrites that settle parts of a tree before planning
/// (fusion's settle_reductions and settle_sparse) share it.
template <class E, class F>
auto rebuild_elementwise(const E& e, const F& f) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, map_kind>) {
    return [&]<class G, class... A>(const map_expr<G, A...>& m) {
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return map_expr<G, decltype(f(get<J>(m.args)))...>{m.f, {{f(get<J>(m.args))}...}, m.shape_};
      }
      (std::index_sequence_for<A...>{});
    }(e);
  } else if constexpr (std::is_same_v<K, permute_kind>) {
    auto a = f(e.arg);
    return permute_expr<decltype(a)>{std::move(a), e.perm, e.shape_};
  } else {
    static_assert(std::is_same_v<K, broadcast_kind>, "lz: not an elementwise node");
    auto a = f(e.arg);
    return broadcast_expr<decltype(a), rank_v<E>>{std::move(a), e.shape_};
  }
}

/// std::out_of_range: `name` along `axis` of a rank-`rank` expression (kernels/common/errors.cpp).
[[noreturn]] void throw_bad_axis(const char* name, std::size_t axis, std::size_t rank);

/// An extent-1 dimension inserted before dimension `axis` of a tree (0 <= axis <= rank): a
/// broadcast node adds it in front, a permute node moves it into place (no copy, no new node
/// kind; every backend walks both). lz::expand_dims and the keepdims reductions use it.
template <class X>
auto expand_dims_expr(X&& x, std::size_t axis) {
  constexpr std::size_t R = rank_v<X>;
  if (axis > R) throw_bad_axis("expand_dims", axis, R + 1);
  const auto s = x.shape();
  shape_t<R + 1> front{}, out{};
  front[0] = 1;
  for (std::size_t k = 0; k < R; ++k) front[k + 1] = s[k];
  broadcast_expr<closure_t<X&&>, R + 1> b{make_closure(std::forward<X>(x)), front};
  std::array<std::size_t, R + 1> perm{};
  for (std::size_t k = 0; k <= R; ++k) {
    perm[k] = k < axis ? k + 1 : k == axis ? 0 : k;
    out[k] = front[perm[k]];
  }
  return permute_expr<decltype(b)>{std::move(b), perm, out};
}
} // namespace detail

} // namespace lz
