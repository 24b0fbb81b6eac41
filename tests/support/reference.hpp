// Plain reference evaluator for tests: walks any expression tree element by element with
// multi-indices (no SIMD, no fusion, no coalescing, no threads), reductions in long double.
// Everything lazuli computes is compared against this.
#pragma once

#include <lz/lz.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

namespace lz_test {

using lz::index_t;

template <std::size_t R>
using idx_t = std::array<index_t, R>;

// Value of expression e at multi-index i (broadcasting extent-1 dims of children).
template <class E, std::size_t R>
auto ref_at(const E& e, const idx_t<R>& i);

template <class C, std::size_t R>
auto ref_child(const C& c, const idx_t<R>& i);
template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_expr<Op, Fin, E>& e, const idx_t<R>&);
template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_axis_expr<Op, Fin, E>& e, const idx_t<R>& i);
template <class A, class B, std::size_t R>
auto ref_opaque(const lz::matmul_expr<A, B>& e, const idx_t<R>& i);

// Declared before ref_at uses them: its arguments live in namespace lz, so argument-dependent
// lookup at instantiation would not find them in lz_test.
template <class C, std::size_t R>
auto ref_child(const C& c, const idx_t<R>& i);
template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_expr<Op, Fin, E>& e, const idx_t<R>&);
template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_axis_expr<Op, Fin, E>& e, const idx_t<R>& i);

namespace detail {

template <std::size_t R, std::size_t R2>
idx_t<R> clip(const idx_t<R2>& i, const lz::shape_t<R>& s) { // broadcast: extent-1 dims -> 0
  idx_t<R> out{};
  for (std::size_t k = 0; k < R; ++k) out[k] = s[k] == 1 ? 0 : i[k];
  return out;
}

template <class L, std::size_t R>
auto leaf_at(const L& l, const idx_t<R>& i) {
  index_t off = 0;
  for (std::size_t k = 0; k < R; ++k) off += i[k] * l.layout().strides[k];
  return l.data()[off];
}

// Generic reduction over every element of e in row-major order.
template <class E, class F>
void for_each_index(const E& e, F&& f) {
  constexpr std::size_t R = lz::rank_v<E>;
  const auto s = e.shape();
  index_t n = 1;
  for (auto x : s) n *= x;
  idx_t<R> i{};
  for (index_t c = 0; c < n; ++c) {
    f(i);
    for (std::size_t k = R; k-- > 0;) {
      if (++i[k] < s[k]) break;
      i[k] = 0;
    }
  }
}

template <class Op, class Fin, class E>
auto reduce_ref(const E& arg) {
  using V = lz::value_t<E>;
  using A = typename Op::template acc_t<V>;
  index_t count = 0;
  if constexpr (requires(A a) { a.index; }) {
    A acc{V{}, -1};
    for_each_index(arg, [&](const auto& i) {
      acc = Op::combine(acc, A{static_cast<V>(ref_at(arg, i)), count});
      ++count;
    });
    return Fin{}(acc, count);
  } else if constexpr (std::is_floating_point_v<A>) {
    long double acc = Op::template identity<A>();
    for_each_index(arg, [&](const auto& i) {
      acc = Op::combine(acc, static_cast<long double>(ref_at(arg, i)));
      ++count;
    });
    return Fin{}(static_cast<A>(acc), count);
  } else {
    A acc = Op::template identity<A>();
    for_each_index(arg, [&](const auto& i) {
      acc = Op::combine(acc, static_cast<A>(ref_at(arg, i)));
      ++count;
    });
    return Fin{}(acc, count);
  }
}

} // namespace detail

template <class E, std::size_t R>
auto ref_at(const E& e, const idx_t<R>& i) {
  using K = lz::detail::kind_t<E>;
  if constexpr (std::is_same_v<K, lz::detail::leaf_kind>) {
    return detail::leaf_at(e, detail::clip<lz::rank_v<E>>(i, e.shape()));
  } else if constexpr (std::is_same_v<K, lz::detail::scalar_kind>) {
    return e.value;
  } else if constexpr (std::is_same_v<K, lz::detail::map_kind>) {
    return [&]<class F, class... A>(const lz::map_expr<F, A...>& m) {
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return m.f(ref_child(lz::detail::get<J>(m.args), i)...);
      }
      (std::index_sequence_for<A...>{});
    }(e);
  } else if constexpr (std::is_same_v<K, lz::detail::permute_kind>) {
    constexpr std::size_t RR = lz::rank_v<E>;
    idx_t<RR> j{};
    for (std::size_t k = 0; k < RR; ++k) j[e.perm[k]] = i[k];
    return ref_at(e.arg, j);
  } else if constexpr (std::is_same_v<K, lz::detail::broadcast_kind>) {
    constexpr std::size_t R2 = lz::rank_v<E>, R1 = lz::rank_v<decltype(e.arg)>;
    idx_t<R1> j{};
    for (std::size_t k = 0; k < R1; ++k) j[k] = i[k + (R2 - R1)];
    return ref_at(e.arg, detail::clip<R1>(j, e.arg.shape()));
  } else { // opaque: reductions
    return ref_opaque(e, i);
  }
}

// Children of rank 0 see no index; others see the parent's index, clipped for broadcasting.
template <class C, std::size_t R>
auto ref_child(const C& c, const idx_t<R>& i) {
  if constexpr (lz::rank_v<C> == 0)
    return ref_at(c, idx_t<0>{});
  else
    return ref_at(c, detail::clip<lz::rank_v<C>>(i, c.shape()));
}

template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_expr<Op, Fin, E>& e, const idx_t<R>&) {
  return detail::reduce_ref<Op, Fin>(e.arg);
}

template <class Op, class Fin, class E, std::size_t R>
auto ref_opaque(const lz::reduce_axis_expr<Op, Fin, E>& e, const idx_t<R>& i) {
  // Reduce the slice of e.arg with every index fixed except the axis.
  constexpr std::size_t RA = lz::rank_v<E>;
  using V = lz::value_t<E>;
  using A = typename Op::template acc_t<V>;
  const index_t n = e.arg.shape()[e.axis];
  auto at = [&](index_t k) {
    idx_t<RA> j{};
    for (std::size_t d = 0, m = 0; d < RA; ++d) j[d] = d == e.axis ? k : i[m++];
    return ref_at(e.arg, j);
  };
  if constexpr (requires(A a) { a.index; }) {
    A acc{V{}, -1};
    for (index_t k = 0; k < n; ++k) acc = Op::combine(acc, A{static_cast<V>(at(k)), k});
    return Fin{}(acc, n);
  } else if constexpr (std::is_floating_point_v<A>) {
    long double acc = Op::template identity<A>();
    for (index_t k = 0; k < n; ++k) acc = Op::combine(acc, static_cast<long double>(at(k)));
    return Fin{}(static_cast<A>(acc), n);
  } else {
    A acc = Op::template identity<A>();
    for (index_t k = 0; k < n; ++k) acc = Op::combine(acc, static_cast<A>(at(k)));
    return Fin{}(acc, n);
  }
}

// Products: each element is a dot product of a row and a column, in long double.
template <class A, class B, std::size_t R>
auto ref_opaque(const lz::matmul_expr<A, B>& e, const idx_t<R>& i) {
  using V = lz::value_t<lz::matmul_expr<A, B>>;
  const index_t k = e.lhs.shape()[1];
  using Acc = std::conditional_t<std::is_floating_point_v<V>, long double, V>;
  Acc acc{};
  for (index_t j = 0; j < k; ++j) {
    const auto a = ref_at(e.lhs, idx_t<2>{i[0], j});
    if constexpr (R == 2)
      acc += Acc(a) * Acc(ref_at(e.rhs, idx_t<2>{j, i[1]}));
    else
      acc += Acc(a) * Acc(ref_at(e.rhs, idx_t<1>{j}));
  }
  return static_cast<V>(acc);
}

/// Value of a full reduction by the reference walker (long double accumulation for floats).
template <class Op, class Fin, class E>
auto ref_scalar(const lz::reduce_expr<Op, Fin, E>& e) {
  return detail::reduce_ref<Op, Fin>(e.arg);
}

/// Evaluates e with the reference walker into a fresh row-major tensor.
template <class E>
auto reference(const E& e) {
  using V = lz::value_t<E>;
  constexpr std::size_t R = lz::rank_v<E>;
  lz::tensor<V, R> out(e.shape());
  detail::for_each_index(e, [&](const idx_t<R>& i) {
    index_t off = 0;
    for (std::size_t k = 0; k < R; ++k) off += i[k] * out.layout().strides[k];
    out.data()[off] = static_cast<V>(ref_at(e, i));
  });
  return out;
}

/// Distance in units in the last place between two floating values (NaN == NaN counts 0).
template <class T>
double ulp_distance(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  if (a == b) return 0;
  if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<double>::infinity();
  const T spacing = std::nextafter(std::fabs(b), std::numeric_limits<T>::infinity()) - std::fabs(b);
  return std::fabs(double(a) - double(b)) / double(spacing);
}

/// Largest elementwise ulp distance (floating) or count of mismatches (others) between two
/// tensors of the same shape, walked by multi-index.
template <class A, class B>
double max_ulp(const A& a, const B& b) {
  double worst = 0;
  if constexpr (lz::detail::is_kind_v<A, lz::detail::leaf_kind> &&
                lz::detail::is_kind_v<B, lz::detail::leaf_kind> &&
                std::is_same_v<lz::value_t<A>, lz::value_t<B>>) {
    // Fast path for two row-major tensors: a flat walk.
    if (a.shape() == b.shape() && a.layout().is_row_major() && b.layout().is_row_major()) {
      using T = lz::value_t<A>;
      const T* x = a.data();
      const T* y = b.data();
      for (index_t i = 0, n = a.size(); i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          worst = std::max(worst, ulp_distance<T>(x[i], y[i]));
        else if (!(x[i] == y[i]))
          return std::numeric_limits<double>::infinity();
      }
      return worst;
    }
  }
  detail::for_each_index(a, [&](const auto& i) {
    auto x = ref_at(a, i);
    auto y = ref_at(b, i);
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>)
      worst = std::max(worst, ulp_distance<T>(x, y));
    else if (!(x == y))
      worst = std::numeric_limits<double>::infinity();
  });
  return worst;
}

/// Elements where both tensors hold a zero of different signs (max_ulp counts them equal).
template <class A, class B>
index_t zero_sign_mismatches(const A& a, const B& b) {
  index_t n = 0;
  detail::for_each_index(a, [&](const auto& i) {
    auto x = ref_at(a, i);
    auto y = ref_at(b, i);
    if constexpr (std::is_floating_point_v<decltype(x)>)
      n += x == 0 && y == 0 && std::signbit(x) != std::signbit(y);
  });
  return n;
}

/// Largest |a - b| / (|b| + tiny) over elements (for reductions and cancellation-prone trees).
template <class A, class B>
double max_rel_error(const A& a, const B& b) {
  double worst = 0;
  detail::for_each_index(a, [&](const auto& i) {
    const double x = double(ref_at(a, i)), y = double(ref_at(b, i));
    if (std::isnan(x) && std::isnan(y)) return;
    if (x == y) return;
    worst = std::max(worst, std::fabs(x - y) / (std::fabs(y) + 1e-300));
  });
  return worst;
}

} // namespace lz_test
