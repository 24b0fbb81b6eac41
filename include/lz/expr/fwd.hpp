// Forward declarations and the concepts every layer shares: what an expression is, its value
// type and rank. Library authors write generic code against these (docs/architecture.md).
#pragma once

#include <lz/config.hpp>

#include <complex>
#include <concepts>
#include <cstdint>
#include <limits>
#include <type_traits>

/// M(X, T) for each element type whose type-dependent code the library compiles once and a
/// user's file declares `extern template` (fusion/products.hpp, evaluate.hpp).
#define LZ_FOR_EACH_COMPILED_TYPE(M, X)                                                            \
  M(X, float)                                                                                      \
  M(X, double)                                                                                     \
  M(X, std::complex<float>)                                                                        \
  M(X, std::complex<double>)                                                                       \
  M(X, std::int32_t)                                                                               \
  M(X, std::int64_t)

namespace lz {

template <class T, std::size_t R>
class tensor;
template <class T, std::size_t R>
class tensor_view;

template <class Op, class Fin, class E>
struct reduce_expr;
template <class Op, class Fin, class E>
struct reduce_axis_expr;

namespace detail {
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

/// True when converting From to To can lose values: complex to real, floating to integer or
/// bool, a narrower floating type, an integer type that cannot hold every From (int64 to int32,
/// signed to unsigned). Widening is not narrowing: float to double, int32 to int64, bool to
/// anything, integer to floating, real to complex. An `int` expression is C++'s promotion of
/// int8/int16/uint8/uint16 arithmetic (int16 + int16 is int), so it converts to any integer
/// tensor implicitly (docs/errors.md, "Narrowing").
template <class From, class To>
constexpr bool narrows() {
  if constexpr (std::is_same_v<From, To> || std::is_same_v<From, bool>)
    return false;
  else if constexpr (is_complex_v<From>) {
    if constexpr (!is_complex_v<To>)
      return true;
    else
      return narrows<typename From::value_type, typename To::value_type>();
  } else if constexpr (is_complex_v<To>)
    return narrows<From, typename To::value_type>();
  else if constexpr (std::is_same_v<To, bool>)
    return true;
  else if constexpr (std::is_floating_point_v<From>)
    return !std::is_floating_point_v<To> || sizeof(To) < sizeof(From);
  else if constexpr (std::is_integral_v<From> && std::is_integral_v<To>)
    return !std::is_same_v<From, int> &&
           (std::numeric_limits<From>::digits > std::numeric_limits<To>::digits ||
            (std::is_signed_v<From> && !std::is_signed_v<To>));
  else
    return false; // integer to floating; other types convert as they define
}

/// The compile error of an implicit narrowing assignment (every assignment path names it, with
/// the expression's type as `Where`: one error per assignment, not per pair of types). Named as
/// a statement, `(void)sizeof(check_narrowing<V, T, E>);` (a class, not a function: nothing to
/// compile per assignment), then `if constexpr (!narrows<V, T>()) { ... }` keeps the rest from
/// adding errors after this one (a static_assert inside an `if constexpr` condition would be a
/// second error under clang: "not a constant expression").
template <class From, class To, class Where>
struct check_narrowing {
  static_assert(!narrows<From, To>(),
                "lz: this assignment narrows (double to float, floating to integer, int64 to "
                "int32, complex to real): convert explicitly with lz::cast<T>(e)");
};

// Node kinds drive every traversal (flatten, bind, cost, explain) with one `if constexpr`.
struct leaf_kind {};      // tensor / view: memory with a strided layout
struct scalar_kind {};    // a constant
struct map_kind {};       // elementwise n-ary function of its children
struct permute_kind {};   // dimensions of a child expression reordered (transpose of a tree)
struct broadcast_kind {}; // child expression stretched to a larger shape
struct opaque_kind {};    // computed by its own plan step (reductions, products), then a leaf
struct sparse_kind {};    // a sparse matrix or an expression over its values (expr/sparse.hpp)

struct trusted_t {};
inline constexpr trusted_t trusted{};
struct adopt_buffer_t {};
inline constexpr adopt_buffer_t adopt_buffer{};

/// How an assignment combines with the destination: =, +=, -=, *=, /=.
enum class assign_op { set, add, sub, mul, div };

constexpr const char* assign_op_symbol(assign_op op) {
  switch (op) {
  case assign_op::set:
    return "=";
  case assign_op::add:
    return "+=";
  case assign_op::sub:
    return "-=";
  case assign_op::mul:
    return "*=";
  default:
    return "/=";
  }
}

// Defined in evaluate.hpp.
template <assign_op Op, class P, class T, std::size_t R, class E>
void assign_with(const P& pol, tensor_view<T, R> dst, const E& e);
template <assign_op Op, class T, std::size_t R, class E>
void assign_to(tensor_view<T, R> dst, const E& e);
// (always inlined into the assignment: one call less, its expression not copied for it; the
// compile cost is the same, perf/compile)
template <class T, std::size_t R, class E>
LZ_INLINE void assign_resize(tensor<T, R>& dst, const E& e);
template <class T, std::size_t R, class E>
void construct_from(tensor<T, R>& dst, const E& e);
/// false, but only once T is known: `static_assert(dependent_false<T>, "...")` in a branch or
/// overload that must not be instantiated.
template <class T>
inline constexpr bool dependent_false = false;
} // namespace detail

/// Any lazuli expression: tensors, views and expression nodes.
template <class E>
concept expression = requires {
  typename std::remove_cvref_t<E>::lz_expression;
};

/// Plain scalars that combine with expressions (broadcast to every element).
template <class S>
concept scalar_like =
    std::is_arithmetic_v<std::remove_cvref_t<S>> || detail::is_complex_v<std::remove_cvref_t<S>>;

template <class E>
concept expression_or_scalar = expression<E> || scalar_like<E>;

/// Rank of an expression (0 for scalars and full reductions).
template <class E>
inline constexpr std::size_t rank_v = std::remove_cvref_t<E>::rank;

/// Element type an expression produces.
template <class E>
using value_t = typename std::remove_cvref_t<E>::value_type;

/// An expression of rank 1 and of rank 2.
template <class E>
concept vector_expression = expression<E> && rank_v<E>
== 1;
template <class E>
concept matrix_expression = expression<E> && rank_v<E>
== 2;

} // namespace lz
