// NumPy .npy reading and writing behind include/lz/npy.hpp: header parsing and validation,
// file I/O. Compiled once; the header only decides layouts and element types. The format pieces
// (npy_format.hpp) serve src/sparse_io.cpp's .npz members too.
#include "npy_format.hpp"

#include <lz/npy.hpp>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace lz::detail {
namespace npy_format {
namespace {

static_assert(std::endian::native == std::endian::little,
              "lz npy: reading and writing assume a little-endian host");

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_len = 6;
constexpr std::size_t align = 64; // numpy.lib.format.ARRAY_ALIGN

struct dtype_info {
  dtype type;
  const char* descr;  // as NumPy writes it on a little-endian machine
  std::size_t size;   // bytes per element
  const char* c_name; // for messages
};
constexpr dtype_info dtypes[] = {
    {dtype::b8, "|b1", 1, "bool"},
    {dtype::i8, "|i1", 1, "int8"},
    {dtype::u8, "|u1", 1, "uint8"},
    {dtype::i16, "<i2", 2, "int16"},
    {dtype::u16, "<u2", 2, "uint16"},
    {dtype::i32, "<i4", 4, "int32"},
    {dtype::u32, "<u4", 4, "uint32"},
    {dtype::i64, "<i8", 8, "int64"},
    {dtype::u64, "<u8", 8, "uint64"},
    {dtype::f32, "<f4", 4, "float"},
    {dtype::f64, "<f8", 8, "double"},
    {dtype::c64, "<c8", 8, "std::complex<float>"},
    {dtype::c128, "<c16", 16, "std::complex<double>"},
};
const dtype_info& info(dtype t) {
  for (const auto& d : dtypes)
    if (d.type == t) return d;
  return dtypes[0]; // unreachable: every dtype is listed
}

// ---- header parsing: the subset of Python literals NumPy writes ------------------------------

struct parser {
  std::string_view s;
  std::size_t i = 0;
  std::string error; // first problem found

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    if (eat(c)) return true;
    if (error.empty())
      error = std::string("expected '") + c + "' at offset " + std::to_string(i) + " of the header";
    return false;
  }
  bool string(std::string& out) {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) {
      if (error.empty())
        error = "expected a string at offset " + std::to_string(i) + " of the header";
      return false;
    }
    const char q = s[i++];
    const std::size_t b = i;
    while (i < s.size() && s[i] != q) ++i;
    if (i >= s.size()) {
      if (error.empty()) error = "unterminated string in the header";
      return false;
    }
    out.assign(s.substr(b, i - b));
    ++i;
    return true;
  }
  bool word(std::string_view w) {
    ws();
    if (s.substr(i, w.size()) == w) {
      i += w.size();
      return true;
    }
    return false;
  }
  bool boolean(bool& out) {
    if (word("True")) return out = true, true;
    if (word("False")) return out = false, true;
    if (error.empty()) error = "fortran_order must be True or False";
    return false;
  }
  bool integer(index_t& out) {
    ws();
    const std::size_t b = i;
    index_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (__builtin_mul_overflow(v, index_t(10), &v) ||
          __builtin_add_overflow(v, index_t(s[i] - '0'), &v)) {
        error = "an extent in the shape overflows std::ptrdiff_t";
        return false;
      }
      ++i;
    }
    if (i == b) {
      if (error.empty())
        error = "expected a non-negative integer extent at offset " + std::to_string(i) +
                " of the header";
      return false;
    }
    if (i < s.size() && (s[i] == 'L' || s[i] == 'l')) ++i; // Python 2 longs: (3L, 4L)
    out = v;
    return true;
  }
  bool shape(npy_header& h) {
    if (!expect('(')) return false;
    h.rank = 0;
    if (eat(')')) return true;
    for (;;) {
      index_t v;
      if (!integer(v)) return false;
      if (h.rank == int(max_rank)) {
        error = "rank exceeds lazuli's maximum of " + std::to_string(max_rank);
        return false;
      }
      h.shape[h.rank++] = v;
      if (eat(')')) return true;
      if (!expect(',')) return false;
      if (eat(')')) return true;
    }
  }
};

} // namespace

void fail(const origin& o, const std::string& why) {
  std::string m = std::string("lz::") + o.fn + ": '" + o.path.string() + "': ";
  if (!o.member.empty()) m.append(o.member).append(": ");
  throw io_error(m + why);
}

const char* descr_of(dtype t) { return info(t).descr; }
const char* name_of(dtype t) { return info(t).c_name; }
std::size_t size_of(dtype t) { return info(t).size; }

std::string shape_string(int rank, const index_t* shape) {
  std::string s = "(";
  for (int k = 0; k < rank; ++k) {
    if (k) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (rank == 1) s += ',';
  return s + ")";
}

bool parse_descr(const std::string& d, dtype& t, std::string& why) {
  if (d.size() < 2) {
    why = "unsupported dtype '" + d + "'";
    return false;
  }
  if (d[0] == '>') {
    why = "big-endian data ('" + d + "') is not supported; convert with arr.astype('<" +
          d.substr(1) + "')";
    return false;
  }
  const std::string body = d.substr(1);
  for (const auto& x : dtypes) {
    const std::string xb = std::string(x.descr).substr(1);
    // '<' little-endian, '|' not applicable (one byte), '=' native (little-endian here).
    const bool order_ok = d[0] == '<' || d[0] == '=' || (d[0] == '|' && x.size == 1);
    if (body == xb && order_ok) {
      t = x.type;
      return true;
    }
  }
  why = "unsupported dtype '" + d + "' (lazuli reads bool, int8..int64, uint8..uint64, float32, " +
        "float64, complex64 and complex128)";
  return false;
}

std::size_t check_prefix(const unsigned char* pre, npy_header& h, const origin& o) {
  if (std::memcmp(pre, magic, magic_len) != 0) fail(o, "not a .npy file (bad magic string)");
  const int major = pre[magic_len], minor = pre[magic_len + 1];
  if (major < 1 || major > 3 || minor != 0)
    fail(o, "unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (lazuli reads 1.0, 2.0 and 3.0)");
  h.version = major;
  return major == 1 ? 2 : 4;
}

std::size_t header_length(const unsigned char* p, std::size_t len_bytes) {
  std::size_t n = 0;
  for (std::size_t k = len_bytes; k-- > 0;) n = n << 8 | p[k];
  return n;
}

void parse_dict(std::string_view text, npy_header& h, std::string& descr, const origin& o) {
  parser p{text, 0, {}};
  bool have_descr = false, have_order = false, have_shape = false;
  if (p.expect('{')) {
    while (!p.eat('}')) {
      std::string key;
      if (!p.string(key) || !p.expect(':')) break;
      bool* seen = key == "descr"           ? &have_descr
                   : key == "fortran_order" ? &have_order
                   : key == "shape"         ? &have_shape
                                            : nullptr;
      if (!seen) {
        p.error = "unexpected key '" + key + "' in the header";
        break;
      }
      if (*seen) {
        p.error = "key '" + key + "' appears twice in the header";
        break;
      }
      *seen = true;
      if (key == "descr") {
        p.ws();
        if (p.i < text.size() && text[p.i] == '[') {
          p.error = "structured dtypes are not supported";
          break;
        }
        if (!p.string(descr)) break;
      } else if (key == "fortran_order") {
        if (!p.boolean(h.fortran_order)) break;
      } else if (!p.shape(h)) {
        break;
      }
      if (p.eat('}')) break;
      if (!p.expect(',')) break;
    }
  }
  if (p.error.empty()) {
    p.ws();
    if (p.i != text.size()) p.error = "unexpected text after the header dictionary";
  }
  if (p.error.empty() && !(have_descr && have_order && have_shape))
    p.error = std::string("the header lacks '") +
              (!have_descr   ? "descr"
               : !have_order ? "fortran_order"
                             : "shape") +
              "'";
  if (!p.error.empty()) fail(o, "malformed .npy header: " + p.error);
}

npy_header parse_bytes(const unsigned char* p, std::size_t n, std::string& descr,
                       std::size_t& data_offset, const origin& o) {
  if (n < prefix_size)
    fail(o, "not a .npy file (" + std::to_string(n) + " bytes, too short for the magic string " +
                "and version)");
  npy_header h;
  const std::size_t len_bytes = check_prefix(p, h, o);
  if (n < prefix_size + len_bytes) fail(o, "truncated .npy header (no header length)");
  const std::size_t header_len = header_length(p + prefix_size, len_bytes);
  const std::size_t begin = prefix_size + len_bytes;
  if (header_len > n - begin)
    fail(o, "truncated .npy header (header length " + std::to_string(header_len) +
                " but the member has " + std::to_string(n) + " bytes)");
  parse_dict(std::string_view(reinterpret_cast<const char*>(p) + begin, header_len), h, descr, o);
  data_offset = begin + header_len;
  return h;
}

std::string make_header(std::string_view descr, int rank, const index_t* shape, bool fortran,
                        int version, const origin& o) {
  if (version != 1 && version != 2)
    fail(o, "can write .npy format version 1 or 2, not " + std::to_string(version));
  std::string dict = std::string("{'descr': '") + std::string(descr) +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape_string(rank, shape) + ", }";
  const std::size_t len_bytes = version == 1 ? 2 : 4;
  // Pad with spaces so that the data starts on a 64-byte boundary; the header ends in '\n'.
  const std::size_t unpadded = magic_len + 2 + len_bytes + dict.size() + 1;
  dict.append((align - unpadded % align) % align, ' ');
  dict += '\n';
  if (version == 1 && dict.size() > 0xffff)
    fail(o, "header too long for format version 1; use version 2");
  std::string head(magic, magic_len);
  head += char(version);
  head += char(0);
  for (std::size_t k = 0; k < len_bytes; ++k) head += char((dict.size() >> (8 * k)) & 0xff);
  head += dict;
  return head;
}

} // namespace npy_format

namespace {

using namespace npy_format;

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

// Reads and validates the header; leaves `f` at the first data byte.
npy_header parse_header(std::FILE* f, const origin& o, std::uintmax_t file_size,
                        std::uintmax_t& data_offset) {
  unsigned char pre[prefix_size];
  if (std::fread(pre, 1, sizeof pre, f) != sizeof pre)
    fail(o, "not a .npy file (" + std::to_string(file_size) + " bytes, too short for the " +
                "magic string and version)");
  npy_header h;
  const std::size_t len_bytes = check_prefix(pre, h, o);
  unsigned char len_buf[4] = {};
  if (std::fread(len_buf, 1, len_bytes, f) != len_bytes)
    fail(o, "truncated .npy header (no header length)");
  const std::size_t header_len = header_length(len_buf, len_bytes);
  data_offset = prefix_size + len_bytes + header_len;
  if (data_offset > file_size)
    fail(o, "truncated .npy header (header length " + std::to_string(header_len) +
                " but the file " + "has " + std::to_string(file_size) + " bytes)");
  std::string text(header_len, '\0');
  if (header_len && std::fread(text.data(), 1, header_len, f) != header_len)
    fail(o, "truncated .npy header");
  std::string descr;
  parse_dict(text, h, descr, o);
  std::string why;
  if (!parse_descr(descr, h.type, why)) fail(o, why);
  return h;
}

std::uintmax_t file_size_of(const origin& o) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(o.path, ec);
  if (ec) fail(o, "cannot open: " + ec.message());
  return n;
}

file_ptr open_read(const origin& o) {
  file_ptr f(std::fopen(o.path.c_str(), "rb"));
  if (!f) fail(o, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

} // namespace

npy_header read_npy_header(const std::filesystem::path& path) {
  const origin o{"read_npy_header", path};
  file_ptr f = open_read(o);
  std::uintmax_t offset = 0;
  return parse_header(f.get(), o, file_size_of(o), offset);
}

void read_npy(const std::filesystem::path& path, dtype want, int want_rank, npy_sink sink,
              void* ctx) {
  const origin o{"load_npy", path};
  file_ptr f = open_read(o);
  const std::uintmax_t file_size = file_size_of(o);
  std::uintmax_t offset = 0;
  const npy_header h = parse_header(f.get(), o, file_size, offset);
  const dtype_info& have = info(h.type);
  const dtype_info& need = info(want);
  if (h.type != want)
    fail(o, std::string("holds dtype ") + have.descr + " (" + have.c_name + "), not " + need.descr +
                " (" + need.c_name + ") as requested");
  if (h.rank != want_rank)
    fail(o, "holds shape " + shape_string(h.rank, h.shape) + " of rank " + std::to_string(h.rank) +
                ", not rank " + std::to_string(want_rank) + " as requested");
  // The tensor's strides multiply the extents with an empty one counted as 1: (0, 2^62, 2^62)
  // holds no element but has no layout either.
  index_t count = 1, span = 1;
  for (int k = 0; k < h.rank; ++k)
    if (__builtin_mul_overflow(count, h.shape[k], &count) ||
        __builtin_mul_overflow(span, h.shape[k] > 0 ? h.shape[k] : 1, &span))
      fail(o, "shape " + shape_string(h.rank, h.shape) + " overflows std::ptrdiff_t");
  index_t bytes = 0;
  if (__builtin_mul_overflow(count, index_t(have.size), &bytes))
    fail(o, "shape " + shape_string(h.rank, h.shape) + " overflows std::ptrdiff_t");
  if (file_size - offset < std::uintmax_t(bytes))
    fail(o, "truncated data: shape " + shape_string(h.rank, h.shape) + " of " + have.descr +
                " needs " + std::to_string(bytes) + " bytes, the file has " +
                std::to_string(file_size - offset));
  void* dst = sink(ctx, h);
  if (bytes > 0 && std::fread(dst, 1, std::size_t(bytes), f.get()) != std::size_t(bytes))
    fail(o, std::string("read error: ") + std::strerror(errno));
}

void write_npy(const std::filesystem::path& path, dtype t, int rank, const index_t* shape,
               bool fortran, const void* data, std::size_t bytes, int version) {
  const origin o{"save_npy", path};
  const std::string head = make_header(info(t).descr, rank, shape, fortran, version, o);
  file_ptr f(std::fopen(path.c_str(), "wb"));
  if (!f) fail(o, std::string("cannot open for writing: ") + std::strerror(errno));
  if (std::fwrite(head.data(), 1, head.size(), f.get()) != head.size() ||
      (bytes && std::fwrite(data, 1, bytes, f.get()) != bytes))
    fail(o, std::string("write error: ") + std::strerror(errno));
  if (std::fclose(f.release()) != 0) fail(o, std::string("write error: ") + std::strerror(errno));
}

} // namespace lz::detail
