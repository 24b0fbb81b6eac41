// NumPy-style formatting of strided arrays (see include/lz/io.hpp).
#include <lz/io.hpp>

#include <algorithm>
#include <charconv>
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

// ---- floating point: NumPy's FloatingFormat in its default 'maxprec' mode ----------------------
// Digits are the shortest that round-trip in the element's own type (float or double), cut at
// `precision` digits after the point (rounding the exact value). One format serves every shown
// element: scientific when the largest |x| >= 1e8, or (unless suppress_small) the smallest
// nonzero |x| < 1e-4 or their ratio > 1e3; fixed otherwise. Fixed: integer parts right-aligned,
// fractions left-aligned and padded with spaces. Scientific: every mantissa gets as many digits
// as the longest one needs (zero-padded), every exponent as many digits as the widest.

// Shortest round-trip digits of |v|: v = 0.d1d2d3... no: d1.d2d3... x 10^exp10.
struct decimal {
  bool negative = false;
  std::string digits; // no leading zeros, at least one digit
  int exp10 = 0;
};

decimal parse_scientific(const char* b, const char* e) { // "-1.2345e+07"
  decimal d;
  if (b != e && *b == '-') {
    d.negative = true;
    ++b;
  }
  for (; b != e && *b != 'e'; ++b)
    if (*b != '.') d.digits += *b;
  if (b != e && ++b != e) { // exponent: sign, then digits (the buffer is not 0-terminated)
    const bool neg = *b == '-';
    if (*b == '-' || *b == '+') ++b;
    std::from_chars(b, e, d.exp10);
    if (neg) d.exp10 = -d.exp10;
  }
  return d;
}

decimal shortest(double v, bool single) {
  char buf[64];
  const auto r = single
                     ? std::to_chars(buf, buf + sizeof buf, float(v), std::chars_format::scientific)
                     : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return parse_scientific(buf, r.ptr);
}

// The exact value of v rounded to `frac` digits after the point, in scientific notation.
decimal rounded_scientific(double v, int frac) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%.*e", frac, v);
  return parse_scientific(buf, buf + n);
}

std::string sign_of(double v, bool plus) {
  if (std::signbit(v)) return "-";
  return plus ? "+" : "";
}

// dragon4_positional(v, precision, unique=True, fractional=True, trim='.') as "int.frac".
std::string positional(double v, bool single, int precision, bool plus) {
  const decimal d = shortest(v, single);
  const int frac = std::max(0, int(d.digits.size()) - 1 - d.exp10);
  std::string intpart, fracpart;
  if (frac > precision) { // cut: round the exact value at `precision` digits
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", precision, std::fabs(v));
    const std::string s = buf;
    const auto dot = s.find('.');
    intpart = s.substr(0, dot);
    fracpart = dot == std::string::npos ? "" : s.substr(dot + 1);
  } else if (d.exp10 >= 0) {
    const std::size_t n = std::size_t(d.exp10) + 1;
    intpart = d.digits.substr(0, std::min(n, d.digits.size()));
    if (intpart.size() < n) intpart.append(n - intpart.size(), '0');
    fracpart = d.digits.size() > n ? d.digits.substr(n) : "";
  } else {
    intpart = "0";
    fracpart = std::string(std::size_t(-d.exp10 - 1), '0') + d.digits;
  }
  while (!fracpart.empty() && fracpart.back() == '0') fracpart.pop_back(); // trim='.'
  return sign_of(v, plus) + intpart + "." + fracpart;
}

// dragon4_scientific(v, precision, min_digits, unique=True): mantissa "d.ddd" (trailing zeros
// trimmed when min_digits is 0) and exponent "+05" with at least exp_digits digits.
std::pair<std::string, std::string> scientific(double v, bool single, int precision, int min_digits,
                                               int exp_digits, bool plus) {
  decimal d = shortest(v, single);
  int frac = int(d.digits.size()) - 1;
  if (frac > precision) {
    d = rounded_scientific(std::fabs(v), precision);
    frac = precision;
  }
  if (frac < min_digits) d = rounded_scientific(std::fabs(v), min_digits); // exact digits
  std::string mant = d.digits.substr(0, 1) + "." + d.digits.substr(1);
  if (min_digits == 0)
    while (mant.back() == '0') mant.pop_back();
  std::string e = std::to_string(std::abs(d.exp10));
  if (int(e.size()) < exp_digits) e.insert(0, std::size_t(exp_digits) - e.size(), '0');
  return {sign_of(v, plus) + mant, (d.exp10 < 0 ? "-" : "+") + e};
}

struct float_format {
  bool single = false; // element type is float: shortest digits are float's
  bool plus = false;   // sign '+' (imaginary parts)
  int precision = 8;   // digits after the point (fixed), mantissa digits (scientific)
  bool sci = false;
  std::size_t pad_left = 0, pad_right = 0;
  int exp_digits = -1;

  // Measures the shown values (NumPy's fillFormat).
  void fill(const std::vector<double>& vals, int prec, bool suppress) {
    precision = prec;
    double maxv = 0, minv = INFINITY;
    bool any_finite = false, any_nonfinite = false, neg_inf = false;
    for (double v : vals) {
      if (!std::isfinite(v)) {
        any_nonfinite = true;
        neg_inf = neg_inf || (std::isinf(v) && v < 0);
        continue;
      }
      any_finite = true;
      if (v == 0) continue;
      maxv = std::max(maxv, std::fabs(v));
      minv = std::min(minv, std::fabs(v));
    }
    sci = minv < INFINITY && (maxv >= 1e8 || (!suppress && (minv < 1e-4 || maxv / minv > 1e3)));
    pad_left = pad_right = 0;
    if (any_finite && sci) {
      int max_frac = 0;
      std::size_t max_exp = 0;
      for (double v : vals) {
        if (!std::isfinite(v)) continue;
        auto [m, e] = scientific(v, single, precision, 0, 2, plus);
        const auto dot = m.find('.');
        pad_left = std::max(pad_left, dot);
        max_frac = std::max(max_frac, int(m.size() - dot - 1));
        max_exp = std::max(max_exp, e.size() - 1);
      }
      exp_digits = int(max_exp);
      precision = max_frac;
      pad_right = std::size_t(exp_digits) + 2 + std::size_t(precision);
    } else if (any_finite) {
      for (double v : vals) {
        if (!std::isfinite(v)) continue;
        const std::string s = positional(v, single, precision, plus);
        const auto dot = s.find('.');
        pad_left = std::max(pad_left, dot);
        pad_right = std::max(pad_right, s.size() - dot - 1);
      }
    }
    if (any_nonfinite) { // "nan" / "inf" / "-inf" must fit too
      const std::size_t offset = pad_right + 1, inf_len = 3 + (plus || neg_inf ? 1 : 0);
      pad_left = std::max(
          {pad_left, 3 > offset ? 3 - offset : 0, inf_len > offset ? inf_len - offset : 0});
    }
  }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? std::string(plus ? "+" : "") + "nan"
                                    : std::string(v < 0  ? "-"
                                                  : plus ? "+"
                                                         : "") +
                                          "inf";
      const std::size_t w = pad_left + pad_right + 1;
      return std::string(w > r.size() ? w - r.size() : 0, ' ') + r;
    }
    std::string s;
    std::size_t dot;
    if (sci) {
      auto [m, e] = scientific(v, single, precision, precision, exp_digits, plus);
      dot = m.find('.');
      s = m + "e" + e;
    } else {
      s = positional(v, single, precision, plus);
      dot = s.find('.');
      s.append(pad_right - (s.size() - dot - 1), ' ');
    }
    return std::string(pad_left > dot ? pad_left - dot : 0, ' ') + s;
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
  std::size_t int_width = 0;

  // Indices shown along a dimension of extent n (-1 marks the "..." gap).
  std::vector<index_t> shown(index_t n) const {
    std::vector<index_t> v;
    const index_t e = opt.edgeitems > 0 ? opt.edgeitems : 0; // (no 2 * e: it may be 2^62)
    if (summarise && n - e > e) {
      for (index_t i = 0; i < e; ++i) v.push_back(i);
      v.push_back(-1);
      for (index_t i = n - e; i < n; ++i) v.push_back(i);
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
    if (is_float(t)) return re_fmt(e.re);
    if (is_complex(t)) { // NumPy puts the 'j' before the imaginary part's padding
      std::string im = im_fmt(e.im);
      const auto end = im.find_last_not_of(' ') + 1;
      return re_fmt(e.re) + im.substr(0, end) + "j" + im.substr(end);
    }
    const std::string s = is_unsigned(t) ? std::to_string(e.u) : std::to_string(e.i);
    return std::string(int_width > s.size() ? int_width - s.size() : 0, ' ') + s;
  }

  void prepare() {
    index_t size = 1;
    for (int d = 0; d < rank; ++d) size *= ext[d];
    summarise = size > opt.threshold;
    std::vector<double> re, im;
    for_shown(0, 0, [&](index_t off) {
      const element e = fetch(data, t, off);
      re.push_back(e.re);
      im.push_back(e.im);
      if (!is_float(t) && !is_complex(t) && t != dtype::b8)
        int_width = std::max(int_width,
                             (is_unsigned(t) ? std::to_string(e.u) : std::to_string(e.i)).size());
    });
    const bool single = t == dtype::f32 || t == dtype::c64;
    re_fmt.single = im_fmt.single = single;
    im_fmt.plus = true;
    if (is_float(t) || is_complex(t)) re_fmt.fill(re, opt.precision, opt.suppress_small);
    if (is_complex(t)) im_fmt.fill(im, opt.precision, opt.suppress_small);
  }

  // One line break decision of NumPy's _extendLine: wrap before `word` when the line would get
  // longer than `width`, unless the line holds nothing but its indent.
  static void extend(std::string& s, std::string& line, const std::string& word, std::size_t width,
                     const std::string& indent) {
    if (line.size() + word.size() > width && line.size() > indent.size()) {
      s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
      line = indent;
    }
    line += word;
  }

  // NumPy's _formatArray: dimension d at element offset `off`; `indent` is the hanging indent
  // of continuation lines, `width` the line width left at this depth.
  std::string format_dim(int d, index_t off, const std::string& indent, std::size_t width) const {
    const std::vector<index_t> idx = shown(ext[d]);
    std::string s;
    if (d == rank - 1) {
      const std::size_t elem_width = width > 0 ? width - 1 : 0; // room for the closing ']'
      std::string line = indent;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        const std::string word = idx[k] < 0 ? std::string("...") : text(off + idx[k] * str[d]);
        extend(s, line, word, elem_width, indent);
        if (k + 1 < idx.size()) line += ' ';
      }
      s += line;
    } else {
      const std::string sep(std::size_t(rank - d - 1), '\n');
      for (std::size_t k = 0; k < idx.size(); ++k) {
        s += indent;
        s += idx[k] < 0 ? std::string("...")
                        : format_dim(d + 1, off + idx[k] * str[d], indent + " ",
                                     width > 0 ? width - 1 : 0);
        if (k + 1 < idx.size()) s += sep;
      }
    }
    std::string out = "[";
    out.append(s, indent.size()); // the first line's indent becomes the bracket
    out += ']';
    return out;
  }
};

} // namespace

void print_array(std::ostream& os, const void* data, dtype t, int rank, const index_t* extents,
                 const index_t* strides, const print_options& opt) {
  for (int d = 0; d < rank; ++d)
    if (extents[d] == 0) { // NumPy prints every empty array as []
      os << "[]";
      return;
    }
  printer p{os, data, t, rank, extents, strides, opt, false, {}, {}, 0};
  p.prepare();
  if (rank == 0) {
    os << p.text(0);
    return;
  }
  os << p.format_dim(0, 0, " ", std::size_t(std::max(opt.linewidth, 0)));
}

} // namespace detail
} // namespace lz
