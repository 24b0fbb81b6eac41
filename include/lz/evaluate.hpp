// The entry point of evaluation. Follow `C = lz::transpose(A) * B;` through it:
//   1. tensor::operator= (expr/tensor.hpp)   → detail::assign_resize (here): shape, resize
//   2. detail::assign_to (here)              → shape check against the destination, then
//   3. fusion::execute (fusion/rules.hpp)    → the ordered rules pick a plan: BLAS steps,
//                                               loop steps, temporaries (fusion/rules/*.hpp)
//   4. kernels (kernels/cpu, kernels/blas)   → run each step (loop.cpp, blas/*.cpp)
// Nothing before step 4 writes the destination, so every error leaves it untouched.
#pragma once

#include <lz/expr/fixed.hpp>
#include <lz/expr/lifetime.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/fusion/rules.hpp>
#include <lz/policy.hpp>

namespace lz {
namespace detail {

// The error path of a shape mismatch, compiled once (kernels/common/errors.cpp): building the
// message inline cost every assignment ~800 bytes of code (compile time, perf/compile).
[[noreturn]] void throw_assign_shape(const index_t* from, const index_t* to, std::size_t rank,
                                     const char* op);
// The same from copies (as throw_broadcast_mismatch_of: the tree's address stays here).
template <std::size_t R>
[[noreturn]] LZ_NOINLINE void throw_assign_shape_of(shape_t<R> from, shape_t<R> to,
                                                    const char* op) {
  throw_assign_shape(from.data(), to.data(), R, op);
}

/// dst ⊕= e under policy P: checks rank and shape, then hands over to the fusion pass.
template <assign_op Op, class P, class T, std::size_t R, class E>
void assign_with(const P& pol, tensor_view<T, R> dst, const E& e) {
  static_assert(!std::is_const_v<T>, "lz: cannot assign to a read-only view");
  static_assert(space_v<E> != memory_space::device,
                "lz: this expression reads device memory: evaluate it on the device "
                "(lz::assign(lz::device, d, e), lz::eval(lz::device, e)) or copy it with "
                "lz::to_host");
  static_assert(space_v<E> == memory_space::device || within_space<E>(memory_space::host),
                "lz: this expression reads memory outside the host's space; move it explicitly "
                "first");
  if constexpr (LZ_CHECKED) check_lifetimes(dst); // a stored view of a tensor gone
  if constexpr (scalar_like<E>) {
    fusion::execute<Op>(pol, dst, scalar_expr<T>{static_cast<T>(e)});
  } else {
    static_assert(rank_v<E> == R || rank_v<E> == 0,
                  "lz: the expression's rank differs from the destination's rank");
    (void)sizeof(check_narrowing<value_t<E>, T, E>);
    if constexpr (!narrows<value_t<E>, T>()) {
      if constexpr (rank_v<E> == R && R > 0) {
        if (!broadcasts_to(e.shape(), dst.shape()))
          throw_assign_shape_of<R>(e.shape(), dst.shape(), assign_op_symbol(Op));
      }
      if constexpr (static_tree_v<E> && rank_v<E> == R) {   // fixed-size operands: inline
        constexpr shape_t<R> S = static_shape_of<E>::value; // (expr/fixed.hpp)
        if (S == dst.shape()) {
          fixed_eval::assign<Op, R, S>(dst.data(), dst.strides(), e);
          return;
        }
      }
      // Checked builds: the leaves of a loop, of BLAS 1 in place and of a plain axis reduction
      // are checked where they are read (fusion::checks_own_leaves_v), before anything is
      // written; other trees are walked here.
      if constexpr (LZ_CHECKED && !fusion::checks_own_leaves_v<T, R, E>) check_lifetimes(e);
      fusion::execute<Op>(pol, dst, e);
    }
  }
}

template <assign_op Op, class T, std::size_t R, class E>
void assign_to(tensor_view<T, R> dst, const E& e) {
  assign_with<Op>(automatic, dst, e);
}

// A destination being assigned an expression of shape s: its own storage when the shape
// matches, else fresh storage laid out as it was made (column-major, padded) that replaces it
// only once evaluation has succeeded (the old contents stay intact if it throws). Each tree
// evaluates through ONE call site; everything else here is out of line, per (T, R): the shape
// test, allocating, replacing and freeing inlined into every assignment cost each tree ~0.03 G
// compiler instructions (perf/compile), for one call more per assignment.
template <class T, std::size_t R>
class resize_target {
 public:
  LZ_NOINLINE resize_target(tensor<T, R>& dst, const shape_t<R>& s);
  LZ_NOINLINE ~resize_target();
  resize_target(const resize_target&) = delete;
  resize_target& operator=(const resize_target&) = delete;
  /// Where to evaluate: the destination, or the fresh storage.
  const tensor_view<T, R>& view() const { return view_; }
  void commit() {
    if (LZ_UNLIKELY(resized_)) replace();
  }

 private:
  LZ_NOINLINE void replace();

  tensor<T, R>& dst_;
  bool resized_;
  tensor<T, R> fresh_;
  tensor_view<T, R> view_; // (a view's operator= writes elements: initialized, never assigned)
};

template <class T, std::size_t R>
resize_target<T, R>::resize_target(tensor<T, R>& dst, const shape_t<R>& s)
    : dst_(dst), resized_(dst.shape() != s),
      fresh_(resized_ ? tensor<T, R>(s, dst.layout_kind(), uninitialized) : tensor<T, R>()),
      view_(resized_ ? fresh_.view() : dst.view()) {}
template <class T, std::size_t R>
resize_target<T, R>::~resize_target() = default;
template <class T, std::size_t R>
void resize_target<T, R>::replace() {
  dst_ = std::move(fresh_);
}

// Compiled once in the library for the common element types at ranks 1 and 2
// (kernels/common/assign.cpp): a user's file only calls them. (Each declared rank costs every
// file that includes lz.hpp ~0.02 G compiler instructions; ranks 3 and 4 instantiate per file.)
#define LZ_RESIZE_TARGETS_OF(X, T)                                                                 \
  X class resize_target<T, 1>;                                                                     \
  X class resize_target<T, 2>;

#define LZ_RESIZE_TARGET_INSTANCES(X) LZ_FOR_EACH_COMPILED_TYPE(LZ_RESIZE_TARGETS_OF, X)
LZ_RESIZE_TARGET_INSTANCES(extern template)

template <class T, std::size_t R, class E>
void assign_resize(tensor<T, R>& dst, const E& e) {
  static_assert(rank_v<E> == R, "lz: the expression's rank differs from the destination's rank");
  if constexpr (rank_v<E> == R) { // (no cascade of errors after the static_assert)
    resize_target<T, R> target(dst, e.shape());
    assign_with<assign_op::set>(automatic, target.view(), e);
    target.commit();
  }
}

template <class T, std::size_t R, class E>
void construct_from(tensor<T, R>& dst, const E& e) {
  tensor<T, R> fresh(e.shape(), uninitialized);
  assign_with<assign_op::set>(automatic, fresh.view(), e);
  dst = std::move(fresh);
}

template <class E>
auto scalar_value(const E& e) {
  if constexpr (static_tree_v<E>) {
    return fixed_eval::at(fixed_eval::prepare(e), shape_t<0>{});
  } else {
    tensor<value_t<E>, 0> t(shape_t<0>{}, uninitialized);
    assign_with<assign_op::set>(automatic, t.view(), e);
    return *t.data();
  }
}

} // namespace detail

/// Writes `e` into existing storage (a tensor or a view) without allocating; the shape of
/// `e` must broadcast to the destination's. `lz::assign(lz::par, y, 2.0 * x + y);`
template <host_policy P, class D, class E>
requires expression_or_scalar<E>
void assign(const P& pol, D&& dst, const E& e) {
  detail::assign_with<detail::assign_op::set>(pol, tensor_view{dst.view()}, e);
}
template <class D, class E>
requires(expression_or_scalar<E> && !host_policy<std::remove_cvref_t<D>> &&
         space_v<D> != memory_space::device) void assign(D&& dst, const E& e) {
  detail::assign_with<detail::assign_op::set>(automatic, tensor_view{dst.view()}, e);
}

/// Evaluates `e` into a new row-major tensor: `auto t = lz::eval(2.0 * x + y);`. A rank-0
/// expression (a full reduction) evaluates to its scalar.
template <host_policy P, expression E>
auto eval(const P& pol, const E& e) {
  if constexpr (rank_v<E> == 0 && requires { e.compute(pol); }) {
    return e.compute(pol);
  } else if constexpr (detail::static_tree_v<E> && rank_v<E> > 0) { // a fixed tensor
    detail::fixed_tensor_of_t<E> t(uninitialized);
    t = e;
    return t;
  } else {
    tensor<value_t<E>, rank_v<E>> t(e.shape(), uninitialized);
    detail::assign_with<detail::assign_op::set>(pol, t.view(), e);
    return t;
  }
}
template <expression E>
auto eval(const E& e) {
  return eval(automatic, e);
}

} // namespace lz
