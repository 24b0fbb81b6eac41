// Reduction operators: an identity, an associative combine (also on xsimd batches), the
// accumulator type, and a finalizer that turns (accumulator, count) into the result.
// Arg-reductions carry an index with the value.
#pragma once

#include <lz/ops/functors.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace lz::red {

/// Accumulators that carry an index (argmin, argmax).
template <class T>
concept arg_accumulator = requires(T a) {
  a.index;
};

// Accumulator for sums and products: integers narrower than 64 bits (and bool) widen to
// 64 bits as in NumPy; floating types accumulate in their own type (pairwise keeps them
// accurate).
template <class V>
using wide_t = std::conditional_t<
    std::is_same_v<V, bool> || (std::is_integral_v<V> && std::is_signed_v<V> && sizeof(V) < 8),
    std::int64_t,
    std::conditional_t<std::is_integral_v<V> && std::is_unsigned_v<V> && sizeof(V) < 8,
                       std::uint64_t, V>>;

struct sum_op {
  static constexpr const char* name = "sum";
  static constexpr bool has_identity = true;
  template <class V>
  using acc_t = wide_t<V>;
  template <class A>
  static constexpr A identity() {
    return A(0);
  }
  template <class A>
  requires fn::device_scalars<A> LZ_HD static A combine(const A& a, const A& b) {
    return static_cast<A>(fn::detail::add_(a, b)); // integers wrap (functors.hpp)
  }
  template <class A>
  requires(!fn::device_scalars<A>) static A combine(const A& a, const A& b) { // batches: host
    return a + b;
  }
};

/// mean's accumulator: a sum in double for integers (NumPy's: the mean of int64 timestamps must
/// not wrap), in the element type for floating types.
struct mean_op : sum_op {
  template <class V>
  using acc_t = std::conditional_t<std::is_floating_point_v<V>, V,
                                   std::conditional_t<std::is_arithmetic_v<V>, double, V>>;
};

struct prod_op {
  static constexpr const char* name = "prod";
  static constexpr bool has_identity = true;
  template <class V>
  using acc_t = wide_t<V>;
  template <class A>
  static constexpr A identity() {
    return A(1);
  }
  template <class A>
  requires fn::device_scalars<A> LZ_HD static A combine(const A& a, const A& b) {
    return static_cast<A>(fn::detail::mul_(a, b));
  }
  template <class A>
  requires(!fn::device_scalars<A>) static A combine(const A& a, const A& b) { // batches: host
    return fn::detail::mul_(a, b); // (signed integer lanes wrap: functors.hpp)
  }
};

struct min_op {
  static constexpr const char* name = "min";
  static constexpr bool has_identity = false; // min of nothing is an error
  template <class V>
  using acc_t = V;
  template <class A>
  static constexpr A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
  template <class A>
  requires fn::device_scalars<A> LZ_HD static A combine(const A& a, const A& b) {
    return fn::minimum_fn{}(a, b); // NaN propagates
  }
  template <class A>
  requires(!fn::device_scalars<A>) static A combine(const A& a, const A& b) { // batches: host
    return fn::minimum_fn{}(a, b);                                            // NaN propagates
  }
};

struct max_op {
  static constexpr const char* name = "max";
  static constexpr bool has_identity = false;
  template <class V>
  using acc_t = V;
  template <class A>
  static constexpr A identity() {
    if constexpr (std::numeric_limits<A>::has_infinity)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  }
  template <class A>
  requires fn::device_scalars<A> LZ_HD static A combine(const A& a, const A& b) {
    return fn::maximum_fn{}(a, b);
  }
  template <class A>
  requires(!fn::device_scalars<A>) static A combine(const A& a, const A& b) { // batches: host
    return fn::maximum_fn{}(a, b);
  }
};

/// The reductions whose combine runs on xsimd batches lane by lane (fixed trees and batches fold
/// their vectors with it).
template <class Op>
inline constexpr bool lane_op = std::is_same_v<Op, sum_op> || std::is_same_v<Op, prod_op> ||
                                std::is_same_v<Op, min_op> || std::is_same_v<Op, max_op>;

struct any_op {
  static constexpr const char* name = "any";
  static constexpr bool has_identity = true;
  template <class V>
  using acc_t = bool;
  template <class A>
  static constexpr A identity() {
    return false;
  }
  LZ_HD static bool combine(bool a, bool b) { return a || b; }
};

struct all_op {
  static constexpr const char* name = "all";
  static constexpr bool has_identity = true;
  template <class V>
  using acc_t = bool;
  template <class A>
  static constexpr A identity() {
    return true;
  }
  LZ_HD static bool combine(bool a, bool b) { return a && b; }
};

/// Value + index of the best element so far; ties and NaNs resolve to the first index.
template <class V>
struct arg_acc {
  V value;
  index_t index; // -1: nothing seen yet
};

template <bool Max>
struct arg_op {
  static constexpr const char* name = Max ? "argmax" : "argmin";
  static constexpr bool has_identity = false;
  template <class V>
  using acc_t = arg_acc<V>;
  // `b` comes after `a` in index order: it wins only when strictly better, or when it is the
  // first NaN (NaN beats every number, as in NumPy).
  template <class V>
  LZ_HD static arg_acc<V> combine(const arg_acc<V>& a, const arg_acc<V>& b) {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    if constexpr (std::is_floating_point_v<V>) {
      if (a.value != a.value) return a;
      if (b.value != b.value) return b;
    }
    if (Max ? b.value > a.value : b.value < a.value) return b;
    return a;
  }
};
using argmax_op = arg_op<true>;
using argmin_op = arg_op<false>;

/// Finalizers: accumulator and element count → result.
struct identity_fin {
  static constexpr const char* name = "";
  template <class A>
  LZ_HD A operator()(const A& a, index_t) const {
    return a;
  }
};
struct mean_fin { // integers average in double
  static constexpr const char* name = "mean";
  template <class A>
  LZ_HD auto operator()(const A& a, index_t n) const {
    using R = std::conditional_t<std::is_floating_point_v<A>, A, double>;
    return n > 0 ? R(a) / R(n) : std::numeric_limits<R>::quiet_NaN();
  }
};
struct sqrt_fin { // norm2 = sqrt(sum of squares)
  static constexpr const char* name = "norm2";
  template <class A>
  LZ_HD auto operator()(const A& a, index_t) const {
    using R = std::conditional_t<std::is_floating_point_v<A>, A, double>;
    using std::sqrt;
    return sqrt(R(a));
  }
};
struct index_fin {
  static constexpr const char* name = "";
  template <class V>
  LZ_HD index_t operator()(const arg_acc<V>& a, index_t) const {
    return a.index;
  }
};

} // namespace lz::red
