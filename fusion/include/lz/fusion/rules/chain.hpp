// chain rule: F1·F2·…·Fn (n >= 3, the last factor possibly a vector) → the multiplication order
// with the fewest flops, chosen by dynamic programming on the run-time sizes (the classic
// matrix-chain recurrence). `A*B*x` becomes A·(B·x): two gemv, never a gemm. Intermediates
// live in plan temporaries; the last product writes the destination with α and β.
// Used by fusion/products.hpp; each step runs by kernels/blas.
#pragma once

#include <lz/fusion/plan.hpp>

namespace lz::fusion {

template <class V, class Sink, class P>
void emit_product(Sink& s, const P& pol, const char* rule, const mat<const V>& A,
                  const mat<const V>& B, const mat<V>& C, V alpha, V beta, bool vector_result);

namespace detail_chain {

inline constexpr std::size_t max_factors = 16;

// cost[i][j] / split[i][j] over factors i..j with dims d[i] x d[i+1].
struct order_table {
  double cost[max_factors][max_factors];
  std::size_t split[max_factors][max_factors];
};

inline void solve(const index_t* d, std::size_t n, order_table& t) {
  for (std::size_t i = 0; i < n; ++i) t.cost[i][i] = 0;
  for (std::size_t len = 2; len <= n; ++len)
    for (std::size_t i = 0; i + len <= n; ++i) {
      const std::size_t j = i + len - 1;
      t.cost[i][j] = -1;
      for (std::size_t k = i; k < j; ++k) {
        const double c = t.cost[i][k] + t.cost[k + 1][j] +
                         2.0 * double(d[i]) * double(d[k + 1]) * double(d[j + 1]);
        if (t.cost[i][j] < 0 || c < t.cost[i][j]) {
          t.cost[i][j] = c;
          t.split[i][j] = k;
        }
      }
    }
}

inline std::string order_text(const order_table& t, std::size_t i, std::size_t j) {
  std::string s;
  if (i == j) {
    s += 'F';
    s += std::to_string(i + 1);
    return s;
  }
  const std::size_t k = t.split[i][j];
  s += '(';
  s += order_text(t, i, k);
  s += "·";
  s += order_text(t, k + 1, j);
  s += ')';
  return s;
}

} // namespace detail_chain

/// C = alpha·F0·…·F(n-1) + beta·C in the cheapest order.
template <class V, class Sink, class P>
void lower_chain(Sink& s, const P& pol, const mat<const V>* f, std::size_t n, const mat<V>& C,
                 V alpha, V beta, bool vector_result) {
  using namespace detail_chain;
  if (n > max_factors) throw std::length_error("lz: product chains are limited to 16 factors");
  index_t d[max_factors + 1];
  d[0] = f[0].rows;
  for (std::size_t i = 0; i < n; ++i) d[i + 1] = f[i].cols;
  order_table t;
  solve(d, n, t);
  if (s.noting()) {
    double left = 0; // left-to-right cost, for comparison
    for (std::size_t i = 1; i < n; ++i)
      left += 2.0 * double(d[0]) * double(d[i]) * double(d[i + 1]);
    char buf[96];
    std::snprintf(buf, sizeof buf, " (%.3g flops; left to right %.3g)", t.cost[0][n - 1], left);
    const std::string order = order_text(t, 0, n - 1);
    s.note({"chain: ", n, " factors ordered ", order, buf});
  }
  // Sub-chain i..j into a fresh temporary (or the operand itself when i == j).
  auto sub = [&](auto self, std::size_t i, std::size_t j) -> mat<const V> {
    if (i == j) return f[i];
    const std::size_t k = t.split[i][j];
    const mat<const V> L = self(self, i, k), R = self(self, k + 1, j);
    auto tmp = s.template temp<V, 2>({d[i], d[j + 1]}, "chain intermediate");
    const int id = s.last_temp();
    const mat<V> T = mat_of_dst(tmp, origin{id});
    const bool vec = vector_result && j == n - 1;
    emit_product<V>(s, pol, "chain", L, R, vec ? mat<V>{T.ptr, T.rows, 1, T.rs, 1, T.from} : T,
                    V(1), V(0), vec);
    return {T.ptr, T.rows, T.cols, T.rs, T.cs, T.from};
  };
  const std::size_t k = t.split[0][n - 1];
  const mat<const V> L = sub(sub, 0, k), R = sub(sub, k + 1, n - 1);
  emit_product<V>(s, pol, "chain", L, R, C, alpha, beta, vector_result);
}

} // namespace lz::fusion
