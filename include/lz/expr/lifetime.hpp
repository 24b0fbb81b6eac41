// Checked builds (LZ_CHECKED, lz/config.hpp): before an expression is evaluated, every tensor
// buffer it reads must still exist. Views of tensors carry the buffer's lifetime number
// (detail::allocate_tensor_bytes); a number no longer live means the expression outlived a
// tensor (`return a + b;` over locals, a stored expression over a tensor that went out of scope
// or was reallocated), and evaluation throws lz::lifetime_error instead of reading freed memory.
// Views of user memory (lz::adopt, interop) carry no number and are not checked.
#pragma once

#include <lz/expr/nodes.hpp>
#include <lz/memory.hpp>

namespace lz::detail {

/// lifetime_error: an expression reads a tensor of shape s[0..rank) that no longer exists
/// (kernels/common/errors.cpp).
[[noreturn]] void throw_dead_operand(const index_t* s, std::size_t rank);
/// Throws lifetime_error (as throw_dead_operand) when `serial` is non-zero and not live. One
/// call per checked leaf, compiled once (kernels/common/errors.cpp): the test and its throw
/// inlined at every leaf cost checked files ~4% of their compile time (perf/compile).
void check_alive(std::uint64_t serial, const index_t* s, std::size_t rank);

/// Throws lifetime_error when a memory operand of `e` was freed. A full reduction whose value is
/// already computed no longer reads its operand, so only reductions still to compute are walked.
template <class E>
void check_lifetimes(const E& e) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    if constexpr (requires { e.lz_serial(); }) {
      check_alive(e.lz_serial(), e.shape().data(), rank_v<E>);
    }
  } else if constexpr (std::is_same_v<K, map_kind>) {
    for_each_arg(e, [](const auto& c) { check_lifetimes(c); });
  } else if constexpr (std::is_same_v<K, sparse_kind>) {
    check_lifetimes(e.values_expr());
  } else if constexpr (requires { e.lhs, e.rhs; }) {
    check_lifetimes(e.lhs);
    check_lifetimes(e.rhs);
  } else if constexpr (requires { e.computed(); }) {
    if (!e.computed()) check_lifetimes(e.arg);
  } else if constexpr (requires { e.arg; }) {
    check_lifetimes(e.arg);
  }
}

} // namespace lz::detail
