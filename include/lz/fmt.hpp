// {fmt} support (optional header; needs {fmt} 9 or later, linked by the user): tensors, views,
// expressions and layouts are formattable. `fmt::print("{}\n", A)` prints what `std::cout << A`
// prints (NumPy style, under lz::printoptions()); a precision in the spec overrides the print
// precision for that call: `fmt::format("{:.3}", 2.0 * x)`. Expressions are evaluated once.
#pragma once

#include <lz/io.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h> // to tell its range formatter that tensors are not plain ranges

#include <sstream>
#include <string>

namespace lz::detail {

/// The text `os << e` would produce under options `o`.
template <expression E>
std::string format_expression(const E& e, const print_options& o) {
  using V = value_t<E>;
  constexpr std::size_t R = rank_v<E>;
  std::ostringstream os;
  const auto print = [&](const auto& v) {
    print_array(
        os, v.data(),
        dtype_of<std::remove_const_t<typename std::remove_cvref_t<decltype(v)>::value_type>>(),
        int(R), v.layout().extents.data(), v.layout().strides.data(), o);
  };
  if constexpr (std::is_same_v<kind_t<E>, leaf_kind>)
    print(e);
  else
    print(tensor<V, R>(e)); // one evaluation
  return os.str();
}

/// Parses "{}" or "{:.N}" (N: print precision); anything else is a format_error.
template <class ParseContext>
constexpr auto parse_print_spec(ParseContext& ctx, int& precision) {
  auto it = ctx.begin(), end = ctx.end();
  if (it != end && *it == '.') {
    ++it;
    if (it == end || *it < '0' || *it > '9')
      throw fmt::format_error("lz: expected digits after '.'");
    precision = 0;
    for (; it != end && *it >= '0' && *it <= '9'; ++it) precision = precision * 10 + (*it - '0');
  }
  if (it != end && *it != '}') throw fmt::format_error("lz: only {} and {:.N} are supported");
  return it;
}

} // namespace lz::detail

/// Tensors and expressions are ranges too (tensor.hpp, ranges.hpp); they format as arrays, not
/// as fmt's "[a, b, c]" lists.
template <lz::expression E>
struct fmt::is_range<E, char> : std::false_type {};

/// Tensors, views and expression trees.
template <lz::expression E>
struct fmt::formatter<E, char> {
  int precision = -1; // -1: lz::printoptions().precision

  constexpr auto parse(fmt::format_parse_context& ctx) {
    return lz::detail::parse_print_spec(ctx, precision);
  }
  template <class FormatContext>
  auto format(const E& e, FormatContext& ctx) const {
    lz::print_options o = lz::printoptions();
    if (precision >= 0) o.precision = precision;
    const std::string s = lz::detail::format_expression(e, o);
    return std::copy(s.begin(), s.end(), ctx.out());
  }
};

/// Layouts as (M,N):(sM,sN).
template <std::size_t R>
struct fmt::formatter<lz::strided_layout<R>, char> : fmt::formatter<std::string, char> {
  template <class FormatContext>
  auto format(const lz::strided_layout<R>& l, FormatContext& ctx) const {
    return fmt::formatter<std::string, char>::format(lz::to_string(l), ctx);
  }
};
