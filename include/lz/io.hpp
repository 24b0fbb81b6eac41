// Printing: NumPy-style `operator<<` for tensors, views and expressions (with summarisation of
// large tensors and print options), and layouts as (M,N):(sM,sN). The formatting code is
// compiled once (kernels/common/print.cpp); this header only needs <iosfwd>.
#pragma once

#include <lz/evaluate.hpp>
#include <lz/expr/fixed.hpp>
#include <lz/layout/layout.hpp>

#include <iosfwd>

namespace lz {

/// Options like NumPy's set_printoptions.
struct print_options {
  int precision = 8;           ///< digits after the decimal point (at most)
  index_t threshold = 1000;    ///< summarise tensors with more elements than this
  index_t edgeitems = 3;       ///< items shown at each edge of a summarised dimension
  int linewidth = 75;          ///< wrap rows longer than this
  bool suppress_small = false; ///< print tiny values as 0 in fixed notation
};

/// The options in force (process-wide): `lz::printoptions().precision = 4;`
print_options& printoptions() noexcept;

namespace detail {

enum class dtype : int { b8, i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, c64, c128 };

template <class T>
constexpr dtype dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return dtype::b8;
  else if constexpr (std::is_same_v<T, float>)
    return dtype::f32;
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, long double>)
    return dtype::f64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return dtype::c64;
  else if constexpr (is_complex_v<T>)
    return dtype::c128;
  else if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 1   ? dtype::i8
           : sizeof(T) == 2 ? dtype::i16
           : sizeof(T) == 4 ? dtype::i32
                            : dtype::i64;
  else
    return sizeof(T) == 1   ? dtype::u8
           : sizeof(T) == 2 ? dtype::u16
           : sizeof(T) == 4 ? dtype::u32
                            : dtype::u64;
}

/// Prints `rank` dims of elements of type `t` at `data` with `strides` (in elements).
void print_array(std::ostream& os, const void* data, dtype t, int rank, const index_t* extents,
                 const index_t* strides, const print_options& opt);
/// Writes a string to a stream (keeps <ostream> out of this header).
void write(std::ostream& os, const std::string& s);

} // namespace detail

template <class T, std::size_t R>
std::ostream& operator<<(std::ostream& os, const tensor_view<T, R>& v) {
  using V = std::remove_const_t<T>;
  detail::print_array(os, v.data(), detail::dtype_of<V>(), int(R), v.layout().extents.data(),
                      v.layout().strides.data(), printoptions());
  return os;
}
template <class T, std::size_t R>
std::ostream& operator<<(std::ostream& os, const tensor<T, R>& t) {
  return os << t.view();
}
template <class T, index_t... N>
std::ostream& operator<<(std::ostream& os, const fixed_tensor<T, N...>& t) {
  return os << t.view();
}
template <class T, std::size_t R, shape_t<R> E, shape_t<R> S>
std::ostream& operator<<(std::ostream& os, const fixed_view<T, R, E, S>& v) {
  return os << v.view();
}
/// Expressions print their value (evaluated into a temporary).
template <expression E>
requires(!std::is_same_v<detail::kind_t<E>, detail::leaf_kind> &&
         space_v<E> != memory_space::device) std::ostream&
operator<<(std::ostream& os, const E& e) {
  if constexpr (rank_v<E> == 0) {
    const value_t<E> v = eval(e);
    detail::print_array(os, &v, detail::dtype_of<value_t<E>>(), 0, nullptr, nullptr,
                        printoptions());
    return os;
  } else {
    return os << eval(e);
  }
}
template <std::size_t R>
std::ostream& operator<<(std::ostream& os, const strided_layout<R>& l) {
  detail::write(os, to_string(l));
  return os;
}

} // namespace lz
