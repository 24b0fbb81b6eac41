// NumPy-style formatting of strided arrays (see include/lz/io.hpp).
#include <lz/io.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace lz {

print_options& printoptions() noexcept {
  static print_options o;
  return o;
}

namespace detail {

void write(std::ostream& os, const std::string& s) { os << s; }

namespace {

// Element fetch as (real, imag) doubles or an integer, by dtype.
struct element {
  double re = 0, im = 0;
  long long i = 0;
  unsigned long long u = 0;
};

element fetch(const void* base, dtype t, index_t off) {
  element e;
  switch (t) {
  case dtype::b8:
    e.i = static_cast<const bool*>(base)[off];
    break;
  case dtype::i8:
    e.i = static_cast<const std::int8_t*>(base)[off];
    break;
  case dtype::u8:
    e.u = static_cast<const std::uint8_t*>(base)[off];
    break;
  case dtype::i16:
    e.i = static_cast<const std::int16_t*>(base)[off];
    break;
  case dtype::u16:
    e.u = static_cast<const std::uint16_t*>(base)[off];
    break;
  case dtype::i32:
    e.i = static_cast<const std::int32_t*>(base)[off];
    break;
  case dtype::u32:
    e.u = static_cast<const std::uint32_t*>(base)[off];
    break;
  case dtype::i64:
    e.i = static_cast<const std::int64_t*>(base)[off];
    break;
  case dtype::u64:
    e.u = static_cast<const std::uint64_t*>(base)[off];
    break;
  case dtype::f32:
    e.re = static_cast<const float*>(base)[off];
    break;
  case dtype::f64:
    e.re = static_cast<const double*>(base)[off];
    break;
  case dtype::c64:
    e.re = static_cast<const std::complex<float>*>(base)[off].real();
    e.im = static_cast<const std::complex<float>*>(base)[off].imag();
    break;
  case dtype::c128:
    e.re = static_cast<const std::complex<double>*>(base)[off].real();
    e.im = static_cast<const std::complex<double>*>(base)[off].imag();
    break;
  }
  return e;
}

bool is_float(dtype t) { return t == dtype::f32 || t == dtype::f64; }
bool is_complex(dtype t) { return t == dtype::c64 || t == dtype::c128; }
bool is_unsigned(dtype t) {
  return t == dtype::u8 || t == dtype::u16 || t == dtype::u32 || t == dtype::u64;
}

// A floating format shared by every printed element (NumPy's 'maxprec' float mode):
// fixed or scientific for the whole array, trailing zeros trimmed, decimal points aligned.
struct float_format {
  bool sci = false;
  int precision = 8;
  bool suppress = false;
  std::size_t int_width = 0, frac_width = 0; // fixed: digits before/after '.'; sci: mantissa parts

  static std::string trim(std::string s) { // "1.500" -> "1.5", "2.000" -> "2."
    const auto dot = s.find('.');
    if (dot == std::string::npos) return s;
    std::size_t end = s.size();
    while (end > dot + 1 && s[end - 1] == '0') --end;
    return s.substr(0, end);
  }
  std::string raw(double v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    if (sci) {
      std::snprintf(buf, sizeof buf, "%.*e", precision, v);
      std::string s(buf);
      const auto e = s.find('e');
      return trim(s.substr(0, e)) + s.substr(e);
    }
    if (suppress && std::fabs(v) < std::pow(10.0, -precision)) v = 0.0;
    std::snprintf(buf, sizeof buf, "%.*f", precision, v);
    std::string s = trim(buf);
    if (s == "-0.")
      s = "0."; // NumPy prints -0. for -0.0, but tiny negatives rounding to 0 print 0.
    return s;
  }
  // Split a raw string into the part before the alignment point and the rest.
  std::pair<std::string, std::string> split(const std::string& s) const {
    const auto dot = s.find('.');
    if (dot == std::string::npos) return {s, ""};
    return {s.substr(0, dot), s.substr(dot)};
  }
  void measure(double v) {
    auto [a, b] = split(raw(v));
    int_width = std::max(int_width, a.size());
    frac_width = std::max(frac_width, b.size());
  }
  std::string format(double v) const {
    auto [a, b] = split(raw(v));
    return std::string(int_width - a.size(), ' ') + a + b + std::string(frac_width - b.size(), ' ');
  }
};

struct printer {
  std::ostream& os;
  const void* data;
  dtype t;
  int rank;
  const index_t* ext;
  const index_t* str;
  const print_options& opt;
  bool summarise = false;
  float_format re_fmt, im_fmt;
  std::size_t width = 0;

  // Indices shown along a dimension of extent n (-1 marks the "..." gap).
  std::vector<index_t> shown(index_t n) const {
    std::vector<index_t> v;
    if (summarise && n > 2 * opt.edgeitems) {
      for (index_t i = 0; i < opt.edgeitems; ++i) v.push_back(i);
      v.push_back(-1);
      for (index_t i = n - opt.edgeitems; i < n; ++i) v.push_back(i);
    } else {
      for (index_t i = 0; i < n; ++i) v.push_back(i);
    }
    return v;
  }

  template <class F>
  void for_shown(int d, index_t off, F&& f) const {
    if (d == rank) {
      f(off);
      return;
    }
    for (index_t i : shown(ext[d]))
      if (i >= 0) for_shown(d + 1, off + i * str[d], f);
  }

  std::string text(index_t off) const {
    const element e = fetch(data, t, off);
    if (t == dtype::b8) return e.i ? "true" : "false";
    if (is_float(t)) return re_fmt.format(e.re);
    if (is_complex(t)) {
      std::string im = im_fmt.format(std::fabs(e.im));
      while (!im.empty() && im.front() == ' ') im.erase(im.begin());
      return re_fmt.format(e.re) + (e.im < 0 || std::signbit(e.im) ? "-" : "+") + im + "j";
    }
    return is_unsigned(t) ? std::to_string(e.u) : std::to_string(e.i);
  }

  void prepare() {
    index_t size = 1;
    for (int d = 0; d < rank; ++d) size *= ext[d];
    summarise = size > opt.threshold;
    if (is_float(t) || is_complex(t)) {
      double maxv = 0, minv = INFINITY;
      for_shown(0, 0, [&](index_t off) {
        const element e = fetch(data, t, off);
        for (double v : {e.re, std::fabs(e.im)}) {
          if (!std::isfinite(v) || v == 0) continue;
          maxv = std::max(maxv, std::fabs(v));
          minv = std::min(minv, std::fabs(v));
        }
      });
      const bool sci = maxv >= 1e8 || (!opt.suppress_small && minv < 1e-4) ||
                       (!opt.suppress_small && minv < INFINITY && maxv / minv > 1e3);
      for (float_format* f : {&re_fmt, &im_fmt}) {
        f->sci = sci;
        f->precision = opt.precision;
        f->suppress = opt.suppress_small;
      }
      for_shown(0, 0, [&](index_t off) {
        const element e = fetch(data, t, off);
        re_fmt.measure(e.re);
        im_fmt.measure(std::fabs(e.im));
      });
    }
    for_shown(0, 0, [&](index_t off) { width = std::max(width, text(off).size()); });
  }

  std::string padded(index_t off) const {
    std::string s = text(off);
    return std::string(width - s.size(), ' ') + s;
  }

  // Dimension d at element offset `off`; `indent` = depth of brackets already open.
  void print_dim(int d, index_t off, int indent) const {
    os << '[';
    const std::vector<index_t> idx = shown(ext[d]);
    if (d == rank - 1) {
      std::size_t col = indent + 1;
      bool first = true;
      for (index_t i : idx) {
        const std::string item = i < 0 ? std::string("...") : padded(off + i * str[d]);
        const std::size_t need = item.size() + (first ? 0 : 1);
        if (!first && col + need + 1 > std::size_t(opt.linewidth)) {
          os << '\n' << std::string(indent + 1, ' ');
          col = indent + 1;
        } else if (!first) {
          os << ' ';
          ++col;
        }
        os << item;
        col += item.size();
        first = false;
      }
    } else {
      bool first = true;
      for (index_t i : idx) {
        if (!first) os << std::string(rank - d - 1, '\n') << std::string(indent + 1, ' ');
        if (i < 0)
          os << "...";
        else
          print_dim(d + 1, off + i * str[d], indent + 1);
        first = false;
      }
    }
    os << ']';
  }
};

} // namespace

void print_array(std::ostream& os, const void* data, dtype t, int rank, const index_t* extents,
                 const index_t* strides, const print_options& opt) {
  printer p{os, data, t, rank, extents, strides, opt, false, {}, {}, 0};
  p.prepare();
  if (rank == 0) {
    os << p.text(0);
    return;
  }
  for (int d = 0; d < rank; ++d)
    if (extents[d] == 0) { // NumPy's str() prints every empty array as [], whatever its shape
      os << "[]";
      return;
    }
  p.print_dim(0, 0, 0);
}

} // namespace detail
} // namespace lz
