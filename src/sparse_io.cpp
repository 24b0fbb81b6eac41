// Sparse matrix files behind include/lz/sparse_io.hpp: the Matrix Market parser and writer, and
// SciPy .npz archives (a ZIP reader with DEFLATE through zlib and ZIP64, a stored-entry writer,
// the .npy members through npy_format.hpp). Compiled once for every (T, I) of lz::csr_matrix.
//
// Nothing here reads past a buffer: a Matrix Market file is read whole and parsed line by line
// within it (std::from_chars per token); every ZIP offset and length is checked against the
// file size, every .npy member's header and data against the member's size.
#include "npy_format.hpp"

#include <lz/sparse_io.hpp>

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace lz::detail {
namespace {

using npy_format::fail;
using npy_format::origin;

template <class T>
constexpr bool is_cplx = is_complex_v<T>;

template <class T>
struct real_of {
  using type = T;
};
template <class T>
struct real_of<std::complex<T>> {
  using type = T;
};

template <class I>
std::string index_type_name() {
  return std::to_string(8 * sizeof(I)) + "-bit";
}

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

file_ptr open_read(const origin& o, std::uint64_t& size) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.path, ec)) fail(o, "cannot open: is a directory");
  file_ptr f(std::fopen(o.path.c_str(), "rb"));
  if (!f) fail(o, std::string("cannot open: ") + std::strerror(errno));
  const auto n = std::filesystem::file_size(o.path, ec);
  if (ec) fail(o, "cannot open: " + ec.message());
  size = n;
  return f;
}

file_ptr open_write(const origin& o) {
  file_ptr f(std::fopen(o.path.c_str(), "wb"));
  if (!f) fail(o, std::string("cannot open for writing: ") + std::strerror(errno));
  return f;
}

void write_all(std::FILE* f, const void* p, std::size_t n, const origin& o) {
  if (n && std::fwrite(p, 1, n, f) != n)
    fail(o, std::string("write error: ") + std::strerror(errno));
}

void close_written(file_ptr& f, const origin& o) {
  if (std::fclose(f.release()) != 0) fail(o, std::string("write error: ") + std::strerror(errno));
}

// ==== Matrix Market ============================================================================

enum class mm_format { coordinate, array };
enum class mm_field { real, integer, complex, pattern };
enum class mm_symmetry { general, symmetric, skew, hermitian };

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    char x = a[k], y = b[k];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A shortened copy of a token for messages.
std::string shown(std::string_view t) {
  return "'" + std::string(t.substr(0, 40)) + (t.size() > 40 ? "...'" : "'");
}

// The words of one line.
struct words {
  const char* p;
  const char* e;
  bool next(std::string_view& w) {
    while (p < e && is_space(*p)) ++p;
    if (p == e) return false;
    const char* b = p;
    while (p < e && !is_space(*p)) ++p;
    w = std::string_view(b, std::size_t(p - b));
    return true;
  }
};

// from_chars takes no leading '+'; Matrix Market writers sometimes emit one.
std::string_view unplus(std::string_view t) {
  if (t.size() > 1 && t[0] == '+' && t[1] != '-' && t[1] != '+') t.remove_prefix(1);
  return t;
}

bool to_int(std::string_view t, std::int64_t& v) {
  t = unplus(t);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool to_double(std::string_view t, double& v) {
  t = unplus(t);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size()) {
    // 1e999 or 1e-999: from_chars leaves v alone; read it as strtod (and Python) do, ±inf or ±0.
    const std::string c(t);
    char* end = nullptr;
    v = std::strtod(c.c_str(), &end);
    return end == c.c_str() + c.size();
  }
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// The file held in memory and walked line by line; the line number is in every message.
class mm_lines {
 public:
  explicit mm_lines(const origin& o) : o_(o) {
    std::uint64_t size = 0;
    file_ptr f = open_read(o, size);
    if (size > std::uint64_t(std::numeric_limits<std::ptrdiff_t>::max())) fail(o, "file too large");
    n_ = std::size_t(size);
    buf_ = std::make_unique_for_overwrite<char[]>(n_ ? n_ : 1);
    if (n_ && std::fread(buf_.get(), 1, n_, f.get()) != n_)
      fail(o, std::string("read error: ") + std::strerror(errno));
    p_ = buf_.get();
    end_ = p_ + n_;
  }

  // The next line (without its end of line); false at the end of the file.
  bool next(std::string_view& line) {
    if (p_ == end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', std::size_t(end_ - p_)));
    const char* e = nl ? nl : end_;
    line = std::string_view(p_, std::size_t(e - p_));
    p_ = nl ? nl + 1 : end_;
    ++line_no_;
    return true;
  }
  // The next line that is neither blank nor a comment.
  bool next_data(std::string_view& line) {
    while (next(line)) {
      std::size_t k = 0;
      while (k < line.size() && is_space(line[k])) ++k;
      if (k < line.size() && line[k] != '%') return true;
    }
    return false;
  }
  std::size_t bytes_left() const { return std::size_t(end_ - p_); }
  std::int64_t line_no() const { return line_no_; }

  [[noreturn]] void error(const std::string& why) const {
    fail(o_, "line " + std::to_string(line_no_) + ": " + why);
  }
  [[noreturn]] void error_at(std::int64_t line, const std::string& why) const {
    fail(o_, "line " + std::to_string(line) + ": " + why);
  }

 private:
  const origin& o_;
  std::unique_ptr<char[]> buf_;
  std::size_t n_ = 0;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::int64_t line_no_ = 0;
};

struct mm_banner {
  mm_format format = mm_format::coordinate;
  mm_field field = mm_field::real;
  mm_symmetry symmetry = mm_symmetry::general;
};

const char* const banner_form =
    "'%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern> "
    "<general|symmetric|skew-symmetric|hermitian>'";

mm_banner parse_banner(mm_lines& in, bool complex_ok) {
  std::string_view line;
  if (!in.next(line)) in.error_at(1, "empty file: expected the banner " + std::string(banner_form));
  words w{line.data(), line.data() + line.size()};
  std::string_view id, object, format, field, symmetry;
  if (!w.next(id) || !iequals(id, "%%MatrixMarket"))
    in.error("not a Matrix Market file: the first line must be the banner " +
             std::string(banner_form));
  if (!w.next(object) || !w.next(format) || !w.next(field) || !w.next(symmetry))
    in.error("incomplete banner: expected " + std::string(banner_form));
  std::string_view extra;
  if (w.next(extra)) in.error("unexpected " + shown(extra) + " after the banner's symmetry");
  mm_banner b;
  if (!iequals(object, "matrix"))
    in.error("object " + shown(object) + " is not supported (lazuli reads 'matrix')");
  if (iequals(format, "coordinate"))
    b.format = mm_format::coordinate;
  else if (iequals(format, "array"))
    b.format = mm_format::array;
  else
    in.error("unknown format " + shown(format) + " (expected coordinate or array)");
  if (iequals(field, "real") || iequals(field, "double"))
    b.field = mm_field::real;
  else if (iequals(field, "integer"))
    b.field = mm_field::integer;
  else if (iequals(field, "complex"))
    b.field = mm_field::complex;
  else if (iequals(field, "pattern"))
    b.field = mm_field::pattern;
  else
    in.error("unknown field " + shown(field) + " (expected real, integer, complex or pattern)");
  if (iequals(symmetry, "general"))
    b.symmetry = mm_symmetry::general;
  else if (iequals(symmetry, "symmetric"))
    b.symmetry = mm_symmetry::symmetric;
  else if (iequals(symmetry, "skew-symmetric"))
    b.symmetry = mm_symmetry::skew;
  else if (iequals(symmetry, "hermitian"))
    b.symmetry = mm_symmetry::hermitian;
  else
    in.error("unknown symmetry " + shown(symmetry) +
             " (expected general, symmetric, skew-symmetric or hermitian)");
  if (b.field == mm_field::complex && !complex_ok)
    in.error("the file holds complex values; read it into a csr_matrix of std::complex<float> "
             "or std::complex<double>");
  if (b.field == mm_field::pattern && b.format == mm_format::array)
    in.error("an array file cannot have the field pattern");
  if (b.field == mm_field::pattern && b.symmetry == mm_symmetry::skew)
    in.error("a pattern file cannot be skew-symmetric");
  // A real hermitian matrix is a symmetric one.
  if (b.symmetry == mm_symmetry::hermitian && b.field != mm_field::complex)
    b.symmetry = mm_symmetry::symmetric;
  return b;
}

template <class T>
T conj_of(const T& v) {
  if constexpr (is_cplx<T>)
    return std::conj(v);
  else
    return v;
}

template <class T, class I>
mm_triplets<T, I> read_mm(const std::filesystem::path& path) {
  const origin o{"read_matrix_market", path};
  mm_lines in(o);
  const mm_banner b = parse_banner(in, is_cplx<T>);
  const bool coord = b.format == mm_format::coordinate;

  // The size line.
  std::string_view line;
  if (!in.next_data(line))
    in.error_at(in.line_no() + 1, std::string("end of file before the size line ('rows cols") +
                                      (coord ? " nnz')" : "')"));
  const char* names[] = {"rows", "cols", "nnz"};
  const int want = coord ? 3 : 2;
  const std::string form = coord ? "'rows cols nnz'" : "'rows cols'";
  std::int64_t size[3] = {};
  words w{line.data(), line.data() + line.size()};
  for (int k = 0; k < want; ++k) {
    std::string_view t;
    if (!w.next(t))
      in.error("size line: missing " + std::string(names[k]) + " (expected " + form + ")");
    if (!to_int(t, size[k]))
      in.error("size line: " + std::string(names[k]) + " " + shown(t) +
               " is not an integer (expected " + form + ")");
    if (size[k] < 0)
      in.error("size line: " + std::string(names[k]) + " " + std::to_string(size[k]) +
               " is negative");
  }
  if (std::string_view t; w.next(t))
    in.error("size line: unexpected " + shown(t) + " (expected " + form + ")");
  constexpr std::int64_t imax = std::numeric_limits<I>::max();
  for (int k = 0; k < want; ++k)
    if (size[k] > imax)
      in.error("size line: " + std::string(names[k]) + " " + std::to_string(size[k]) +
               " does not fit the " + index_type_name<I>() + " index type" +
               (sizeof(I) < 8 ? " (read it with std::int64_t indices)" : ""));
  const std::int64_t rows = size[0], cols = size[1];
  if (b.symmetry != mm_symmetry::general && rows != cols)
    in.error("size line: a " +
             std::string(b.symmetry == mm_symmetry::symmetric ? "symmetric"
                         : b.symmetry == mm_symmetry::skew    ? "skew-symmetric"
                                                              : "hermitian") +
             " matrix must be square, not " + std::to_string(rows) + " x " + std::to_string(cols));

  // How many entry lines follow.
  std::int64_t count = size[2];
  if (!coord) {
    // general: rows·cols; symmetric and hermitian: the lower triangle n(n+1)/2; skew: n(n-1)/2.
    const std::int64_t n = rows, m = b.symmetry == mm_symmetry::skew ? n - 1 : n + 1;
    const bool over =
        b.symmetry == mm_symmetry::general
            ? __builtin_mul_overflow(rows, cols, &count)
            : __builtin_mul_overflow(n % 2 == 0 ? n / 2 : n, n % 2 == 0 ? m : m / 2, &count);
    if (over)
      in.error("size line: " + std::to_string(rows) + " x " + std::to_string(cols) +
               " entries overflow a 64-bit count");
    if (n == 0) count = 0;
  }

  mm_triplets<T, I> out;
  out.rows = rows;
  out.cols = cols;
  // Reserve no more than the remaining bytes can hold (an entry line has at least 2 bytes per
  // number): a size line that lies does not allocate.
  {
    const bool mirror = b.symmetry != mm_symmetry::general;
    const std::int64_t cap = std::int64_t(in.bytes_left() / 4 + 1);
    const std::size_t r = std::size_t(std::min(count, cap)) * (mirror ? 2 : 1);
    if (coord) {
      out.row.reserve(r);
      out.col.reserve(r);
    }
    out.values.reserve(r);
  }
  const bool cplx_field = b.field == mm_field::complex;
  const bool int_field = b.field == mm_field::integer;
  const bool pattern = b.field == mm_field::pattern;
  const char* entry_form = coord ? (pattern      ? "'row col'"
                                    : cplx_field ? "'row col real imag'"
                                                 : "'row col value'")
                                 : (cplx_field ? "'real imag'" : "'value'");

  std::int64_t ai = 0, aj = 0; // array: the next entry's position (column-major)
  // Row-major order without repeats so far: then the triplets are CSR already.
  bool in_order = true;
  std::int64_t last_i = -1, last_j = -1;
  if (!coord && b.symmetry == mm_symmetry::skew) ai = 1;
  for (std::int64_t k = 0; k < count; ++k) {
    if (!in.next_data(line))
      in.error_at(in.line_no() + 1, "end of file after " + std::to_string(k) + " of the " +
                                        std::to_string(count) + " entries the size line " +
                                        "declares (truncated file?)");
    words t{line.data(), line.data() + line.size()};
    std::string_view tok;
    std::int64_t i = 0, j = 0;
    if (coord) {
      const std::int64_t lim[2] = {rows, cols};
      std::int64_t* dst[2] = {&i, &j};
      for (int d = 0; d < 2; ++d) {
        if (!t.next(tok))
          in.error(std::string("missing the ") + (d ? "column" : "row") + " index (expected " +
                   entry_form + ")");
        if (!to_int(tok, *dst[d]))
          in.error(std::string(d ? "column" : "row") + " index " + shown(tok) +
                   " is not an integer");
        if (*dst[d] < 1 || *dst[d] > lim[d])
          in.error(std::string(d ? "column" : "row") + " index " + std::to_string(*dst[d]) +
                   " is out of range (1.." + std::to_string(lim[d]) + ")");
      }
      --i;
      --j;
    } else {
      i = ai;
      j = aj;
    }
    double re = 1, im = 0;
    if (!pattern) {
      if (!t.next(tok))
        in.error(std::string("missing the ") + (cplx_field ? "real part" : "value") +
                 " (expected " + entry_form + ")");
      if (int_field) {
        std::int64_t v = 0;
        if (!to_int(tok, v)) in.error("value " + shown(tok) + " is not an integer (field integer)");
        re = double(v);
      } else if (!to_double(tok, re)) {
        in.error("value " + shown(tok) + " is not a number");
      }
      if (cplx_field) {
        if (!t.next(tok))
          in.error(std::string("missing the imaginary part (expected ") + entry_form + ")");
        if (!to_double(tok, im)) in.error("imaginary part " + shown(tok) + " is not a number");
      }
    }
    if (t.next(tok))
      in.error("unexpected " + shown(tok) + " after the entry (expected " + entry_form + ")");
    if (i == j) {
      if (b.symmetry == mm_symmetry::skew && (re != 0 || im != 0))
        in.error("nonzero diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                 ") in a skew-symmetric matrix");
      if (b.symmetry == mm_symmetry::hermitian && im != 0)
        in.error("diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                 ") of a hermitian matrix is not real");
    }
    if (!coord) { // advance down the column, then to the next column's first stored row
      if (++ai == rows) {
        ++aj;
        ai = b.symmetry == mm_symmetry::general ? 0 : b.symmetry == mm_symmetry::skew ? aj + 1 : aj;
      }
      if (re == 0 && im == 0) continue; // an array file's zeros are not entries
    }
    T v;
    if constexpr (is_cplx<T>)
      v = T(typename T::value_type(re), typename T::value_type(im));
    else
      v = T(re);
    in_order = in_order && (i > last_i || (i == last_i && j > last_j));
    last_i = i;
    last_j = j;
    out.row.push_back(I(i));
    out.col.push_back(I(j));
    out.values.push_back(v);
    if (b.symmetry != mm_symmetry::general && i != j) {
      in_order = false;
      out.row.push_back(I(j));
      out.col.push_back(I(i));
      out.values.push_back(b.symmetry == mm_symmetry::skew        ? T(-v)
                           : b.symmetry == mm_symmetry::hermitian ? conj_of(v)
                                                                  : v);
    }
  }
  if (in.next_data(line))
    in.error("more entries than the " + std::to_string(count) + " the size line declares");
  if (out.values.size() > std::size_t(imax))
    fail(o, std::to_string(out.values.size()) + " entries do not fit the " + index_type_name<I>() +
                " index type (read it with std::int64_t indices)");
  if (in_order) { // the row offsets by counting; no sort needed
    out.row_ptr.assign(std::size_t(rows) + 1, I(0));
    for (const I r : out.row) ++out.row_ptr[std::size_t(r) + 1];
    for (std::size_t r = 0; r < std::size_t(rows); ++r) out.row_ptr[r + 1] += out.row_ptr[r];
    std::vector<I>().swap(out.row);
  }
  return out;
}

// Appends the shortest decimal that reads back as x (double), or 9 significant digits (float).
template <class R>
void put_real(std::string& s, R x) {
  char buf[64];
  std::to_chars_result r;
  if constexpr (std::is_same_v<R, float>)
    r = std::to_chars(buf, buf + sizeof buf, double(x), std::chars_format::general, 9);
  else
    r = std::to_chars(buf, buf + sizeof buf, x);
  s.append(buf, r.ptr);
}

void put_int(std::string& s, std::int64_t x) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  s.append(buf, r.ptr);
}

template <class T, class I>
void write_mm_impl(const std::filesystem::path& path, index_t rows, index_t cols,
                   std::span<const I> row_ptr, std::span<const I> col_idx,
                   std::span<const T> values) {
  const origin o{"write_matrix_market", path};
  file_ptr f = open_write(o);
  std::string s;
  s.reserve(1 << 20);
  s += "%%MatrixMarket matrix coordinate ";
  s += is_cplx<T> ? "complex" : "real";
  s += " general\n% written by lazuli (lz::write_matrix_market)\n";
  put_int(s, rows);
  s += ' ';
  put_int(s, cols);
  s += ' ';
  put_int(s, std::int64_t(values.size()));
  s += '\n';
  for (index_t i = 0; i < rows; ++i)
    for (index_t k = row_ptr[std::size_t(i)]; k < row_ptr[std::size_t(i) + 1]; ++k) {
      put_int(s, i + 1);
      s += ' ';
      put_int(s, std::int64_t(col_idx[std::size_t(k)]) + 1);
      s += ' ';
      const T v = values[std::size_t(k)];
      if constexpr (is_cplx<T>) {
        put_real(s, v.real());
        s += ' ';
        put_real(s, v.imag());
      } else {
        put_real(s, v);
      }
      s += '\n';
      if (s.size() > (1 << 20) - 256) {
        write_all(f.get(), s.data(), s.size(), o);
        s.clear();
      }
    }
  write_all(f.get(), s.data(), s.size(), o);
  close_written(f, o);
}

// ==== ZIP ======================================================================================

constexpr std::uint32_t sig_local = 0x04034b50, sig_central = 0x02014b50, sig_end = 0x06054b50,
                        sig_end64 = 0x06064b50, sig_locator64 = 0x07064b50;
constexpr std::size_t local_size = 30, central_size = 46, end_size = 22, end64_size = 56,
                      locator64_size = 20;

std::uint64_t get(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes; k-- > 0;) v = v << 8 | p[k];
  return v;
}

void put(std::string& s, std::uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) s += char((v >> (8 * k)) & 0xff);
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::uint32_t crc_of(std::uint32_t crc, const void* p, std::size_t n) {
  return n ? std::uint32_t(crc32_z(crc, static_cast<const Bytef*>(p), n)) : crc;
}

struct zip_entry {
  std::string name;
  std::uint32_t flags = 0, method = 0, crc = 0;
  std::uint64_t csize = 0, usize = 0, offset = 0;
};

class zip_reader {
 public:
  explicit zip_reader(const origin& o) : o_(o) { f_ = open_read(o, size_); }

  std::vector<zip_entry> directory() {
    // End of central directory record: the last signature within the final 64 KiB + 22 bytes
    // (a trailing comment is at most 65535 bytes).
    if (size_ < end_size)
      fail(o_, "not a ZIP archive (" + std::to_string(size_) +
                   " bytes, too short for the end of central directory record)");
    const std::uint64_t tail_len = std::min<std::uint64_t>(size_, 0xffff + end_size);
    std::vector<unsigned char> tail(tail_len);
    read_at(size_ - tail_len, tail.data(), tail_len, "the end of central directory");
    std::int64_t at = -1;
    for (std::int64_t k = std::int64_t(tail_len - end_size); k >= 0; --k)
      if (get(&tail[std::size_t(k)], 4) == sig_end) {
        at = k;
        break;
      }
    if (at < 0)
      fail(o_, "not a ZIP archive (no end of central directory record: not an .npz file, or "
               "truncated)");
    const unsigned char* e = &tail[std::size_t(at)];
    const std::uint64_t end_pos = size_ - tail_len + std::uint64_t(at);
    if (get(e + 4, 2) != 0 || get(e + 6, 2) != 0)
      fail(o_, "multi-disk ZIP archives are not supported");
    std::uint64_t count = get(e + 10, 2), cd_size = get(e + 12, 4), cd_offset = get(e + 16, 4);
    std::uint64_t cd_end_limit = end_pos;
    // ZIP64: a locator just before the record points at the ZIP64 end of central directory.
    if (end_pos >= locator64_size) {
      unsigned char loc[locator64_size];
      read_at(end_pos - locator64_size, loc, locator64_size, "the ZIP64 locator");
      if (get(loc, 4) == sig_locator64) {
        const std::uint64_t e64_pos = get(loc + 8, 8);
        if (e64_pos > end_pos - locator64_size || end_pos - locator64_size - e64_pos < end64_size)
          fail(o_, "malformed ZIP64 end of central directory locator (offset " +
                       std::to_string(e64_pos) + ")");
        unsigned char e64[end64_size];
        read_at(e64_pos, e64, end64_size, "the ZIP64 end of central directory");
        if (get(e64, 4) != sig_end64)
          fail(o_, "malformed ZIP64 end of central directory record (bad signature)");
        count = get(e64 + 32, 8);
        cd_size = get(e64 + 40, 8);
        cd_offset = get(e64 + 48, 8);
        cd_end_limit = e64_pos;
      }
    }
    if (cd_offset > cd_end_limit || cd_size > cd_end_limit - cd_offset)
      fail(o_, "truncated or malformed ZIP archive (central directory at " +
                   std::to_string(cd_offset) + ", " + std::to_string(cd_size) +
                   " bytes, beyond the end of the archive's data at " +
                   std::to_string(cd_end_limit) + ")");
    if (count > cd_size / central_size)
      fail(o_, "malformed ZIP archive (" + std::to_string(count) + " entries cannot fit a " +
                   std::to_string(cd_size) + "-byte central directory)");
    std::vector<unsigned char> cd(cd_size);
    read_at(cd_offset, cd.data(), cd_size, "the central directory");
    std::vector<zip_entry> out;
    std::size_t p = 0;
    for (std::uint64_t n = 0; n < count; ++n) {
      if (cd.size() - p < central_size || get(&cd[p], 4) != sig_central)
        fail(o_, "malformed ZIP central directory (entry " + std::to_string(n) + ")");
      const unsigned char* c = &cd[p];
      zip_entry z;
      z.flags = std::uint32_t(get(c + 8, 2));
      z.method = std::uint32_t(get(c + 10, 2));
      z.crc = std::uint32_t(get(c + 16, 4));
      z.csize = get(c + 20, 4);
      z.usize = get(c + 24, 4);
      const std::size_t name_len = get(c + 28, 2), extra_len = get(c + 30, 2),
                        comment_len = get(c + 32, 2);
      z.offset = get(c + 42, 4);
      if (cd.size() - p - central_size < name_len + extra_len + comment_len)
        fail(o_,
             "malformed ZIP central directory (entry " + std::to_string(n) + " runs past its end)");
      z.name.assign(reinterpret_cast<const char*>(c + central_size), name_len);
      // ZIP64 extended information (id 1): 8-byte values for each saturated field, in order.
      const unsigned char* x = c + central_size + name_len;
      const unsigned char* xe = x + extra_len;
      while (xe - x >= 4) {
        const std::size_t id = get(x, 2), len = get(x + 2, 2);
        if (std::size_t(xe - x - 4) < len) break;
        if (id == 1) {
          const unsigned char* v = x + 4;
          std::size_t left = len;
          for (std::uint64_t* field : {&z.usize, &z.csize, &z.offset}) {
            if (*field != 0xffffffffu) continue;
            if (left < 8) fail(o_, "malformed ZIP64 extra field of member '" + z.name + "'");
            *field = get(v, 8);
            v += 8;
            left -= 8;
          }
        }
        x += 4 + len;
      }
      out.push_back(std::move(z));
      p += central_size + name_len + extra_len + comment_len;
    }
    return out;
  }

  // The member's uncompressed bytes, CRC-checked.
  std::vector<unsigned char> extract(const zip_entry& z) {
    const origin m{o_.fn, o_.path, z.name};
    if (z.flags & 1) fail(m, "encrypted ZIP members are not supported");
    if (z.method != 0 && z.method != 8)
      fail(m, "ZIP compression method " + std::to_string(z.method) +
                  " is not supported (stored or deflated only)");
    unsigned char lh[local_size];
    if (z.offset > size_ || size_ - z.offset < local_size)
      fail(m, "truncated archive: the local header at " + std::to_string(z.offset) +
                  " lies beyond the end of the " + std::to_string(size_) + "-byte file");
    read_at(z.offset, lh, local_size, "a local header");
    if (get(lh, 4) != sig_local) fail(m, "malformed ZIP archive (bad local header signature)");
    const std::uint64_t start = z.offset + local_size + get(lh + 26, 2) + get(lh + 28, 2);
    if (start > size_ || size_ - start < z.csize)
      fail(m, "truncated archive: the member's " + std::to_string(z.csize) + " bytes at " +
                  std::to_string(start) + " run past the end of the " + std::to_string(size_) +
                  "-byte file");
    std::vector<unsigned char> out;
    if (z.method == 0) {
      if (z.usize != z.csize)
        fail(m, "malformed ZIP archive (a stored member of " + std::to_string(z.csize) +
                    " bytes declares " + std::to_string(z.usize) + " uncompressed)");
      out.resize(z.usize);
      read_at(start, out.data(), z.usize, "a member");
    } else {
      // DEFLATE expands at most 1032:1; a larger declared size is a corrupt directory, not a
      // reason to allocate it.
      if (z.usize / 1032 > z.csize + 1)
        fail(m, "malformed ZIP archive (" + std::to_string(z.csize) + " compressed bytes cannot " +
                    "inflate to the declared " + std::to_string(z.usize) + ")");
      std::vector<unsigned char> in(z.csize);
      read_at(start, in.data(), z.csize, "a member");
      out.resize(z.usize + 1); // one spare byte: more output than declared is detected
      inflate_all(m, in, out, z.usize);
      out.resize(z.usize);
    }
    const std::uint32_t crc = crc_of(0, out.data(), out.size());
    if (crc != z.crc)
      fail(m, "CRC-32 mismatch (stored " + hex32(z.crc) + ", computed " + hex32(crc) +
                  "): the archive is corrupt");
    return out;
  }

 private:
  void read_at(std::uint64_t off, void* dst, std::uint64_t n, const char* what) {
    if (off > size_ || size_ - off < n)
      fail(o_, std::string("truncated archive: ") + what + " lies beyond the end of the file");
    if (n == 0) return;
    if (fseeko(f_.get(), off_t(off), SEEK_SET) != 0 ||
        std::fread(dst, 1, std::size_t(n), f_.get()) != n)
      fail(o_, std::string("read error in ") + what + ": " + std::strerror(errno));
  }

  static void inflate_all(const origin& m, std::vector<unsigned char>& in,
                          std::vector<unsigned char>& out, std::uint64_t usize) {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail(m, "zlib: inflateInit2 failed");
    struct ender {
      z_stream* z;
      ~ender() { inflateEnd(z); }
    } end{&z};
    constexpr std::size_t chunk = std::size_t(1) << 30;
    std::size_t in_at = 0, out_at = 0;
    int r = Z_OK;
    while (r != Z_STREAM_END) {
      if (z.avail_in == 0 && in_at < in.size()) {
        z.next_in = in.data() + in_at;
        z.avail_in = uInt(std::min(chunk, in.size() - in_at));
        in_at += z.avail_in;
      }
      if (z.avail_out == 0 && out_at < out.size()) {
        z.next_out = out.data() + out_at;
        z.avail_out = uInt(std::min(chunk, out.size() - out_at));
        out_at += z.avail_out;
      }
      const uLong before_in = z.total_in, before_out = z.total_out;
      r = inflate(&z, Z_NO_FLUSH);
      if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_MEM_ERROR || r == Z_STREAM_ERROR)
        fail(m, std::string("corrupt DEFLATE data: ") + (z.msg ? z.msg : "zlib error"));
      if (z.total_out > usize)
        fail(m, "inflates to more than the " + std::to_string(usize) + " bytes declared");
      if (r != Z_STREAM_END && z.total_in == before_in && z.total_out == before_out &&
          z.avail_in == 0 && in_at == in.size())
        fail(m, "truncated DEFLATE data (the compressed stream ends early)");
    }
    if (z.total_out != usize)
      fail(m, "inflates to " + std::to_string(z.total_out) + " bytes, the archive declares " +
                  std::to_string(usize));
  }

  const origin& o_;
  file_ptr f_;
  std::uint64_t size_ = 0;
};

// ==== .npz (scipy.sparse.save_npz) =============================================================

// One .npy member, parsed: its header, dtype string and data bytes (within `bytes`).
struct npy_member {
  npy_header h;
  std::string descr;
  const unsigned char* data = nullptr;
  std::size_t data_bytes = 0;
  index_t count = 1;
};

npy_member parse_member(const std::vector<unsigned char>& bytes, const origin& m) {
  npy_member a;
  std::size_t off = 0;
  a.h = npy_format::parse_bytes(bytes.data(), bytes.size(), a.descr, off, m);
  a.data = bytes.data() + off;
  a.data_bytes = bytes.size() - off;
  for (int k = 0; k < a.h.rank; ++k)
    if (__builtin_mul_overflow(a.count, a.h.shape[k], &a.count))
      fail(m, "shape " + npy_format::shape_string(a.h.rank, a.h.shape) + " overflows");
  return a;
}

// The member's dtype among `allowed`; io_error otherwise.
dtype member_type(const npy_member& a, const origin& m, std::initializer_list<dtype> allowed,
                  const char* expected) {
  dtype t{};
  std::string why;
  if (npy_format::parse_descr(a.descr, t, why))
    for (dtype d : allowed)
      if (d == t) return t;
  fail(m, "holds dtype '" + a.descr + "', expected " + expected);
}

// Checks a rank-1 member of `n` elements of `t` and that its data is all there.
void check_vector(const npy_member& a, const origin& m, dtype t, index_t n, const char* what) {
  if (a.h.rank != 1)
    fail(m, std::string("must be a vector, not of shape ") +
                npy_format::shape_string(a.h.rank, a.h.shape));
  if (n >= 0 && a.count != n)
    fail(m, "has " + std::to_string(a.count) + " elements, expected " + std::to_string(n) + " (" +
                what + ")");
  const std::size_t es = npy_format::size_of(t);
  if (std::size_t(a.count) > a.data_bytes / es)
    fail(m, "truncated data: " + std::to_string(a.count) + " elements of " +
                npy_format::descr_of(t) + " need " + std::to_string(std::size_t(a.count) * es) +
                " bytes, the member has " + std::to_string(a.data_bytes));
}

std::int64_t int_at(const npy_member& a, dtype t, index_t k) {
  if (t == dtype::i32) {
    std::int32_t v;
    std::memcpy(&v, a.data + std::size_t(k) * 4, 4);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, a.data + std::size_t(k) * 8, 8);
  return v;
}

// The matrix format named by format.npy: a 0-d bytes ('|S3') or str ('<U3') array.
std::string format_string(const npy_member& a, const origin& m) {
  const std::string& d = a.descr;
  const bool bytes = d.size() >= 3 && (d[0] == '|' || d[0] == '<' || d[0] == '=') && d[1] == 'S';
  const bool unicode = d.size() >= 3 && (d[0] == '<' || d[0] == '=') && d[1] == 'U';
  std::int64_t n = 0;
  if ((!bytes && !unicode) || !to_int(std::string_view(d).substr(2), n) || n < 0 || n > 64)
    fail(m, "holds dtype '" + d + "', expected a string ('|S3' or '<U3')");
  if (a.h.rank != 0)
    fail(m, "must be a 0-d array, not of shape " + npy_format::shape_string(a.h.rank, a.h.shape));
  const std::size_t w = unicode ? 4 : 1;
  if (a.data_bytes < std::size_t(n) * w) fail(m, "truncated data");
  std::string s;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::uint64_t c = get(a.data + std::size_t(k) * w, int(w));
    if (c == 0) break;
    s += c < 0x80 ? char(c) : '?';
  }
  return s;
}

template <class T>
bool value_converts(dtype t) {
  switch (t) {
  case dtype::f32:
    return true;
  case dtype::f64:
    return !std::is_same_v<T, float> && !std::is_same_v<T, std::complex<float>>;
  case dtype::c64:
    return is_cplx<T>;
  case dtype::c128:
    return std::is_same_v<T, std::complex<double>>;
  default:
    return false;
  }
}

template <class T, class S>
void convert_values(const unsigned char* p, std::size_t n, std::vector<T>& out) {
  out.resize(n);
  if constexpr (std::is_same_v<T, S>) {
    if (n) std::memcpy(out.data(), p, n * sizeof(S));
  } else {
    for (std::size_t k = 0; k < n; ++k) {
      S v;
      std::memcpy(&v, p + k * sizeof(S), sizeof(S));
      if constexpr (is_cplx<T> && is_cplx<S>)
        out[k] = T(typename T::value_type(v.real()), typename T::value_type(v.imag()));
      else
        out[k] = T(v);
    }
  }
}

const char* const npz_names[] = {"indices.npy", "indptr.npy", "format.npy", "shape.npy",
                                 "data.npy"};

template <class T, class I>
npz_arrays<T, I> read_npz(const std::filesystem::path& path) {
  const origin o{"load_npz", path};
  zip_reader zip(o);
  const std::vector<zip_entry> dir = zip.directory();
  const zip_entry* found[5] = {};
  for (const auto& z : dir)
    for (int k = 0; k < 5; ++k)
      if (z.name == npz_names[k]) {
        if (found[k]) fail(o, std::string("member '") + npz_names[k] + "' appears twice");
        found[k] = &z;
      }
  for (int k = 0; k < 5; ++k)
    if (!found[k]) {
      std::string have;
      for (const auto& z : dir) have += (have.empty() ? "'" : ", '") + z.name + "'";
      fail(o, std::string("no member '") + npz_names[k] +
                  "': not a scipy.sparse.save_npz file (it holds " +
                  (have.empty() ? std::string("nothing") : have) + ")");
    }
  const auto member = [&](int k) { return origin{o.fn, path, npz_names[k]}; };

  // format and shape first: they say what the other arrays must look like.
  const std::vector<unsigned char> fbytes = zip.extract(*found[2]);
  const std::string format = format_string(parse_member(fbytes, member(2)), member(2));
  if (format != "csr" && format != "csc")
    fail(member(2), "holds a '" + format + "' matrix; lazuli reads 'csr' and 'csc'");
  npz_arrays<T, I> out;
  out.csc = format == "csc";

  const std::vector<unsigned char> sbytes = zip.extract(*found[3]);
  const npy_member shape = parse_member(sbytes, member(3));
  const dtype st = member_type(shape, member(3), {dtype::i64, dtype::i32}, "int64 or int32");
  check_vector(shape, member(3), st, 2, "rows and columns");
  const std::int64_t rows = int_at(shape, st, 0), cols = int_at(shape, st, 1);
  constexpr std::int64_t imax = std::numeric_limits<I>::max();
  if (rows < 0 || cols < 0)
    fail(member(3), "negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  if (rows > imax || cols > imax)
    fail(member(3), "shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                        ") does not fit the " + index_type_name<I>() + " index type" +
                        (sizeof(I) < 8 ? " (load it with std::int64_t indices)" : ""));
  out.rows = rows;
  out.cols = cols;
  const std::int64_t major = out.csc ? cols : rows, minor = out.csc ? rows : cols;

  const std::vector<unsigned char> pbytes = zip.extract(*found[1]);
  const npy_member ptr = parse_member(pbytes, member(1));
  const dtype pt = member_type(ptr, member(1), {dtype::i32, dtype::i64}, "int32 or int64");
  check_vector(ptr, member(1), pt, major + 1,
               out.csc ? "columns + 1 for a csc matrix" : "rows + 1 for a csr matrix");

  const std::vector<unsigned char> ibytes = zip.extract(*found[0]);
  const npy_member idx = parse_member(ibytes, member(0));
  const dtype it = member_type(idx, member(0), {dtype::i32, dtype::i64}, "int32 or int64");
  check_vector(idx, member(0), it, -1, "");

  const std::vector<unsigned char> dbytes = zip.extract(*found[4]);
  const npy_member data = parse_member(dbytes, member(4));
  const dtype dt = member_type(data, member(4), {dtype::f32, dtype::f64, dtype::c64, dtype::c128},
                               "float32, float64, complex64 or complex128");
  check_vector(data, member(4), dt, idx.count, "as many as indices.npy");
  if (!value_converts<T>(dt))
    fail(member(4), std::string("holds ") + npy_format::descr_of(dt) + " (" +
                        npy_format::name_of(dt) + ") values, which do not convert to " +
                        npy_format::name_of(dtype_of<T>()) + " without loss");

  // indptr: starts at 0, never decreases, ends within indices (scipy ignores what lies beyond).
  out.indptr.resize(std::size_t(major) + 1);
  std::int64_t prev = 0;
  for (std::int64_t k = 0; k <= major; ++k) {
    const std::int64_t v = int_at(ptr, pt, k);
    if (k == 0 && v != 0) fail(member(1), "indptr[0] is " + std::to_string(v) + ", not 0");
    if (v < prev)
      fail(member(1), "indptr decreases at " + std::to_string(k) + " (" + std::to_string(prev) +
                          " then " + std::to_string(v) + ")");
    if (v > idx.count)
      fail(member(1), "indptr[" + std::to_string(k) + "] = " + std::to_string(v) + " exceeds the " +
                          std::to_string(idx.count) + " stored indices");
    out.indptr[std::size_t(k)] = I(v); // v <= idx.count, checked to fit below
    prev = v;
  }
  const std::int64_t nnz = prev;
  if (nnz > imax)
    fail(o, std::to_string(nnz) + " entries do not fit the " + index_type_name<I>() +
                " index type (load it with std::int64_t indices)");
  out.indices.resize(std::size_t(nnz));
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t v = int_at(idx, it, k);
    if (v < 0 || v >= minor)
      fail(member(0), "index " + std::to_string(v) + " at position " + std::to_string(k) +
                          " is out of range for " + std::to_string(minor) +
                          (out.csc ? " rows" : " columns"));
    out.indices[std::size_t(k)] = I(v);
  }
  // Only the conversions value_converts allowed are instantiated.
  using R = typename real_of<T>::type; // float or double
  const std::size_t n = std::size_t(nnz);
  if (dt == dtype::f32) convert_values<T, float>(data.data, n, out.data);
  if constexpr (std::is_same_v<R, double>)
    if (dt == dtype::f64) convert_values<T, double>(data.data, n, out.data);
  if constexpr (is_cplx<T>)
    if (dt == dtype::c64) convert_values<T, std::complex<float>>(data.data, n, out.data);
  if constexpr (std::is_same_v<T, std::complex<double>>)
    if (dt == dtype::c128) convert_values<T, std::complex<double>>(data.data, n, out.data);
  return out;
}

template <class T, class I>
void write_npz_impl(const std::filesystem::path& path, index_t rows, index_t cols,
                    std::span<const I> row_ptr, std::span<const I> col_idx,
                    std::span<const T> values) {
  const origin o{"save_npz", path};
  const index_t nnz = index_t(values.size());
  const std::int64_t shape_data[2] = {rows, cols};
  const index_t two = 2, rp_n = rows + 1;
  struct member {
    const char* name;
    std::string head;
    const void* data;
    std::size_t bytes;
    std::uint32_t crc = 0;
    std::uint64_t offset = 0;
  };
  const char* idx_descr = npy_format::descr_of(dtype_of<I>());
  // scipy's order: indices, indptr, format, shape, data.
  member ms[5] = {
      {"indices.npy", npy_format::make_header(idx_descr, 1, &nnz, false, 1, o), col_idx.data(),
       std::size_t(nnz) * sizeof(I)},
      {"indptr.npy", npy_format::make_header(idx_descr, 1, &rp_n, false, 1, o), row_ptr.data(),
       std::size_t(rp_n) * sizeof(I)},
      {"format.npy", npy_format::make_header("|S3", 0, nullptr, false, 1, o), "csr", 3},
      {"shape.npy", npy_format::make_header("<i8", 1, &two, false, 1, o), shape_data,
       sizeof shape_data},
      {"data.npy",
       npy_format::make_header(npy_format::descr_of(dtype_of<T>()), 1, &nnz, false, 1, o),
       values.data(), std::size_t(nnz) * sizeof(T)},
  };
  // Sizes first: refuse an archive past 4 GiB before writing anything (no ZIP64 writing).
  std::uint64_t at = 0;
  for (auto& m : ms) {
    m.offset = at;
    at += local_size + std::strlen(m.name) + m.head.size() + m.bytes;
    m.crc = crc_of(crc_of(0, m.head.data(), m.head.size()), m.data, m.bytes);
  }
  std::uint64_t cd_size = 0;
  for (auto& m : ms) cd_size += central_size + std::strlen(m.name);
  if (at + cd_size + end_size > 0xffffffffu)
    fail(o, "the archive would take " + std::to_string(at + cd_size + end_size) +
                " bytes, more than the 4 GiB a ZIP archive without ZIP64 can hold (lazuli writes "
                "no ZIP64)");
  file_ptr f = open_write(o);
  std::string cd;
  for (auto& m : ms) {
    const std::size_t name_len = std::strlen(m.name);
    const std::uint64_t size = m.head.size() + m.bytes;
    std::string h;
    put(h, sig_local, 4);
    put(h, 20, 2);   // version needed: 2.0
    put(h, 0, 2);    // flags
    put(h, 0, 2);    // method: stored
    put(h, 0, 2);    // time 00:00:00
    put(h, 0x21, 2); // date 1980-01-01: the output depends on the matrix only
    put(h, m.crc, 4);
    put(h, size, 4); // compressed
    put(h, size, 4); // uncompressed
    put(h, name_len, 2);
    put(h, 0, 2); // extra
    h += m.name;
    write_all(f.get(), h.data(), h.size(), o);
    write_all(f.get(), m.head.data(), m.head.size(), o);
    write_all(f.get(), m.data, m.bytes, o);

    put(cd, sig_central, 4);
    put(cd, 3 << 8 | 20, 2); // made by: Unix, 2.0
    put(cd, 20, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0, 2);
    put(cd, 0x21, 2);
    put(cd, m.crc, 4);
    put(cd, size, 4);
    put(cd, size, 4);
    put(cd, name_len, 2);
    put(cd, 0, 2);                            // extra
    put(cd, 0, 2);                            // comment
    put(cd, 0, 2);                            // disk
    put(cd, 0, 2);                            // internal attributes
    put(cd, std::uint64_t(0100644) << 16, 4); // a regular file, rw-r--r--
    put(cd, m.offset, 4);
    cd += m.name;
  }
  put(cd, sig_end, 4);
  put(cd, 0, 2);
  put(cd, 0, 2);
  put(cd, 5, 2);
  put(cd, 5, 2);
  put(cd, cd_size, 4);
  put(cd, at, 4);
  put(cd, 0, 2);
  write_all(f.get(), cd.data(), cd.size(), o);
  close_written(f, o);
}

} // namespace

template <class T, class I>
mm_triplets<T, I> read_mm_triplets(const std::filesystem::path& path) {
  return read_mm<T, I>(path);
}

template <class T, class I>
void write_mm(const std::filesystem::path& path, index_t rows, index_t cols,
              std::span<const I> row_ptr, std::span<const I> col_idx, std::span<const T> values) {
  write_mm_impl<T, I>(path, rows, cols, row_ptr, col_idx, values);
}

template <class T, class I>
npz_arrays<T, I> read_npz_arrays(const std::filesystem::path& path) {
  return read_npz<T, I>(path);
}

template <class T, class I>
void write_npz(const std::filesystem::path& path, index_t rows, index_t cols,
               std::span<const I> row_ptr, std::span<const I> col_idx, std::span<const T> values) {
  write_npz_impl<T, I>(path, rows, cols, row_ptr, col_idx, values);
}

#define LZ_SPARSE_IO(T, I)                                                                         \
  template mm_triplets<T, I> read_mm_triplets<T, I>(const std::filesystem::path&);                 \
  template void write_mm<T, I>(const std::filesystem::path&, index_t, index_t, std::span<const I>, \
                               std::span<const I>, std::span<const T>);                            \
  template npz_arrays<T, I> read_npz_arrays<T, I>(const std::filesystem::path&);                   \
  template void write_npz<T, I>(const std::filesystem::path&, index_t, index_t,                    \
                                std::span<const I>, std::span<const I>, std::span<const T>);
#define LZ_SPARSE_IO_I(T)                                                                          \
  LZ_SPARSE_IO(T, std::int32_t)                                                                    \
  LZ_SPARSE_IO(T, std::int64_t)
LZ_SPARSE_IO_I(float)
LZ_SPARSE_IO_I(double)
LZ_SPARSE_IO_I(std::complex<float>)
LZ_SPARSE_IO_I(std::complex<double>)
#undef LZ_SPARSE_IO_I
#undef LZ_SPARSE_IO

} // namespace lz::detail
