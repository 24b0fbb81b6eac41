// Fixed-size tensors: extents known at compile time, elements on the stack (lz::matrix4d,
// lz::vector3f, lz::fixed_tensor<T, N...>), and the inline evaluator that runs trees of them.
//
// A fixed tensor is a leaf like any other: by the closure rule an lvalue enters a tree as a
// `fixed_view` (pointer + layout known at compile time), an rvalue by value. Every node knows its
// shape at compile time when all its leaves do (`static_shape_of`, declared next to each node:
// nodes.hpp, matmul.hpp, reductions.hpp). Such a *fixed tree* never reaches the fusion pass:
// it is evaluated here, in the caller, with every loop unrolled (one dot per element of a
// product), into a stack array first and then stored, so every read happens before any write
// and `E = E*E + E` needs no special case. No plan object, no BLAS, no heap, no threads.
// A tree that mixes fixed and dynamic leaves is an ordinary tree (fixed leaves are strided leaves
// with a constant layout) and goes through the fusion pass. docs/fixed.md; decision
// docs/decisions/fixed-size-trees-evaluate-inline.md.
#pragma once

#include <lz/expr/nodes.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/expr/traverse.hpp>
#include <lz/ops/functors.hpp>
#include <lz/ops/reduce_ops.hpp>
#include <lz/simd.hpp>

#include <atomic>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace lz {

template <class A, class B>
struct matmul_expr;

/// Extents known at compile time, as a type (the shapes in fixed-size error messages).
template <index_t... N>
struct fixed_shape {
  static constexpr std::size_t rank = sizeof...(N);
  static constexpr shape_t<rank> extents{N...};
};

namespace detail {

template <std::size_t R>
constexpr shape_t<R> right_strides(const shape_t<R>& e) {
  shape_t<R> s{};
  index_t m = 1;
  for (std::size_t k = R; k-- > 0;) {
    s[k] = m;
    m *= e[k];
  }
  return s;
}
template <std::size_t R>
constexpr index_t extents_product(const shape_t<R>& e) {
  index_t n = 1;
  for (std::size_t k = 0; k < R; ++k) n *= e[k];
  return n;
}
/// The static shape of E as the type fixed_shape<...> (readable in compiler messages).
template <class E, class Seq = std::make_index_sequence<rank_v<E>>>
struct fixed_shape_of;
template <class E, std::size_t... I>
struct fixed_shape_of<E, std::index_sequence<I...>> {
  using type = fixed_shape<static_shape_of<std::remove_cvref_t<E>>::value[I]...>;
};
template <class E>
using fixed_shape_of_t = typename fixed_shape_of<E>::type;

/// The array Src::value as the type fixed_shape<Src::value[0], ...> (Src: a type with a static
/// constexpr shape_t `value`; GCC 12 crashes on array template arguments of dependent size here).
template <class Src, class Seq = std::make_index_sequence<Src::value.size()>>
struct shape_type;
template <class Src, std::size_t... I>
struct shape_type<Src, std::index_sequence<I...>> {
  using type = fixed_shape<Src::value[I]...>;
};
template <class Src>
using shape_type_t = typename shape_type<Src>::type;
template <index_t... N>
struct right_strides_of {
  static constexpr shape_t<sizeof...(N)> value = right_strides(shape_t<sizeof...(N)>{N...});
};
/// Row-major strides of extents N... as a fixed_shape type.
template <index_t... N>
using right_strides_t = shape_type_t<right_strides_of<N...>>;
/// The array reversed (a transpose's extents and strides).
template <std::size_t R>
constexpr shape_t<R> reversed(const shape_t<R>& s) {
  shape_t<R> r{};
  for (std::size_t k = 0; k < R; ++k) r[k] = s[R - 1 - k];
  return r;
}
/// L's item extents (Strides: strides) reversed, as a shape_type source.
template <class L, bool Strides>
struct reversed_layout_of {
  static constexpr auto value =
      reversed(Strides ? L::static_layout.strides : L::static_layout.extents);
};

/// Shapes that broadcast to each other (NumPy: equal, or one of them 1, per dimension).
template <std::size_t R>
constexpr bool static_broadcastable(const shape_t<R>& a, const shape_t<R>& b) {
  for (std::size_t k = 0; k < R; ++k)
    if (a[k] != b[k] && a[k] != 1 && b[k] != 1) return false;
  return true;
}

// The checks behind the compile errors on fixed shapes: the failing instantiation names both
// shapes, e.g. `fixed_operands_agree<lz::fixed_shape<4, 4>, lz::fixed_shape<3, 3>>`.
template <class A, class B>
struct fixed_operands_agree {
  static constexpr bool value = static_broadcastable(A::extents, B::extents);
  static_assert(value, "lz: fixed-size operands of different shapes (the two shapes are this "
                       "check's template arguments)");
};
template <class From, class To>
struct fixed_assignment_agrees {
  static constexpr bool value = [] {
    for (std::size_t k = 0; k < To::rank; ++k)
      if (From::extents[k] != To::extents[k] && From::extents[k] != 1) return false;
    return true;
  }();
  static_assert(value, "lz: assigning a fixed-size expression to a fixed-size destination of "
                       "another shape (from, to: this check's template arguments)");
};
template <class A, class B>
struct fixed_product_agrees {
  static constexpr bool value = A::extents[1] == B::extents[0];
  static_assert(value, "lz: fixed-size product with different inner dimensions (the two shapes "
                       "are this check's template arguments)");
};

template <class A, class All, bool Same = (rank_v<A> == All::rank && All::rank > 0)>
struct fixed_operand_agrees : std::true_type {};
template <class A, class All>
struct fixed_operand_agrees<A, All, true>
    : std::bool_constant<fixed_operands_agree<fixed_shape_of_t<A>, All>::value> {};
/// Instantiates the shape check of every operand against the broadcast shape: a mismatch is one
/// compile error (the check's static_assert). Called as a statement (see check_narrowing).
template <class... A>
constexpr void check_fixed_operands() {
  using all = fixed_shape_of_t<static_broadcast<A...>>;
  (void)(fixed_operand_agrees<A, all>::value && ...);
}

/// Alignment of a fixed tensor's elements: the largest power of two (at most 64) that divides
/// their size, so alignment never adds padding (a matrix4d is cache-line aligned, a vector3d
/// is not padded to 32 bytes).
template <std::size_t Bytes>
inline constexpr std::size_t fixed_align = Bytes % 64 == 0   ? 64
                                           : Bytes % 32 == 0 ? 32
                                           : Bytes % 16 == 0 ? 16
                                           : Bytes % 8 == 0  ? 8
                                           : Bytes % 4 == 0  ? 4
                                           : Bytes % 2 == 0  ? 2
                                                             : 1;

/// shape_error: an initializer list of `got` entries at `depth` where the fixed shape wants
/// `expected` (kernels/common/errors.cpp).
[[noreturn]] void throw_fixed_list(index_t expected, std::size_t depth, std::size_t got);

} // namespace detail

/// A view of fixed-size memory: pointer + a layout known at compile time (extents E, strides S,
/// in elements). What a fixed tensor becomes inside an expression (and `lz::transpose` of one).
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
class fixed_view : public strided_access<fixed_view<T, R, E, S>, T, R> {
  T* data_;

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  /// Fixed tensors are values: they go with any other operand (a device batch's kernel takes a
  /// copy); lz::device_batch is the only device expression that accepts them.
  static constexpr memory_space lz_space = memory_space::any;
  static constexpr std::size_t rank = R;
  static constexpr shape_t<R> static_extents = E;
  static constexpr shape_t<R> static_strides = S;
  static constexpr strided_layout<R> static_layout{E, S};
  template <class U, std::size_t R2>
  using rebind = tensor_view<U, R2>;

  constexpr explicit fixed_view(T* data) noexcept : data_(data) {}
  /// A view of mutable elements converts to a read-only view.
  template <class U>
  requires(std::is_same_v<const U, T> &&
           !std::is_same_v<U, T>) constexpr fixed_view(const fixed_view<U, R, E, S>& v) noexcept
      : data_(v.data()) {}

  LZ_HD T* data() const noexcept { return data_; }
  LZ_HD const strided_layout<R>& layout() const noexcept { return static_layout; }
  std::uint64_t lz_serial() const noexcept { return 0; } // stack memory: never tracked
  /// The same memory as a dynamic view.
  tensor_view<T, R> view() const noexcept {
    return tensor_view<T, R>(data_, static_layout, detail::trusted);
  }
  operator tensor_view<T, R>() const noexcept { return view(); }
};

template <class T, index_t... N>
class fixed_tensor;

namespace detail {

/// The compile-time checks of `fixed destination of shape N... ⊕= e` (e a fixed tree, or a tree
/// over batches whose items are e's shape): rank, shape (one error naming both shapes) and
/// narrowing into T. Called as a statement; fixed_assignable says whether to go on.
template <class T, class E, index_t... N>
constexpr void check_fixed_assignment() {
  static_assert(rank_v<E> == sizeof...(N) || rank_v<E> == 0,
                "lz: the expression's rank differs from the destination's rank");
  if constexpr (rank_v<E> == sizeof...(N))
    (void)fixed_assignment_agrees<fixed_shape_of_t<E>, fixed_shape<N...>>::value;
  (void)sizeof(check_narrowing<value_t<E>, T, E>);
}
/// True when check_fixed_assignment passes (no static_assert of its own).
template <class T, class E, index_t... N>
constexpr bool fixed_assignable() {
  constexpr std::size_t R = sizeof...(N);
  if constexpr (narrows<value_t<E>, T>())
    return false;
  else if constexpr (rank_v<E> == 0)
    return true;
  else if constexpr (rank_v<E> != R)
    return false;
  else
    return [] {
      constexpr shape_t<R> to{N...};
      constexpr auto from = static_shape_of<std::remove_cvref_t<E>>::value;
      for (std::size_t k = 0; k < R; ++k)
        if (from[k] != to[k] && from[k] != 1) return false;
      return true;
    }();
}

/// +=, -=, *=, /= of the fixed-size destinations (fixed_tensor, fixed_batch, device_batch),
/// each `D::assign_by<Op>(e)`.
template <class D>
struct compound_assign {
  template <expression_or_scalar E>
  LZ_INLINE D& operator+=(const E& e) {
    return static_cast<D&>(*this).template assign_by<assign_op::add>(e);
  }
  template <expression_or_scalar E>
  LZ_INLINE D& operator-=(const E& e) {
    return static_cast<D&>(*this).template assign_by<assign_op::sub>(e);
  }
  template <expression_or_scalar E>
  LZ_INLINE D& operator*=(const E& e) {
    return static_cast<D&>(*this).template assign_by<assign_op::mul>(e);
  }
  template <expression_or_scalar E>
  LZ_INLINE D& operator/=(const E& e) {
    return static_cast<D&>(*this).template assign_by<assign_op::div>(e);
  }
};

template <class X>
struct is_fixed_leaf : std::false_type {};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct is_fixed_leaf<fixed_view<T, R, E, S>> : std::true_type {};
template <class T, index_t... N>
struct is_fixed_leaf<fixed_tensor<T, N...>> : std::true_type {};
/// A fixed tensor or a view of one (any cv/ref).
template <class X>
concept fixed_leaf = is_fixed_leaf<std::remove_cvref_t<X>>::value;

template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct static_shape_of<fixed_view<T, R, E, S>> {
  static constexpr bool known = true;
  static constexpr int fixed_leaves = 1;
  static constexpr int batched = 0;
  static constexpr shape_t<R> value = E;
};
template <class T, index_t... N>
struct static_shape_of<fixed_tensor<T, N...>> {
  static constexpr bool known = true;
  static constexpr int fixed_leaves = 1;
  static constexpr int batched = 0;
  static constexpr shape_t<sizeof...(N)> value{N...};
};

} // namespace detail

/// An expression whose shape is known at compile time, with at least one fixed-size leaf: it is
/// evaluated inline (see the top of this file).
template <class E>
concept fixed_expression = expression<E> && detail::static_tree_v<E>;

/// A tensor whose extents are compile-time constants: elements stored inline (on the stack for
/// a local), row-major, value semantics like `std::array`. `lz::fixed_tensor<double, 4, 4>` is
/// `lz::matrix4d`. Trees of fixed tensors evaluate inline (no plan, no heap); fixed tensors also
/// mix with dynamic ones in any expression.
template <class T, index_t... N>
class fixed_tensor : public detail::compound_assign<fixed_tensor<T, N...>> {
  static_assert(element<T>, "lz::fixed_tensor: the element type must be arithmetic or complex");
  static_assert(sizeof...(N) >= 1, "lz::fixed_tensor needs at least one extent");
  static_assert(((N > 0) && ...), "lz::fixed_tensor: every extent must be positive");

 public:
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = detail::leaf_kind;
  static constexpr memory_space lz_space = memory_space::any; // a value (see fixed_view)
  static constexpr std::size_t rank = sizeof...(N);
  static constexpr shape_t<rank> static_extents{N...};
  static constexpr shape_t<rank> static_strides = detail::right_strides(static_extents);
  static constexpr index_t static_size = (index_t(1) * ... * N);
  static constexpr strided_layout<rank> static_layout{static_extents, static_strides};
  using view_type = fixed_view<T, rank, static_extents, static_strides>;
  using const_view_type = fixed_view<const T, rank, static_extents, static_strides>;
  template <class U, std::size_t R2>
  using rebind = tensor_view<U, R2>;

  /// Zeros.
  constexpr fixed_tensor() noexcept : data_{} {}
  /// Elements left uninitialised.
  explicit fixed_tensor(uninitialized_t) noexcept {}
  /// From nested lists, row-major: `lz::matrix2d m{{1, 2}, {3, 4}};`, `lz::vector3d v{1, 2, 3};`.
  /// A list of another length is an lz::shape_error.
  fixed_tensor(typename detail::nested_list<T, rank>::type list) {
    T* out = data_;
    copy_list(list, 0, out);
  }
  /// Vectors from their elements: `lz::vector3d v(1, 2, 3);`.
  template <class... S>
  requires(rank == 1 && sizeof...(S) == static_size && sizeof...(S) > 1 &&
           (std::is_convertible_v<S, T> && ...)) constexpr fixed_tensor(S... s) noexcept
      : data_{static_cast<T>(s)...} {}
  /// From an expression: a fixed tree of the same shape (checked at compile time), or any
  /// expression of this shape, checked at run time (lz::shape_error) — that one is explicit:
  /// `lz::matrix4d F(dynamic_matrix);`.
  template <class E>
  requires(expression<E> && !std::is_same_v<std::remove_cvref_t<E>, fixed_tensor>) explicit(
      !detail::static_tree_v<E>) LZ_INLINE fixed_tensor(const E& e) {
    *this = e;
  }

  fixed_tensor(const fixed_tensor&) = default;
  fixed_tensor& operator=(const fixed_tensor&) = default;

  /// Evaluates `e` into this tensor: inline when `e` is a fixed tree, else through the engine
  /// (shape checked at run time; broadcasting as everywhere).
  template <class E>
  requires(expression_or_scalar<E> &&
           !std::is_same_v<std::remove_cvref_t<E>, fixed_tensor>) LZ_INLINE fixed_tensor&
  operator=(const E& e) {
    assign<detail::assign_op::set>(e);
    return *this;
  }
  /// dst ⊕= e (`+=`, `-=`, `*=`, `/=` call it): inline for fixed trees, else the engine.
  template <detail::assign_op Op, class E>
  LZ_INLINE fixed_tensor& assign_by(const E& e) {
    assign<Op>(e);
    return *this;
  }

  /// Every element `v`.
  static constexpr fixed_tensor constant(T v) noexcept {
    fixed_tensor t(uninitialized);
    for (auto& x : t.data_) x = v;
    return t;
  }
  static constexpr fixed_tensor zeros() noexcept { return fixed_tensor(); }
  static constexpr fixed_tensor ones() noexcept { return constant(T(1)); }
  /// Ones on the main diagonal (matrices; not necessarily square), zeros elsewhere.
  static constexpr fixed_tensor identity() noexcept requires(rank == 2) {
    fixed_tensor t;
    constexpr index_t m =
        static_extents[0] < static_extents[1] ? static_extents[0] : static_extents[1];
    for (index_t i = 0; i < m; ++i) t.data_[i * static_strides[0] + i] = T(1);
    return t;
  }

  LZ_HD T* data() noexcept { return data_; }
  LZ_HD const T* data() const noexcept { return data_; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + static_size; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + static_size; }
  LZ_HD static constexpr const strided_layout<rank>& layout() noexcept { return static_layout; }
  static constexpr const shape_t<rank>& shape() noexcept { return static_extents; }
  static constexpr const shape_t<rank>& strides() noexcept { return static_strides; }
  static constexpr index_t extent(std::size_t k) noexcept { return static_extents[k]; }
  static constexpr index_t stride(std::size_t k) noexcept { return static_strides[k]; }
  static constexpr index_t size() noexcept { return static_size; }
  static constexpr index_t rows() noexcept requires(rank == 2) { return static_extents[0]; }
  static constexpr index_t cols() noexcept requires(rank == 2) { return static_extents[1]; }
  std::uint64_t lz_serial() const noexcept { return 0; } // not a tracked heap buffer

  /// Unchecked element access: `m(i, j)`.
  template <std::integral... I>
  requires(sizeof...(I) == rank) LZ_HD constexpr T& operator()(I... i) noexcept {
    return data_[offset(i...)];
  }
  template <std::integral... I>
  requires(sizeof...(I) == rank) LZ_HD constexpr const T& operator()(I... i) const noexcept {
    return data_[offset(i...)];
  }
  /// Checked element access; throws std::out_of_range naming the index and extent.
  template <std::integral... I>
  requires(sizeof...(I) == rank) T& at(I... i) {
    check_index(i...);
    return data_[offset(i...)];
  }
  template <std::integral... I>
  requires(sizeof...(I) == rank) const T& at(I... i) const {
    check_index(i...);
    return data_[offset(i...)];
  }
  /// Slicing (any lz::range / lz::all / index mix): a dynamic view of these elements.
  template <slice_arg... S>
  requires(sizeof...(S) == rank && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) LZ_LIFETIMEBOUND {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == rank && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) const LZ_LIFETIMEBOUND {
    return view()(s...);
  }

  /// These elements as a dynamic view (for functions that take `lz::tensor_view`).
  tensor_view<T, rank> view() noexcept LZ_LIFETIMEBOUND {
    return tensor_view<T, rank>(data_, static_layout, detail::trusted);
  }
  tensor_view<const T, rank> view() const noexcept LZ_LIFETIMEBOUND {
    return tensor_view<const T, rank>(data_, static_layout, detail::trusted);
  }
  operator view_type() noexcept LZ_LIFETIMEBOUND { return view_type(data_); }
  operator const_view_type() const noexcept LZ_LIFETIMEBOUND { return const_view_type(data_); }
  /// These elements as a fixed view (what an lvalue becomes inside an expression).
  view_type fixed() noexcept LZ_LIFETIMEBOUND { return view_type(data_); }
  const_view_type fixed() const noexcept LZ_LIFETIMEBOUND { return const_view_type(data_); }

 private:
  template <class... I>
  LZ_HD static constexpr index_t offset(I... i) noexcept { // row-major, from the extents alone
    index_t off = 0;
    ((off = off * N + static_cast<index_t>(i)), ...);
    return off;
  }
  template <class... I>
  static void check_index(I... i) {
    const index_t idx[] = {static_cast<index_t>(i)...};
    for (std::size_t k = 0; k < rank; ++k)
      if (idx[k] < 0 || idx[k] >= static_extents[k])
        detail::throw_index(idx[k], static_extents[k], k);
  }
  template <class L>
  static void copy_list(const L& list, std::size_t depth, T*& out) {
    if (static_cast<index_t>(list.size()) != static_extents[depth])
      detail::throw_fixed_list(static_extents[depth], depth, list.size());
    if constexpr (std::is_same_v<L, std::initializer_list<T>>) {
      for (const T& v : list) *out++ = v;
    } else {
      for (const auto& sub : list) copy_list(sub, depth + 1, out);
    }
  }
  template <detail::assign_op Op, class E>
  LZ_INLINE void assign(const E& e);

  alignas(detail::fixed_align<sizeof(T) * static_size>) T data_[static_size];
};

/// Fixed-size matrix and vector (row-major): `lz::fixed_matrix<float, 3, 4>`.
template <class T, index_t M, index_t N>
using fixed_matrix = fixed_tensor<T, M, N>;
template <class T, index_t N>
using fixed_vector = fixed_tensor<T, N>;

/// The common sizes: matrix2d..matrix6d, matrix2f..matrix6f, vector2d..vector6d, vector2f..
#define LZ_FIXED_ALIASES(N)                                                                        \
  using matrix##N##d = fixed_matrix<double, N, N>;                                                 \
  using matrix##N##f = fixed_matrix<float, N, N>;                                                  \
  using vector##N##d = fixed_vector<double, N>;                                                    \
  using vector##N##f = fixed_vector<float, N>;
LZ_FIXED_ALIASES(2)
LZ_FIXED_ALIASES(3)
LZ_FIXED_ALIASES(4)
LZ_FIXED_ALIASES(5)
LZ_FIXED_ALIASES(6)
#undef LZ_FIXED_ALIASES

namespace detail {

// The closure rule for fixed tensors: an lvalue is viewed, an rvalue is owned (copied in).
template <class T, index_t... N>
struct closure<fixed_tensor<T, N...>&> {
  using type = typename fixed_tensor<T, N...>::const_view_type;
};
template <class T, index_t... N>
struct closure<const fixed_tensor<T, N...>&> {
  using type = typename fixed_tensor<T, N...>::const_view_type;
};
template <class T, index_t... N>
struct closure<const fixed_tensor<T, N...>> {
  using type = typename fixed_tensor<T, N...>::const_view_type;
};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct closure<fixed_view<T, R, E, S>> {
  using type = fixed_view<const T, R, E, S>;
};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct closure<fixed_view<T, R, E, S>&> {
  using type = fixed_view<const T, R, E, S>;
};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct closure<const fixed_view<T, R, E, S>&> {
  using type = fixed_view<const T, R, E, S>;
};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct closure<const fixed_view<T, R, E, S>> {
  using type = fixed_view<const T, R, E, S>;
};
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
struct closure<fixed_view<T, R, E, S>&&> {
  using type = fixed_view<const T, R, E, S>;
};

/// fixed_tensor<V, ...> of E's static shape: what lz::eval of a fixed tree returns.
template <class V, class E, class Seq = std::make_index_sequence<rank_v<E>>>
struct fixed_tensor_of;
template <class V, class E, std::size_t... I>
struct fixed_tensor_of<V, E, std::index_sequence<I...>> {
  using type = fixed_tensor<V, static_shape_of<std::remove_cvref_t<E>>::value[I]...>;
};
template <class E>
using fixed_tensor_of_t = typename fixed_tensor_of<value_t<E>, E>::type;
} // namespace detail

} // namespace lz

namespace lz::detail::fixed_eval {

// ---- the inline evaluator ----------------------------------------------------------------------
// prepare(e): the tree with every leaf a fixed view, every full reduction replaced by its value
// (computed once, before any element), so that at() is pure arithmetic on loads.
// at(e, idx, ctx): element idx of a prepared tree. for_each_index: every index of a fixed shape in
// row-major order, unrolled up to `unroll_limit` elements.
// The context says what one "element" is: `single` (a fixed tree: one value); lz/batch.hpp adds
// one item of a batch and a SIMD vector of items (`lift` broadcasts a value that is the same for
// every item, `load` reads a batch operand's element for the context's items).

/// Trees up to this many elements (and product inner dimensions up to `unroll_inner`) are fully
/// unrolled; larger fixed sizes run constant-bound loops.
inline constexpr index_t unroll_limit = 64;
inline constexpr index_t unroll_inner = 16;

/// The context of a fixed tree: one value per element.
struct single {
  static constexpr bool vector = false;
  template <class V>
  LZ_INLINE LZ_HD static const V& lift(const V& v) noexcept {
    return v;
  }
};

/// The context of a fixed tree on host SIMD vectors: B::size consecutive elements along the
/// last dimension (an operand of extent 1 there is broadcast). For trees whose every operand can
/// be read that way (packet_ok): the functors then run on vectors, as Eigen's packets do, rather
/// than element by element for GCC's SLP vectorizer to regroup, which it does for the simplest
/// trees only (not across sqrt's errno branch, maximum's NaN test or a reduction's chain) and at
/// a compile cost per element.
template <class B, bool Flat = false>
struct packet {
  static constexpr bool vector = true;
  static constexpr bool flat = Flat; // packets across rows: every leaf is read, none broadcast
  using T = typename B::value_type;
  template <class V>
  LZ_INLINE static B lift(const V& v) noexcept {
    return B(static_cast<T>(v));
  }
  LZ_INLINE static B load(const T* p) noexcept { return B::load_unaligned(p); }
};
template <class C>
inline constexpr bool is_packet = false;
template <class B, bool Flat>
inline constexpr bool is_packet<packet<B, Flat>> = true;

template <class X>
inline constexpr bool is_product = false;
template <class A, class B>
inline constexpr bool is_product<matmul_expr<A, B>> = true;
/// A reduction of each item of a batch tree, prepared: at() folds it per item (a plain
/// aggregate, trivially copyable into a device kernel, unlike reduce_expr and its cache).
template <class Op, class Fin, class A>
struct item_reduce {
  using lz_expression = void;
  using lz_kind = opaque_kind;
  static constexpr std::size_t rank = 0;
  using acc_type = typename Op::template acc_t<value_t<A>>;
  using value_type = std::remove_cvref_t<std::invoke_result_t<Fin, acc_type, index_t>>;
  A arg;
};
} // namespace lz::detail::fixed_eval

namespace lz::detail {
template <class Op, class Fin, class A>
struct static_shape_of<fixed_eval::item_reduce<Op, Fin, A>> : static_shape_of<A> {
  static constexpr shape_t<0> value{};
};
} // namespace lz::detail

namespace lz::detail::fixed_eval {

template <class X>
inline constexpr bool is_item_reduce = false;
template <class Op, class Fin, class A>
inline constexpr bool is_item_reduce<item_reduce<Op, Fin, A>> = true;

template <std::size_t R, shape_t<R> S>
LZ_INLINE LZ_HD constexpr shape_t<R> unflatten(index_t flat) noexcept {
  shape_t<R> idx{};
  for (std::size_t k = R; k-- > 0;) {
    idx[k] = flat % S[k];
    flat /= S[k];
  }
  return idx;
}

// Loops rather than index sequences: the body is inlined once, then GCC's complete unrolling
// (the pragma) copies the optimised body; unrolling by templates inlined every copy separately
// and cost ~0.5 s of compile time per 4×4 expression.
LZ_HD_TEMPLATE
template <std::size_t R, shape_t<R> S, class F>
LZ_INLINE LZ_HD void for_each_index(F&& f) {
  constexpr index_t n = extents_product(S);
  if constexpr (n <= unroll_limit) {
    LZ_UNROLL(64)
    for (index_t flat = 0; flat < n; ++flat) f(flat, unflatten<R, S>(flat));
  } else {
    shape_t<R> idx{};
    for (index_t flat = 0; flat < n; ++flat) {
      f(flat, idx);
      for (std::size_t k = R; k-- > 0;) { // next index, row-major
        if (++idx[k] < S[k]) break;
        idx[k] = 0;
      }
    }
  }
}

template <bool ByValue, class E>
LZ_INLINE auto prepare_as(const E& e);
/// The tree prepared for evaluation on the host: fixed leaves as views.
template <class E>
LZ_INLINE auto prepare(const E& e) {
  return prepare_as<false>(e);
}
/// prepare() for a device kernel: fixed leaves copied in by value (a device cannot read the
/// host's stack), batches as views of device memory.
template <class E>
LZ_INLINE auto capture(const E& e) {
  return prepare_as<true>(e);
}

template <class Op, class Fin, class E>
LZ_INLINE auto reduce_now(const reduce_expr<Op, Fin, E>& r);

LZ_HD_TEMPLATE
template <class E, std::size_t R, class Ctx>
LZ_INLINE LZ_HD auto at(const E& e, const shape_t<R>& idx, const Ctx& ctx);
/// Element idx of a prepared fixed tree.
template <class E, std::size_t R>
LZ_INLINE LZ_HD auto at(const E& e, const shape_t<R>& idx) {
  return at(e, idx, single{});
}

template <bool ByValue, class F, class... A, std::size_t... I>
LZ_INLINE auto prepare_map(const map_expr<F, A...>& e, std::index_sequence<I...>) {
  using M = map_expr<F, decltype(prepare_as<ByValue>(
                            static_cast<const detail::pack_elem<I, A>&>(e.args).value))...>;
  return M{e.f,
           {{prepare_as<ByValue>(static_cast<const detail::pack_elem<I, A>&>(e.args).value)}...},
           e.shape_};
}

/// A destination laid out as a fixed tensor of shape S (row-major, contiguous): its strides
/// known at compile time, so no layout test is compiled.
struct dense_destination {};

template <assign_op Op, std::size_t R, shape_t<R> S, class T, class Strides, class E>
LZ_INLINE void assign(T* dst, const Strides& strides, const E& e);

/// A factor of a product: leaves as they are; any other fixed tree (`(A + B) * C`, `A * B * C`)
/// computed once into a local fixed tensor, since each of its elements is read once per row or
/// column of the product. (Over batches: left as a tree, evaluated per item.)
template <bool ByValue, class E>
LZ_INLINE auto prepare_factor(const E& e) {
  auto p = prepare_as<ByValue>(e);
  using X = decltype(p);
  if constexpr (std::is_same_v<kind_t<X>, leaf_kind> || !static_tree_v<X>) {
    return p;
  } else {
    using F = fixed_tensor_of_t<X>;
    F t(uninitialized);
    assign<assign_op::set, F::rank, F::static_extents>(t.data(), dense_destination{}, p);
    return t;
  }
}

/// Whether A*x (fixed views, not batches) runs as SIMD rows: A row-major with contiguous rows of
/// one native vector each (4 doubles on AVX2, 8 on AVX-512, 4 floats on SSE, ...), x contiguous.
template <class L, class V>
constexpr bool simd_matvec_ok() {
  if constexpr (
      !requires {
        L::static_layout;
        V::static_layout;
      } ||
      requires(const L& l) { l.plane_stride(); } || requires(const V& v) { v.plane_stride(); }) {
    return false;
  } else {
    using T = value_t<L>;
    constexpr auto la = L::static_layout;
    constexpr auto lx = V::static_layout;
    if constexpr (!std::is_same_v<T, value_t<V>> ||
                  !(std::is_same_v<T, float> || std::is_same_v<T, double>) || L::rank != 2 ||
                  V::rank != 1)
      return false;
    else if constexpr (la.strides[1] != 1 || la.strides[0] != la.extents[1] ||
                       (lx.strides[0] != 1 && lx.extents[0] != 1))
      return false;
    else
      return !std::is_void_v<xsimd::make_sized_batch_t<T, std::size_t(la.extents[1])>>;
  }
}

/// y = A*x by rows: each row times x in one SIMD multiply, then the horizontal sums of as many
/// rows as a vector has lanes in one xsimd::haddp (a transposing add). The element-per-element
/// form left GCC scalar code: 4.9 ns per 4×4 product against 1.5 ns (Eigen's, and this).
template <class L, class V>
LZ_INLINE auto simd_matvec(const L& a, const V& x) {
  using T = value_t<L>;
  constexpr index_t n = L::static_layout.extents[0], k = L::static_layout.extents[1];
  using B = xsimd::make_sized_batch_t<T, std::size_t(k)>;
  fixed_tensor<T, n> y(uninitialized);
  const B xv = B::load_unaligned(x.data());
  index_t i = 0;
  LZ_UNROLL(4)
  for (; i + k <= n; i += k) {
    B r[k];
    LZ_UNROLL(16)
    for (index_t j = 0; j < k; ++j) r[j] = B::load_unaligned(a.data() + (i + j) * k) * xv;
    xsimd::haddp(r).store_unaligned(y.data() + i);
  }
  LZ_UNROLL(16)
  for (; i < n; ++i) y.data()[i] = xsimd::hadd(B::load_unaligned(a.data() + i * k) * xv);
  return y;
}

template <bool ByValue, class E>
LZ_INLINE auto prepare_as(const E& e) {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    using V = fixed_view<const value_t<X>, rank_v<X>, static_shape_of<X>::value,
                         X::static_layout.strides>;
    if constexpr (requires { e.plane_stride(); }) { // a batch (lz/batch.hpp): a view of it
      return e.batch();
    } else if constexpr (ByValue) { // a copy, row-major
      fixed_tensor_of_t<X> t(uninitialized);
      assign<assign_op::set, rank_v<X>, static_shape_of<X>::value>(t.data(), dense_destination{},
                                                                   V(e.data()));
      return t;
    } else {
      return V(e.data());
    }
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    return e;
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) LZ_INLINE_LAMBDA {
      return prepare_map<ByValue>(m, std::index_sequence_for<A...>{});
    }(e);
  } else if constexpr (is_product<X>) {
    auto l = prepare_factor<ByValue>(e.lhs);
    auto r = prepare_factor<ByValue>(e.rhs);
    if constexpr (rank_v<X> == 1 && simd_matvec_ok<decltype(l), decltype(r)>())
      return simd_matvec(l, r); // a local fixed vector
    else
      return matmul_expr<decltype(l), decltype(r)>{l, r, e.shape_};
  } else if constexpr (static_shape_of<X>::batched > 0) { // a reduction of each item: kept
    auto a = prepare_as<ByValue>(e.arg);
    return [&]<class Op, class Fin, class A>(const reduce_expr<Op, Fin, A>&)
               LZ_INLINE_LAMBDA { return item_reduce<Op, Fin, decltype(a)>{a}; }(e);
  } else { // a full reduction of a fixed tree: its value, computed when the node was built
    return scalar_expr<value_t<X>>{e.value()};
  }
}

/// The index of a child of rank Rc inside a parent at `idx` (rank R): broadcast dimensions
/// (static extent 1) read index 0; rank-0 children read the empty index.
template <class C, std::size_t R>
LZ_INLINE LZ_HD constexpr shape_t<rank_v<C>> child_index(const shape_t<R>& idx) noexcept {
  constexpr std::size_t Rc = rank_v<C>;
  shape_t<Rc> c{};
  if constexpr (Rc == R && R > 0) {
    constexpr auto s = static_shape_of<std::remove_cvref_t<C>>::value;
    for (std::size_t k = 0; k < R; ++k) c[k] = s[k] == 1 ? 0 : idx[k];
  }
  return c;
}

LZ_HD_TEMPLATE
template <class F, class... A, std::size_t R, class Ctx, std::size_t... I>
LZ_INLINE LZ_HD auto at_map(const map_expr<F, A...>& e, const shape_t<R>& idx, const Ctx& ctx,
                            std::index_sequence<I...>) {
  return e.f(
      at(static_cast<const detail::pack_elem<I, A>&>(e.args).value, child_index<A>(idx), ctx)...);
}

/// Folds the elements of `arg`'s (item) shape with Op, finished by Fin, in context ctx.
LZ_HD_TEMPLATE
template <class Op, class Fin, class E, class Ctx>
LZ_INLINE LZ_HD auto fold(const E& arg, const Ctx& ctx) {
  using A = typename Op::template acc_t<value_t<E>>;
  using V = value_t<E>;
  constexpr std::size_t R = rank_v<E>;
  constexpr shape_t<R> S = static_shape_of<std::remove_cvref_t<E>>::value;
  if constexpr (Ctx::vector) { // SIMD over items: sums, products, min, max (lz/batch.hpp)
    using L = decltype(ctx.lift(A{}));
    L acc{};
    for_each_index<R, S>([&](index_t flat, const shape_t<R>& idx) LZ_INLINE_LAMBDA {
      const L x = at(arg, idx, ctx);
      acc = flat == 0 ? x : L(Op::combine(acc, x));
    });
    return ctx.template finish<Fin>(acc, extents_product(S));
  } else {
    A acc{};
    for_each_index<R, S>([&](index_t flat, const shape_t<R>& idx) LZ_INLINE_LAMBDA {
      const V v = at(arg, idx, ctx);
      A x;
      if constexpr (red::arg_accumulator<A>)
        x = A{v, flat};
      else
        x = static_cast<A>(v);
      acc = flat == 0 ? x : Op::combine(acc, x);
    });
    return Fin{}(acc, extents_product(S));
  }
}

LZ_HD_TEMPLATE
template <class E, std::size_t R, class Ctx>
LZ_INLINE LZ_HD auto at(const E& e, const shape_t<R>& idx, const Ctx& ctx) {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  if constexpr (std::is_same_v<K, leaf_kind>) {
    constexpr shape_t<R> st = X::static_layout.strides; // (a local: usable in device code)
    index_t off = 0;
    for (std::size_t k = 0; k < R; ++k) off += idx[k] * st[k];
    if constexpr (requires { e.plane_stride(); }) // a batch: this element of the context's items
      return ctx.load(e.data() + off * e.plane_stride());
    else if constexpr (is_packet<Ctx> && R > 0) {
      if constexpr (Ctx::flat || X::static_layout.extents[R - 1] != 1)
        return ctx.load(e.data() + off);
      else // broadcast along the packet
        return ctx.lift(e.data()[off]);
    } else
      return ctx.lift(e.data()[off]);
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    return ctx.lift(e.value);
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) LZ_INLINE_LAMBDA {
      if constexpr (Ctx::vector)
        return at_map(m, idx, ctx, std::index_sequence_for<A...>{});
      else
        return static_cast<value_t<X>>(at_map(m, idx, ctx, std::index_sequence_for<A...>{}));
    }(e);
  } else if constexpr (is_item_reduce<X>) { // of each item (lz/batch.hpp)
    return [&]<class Op, class Fin, class A>(const item_reduce<Op, Fin, A>& r)
               LZ_INLINE_LAMBDA { return fold<Op, Fin>(r.arg, ctx); }(e);
  } else {
    static_assert(is_product<X>, "lz: internal: an unprepared node in a fixed-size tree");
    using V = std::remove_cvref_t<decltype(ctx.lift(value_t<X>{}))>;
    constexpr index_t inner = static_shape_of<std::remove_cvref_t<decltype(e.lhs)>>::value[1];
    const auto term = [&](index_t k) LZ_INLINE_LAMBDA -> V {
      if constexpr (is_packet<Ctx>) { // a row's packet: A(i, k) broadcast times B(k, j..j+w)
        return fn::detail::mul_(ctx.lift(at(e.lhs, shape_t<2>{idx[0], k}, single{})),
                                V(at(e.rhs, shape_t<2>{k, idx[1]}, ctx)));
      } else {
        const auto a = at(e.lhs, shape_t<2>{idx[0], k}, ctx);
        if constexpr (R == 2)
          return fn::detail::mul_(V(a), V(at(e.rhs, shape_t<2>{k, idx[1]}, ctx)));
        else
          return fn::detail::mul_(V(a), V(at(e.rhs, shape_t<1>{k}, ctx)));
      }
    };
    V s = term(0);
    if constexpr (inner <= unroll_inner) {
      LZ_UNROLL(16)
      for (index_t k = 1; k < inner; ++k) s = fn::detail::add_(s, term(k));
    } else {
      for (index_t k = 1; k < inner; ++k) s = fn::detail::add_(s, term(k));
    }
    return s;
  }
}

/// Whether prepared tree E (rank R) runs on packet<B>: every node yields B's element type, every
/// functor takes vectors, every leaf is read along its last dimension with stride 1 (or has
/// extent 1 there), every product is a matrix product whose right factor is such a leaf.
template <class B, class E, std::size_t R>
constexpr bool packet_ok() {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  using T = typename B::value_type;
  if constexpr (std::is_same_v<K, scalar_kind>) {
    return std::is_arithmetic_v<value_t<X>>;
  } else if constexpr (!std::is_same_v<value_t<X>, T> || rank_v<X> != R) {
    return false;
  } else if constexpr (std::is_same_v<K, leaf_kind>) {
    if constexpr (
        requires(const X& x) { x.plane_stride(); } || !requires { X::static_layout; })
      return false;
    else
      return R > 0 &&
             (X::static_layout.extents[R - 1] == 1 || X::static_layout.strides[R - 1] == 1);
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return std::is_same_v<batch_result_t<B, X>, B> &&
             ((rank_v<A> == 0 ? packet_ok<B, A, 0>() : packet_ok<B, A, R>()) && ...);
    }(static_cast<const X*>(nullptr));
  } else if constexpr (is_product<X>) {
    using L = std::remove_cvref_t<decltype(std::declval<X>().lhs)>;
    return R == 2 && std::is_same_v<kind_t<L>, leaf_kind> && std::is_same_v<value_t<L>, T> &&
           packet_ok<B, decltype(std::declval<X>().rhs), 2>();
  } else {
    return false;
  }
}

/// Whether prepared tree E reads every operand over the whole shape S, row-major and contiguous
/// (no product, no broadcast): its n elements can then run as one row, packets across rows.
template <class E, std::size_t R, shape_t<R> S>
constexpr bool flat_ok() {
  using X = std::remove_cvref_t<E>;
  using K = kind_t<X>;
  if constexpr (std::is_same_v<K, scalar_kind>) {
    return true;
  } else if constexpr (std::is_same_v<K, leaf_kind>) {
    if constexpr (
        requires(const X& x) { x.plane_stride(); } || !requires { X::static_layout; })
      return false;
    else if constexpr (rank_v<X> != R)
      return false;
    else
      return X::static_layout.extents == S && X::static_layout.strides == right_strides(S);
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return []<class F, class... A>(const map_expr<F, A...>*) {
      return (flat_ok<A, R, S>() && ...);
    }(static_cast<const X*>(nullptr));
  } else {
    return false;
  }
}

/// The lanes per host vector for fixed tree P (value type T, shape S): the largest power of two
/// dividing the elements a packet runs along (all n of them for a flat tree, else the last
/// extent), up to
/// - the target's full width for a flat tree written to its destination (Reduce false): fixed
///   tensors are aligned to their size's largest power of two up to 64 bytes, so its vectors
///   never straddle a cache line, the reason the fusion pass's loops keep cheap trees at 256
///   bits (kernels/cpu/row.hpp, slab_batch); 4×4 doubles, maximum(A, 0): 1.2 ns against 2.1;
/// - 256 bits otherwise: packets along rows (products), and reductions, whose vector is then
///   folded lane by lane (s = sum(A), 4×4 doubles: 1.2 ns in 256 bits, 2.3 in 512), except for
///   trees with sqrt, division or transcendentals (the cost of unroll_cost: slab_batch's rule).
/// 1 (no vectors) for other element types, for trees packet_ok rejects, and in files nvcc
/// compiles (the evaluator's functions are host-and-device there).
template <class T, class P, std::size_t R, shape_t<R> S, bool Reduce>
constexpr index_t packet_width() {
#if defined(__CUDACC__)
  return 1;
#else
  if constexpr (R == 0 || (!std::is_same_v<T, float> && !std::is_same_v<T, double>)) {
    return 1;
  } else {
    constexpr bool flat = flat_ok<P, R, S>();
    constexpr index_t native = index_t(xsimd::batch<T>::size);
    constexpr index_t narrow = native < index_t(32 / sizeof(T)) ? native : index_t(32 / sizeof(T));
    constexpr index_t along = flat ? extents_product(S) : S[R - 1];
    constexpr bool costly = unroll_cost < cost_v<P>;
    constexpr bool wide = flat && (!Reduce || costly);
    index_t w = wide ? native : narrow;
    while (w > 1 && along % w != 0) w /= 2;
    return w;
  }
#endif
}
template <class T, class P, std::size_t R, shape_t<R> S, bool Reduce,
          index_t W = packet_width<T, P, R, S, Reduce>()>
inline constexpr index_t packet_lanes = [] {
  if constexpr (W < 2)
    return index_t(1);
  else
    return packet_ok<xsimd::make_sized_batch_t<T, std::size_t(W)>, P, R>() ? W : index_t(1);
}();

template <index_t N>
inline constexpr shape_t<1> flat_shape{N};

/// How assign runs fixed tree E (shape S) into a destination of T: `lanes` per host vector (1:
/// element by element), `flat`: the elements as one row. (lz::explain says it.)
struct packet_choice {
  index_t lanes;
  bool flat;
};
template <class T, class E, std::size_t R, shape_t<R> S>
constexpr packet_choice packet_plan() {
  using P = std::remove_cvref_t<decltype(prepare(std::declval<const E&>()))>;
  if constexpr (!std::is_same_v<value_t<E>, T> || rank_v<P> != R)
    return {1, false};
  else
    return {packet_lanes<T, P, R, S, false>, flat_ok<P, R, S>()};
}

/// fold, called: the NaN path of a vectorized min/max (rare; inlined, its element-by-element
/// code kept the reduction itself from being inlined: max(A) 4×4 2.1 ns against 1.6).
template <class Op, class Fin, class P>
LZ_NOINLINE auto fold_called(const P& p) {
  return fold<Op, Fin>(p, single{});
}

/// A full reduction of a fixed tree, folded inline (no cache, no heap).
template <class Op, class Fin, class E>
LZ_INLINE auto reduce_now(const reduce_expr<Op, Fin, E>& r) {
  static_assert(static_shape_of<std::remove_cvref_t<E>>::batched == 0,
                "lz: a reduction of batch operands has one value per item: assign it to an "
                "lz::fixed_batch, or reduce one item (lz::sum(batch[i]))");
  const auto p = prepare(r.arg);
  using P = std::remove_cvref_t<decltype(p)>;
  using V = value_t<P>;
  using A = typename Op::template acc_t<V>;
  constexpr std::size_t R = rank_v<P>;
  constexpr auto S = static_shape_of<P>::value;
  constexpr index_t w = packet_lanes<V, P, R, S, true>;
  constexpr bool min_max = std::is_same_v<Op, red::min_op> || std::is_same_v<Op, red::max_op>;
  constexpr bool is_max = std::is_same_v<Op, red::max_op>;
  if constexpr (red::lane_op<Op> && std::is_same_v<A, V> && w > 1) {
    using B = xsimd::make_sized_batch_t<V, std::size_t(w)>;
    constexpr bool flat = flat_ok<P, R, S>();
    // min and max fold numbers only (x86's max, on ties the later vector, as maximum(s, x)
    // gives) and test for NaN once for all vectors: a tree holding one folds again element by
    // element, propagating it as the dynamic engine does.
    B acc{};
    [[maybe_unused]] typename B::batch_bool_type nan{};
    for_each_index<1, flat_shape<extents_product(S) / w>>(
        [&](index_t k, const shape_t<1>&) LZ_INLINE_LAMBDA {
          const B x = at(p, unflatten<R, S>(k * w), packet<B, flat>{});
          if constexpr (min_max) {
            const auto bad = xsimd::isnan(x);
            nan = k == 0 ? bad : nan | bad;
            acc = k == 0 ? x : fn::detail::batch_numbers<is_max>(acc, x);
          } else {
            acc = k == 0 ? x : B(Op::combine(acc, x));
          }
        });
    if constexpr (min_max)
      if (fn::detail::any_lane(nan)) return fold_called<Op, Fin>(p);
    alignas(B::arch_type::alignment()) V lane[w];
    acc.store_aligned(lane);
    A s = lane[0];
    LZ_UNROLL(16)
    for (index_t j = 1; j < w; ++j) // min/max: one vmaxsd per lane, on ties the later lane
      if constexpr (min_max)
        s = (is_max ? s > lane[j] : s < lane[j]) ? s : lane[j];
      else
        s = Op::combine(s, A(lane[j]));
    return Fin{}(s, extents_product(S));
  } else {
    return fold<Op, Fin>(p, single{});
  }
}

/// dst ⊕= e over the fixed shape S: every element of e is computed into a local array first,
/// then stored (aliasing-safe: `E = E*E + E`). `strides`: dense_destination, or a dynamic
/// destination's strides (shape_t<R>, run-time values).
template <assign_op Op, std::size_t R, shape_t<R> S, class T, class Strides, class E>
LZ_INLINE void assign(T* dst, const Strides& dst_strides, const E& e) {
  using V = value_t<E>;
  constexpr index_t n = extents_product(S);
  constexpr bool dense = std::is_same_v<Strides, dense_destination>;
  const shape_t<R> strides = [&] {
    if constexpr (dense)
      return right_strides(S);
    else
      return dst_strides;
  }();
  const auto p = prepare(e);
  using P = std::remove_cvref_t<decltype(p)>;
  if constexpr (Op == assign_op::set && std::is_same_v<V, T> && requires { P::static_size; }) {
    // the tree was one product, computed whole: copy its vectors as they are
    if (dense || strides == right_strides(S)) {
      std::memcpy(dst, p.data(), sizeof(T) * std::size_t(n));
      return;
    }
  }
  constexpr packet_choice pk = packet_plan<T, E, R, S>(); // (what lz::explain prints)
  if constexpr (pk.lanes > 1) {
    constexpr index_t w = pk.lanes;
    constexpr bool flat = pk.flat;
    using B = xsimd::make_sized_batch_t<T, std::size_t(w)>;
    B tmp[n / w];
    for_each_index<1, flat_shape<n / w>>([&](index_t k, const shape_t<1>&) LZ_INLINE_LAMBDA {
      tmp[k] = at(p, unflatten<R, S>(k * w), packet<B, flat>{});
    });
    // Packet k holds elements k*w .. k*w+w-1 in row-major order (a packet along a row never
    // crosses it): consecutive in the destination when it is dense, or, for packets along rows,
    // when its rows are.
    if (dense || (flat ? strides == right_strides(S) : strides[R - 1] == 1)) {
      for_each_index<1, flat_shape<n / w>>([&](index_t k, const shape_t<1>&) LZ_INLINE_LAMBDA {
        const shape_t<R> idx = unflatten<R, S>(k * w);
        index_t off = 0;
        for (std::size_t d = 0; d < R; ++d) off += idx[d] * strides[d];
        if constexpr (Op == assign_op::set)
          tmp[k].store_unaligned(dst + off);
        else
          B(fn::assign_combine<Op>(B::load_unaligned(dst + off), tmp[k]))
              .store_unaligned(dst + off);
      });
    } else if constexpr (!dense) { // a dynamic destination laid out otherwise
      T lane[n];
      for (index_t k = 0; k < n / w; ++k) tmp[k].store_unaligned(lane + k * w);
      for (index_t f = 0; f < n; ++f) {
        const shape_t<R> idx = unflatten<R, S>(f);
        index_t off = 0;
        for (std::size_t d = 0; d < R; ++d) off += idx[d] * strides[d];
        dst[off] = static_cast<T>(fn::assign_combine<Op>(dst[off], lane[f]));
      }
    }
  } else {
    V tmp[n];
    for_each_index<R, S>([&](index_t flat, const shape_t<R>& idx)
                             LZ_INLINE_LAMBDA { tmp[flat] = at(p, child_index<E>(idx)); });
    for_each_index<R, S>([&](index_t flat, const shape_t<R>& idx) LZ_INLINE_LAMBDA {
      index_t off = 0;
      for (std::size_t k = 0; k < R; ++k) off += idx[k] * strides[k];
      dst[off] = static_cast<T>(fn::assign_combine<Op>(dst[off], tmp[flat]));
    });
  }
}

} // namespace lz::detail::fixed_eval

namespace lz {

template <class T, index_t... N>
template <detail::assign_op Op, class E>
LZ_INLINE void fixed_tensor<T, N...>::assign(const E& e) {
  if constexpr (scalar_like<E>) { // a scalar converts as in C++ (docs/errors.md, "Narrowing")
    detail::fixed_eval::assign<Op, rank, static_extents>(
        data_, detail::fixed_eval::dense_destination{}, scalar_expr<T>{static_cast<T>(e)});
  } else if constexpr (detail::static_tree_v<E>) {
    detail::check_fixed_assignment<T, E, N...>();
    if constexpr (detail::fixed_assignable<T, E, N...>())
      detail::fixed_eval::assign<Op, rank, static_extents>(
          data_, detail::fixed_eval::dense_destination{}, e);
  } else {
    detail::assign_to<Op>(view(), e);
  }
}

} // namespace lz
