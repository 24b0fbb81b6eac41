// Expressions and views as standard random-access ranges over their elements in row-major
// order, so the standard algorithms run on a tree without materialising it:
//   double m = std::ranges::max(2.0 * x + 1.0);        // one pass, no temporary, no allocation
//   std::ranges::sort(lz::row(A, 0));                   // views iterate (and write) in place
// Owning tensors keep their own begin()/end() (contiguous storage, tensor.hpp); everything else
// of rank >= 1 gets free begin()/end() found by argument-dependent lookup:
//   tensor_view   strided_iterator: reference T&, writable, a C++17 random-access iterator too
//   trees         expr_iterator: evaluates element i through the scalar path (flat index ->
//                 multi-index -> one pointer per leaf -> the tree's functors), reference is a
//                 value, so a C++20 random_access_iterator and a C++17 input iterator
// A tree holding reductions (opaque nodes) evaluates them when begin() or end() is called, and
// the iterators share those temporaries; evaluate such a tree first if that matters.
// The expression must outlive its iterators (as with any range: iterators point into it).
#pragma once

#include <lz/expr/traverse.hpp>
#include <lz/policy.hpp>
#include <lz/tensor.hpp>

#include <compare>
#include <iterator>
#include <memory>

namespace lz {
namespace detail {

// Row-major flat index -> multi-index, then offset = Σ index·stride (strides in any unit).
template <std::size_t R>
LZ_INLINE std::array<index_t, R> unflatten(index_t k, const shape_t<R>& s) noexcept {
  std::array<index_t, R> idx{};
  for (std::size_t d = R; d-- > 0;) {
    const index_t e = s[d] > 0 ? s[d] : 1;
    idx[d] = k % e;
    k /= e;
  }
  return idx;
}

/// Random-access iterator over a strided view, row-major; dereferences to T&.
template <class T, std::size_t R>
class strided_iterator {
  T* data_ = nullptr;
  shape_t<R> shape_{}, strides_{};
  index_t k_ = 0;

 public:
  using value_type = std::remove_const_t<T>;
  using difference_type = index_t;
  using reference = T&;
  using pointer = T*;
  using iterator_category = std::random_access_iterator_tag;
  using iterator_concept = std::random_access_iterator_tag;

  strided_iterator() = default;
  strided_iterator(const tensor_view<T, R>& v, index_t k) noexcept
      : data_(v.data()), shape_(v.shape()), strides_(v.strides()), k_(k) {}

  T& operator*() const noexcept {
    const auto idx = unflatten(k_, shape_);
    index_t off = 0;
    for (std::size_t d = 0; d < R; ++d) off += idx[d] * strides_[d];
    return data_[off];
  }
  T* operator->() const noexcept { return &**this; }
  T& operator[](index_t n) const noexcept { return *(*this + n); }

  strided_iterator& operator++() noexcept { return ++k_, *this; }
  strided_iterator operator++(int) noexcept { return {*this, k_++}; }
  strided_iterator& operator--() noexcept { return --k_, *this; }
  strided_iterator operator--(int) noexcept { return {*this, k_--}; }
  strided_iterator& operator+=(index_t n) noexcept { return k_ += n, *this; }
  strided_iterator& operator-=(index_t n) noexcept { return k_ -= n, *this; }
  friend strided_iterator operator+(strided_iterator i, index_t n) noexcept { return i += n; }
  friend strided_iterator operator+(index_t n, strided_iterator i) noexcept { return i += n; }
  friend strided_iterator operator-(strided_iterator i, index_t n) noexcept { return i -= n; }
  friend index_t operator-(const strided_iterator& a, const strided_iterator& b) noexcept {
    return a.k_ - b.k_;
  }
  friend bool operator==(const strided_iterator& a, const strided_iterator& b) noexcept {
    return a.k_ == b.k_;
  }
  friend auto operator<=>(const strided_iterator& a, const strided_iterator& b) noexcept {
    return a.k_ <=> b.k_;
  }

 private:
  strided_iterator(const strided_iterator& o, index_t k) noexcept : strided_iterator(o) { k_ = k; }
};

// The scalar path: the value of tree `e` where leaf j's element is at p[I + j].
template <std::size_t I, class E>
LZ_INLINE auto eval_leaves(const E& e, const char* const* p) {
  using K = kind_t<E>;
  if constexpr (std::is_same_v<K, leaf_kind> || std::is_same_v<K, opaque_kind>) {
    return *reinterpret_cast<const value_t<E>*>(p[I]);
  } else if constexpr (std::is_same_v<K, scalar_kind>) {
    return e.value;
  } else if constexpr (std::is_same_v<K, map_kind>) {
    return [&]<class F, class... A>(const map_expr<F, A...>& m) {
      constexpr auto off = [] { // first leaf of each child: I + leaves of the ones before
        std::array<std::size_t, sizeof...(A) + 1> o{};
        o[0] = I;
        std::size_t k = 0;
        ((o[k + 1] = o[k] + leaf_count_v<A>, ++k), ...);
        return o;
      }();
      return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return m.f(eval_leaves<off[J]>(get<J>(m.args), p)...);
      }
      (std::index_sequence_for<A...>{});
    }(e);
  } else { // permute / broadcast only changed the leaves' strides (flatten)
    return eval_leaves<I>(e.arg, p);
  }
}

/// Random-access iterator over a tree, row-major; dereferences to the element's value.
template <class E>
class expr_iterator {
  static constexpr std::size_t R = rank_v<E>, N = leaf_count_v<E>, K = opaque_count_v<E>;
  const E* e_ = nullptr;
  std::array<const char*, N> base_{};            // each leaf's element 0
  std::array<std::array<index_t, R>, N> step_{}; // bytes per unit step along each dimension
  shape_t<R> shape_{};
  std::shared_ptr<temp_store<K>> temps_; // reductions inside the tree, evaluated once
  index_t k_ = 0;

 public:
  using value_type = value_t<E>;
  using difference_type = index_t;
  using reference = value_type;
  using iterator_category = std::input_iterator_tag; // C++17: references are values
  using iterator_concept = std::random_access_iterator_tag;

  expr_iterator() = default;
  expr_iterator(const E& e, index_t k) : e_(&e), shape_(e.shape()), k_(k) {
    std::array<operand, N + 1> ops{};
    if constexpr (K > 0) {
      temps_ = std::make_shared<temp_store<K>>();
      flatten(e, ops.data(), automatic, *temps_);
    } else {
      temp_store<0> none;
      flatten(e, ops.data(), automatic, none);
    }
    for (std::size_t j = 0; j < N; ++j) {
      base_[j] = ops[j].ptr;
      for (std::size_t d = 0; d < R; ++d) step_[j][d] = ops[j].strides[d] * ops[j].esize;
    }
  }

  value_type operator*() const {
    const auto idx = unflatten(k_, shape_);
    std::array<const char*, N> p = base_;
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t d = 0; d < R; ++d) p[j] += idx[d] * step_[j][d];
    return static_cast<value_type>(eval_leaves<0>(*e_, p.data()));
  }
  value_type operator[](index_t n) const { return *(*this + n); }

  expr_iterator& operator++() noexcept { return ++k_, *this; }
  expr_iterator operator++(int) {
    expr_iterator t = *this;
    ++k_;
    return t;
  }
  expr_iterator& operator--() noexcept { return --k_, *this; }
  expr_iterator operator--(int) {
    expr_iterator t = *this;
    --k_;
    return t;
  }
  expr_iterator& operator+=(index_t n) noexcept { return k_ += n, *this; }
  expr_iterator& operator-=(index_t n) noexcept { return k_ -= n, *this; }
  friend expr_iterator operator+(expr_iterator i, index_t n) { return i += n; }
  friend expr_iterator operator+(index_t n, expr_iterator i) { return i += n; }
  friend expr_iterator operator-(expr_iterator i, index_t n) { return i -= n; }
  friend index_t operator-(const expr_iterator& a, const expr_iterator& b) noexcept {
    return a.k_ - b.k_;
  }
  friend bool operator==(const expr_iterator& a, const expr_iterator& b) noexcept {
    return a.k_ == b.k_;
  }
  friend auto operator<=>(const expr_iterator& a, const expr_iterator& b) noexcept {
    return a.k_ <=> b.k_;
  }
};

template <class E>
index_t element_count(const E& e) noexcept {
  index_t n = 1;
  for (index_t x : e.shape()) n *= x;
  return n;
}

template <class E>
inline constexpr bool is_view_v = false;
template <class T, std::size_t R>
inline constexpr bool is_view_v<tensor_view<T, R>> = true;

/// Trees (not tensors, not views) of rank >= 1.
template <class E>
concept range_tree = expression<E> && rank_v<E>
>= 1 && !is_view_v<std::remove_cvref_t<E>> && !requires(const E& e) { e.begin(); };

} // namespace detail

// Each comes as a const and a non-const overload: std::ranges::begin looks them up next to
// deleted `begin(auto&)` / `begin(const auto&)` and only a match at least as good wins.

/// A view's elements in row-major order, writable through the view.
template <class T, std::size_t R>
requires(R >= 1) detail::strided_iterator<T, R> begin(const tensor_view<T, R>& v)
noexcept { return {v, 0}; }
/// The end of a view's elements (begin's partner).
template <class T, std::size_t R>
requires(R >= 1) detail::strided_iterator<T, R> end(const tensor_view<T, R>& v)
noexcept { return {v, v.size()}; }
template <class T, std::size_t R>
requires(R >= 1) detail::strided_iterator<T, R> begin(tensor_view<T, R>& v)
noexcept { return {v, 0}; }
template <class T, std::size_t R>
requires(R >= 1) detail::strided_iterator<T, R> end(tensor_view<T, R>& v)
noexcept { return {v, v.size()}; }

/// A tree's element values in row-major order, computed one at a time.
template <detail::range_tree E>
detail::expr_iterator<E> begin(const E& e) {
  return {e, 0};
}
template <detail::range_tree E>
detail::expr_iterator<E> end(const E& e) {
  return {e, detail::element_count(e)};
}
template <detail::range_tree E>
detail::expr_iterator<E> begin(E& e) {
  return {e, 0};
}
template <detail::range_tree E>
detail::expr_iterator<E> end(E& e) {
  return {e, detail::element_count(e)};
}

} // namespace lz
