// The ordered rule list: the first rule that matches the tree (compile time) and applies to the
// operands (run time: layouts, aliasing, sizes) lowers the assignment. Reading this file top to
// bottom IS the precedence. Each rule lives in rules/<name>.hpp, headed by its algebra.
#pragma once

#include <lz/fusion/rules/map.hpp>
#include <lz/fusion/rules/reduce.hpp>

namespace lz::fusion {

/// Executes dst ⊕= e (⊕ = Op) under policy `pol`. @pre shapes checked by evaluate.hpp.
template <detail::assign_op Op, class P, class T, std::size_t R, class E>
void execute(const P& pol, tensor_view<T, R> dst, const E& e) {
  // reduce: an axis reduction writes straight into the destination
  if (try_reduce<Op>(pol, dst, e)) return;
  // map: everything elementwise, one loop (the fallback; always applies)
  run_map<Op>(pol, dst, e);
}

} // namespace lz::fusion
