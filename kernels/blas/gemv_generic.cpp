// lazuli's own gemv: y = alpha·A·x + beta·y for any signed strides and for int32/int64 (and
// float/double at strides BLAS cannot take). Run by gemv plan steps that CBLAS cannot serve.
// gemv reads every element of A once, so it is bound by memory bandwidth: the kernels only
// need to stream A at full speed (xsimd over the contiguous direction of A) and split rows
// across threads. Each y element is summed in an order fixed by n alone, so results are
// bit-identical for any thread count.
#include "trace.hpp"

#include <lz/errors.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <lz/simd.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace lz::kernels::blas {
namespace {

index_t ceil_div4(index_t v) { return (v + 3) / 4; }

template <class T, bool = std::is_integral_v<T>>
struct compute {
  using type = T;
};
template <class T>
struct compute<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using compute_t = typename compute<T>::type;

// AVX2 has no 64-bit multiply: xsimd would emulate it lane by lane, slower than scalar code.
template <class S>
constexpr bool use_simd = xsimd::batch<S>::size > 1 && !std::is_same_v<S, std::uint64_t>;

template <class B>
LZ_INLINE B madd(B a, B b, B c) {
  if constexpr (std::is_floating_point_v<typename B::value_type>)
    return xsimd::fma(a, b, c);
  else
    return c + a * b;
}

template <class S>
LZ_INLINE void finish(S acc, S alpha, S beta, S* y) {
  const S v = alpha * acc;
  *y = beta == S(0) ? v : v + beta * *y;
}

// Rows contiguous (csa == 1): R rows at a time share each load of x. One vector accumulator
// per row, then its lanes, then the scalar tail: the same order for every row.
template <class S, int R>
LZ_INLINE void dot_rows(index_t n, const S* A, index_t rsa, const S* x, S (&out)[R]) {
  index_t j = 0;
  if constexpr (use_simd<S>) {
    using batch = xsimd::batch<S>;
    constexpr index_t W = batch::size;
    batch acc[R];
    for (int r = 0; r < R; ++r) acc[r] = batch(S(0));
    for (; j + W <= n; j += W) {
      const batch xv = batch::load_unaligned(x + j);
      for (int r = 0; r < R; ++r) acc[r] = madd(batch::load_unaligned(A + r * rsa + j), xv, acc[r]);
    }
    for (int r = 0; r < R; ++r) out[r] = xsimd::hadd(acc[r]);
  } else {
    for (int r = 0; r < R; ++r) out[r] = S(0);
  }
  for (; j < n; ++j)
    for (int r = 0; r < R; ++r) out[r] += A[r * rsa + j] * x[j];
}

template <class S>
void rows_kernel(index_t i0, index_t i1, index_t n, S alpha, const S* A, index_t rsa, const S* x,
                 S beta, S* y, index_t incy) {
  index_t i = i0;
  for (; i + 4 <= i1; i += 4) {
    S acc[4];
    dot_rows<S, 4>(n, A + i * rsa, rsa, x, acc);
    for (int r = 0; r < 4; ++r) finish(acc[r], alpha, beta, y + (i + r) * incy);
  }
  for (; i < i1; ++i) {
    S acc[1];
    dot_rows<S, 1>(n, A + i * rsa, rsa, x, acc);
    finish(acc[0], alpha, beta, y + i * incy);
  }
}

// Columns contiguous (rsa == 1): y[i0:i1] accumulates x_j·A(:, j), four columns per sweep of
// the accumulator block (an L1-resident buffer), each element adding columns in order j.
// Rows per accumulator block. Threads take whole blocks, so which rows the SIMD loop and which
// the scalar tail computes never depends on the thread count (without hardware FMA the two
// round differently).
constexpr index_t cols_block = 512;

template <class S>
void cols_kernel(index_t i0, index_t i1, index_t n, S alpha, const S* A, index_t csa, const S* x,
                 S beta, S* y, index_t incy) {
  constexpr index_t block = cols_block;
  alignas(64) S acc[block];
  for (index_t b0 = i0; b0 < i1; b0 += block) {
    const index_t len = std::min(block, i1 - b0);
    std::fill(acc, acc + len, S(0));
    const S* a = A + b0;
    index_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const S* c0 = a + j * csa;
      const S* c1 = c0 + csa;
      const S* c2 = c1 + csa;
      const S* c3 = c2 + csa;
      const S x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
      index_t i = 0;
      if constexpr (use_simd<S>) {
        using batch = xsimd::batch<S>;
        constexpr index_t W = batch::size;
        const batch v0(x0), v1(x1), v2(x2), v3(x3);
        for (; i + W <= len; i += W) {
          batch s = batch::load_aligned(acc + i);
          s = madd(batch::load_unaligned(c0 + i), v0, s);
          s = madd(batch::load_unaligned(c1 + i), v1, s);
          s = madd(batch::load_unaligned(c2 + i), v2, s);
          s = madd(batch::load_unaligned(c3 + i), v3, s);
          s.store_aligned(acc + i);
        }
      }
      for (; i < len; ++i) {
        S s = acc[i];
        if constexpr (std::is_floating_point_v<S>) {
          s = std::fma(c0[i], x0, s);
          s = std::fma(c1[i], x1, s);
          s = std::fma(c2[i], x2, s);
          s = std::fma(c3[i], x3, s);
        } else {
          s += c0[i] * x0 + c1[i] * x1 + c2[i] * x2 + c3[i] * x3;
        }
        acc[i] = s;
      }
    }
    for (; j < n; ++j) {
      const S* cj = a + j * csa;
      const S xj = x[j];
      for (index_t i = 0; i < len; ++i) {
        if constexpr (std::is_floating_point_v<S>)
          acc[i] = std::fma(cj[i], xj, acc[i]);
        else
          acc[i] += cj[i] * xj;
      }
    }
    for (index_t i = 0; i < len; ++i) finish(acc[i], alpha, beta, y + (b0 + i) * incy);
  }
}

// Few outputs, each a long sum (transpose(X)*r with a row-major X of m ≫ n rows): the row
// blocks give one thread at most, so the sum is split instead, into chunks of `sum_chunk` terms
// (the last one takes the remainder), each chunk's partial sums into its own row of `part`, then
// added in chunk order. The chunks depend on n alone: the same bits for any thread count.
constexpr index_t sum_chunk = 8192;

template <class S>
void split_sum_kernel(index_t m, index_t n, S alpha, const S* A, index_t csa, const S* x, S beta,
                      S* y, index_t incy) {
  const index_t chunks = n / sum_chunk;
  std::vector<S> part(std::size_t(chunks * m));
  cpu::parallel_for(chunks, 1, [&](index_t c0, index_t c1) {
    for (index_t c = c0; c < c1; ++c) {
      const index_t j0 = c * sum_chunk, j1 = c + 1 == chunks ? n : j0 + sum_chunk;
      cols_kernel(0, m, j1 - j0, S(1), A + j0 * csa, csa, x + j0, S(0),
                  part.data() + std::size_t(c * m), 1);
    }
  });
  for (index_t i = 0; i < m; ++i) {
    S acc = part[std::size_t(i)];
    for (index_t c = 1; c < chunks; ++c) acc += part[std::size_t(c * m + i)];
    finish(acc, alpha, beta, y + i * incy);
  }
}

// Any strides: one plain dot per row.
template <class S>
void strided_kernel(index_t i0, index_t i1, index_t n, S alpha, const S* A, index_t rsa,
                    index_t csa, const S* x, S beta, S* y, index_t incy) {
  for (index_t i = i0; i < i1; ++i) {
    const S* a = A + i * rsa;
    S acc = S(0);
    for (index_t j = 0; j < n; ++j) acc += a[j * csa] * x[j];
    finish(acc, alpha, beta, y + i * incy);
  }
}

template <class T>
constexpr const char* generic_name() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return "gemv_generic<i32>";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "gemv_generic<i64>";
  else if constexpr (std::is_same_v<T, float>)
    return "gemv_generic<f32>";
  else
    return "gemv_generic<f64>";
}

} // namespace

template <class T>
void gemv_generic(index_t m, index_t n, T alpha, const T* A, index_t rsa, index_t csa, const T* x,
                  index_t incx, T beta, T* y, index_t incy) {
  using S = compute_t<T>;
  const char* name = generic_name<T>();
  const call c{name, order::row_major, trans::none,  trans::none, m,    n,
               0,    double(alpha),    double(beta), rsa,         incx, incy};
  auto describe = [&] {
    return std::string(name) + "(" + detail::arg("m", m) + ", " + detail::arg("n", n) + ", " +
           detail::arg("alpha", double(alpha)) + ", A=(" + std::to_string(rsa) + "," +
           std::to_string(csa) + "), " + detail::arg("incx", incx) + ", " +
           detail::arg("beta", double(beta)) + ", " + detail::arg("incy", incy) + ")";
  };
  const double ops = 2.0 * double(m) * double(n);
  detail::run(c, ops, std::is_integral_v<T>, describe, [&] {
    if (m < 0 || n < 0)
      throw shape_error(std::string(name) + ": negative size (" + std::to_string(m) + ", " +
                        std::to_string(n) + ")");
    if (m == 0) return;
    if (incy == 0 && m > 1)
      throw layout_error(std::string(name) + ": incy = 0 on an output of several elements");
    const S a = static_cast<S>(alpha), b = static_cast<S>(beta);
    S* ys = reinterpret_cast<S*>(y);
    if (n == 0 || a == S(0)) {
      if (b != S(1))
        for (index_t i = 0; i < m; ++i) ys[i * incy] = b == S(0) ? S(0) : b * ys[i * incy];
      return;
    }
    const S* As = reinterpret_cast<const S*>(A);
    const S* xs = reinterpret_cast<const S*>(x);
    std::vector<S> xbuf; // x gathered once when strided (O(n) next to O(mn))
    if (incx != 1 && n > 1) {
      xbuf.resize(std::size_t(n));
      for (index_t j = 0; j < n; ++j) xbuf[std::size_t(j)] = xs[j * incx];
      xs = xbuf.data();
    }
    // Row blocks of ~32k multiply-adds per task: below that a thread costs more than it saves.
    const index_t grain = std::max<index_t>(64, (index_t(1) << 15) / std::max<index_t>(n, 1));
    if (csa == 1 || n == 1) {
      cpu::parallel_for(ceil_div4(m), ceil_div4(grain), [&](index_t b0, index_t e0) {
        rows_kernel(b0 * 4, std::min(m, e0 * 4), n, a, As, rsa, xs, b, ys, incy);
      });
    } else if ((rsa == 1 || m == 1) && m <= split_sum_max_rows && n >= 2 * sum_chunk) {
      split_sum_kernel(m, n, a, As, csa, xs, b, ys, incy);
    } else if (rsa == 1 || m == 1) {
      const index_t blocks = (m + cols_block - 1) / cols_block;
      cpu::parallel_for(blocks, std::max<index_t>(1, grain / cols_block),
                        [&](index_t b0, index_t e0) {
                          cols_kernel(b0 * cols_block, std::min(m, e0 * cols_block), n, a, As, csa,
                                      xs, b, ys, incy);
                        });
    } else {
      cpu::parallel_for(m, grain, [&](index_t b0, index_t e0) {
        strided_kernel(b0, e0, n, a, As, rsa, csa, xs, b, ys, incy);
      });
    }
  });
}

template void gemv_generic<std::int32_t>(index_t, index_t, std::int32_t, const std::int32_t*,
                                         index_t, index_t, const std::int32_t*, index_t,
                                         std::int32_t, std::int32_t*, index_t);
template void gemv_generic<std::int64_t>(index_t, index_t, std::int64_t, const std::int64_t*,
                                         index_t, index_t, const std::int64_t*, index_t,
                                         std::int64_t, std::int64_t*, index_t);
template void gemv_generic<float>(index_t, index_t, float, const float*, index_t, index_t,
                                  const float*, index_t, float, float*, index_t);
template void gemv_generic<double>(index_t, index_t, double, const double*, index_t, index_t,
                                   const double*, index_t, double, double*, index_t);

} // namespace lz::kernels::blas
