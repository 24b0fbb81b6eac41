// Elementwise functors: one struct per operation, one generic body that serves scalars (host
// and device) and, through argument-dependent lookup, xsimd batches. Each names itself (for
// explain and errors) and states a rough per-element cost in "adds" that the default policy
// uses to decide on threads. Adding a function = one functor here + its public name in
// ops/math.hpp; the op lists at the bottom feed the tests, which check every backend.
#pragma once

#include <lz/config.hpp>
#include <lz/expr/fwd.hpp>

#include <cmath>
#include <concepts>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace lz::fn {

// Scalar math comes from std; batches find xsimd's overloads by ADL on their argument.
using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::cbrt;
using std::ceil;
using std::cos;
using std::exp;
using std::expm1;
using std::floor;
using std::isinf;
using std::isnan;
using std::log;
using std::log1p;
using std::pow;
using std::round;
using std::sin;
using std::sqrt;
using std::tan;
using std::tanh;

/// select(c, a, b): c ? a : b for scalars; xsimd::select for batches (found by ADL).
template <class A, class B>
requires(std::is_arithmetic_v<A>&& std::is_arithmetic_v<B>) LZ_HD
    constexpr std::common_type_t<A, B> select(bool c, const A& a, const B& b) {
  return c ? a : b;
}

/// Arguments a body may be compiled for the device with: plain arithmetic scalars. Every functor
/// has its body twice: LZ_HD for these, host-only for anything else (xsimd batches, complex), so
/// that a .cu file that also runs the CPU path never asks nvcc for a device version of a batch
/// body (a host call from device code: error 20014).
template <class... A>
concept device_scalars = (std::is_arithmetic_v<A> && ...);

namespace detail {

// xsimd batches (lanes of value_type); scalars are arithmetic types.
template <class A>
concept batch_like = !std::is_arithmetic_v<A> && requires {
  A::size;
  typename A::value_type;
};

// True when any lane of a batch mask is set. Defined in lz/simd.hpp (xsimd::any: one test of
// the mask register), which every batch kernel includes; this header stays free of xsimd.
template <class M>
bool any_lane(const M& m);
// a·b lane by lane for a batch of signed integers, wrapping as lazuli's integers do (in the
// unsigned type: xsimd multiplies 64-bit lanes one by one in the signed type on AVX2, where
// overflow is undefined). Defined in lz/simd.hpp.
template <class A>
A wrapping_mul(const A& a, const A& b);

// f lane by lane with the scalar (std) function: the exact fallback for batches that hold a
// lane xsimd's approximation gets wrong. Kept out of line: it is the rare path, and inlined into
// a kernel's unrolled loop it costs the common path registers and code size.
template <class A, class F>
LZ_NOINLINE A per_lane(const A& a, F f) {
  alignas(64) typename A::value_type x[A::size];
  a.store_unaligned(x);
  for (auto& v : x) v = f(v);
  return A::load_unaligned(x);
}
template <class A, class F>
LZ_NOINLINE A per_lane(const A& a, const A& b, F f) {
  alignas(64) typename A::value_type x[A::size], y[A::size];
  a.store_unaligned(x);
  b.store_unaligned(y);
  for (std::size_t i = 0; i < A::size; ++i) x[i] = f(x[i], y[i]);
  return A::load_unaligned(x);
}

// Integer arithmetic (docs/errors.md, "Integers"): +, -, *, negation and abs wrap modulo 2^bits
// as in NumPy, the same on every policy and backend; x / 0 gives 0 and INT_MIN / -1 gives
// INT_MIN (NumPy's results), never a trap. Signed scalars compute through their unsigned type
// (signed overflow is undefined in C++); batches wrap in hardware. Other types: the plain
// operator.
template <class R>
inline constexpr bool wrapping_int_v =
    std::is_integral_v<R>&& std::is_signed_v<R> && !std::is_same_v<R, bool>;
template <class R, class A>
LZ_HD constexpr auto as_unsigned(const A& a) {
  return static_cast<std::make_unsigned_t<R>>(static_cast<R>(a));
}
template <class A, class B>
requires device_scalars<A, B> LZ_HD constexpr auto add_(const A& a, const B& b) -> decltype(a + b) {
  using R = decltype(a + b);
  if constexpr (wrapping_int_v<R>)
    return static_cast<R>(as_unsigned<R>(a) + as_unsigned<R>(b));
  else
    return a + b;
}
template <class A, class B>
requires(!device_scalars<A, B>) auto add_(const A& a, const B& b) -> decltype(a + b) {
  return a + b;
}
template <class A, class B>
requires device_scalars<A, B> LZ_HD constexpr auto sub_(const A& a, const B& b) -> decltype(a - b) {
  using R = decltype(a - b);
  if constexpr (wrapping_int_v<R>)
    return static_cast<R>(as_unsigned<R>(a) - as_unsigned<R>(b));
  else
    return a - b;
}
template <class A, class B>
requires(!device_scalars<A, B>) auto sub_(const A& a, const B& b) -> decltype(a - b) {
  return a - b;
}
template <class A, class B>
requires device_scalars<A, B> LZ_HD constexpr auto mul_(const A& a, const B& b) -> decltype(a * b) {
  using R = decltype(a * b);
  if constexpr (wrapping_int_v<R>)
    return static_cast<R>(as_unsigned<R>(a) * as_unsigned<R>(b));
  else
    return a * b;
}
template <class A, class B>
requires(!device_scalars<A, B>) auto mul_(const A& a, const B& b) -> decltype(a * b) {
  if constexpr (batch_like<A> && std::is_same_v<A, B>) {
    if constexpr (std::is_integral_v<typename A::value_type> &&
                  std::is_signed_v<typename A::value_type>)
      return wrapping_mul(a, b);
    else
      return a * b;
  } else {
    return a * b;
  }
}
template <class A, class B>
requires device_scalars<A, B> LZ_HD constexpr auto div_(const A& a, const B& b) -> decltype(a / b) {
  using R = decltype(a / b);
  if constexpr (std::is_integral_v<R>) {
    if (b == B(0)) return R(0);
    if constexpr (wrapping_int_v<R>)
      if (static_cast<R>(b) == R(-1)) return static_cast<R>(R(0) - as_unsigned<R>(a));
    return static_cast<R>(a / b);
  } else {
    return a / b;
  }
}
template <class A, class B>
requires(!device_scalars<A, B>) auto div_(const A& a, const B& b) -> decltype(a / b) {
  if constexpr (batch_like<A> && std::is_same_v<A, B> &&
                std::is_integral_v<typename A::value_type>) {
    // xsimd divides integer lanes one by one: the lanes that would trap go through div_ above.
    using T = typename A::value_type;
    auto odd = b == A(T(0));
    if constexpr (std::is_signed_v<T>) odd = odd | (b == A(T(-1)));
    if (any_lane(odd)) return per_lane(a, b, [](T x, T y) { return T(div_(x, y)); });
    return a / b;
  } else {
    return a / b;
  }
}
template <class A>
requires device_scalars<A> LZ_HD constexpr auto abs_(const A& a) -> decltype(abs(a)) {
  using R = decltype(abs(a));
  if constexpr (wrapping_int_v<R>)
    return a < A(0) ? static_cast<R>(R(0) - as_unsigned<R>(a)) : static_cast<R>(a);
  else
    return abs(a);
}
template <class A>
requires(!device_scalars<A>) auto abs_(const A& a) -> decltype(abs(a)) { return abs(a); }

// xsimd 8.1 (Debian 12) gets these wrong on batches (found by tests/core/ops_test.cpp), so
// their batch bodies send the batches holding such lanes through std, lane by lane:
//   exp, expm1  float overflows early (exp(88.5f) = inf); double results below DBL_MIN are
//               garbage (exp(-726) is off by 8e7 ulp)                -> lanes with |x| > 87 / 708
//   log, cbrt   subnormal inputs (double log(4.9e-324) = -746.5, not -744.4)
//   atan2       (±0, ±0) and (±inf, ±inf) give NaN
//   expm1, log1p  -0 gives +0 (a zero's sign decides 1/x; tests/support/check.hpp checks it)
//   pow         special cases (pow(0, 0) = 0, pow(-inf, 2) = NaN, pow(1, inf) = NaN, overflow
//               at pow(385.2f, 14.9f)) and an error of about |y·ln x| ulp (50 ulp for ordinary
//               inputs): always lane by lane
// -x on batches flips the sign bit: xsimd 8.1's AVX-512 neg is `0 - x`, which turns +0 into +0
// (not -0), so 1 / -x gave +inf for x = +0 on AVX-512 machines only (found by the random-tree
// tests the first time they ran on one).
template <class A>
requires device_scalars<A> LZ_HD auto negate_(const A& a) -> decltype(-a) {
  using R = decltype(-a);
  if constexpr (wrapping_int_v<R>)
    return static_cast<R>(R(0) - as_unsigned<R>(a)); // -INT_MIN = INT_MIN
  else
    return -a;
}
template <class A>
requires(!device_scalars<A>) auto negate_(const A& a) -> decltype(-a) {
  if constexpr (batch_like<A> && std::is_floating_point_v<typename A::value_type>)
    return a ^ A(typename A::value_type(-0.0));
  else
    return -a;
}
// The batch bodies of the transcendental functions, one struct each (run(a) for batches), with
// the rare-lane fixes above. A kernel reaches them through batch_math: for float and double
// batches of the SIMD target lazuli_kernels was compiled for, where math_outlined says so
// (512-bit targets, or LZ_OUTLINE_MATH: lz/simd.hpp), it calls the copy compiled once in the
// library (kernels/cpu/vmath.cpp); otherwise the body is inlined. Inlined, xsimd's exp/sin/tanh
// bodies are the largest part of what a user's file compiles per tree (perf/compile,
// docs/decisions/transcendentals-compiled-once.md); called, they cost a call per batch, which is
// free beside 8 doubles of a transcendental but not beside 4 (AVX2: W2 1.4x).
struct exp_b {
  template <class A>
  static A run(const A& a) {
    using T = typename A::value_type;
    if (any_lane(!(abs(a) <= A(T(sizeof(T) == 4 ? 87 : 708)))))
      return per_lane(a, [](T x) { return T(std::exp(x)); });
    return exp(a);
  }
};
struct expm1_b {
  template <class A>
  static A run(const A& a) {
    using T = typename A::value_type;
    if (any_lane(!(abs(a) <= A(T(sizeof(T) == 4 ? 87 : 708)))))
      return per_lane(a, [](T x) { return T(std::expm1(x)); });
    return select(a == A(T(0)), a, expm1(a)); // expm1(-0) = -0 (xsimd gives +0)
  }
};
struct log1p_b {
  template <class A>
  static A run(const A& a) {
    using T = typename A::value_type;
    return select(a == A(T(0)), a, log1p(a)); // log1p(-0) = -0 (xsimd gives +0)
  }
};
struct log_b {
  template <class A>
  static A run(const A& a) {
    using T = typename A::value_type;
    const A x = abs(a);
    if (any_lane((x < A(std::numeric_limits<T>::min())) & (x > A(T(0)))))
      return per_lane(a, [](T v) { return T(std::log(v)); });
    return log(a);
  }
};
struct cbrt_b {
  template <class A>
  static A run(const A& a) {
    using T = typename A::value_type;
    const A x = abs(a);
    if (any_lane((x < A(std::numeric_limits<T>::min())) & (x > A(T(0)))))
      return per_lane(a, [](T v) { return T(std::cbrt(v)); });
    return cbrt(a);
  }
};
struct atan2_b {
  template <class A>
  static A run(const A& a, const A& b) {
    using T = typename A::value_type;
    const A zero(T(0)), inf(std::numeric_limits<T>::infinity());
    if (any_lane(((a == zero) & (b == zero)) | ((abs(a) == inf) & (abs(b) == inf))))
      return per_lane(a, b, [](T x, T y) { return T(std::atan2(x, y)); });
    return atan2(a, b);
  }
};
#define LZ_PLAIN_BATCH_BODY(NAME)                                                                  \
  struct NAME##_b {                                                                                \
    template <class A>                                                                             \
    static A run(const A& a) {                                                                     \
      return NAME(a);                                                                              \
    }                                                                                              \
  };
LZ_PLAIN_BATCH_BODY(sin)
LZ_PLAIN_BATCH_BODY(cos)
LZ_PLAIN_BATCH_BODY(tan)
LZ_PLAIN_BATCH_BODY(tanh)
LZ_PLAIN_BATCH_BODY(asin)
LZ_PLAIN_BATCH_BODY(acos)
LZ_PLAIN_BATCH_BODY(atan)
#undef LZ_PLAIN_BATCH_BODY

/// The unary bodies above that batch_math may call compiled (one list: the dispatch below, the
/// library's instantiations in kernels/cpu/vmath.cpp and tests/kernels/vmath_test.cpp expand
/// it). Binary: atan2_b.
#define LZ_OUTLINED_UNARY_MATH(X)                                                                  \
  X(exp) X(expm1) X(log) X(log1p) X(cbrt) X(sin) X(cos) X(tan) X(tanh) X(asin) X(acos) X(atan)

/// True for the batch types whose transcendental bodies lazuli_kernels compiled (lz/simd.hpp).
template <class A>
struct math_outlined : std::false_type {};
/// F::run compiled in the library (kernels/cpu/vmath.cpp), batches passed in registers.
template <class F, class A>
A outlined(A a);
template <class F, class A>
A outlined(A a, A b);

template <class F, class... A>
LZ_INLINE auto batch_math(const A&... a) {
  if constexpr ((math_outlined<A>::value && ...))
    return outlined<F>(a...);
  else
    return F::run(a...);
}

// NAME_(a): NAME on device scalars (LZ_HD), on host scalars (std), and on batches (batch_math).
#define LZ_MATH_DISPATCH(NAME)                                                                     \
  template <class A>                                                                               \
  requires device_scalars<A> LZ_HD auto NAME##_(const A& a)->decltype(NAME(a)) { return NAME(a); } \
  template <class A>                                                                               \
  requires(!device_scalars<A>) auto NAME##_(const A& a)->decltype(NAME(a)) {                       \
    if constexpr (batch_like<A>)                                                                   \
      return batch_math<NAME##_b>(a);                                                              \
    else                                                                                           \
      return NAME(a);                                                                              \
  }
LZ_OUTLINED_UNARY_MATH(LZ_MATH_DISPATCH)
#undef LZ_MATH_DISPATCH

template <class A, class B>
requires device_scalars<A, B> LZ_HD auto atan2_(const A& a, const B& b) -> decltype(atan2(a, b)) {
  return atan2(a, b);
}
template <class A, class B>
requires(!device_scalars<A, B>) auto atan2_(const A& a, const B& b) -> decltype(atan2(a, b)) {
  if constexpr (batch_like<A> && std::is_same_v<A, B>)
    return batch_math<atan2_b>(a, b);
  else
    return atan2(a, b);
}
template <class A, class B>
requires device_scalars<A, B> LZ_HD auto pow_(const A& a, const B& b) -> decltype(pow(a, b)) {
  return pow(a, b);
}
template <class A, class B>
requires(!device_scalars<A, B>) auto pow_(const A& a, const B& b) -> decltype(pow(a, b)) {
  if constexpr (batch_like<A> && std::is_same_v<A, B>) {
    using T = typename A::value_type;
    return per_lane(a, b, [](T x, T y) { return T(std::pow(x, y)); });
  } else {
    return pow(a, b);
  }
}

} // namespace detail

#define LZ_UNARY_FN(NAME, EXPR, COST)                                                              \
  struct NAME##_fn {                                                                               \
    static constexpr const char* name = #NAME;                                                     \
    static constexpr int cost = COST;                                                              \
    template <class A>                                                                             \
    requires device_scalars<A> LZ_HD auto operator()(const A& a) const -> decltype(EXPR) {         \
      return EXPR;                                                                                 \
    }                                                                                              \
    template <class A>                                                                             \
    requires(!device_scalars<A>) auto operator()(const A& a) const -> decltype(EXPR) {             \
      return EXPR;                                                                                 \
    }                                                                                              \
  };

#define LZ_BINARY_FN(NAME, SYMBOL, EXPR, COST)                                                     \
  struct NAME##_fn {                                                                               \
    static constexpr const char* name = SYMBOL;                                                    \
    static constexpr int cost = COST;                                                              \
    template <class A, class B>                                                                    \
    requires device_scalars<A, B> LZ_HD auto operator()(const A& a, const B& b) const              \
        -> decltype(EXPR) {                                                                        \
      return EXPR;                                                                                 \
    }                                                                                              \
    template <class A, class B>                                                                    \
    requires(!device_scalars<A, B>) auto operator()(const A& a, const B& b) const                  \
        -> decltype(EXPR) {                                                                        \
      return EXPR;                                                                                 \
    }                                                                                              \
  };

// Arithmetic and comparison (SYMBOL is what explain and error messages print).
LZ_BINARY_FN(plus, "+", detail::add_(a, b), 1)
LZ_BINARY_FN(minus, "-", detail::sub_(a, b), 1)
LZ_BINARY_FN(multiplies, "*", detail::mul_(a, b), 1)
LZ_BINARY_FN(divides, "/", detail::div_(a, b), 4)
LZ_BINARY_FN(equal, "==", a == b, 1)
// Not `a != b`: xsimd 8.1's AVX != is the ordered predicate, false when a lane is NaN.
LZ_BINARY_FN(not_equal, "!=", !(a == b), 1)
LZ_BINARY_FN(less, "<", a < b, 1)
LZ_BINARY_FN(less_equal, "<=", a <= b, 1)
LZ_BINARY_FN(greater, ">", a > b, 1)
LZ_BINARY_FN(greater_equal, ">=", a >= b, 1)
LZ_BINARY_FN(atan2, "atan2", detail::atan2_(a, b), 25)
LZ_BINARY_FN(pow, "pow", detail::pow_(a, b), 30)

LZ_UNARY_FN(negate, detail::negate_(a), 1)
LZ_UNARY_FN(square, detail::mul_(a, a), 1)
LZ_UNARY_FN(abs, detail::abs_(a), 1)
LZ_UNARY_FN(sqrt, sqrt(a), 6)
LZ_UNARY_FN(cbrt, detail::cbrt_(a), 20)
LZ_UNARY_FN(exp, detail::exp_(a), 10)
LZ_UNARY_FN(expm1, detail::expm1_(a), 12)
LZ_UNARY_FN(log, detail::log_(a), 12)
LZ_UNARY_FN(log1p, detail::log1p_(a), 14)
LZ_UNARY_FN(sin, detail::sin_(a), 15)
LZ_UNARY_FN(cos, detail::cos_(a), 15)
LZ_UNARY_FN(tan, detail::tan_(a), 20)
LZ_UNARY_FN(tanh, detail::tanh_(a), 15)
LZ_UNARY_FN(asin, detail::asin_(a), 15)
LZ_UNARY_FN(acos, detail::acos_(a), 15)
LZ_UNARY_FN(atan, detail::atan_(a), 15)
LZ_UNARY_FN(floor, floor(a), 1)
LZ_UNARY_FN(ceil, ceil(a), 1)
LZ_UNARY_FN(round, round(a), 2)
LZ_UNARY_FN(isnan, isnan(a), 1)
LZ_UNARY_FN(isinf, isinf(a), 1)

#undef LZ_UNARY_FN
#undef LZ_BINARY_FN

/// Logical and/or/not: on bools they stay bool (no promotion to int); on masks, bitwise.
struct logical_and_fn {
  static constexpr const char* name = "&&";
  static constexpr int cost = 1;
  LZ_HD bool operator()(bool a, bool b) const { return a && b; }
  template <class A, class B>
  requires(!std::is_arithmetic_v<A>) auto operator()(const A& a, const B& b) const
      -> decltype(a & b) {
    return a & b;
  }
};
struct logical_or_fn {
  static constexpr const char* name = "||";
  static constexpr int cost = 1;
  LZ_HD bool operator()(bool a, bool b) const { return a || b; }
  template <class A, class B>
  requires(!std::is_arithmetic_v<A>) auto operator()(const A& a, const B& b) const
      -> decltype(a | b) {
    return a | b;
  }
};
struct logical_not_fn {
  static constexpr const char* name = "!";
  static constexpr int cost = 1;
  LZ_HD bool operator()(bool a) const { return !a; }
  template <class A>
  requires(!std::is_arithmetic_v<A>) auto operator()(const A& a) const -> decltype(!a) {
    return !a;
  }
};

/// NaN-propagating maximum / minimum (NumPy's maximum/minimum, not fmax/fmin). NaN is tested as
/// !(a == a), not a != a: xsimd 8's AVX `!=` is the ordered compare (_CMP_NEQ_OQ), false on NaN.
/// Floating batches: batch_maximum / batch_minimum (lz/simd.hpp), three instructions on x86.
namespace detail {
template <class A>
A batch_maximum(const A& a, const A& b);
template <class A>
A batch_minimum(const A& a, const A& b);
template <class A, class B>
inline constexpr bool float_batches = false;
template <class A>
requires batch_like<A>
inline constexpr bool float_batches<A, A> = std::is_floating_point_v<typename A::value_type>;
} // namespace detail
struct maximum_fn {
  static constexpr const char* name = "maximum";
  static constexpr int cost = 2;
  template <class A, class B>
  requires device_scalars<A, B> LZ_HD auto operator()(const A& a, const B& b) const
      -> decltype(select((a > b) | !(a == a), a, b)) {
    return select((a > b) | !(a == a), a, b);
  }
  template <class A, class B>
  requires(!device_scalars<A, B>) auto operator()(const A& a, const B& b) const
      -> decltype(select((a > b) | !(a == a), a, b)) {
    if constexpr (detail::float_batches<A, B>)
      return detail::batch_maximum(a, b);
    else
      return select((a > b) | !(a == a), a, b);
  }
};
struct minimum_fn {
  static constexpr const char* name = "minimum";
  static constexpr int cost = 2;
  template <class A, class B>
  requires device_scalars<A, B> LZ_HD auto operator()(const A& a, const B& b) const
      -> decltype(select((a < b) | !(a == a), a, b)) {
    return select((a < b) | !(a == a), a, b);
  }
  template <class A, class B>
  requires(!device_scalars<A, B>) auto operator()(const A& a, const B& b) const
      -> decltype(select((a < b) | !(a == a), a, b)) {
    if constexpr (detail::float_batches<A, B>)
      return detail::batch_minimum(a, b);
    else
      return select((a < b) | !(a == a), a, b);
  }
};

/// sign(x): -1, 0 or +1 (NaN stays NaN, as in NumPy).
struct sign_fn {
  static constexpr const char* name = "sign";
  static constexpr int cost = 2;
  template <class A>
  requires device_scalars<A> LZ_HD auto operator()(const A& a) const
      -> decltype(select(a > A(0), A(1), select(a < A(0), A(-1), a* A(0)))) {
    return select(a > A(0), A(1), select(a < A(0), A(-1), a * A(0)));
  }
  template <class A>
  requires(!device_scalars<A>) auto operator()(const A& a) const
      -> decltype(select(a > A(0), A(1), select(a < A(0), A(-1), a* A(0)))) {
    return select(a > A(0), A(1), select(a < A(0), A(-1), a * A(0)));
  }
};

/// where(c, a, b): a where c holds, else b.
struct where_fn {
  static constexpr const char* name = "where";
  static constexpr int cost = 1;
  template <class C, class A, class B>
  requires device_scalars<C, A, B> LZ_HD auto operator()(const C& c, const A& a, const B& b) const
      -> decltype(select(c, a, b)) {
    return select(c, a, b);
  }
  template <class C, class A, class B>
  requires(!device_scalars<C, A, B>) auto operator()(const C& c, const A& a, const B& b) const
      -> decltype(select(c, a, b)) {
    return select(c, a, b);
  }
};

/// clamp(x, lo, hi) = minimum(maximum(x, lo), hi).
struct clamp_fn {
  static constexpr const char* name = "clamp";
  static constexpr int cost = 3;
  template <class A, class L, class H>
  requires device_scalars<A, L, H> LZ_HD auto operator()(const A& a, const L& lo, const H& hi) const
      -> decltype(minimum_fn{}(maximum_fn{}(a, lo), hi)) {
    return minimum_fn{}(maximum_fn{}(a, lo), hi);
  }
  template <class A, class L, class H>
  requires(!device_scalars<A, L, H>) auto operator()(const A& a, const L& lo, const H& hi) const
      -> decltype(minimum_fn{}(maximum_fn{}(a, lo), hi)) {
    return minimum_fn{}(maximum_fn{}(a, lo), hi);
  }
};

/// Conversion to T (scalar path only; batches of other lane counts do not mix).
template <class T>
struct cast_fn {
  static constexpr const char* name = "cast";
  static constexpr int cost = 1;
  template <class A>
  requires device_scalars<A> LZ_HD auto operator()(const A& a) const
      -> decltype(static_cast<T>(a)) {
    return static_cast<T>(a);
  }
  template <class A>
  requires(!device_scalars<A>) auto operator()(const A& a) const -> decltype(static_cast<T>(a)) {
    return static_cast<T>(a);
  }
};

/// Per-element cost of a functor (1 when it does not say).
template <class F>
inline constexpr int cost_of = [] {
  if constexpr (requires { F::cost; })
    return F::cost;
  else
    return 1;
}();

/// Name of a functor for explain text ("f" for user lambdas).
template <class F>
constexpr const char* name_of() {
  if constexpr (requires { F::name; })
    return F::name;
  else
    return "map";
}

template <class... F>
struct op_list {};

/// Every unary and binary elementwise functor; tests iterate these lists.
using unary_ops = op_list<negate_fn, square_fn, abs_fn, sqrt_fn, cbrt_fn, exp_fn, expm1_fn, log_fn,
                          log1p_fn, sin_fn, cos_fn, tan_fn, tanh_fn, asin_fn, acos_fn, atan_fn,
                          floor_fn, ceil_fn, round_fn, sign_fn>;
using binary_ops =
    op_list<plus_fn, minus_fn, multiplies_fn, divides_fn, maximum_fn, minimum_fn, atan2_fn, pow_fn>;
using compare_ops =
    op_list<equal_fn, not_equal_fn, less_fn, less_equal_fn, greater_fn, greater_equal_fn>;

template <class F, class L>
inline constexpr bool in_op_list = false;
template <class F, class... G>
inline constexpr bool in_op_list<F, op_list<G...>> = (std::is_same_v<F, G> || ...);
template <class F>
inline constexpr bool is_cast_fn = false;
template <class T>
inline constexpr bool is_cast_fn<cast_fn<T>> = true;

/// True for lazuli's own elementwise functors, which never throw (a user function given to
/// lz::map may): a plan may then apply them where an exception would leave a destination half
/// written (fusion/sparse.hpp's SpMV over a merge).
template <class F>
inline constexpr bool never_throws =
    in_op_list<F, unary_ops> || in_op_list<F, binary_ops> || in_op_list<F, compare_ops> ||
    is_cast_fn<F> ||
    in_op_list<F, op_list<logical_and_fn, logical_or_fn, logical_not_fn, where_fn, clamp_fn>>;

/// dst ⊕ v for the assignment operators (=, +=, -=, *=, /=), with the functors' semantics
/// (integers wrap, x / 0 = 0). Every loop that stores an assignment uses it.
LZ_HD_TEMPLATE
template <lz::detail::assign_op Op, class A, class B>
LZ_INLINE LZ_HD auto assign_combine(const A& a, const B& b) {
  if constexpr (Op == lz::detail::assign_op::set)
    return b;
  else if constexpr (Op == lz::detail::assign_op::add)
    return plus_fn{}(a, b);
  else if constexpr (Op == lz::detail::assign_op::sub)
    return minus_fn{}(a, b);
  else if constexpr (Op == lz::detail::assign_op::mul)
    return multiplies_fn{}(a, b);
  else
    return divides_fn{}(a, b);
}

} // namespace lz::fn
