// NumPy .npy reading and writing behind include/lz/npy.hpp: header parsing and validation,
// file I/O. Compiled once; the header only decides layouts and element types.
#include <lz/npy.hpp>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace lz::detail {
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

std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

[[noreturn]] void fail(const char* fn, const std::filesystem::path& p, const std::string& why) {
  throw io_error(std::string("lz::") + fn + ": " + quoted(p) + ": " + why);
}

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

std::string shape_string(int rank, const index_t* shape) {
  std::string s = "(";
  for (int k = 0; k < rank; ++k) {
    if (k) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (rank == 1) s += ',';
  return s + ")";
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

// Reads and validates the header; leaves `f` at the first data byte. `fn` names the caller.
npy_header parse_header(std::FILE* f, const std::filesystem::path& path, const char* fn,
                        std::uintmax_t file_size, std::uintmax_t& data_offset) {
  unsigned char pre[magic_len + 2];
  if (std::fread(pre, 1, sizeof pre, f) != sizeof pre)
    fail(fn, path,
         "not a .npy file (" + std::to_string(file_size) + " bytes, too short for the " +
             "magic string and version)");
  if (std::memcmp(pre, magic, magic_len) != 0) fail(fn, path, "not a .npy file (bad magic string)");
  npy_header h;
  const int major = pre[magic_len], minor = pre[magic_len + 1];
  if (major < 1 || major > 3 || minor != 0)
    fail(fn, path,
         "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
             " (lazuli reads 1.0, 2.0 and 3.0)");
  h.version = major;
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  unsigned char len_buf[4] = {};
  if (std::fread(len_buf, 1, len_bytes, f) != len_bytes)
    fail(fn, path, "truncated .npy header (no header length)");
  std::uint32_t header_len = 0;
  for (std::size_t k = len_bytes; k-- > 0;) header_len = header_len << 8 | len_buf[k];
  data_offset = magic_len + 2 + len_bytes + header_len;
  if (data_offset > file_size)
    fail(fn, path,
         "truncated .npy header (header length " + std::to_string(header_len) + " but the file " +
             "has " + std::to_string(file_size) + " bytes)");
  std::string text(header_len, '\0');
  if (header_len && std::fread(text.data(), 1, header_len, f) != header_len)
    fail(fn, path, "truncated .npy header");

  parser p{text, 0, {}};
  bool have_descr = false, have_order = false, have_shape = false;
  std::string descr;
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
  if (!p.error.empty()) fail(fn, path, "malformed .npy header: " + p.error);
  std::string why;
  if (!parse_descr(descr, h.type, why)) fail(fn, path, why);
  return h;
}

std::uintmax_t size_of(const std::filesystem::path& path, const char* fn) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  if (ec) fail(fn, path, "cannot open: " + ec.message());
  return n;
}

file_ptr open_read(const std::filesystem::path& path, const char* fn) {
  file_ptr f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(fn, path, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

} // namespace

npy_header read_npy_header(const std::filesystem::path& path) {
  const char* fn = "read_npy_header";
  file_ptr f = open_read(path, fn);
  std::uintmax_t offset = 0;
  return parse_header(f.get(), path, fn, size_of(path, fn), offset);
}

void read_npy(const std::filesystem::path& path, dtype want, int want_rank, npy_sink sink,
              void* ctx) {
  const char* fn = "load_npy";
  file_ptr f = open_read(path, fn);
  const std::uintmax_t file_size = size_of(path, fn);
  std::uintmax_t offset = 0;
  const npy_header h = parse_header(f.get(), path, fn, file_size, offset);
  const dtype_info& have = info(h.type);
  const dtype_info& need = info(want);
  if (h.type != want)
    fail(fn, path,
         std::string("holds dtype ") + have.descr + " (" + have.c_name + "), not " + need.descr +
             " (" + need.c_name + ") as requested");
  if (h.rank != want_rank)
    fail(fn, path,
         "holds shape " + shape_string(h.rank, h.shape) + " of rank " + std::to_string(h.rank) +
             ", not rank " + std::to_string(want_rank) + " as requested");
  // The tensor's strides multiply the extents with an empty one counted as 1: (0, 2^62, 2^62)
  // holds no element but has no layout either.
  index_t count = 1, span = 1;
  for (int k = 0; k < h.rank; ++k)
    if (__builtin_mul_overflow(count, h.shape[k], &count) ||
        __builtin_mul_overflow(span, h.shape[k] > 0 ? h.shape[k] : 1, &span))
      fail(fn, path, "shape " + shape_string(h.rank, h.shape) + " overflows std::ptrdiff_t");
  index_t bytes = 0;
  if (__builtin_mul_overflow(count, index_t(have.size), &bytes))
    fail(fn, path, "shape " + shape_string(h.rank, h.shape) + " overflows std::ptrdiff_t");
  if (file_size - offset < std::uintmax_t(bytes))
    fail(fn, path,
         "truncated data: shape " + shape_string(h.rank, h.shape) + " of " + have.descr +
             " needs " + std::to_string(bytes) + " bytes, the file has " +
             std::to_string(file_size - offset));
  void* dst = sink(ctx, h);
  if (bytes > 0 && std::fread(dst, 1, std::size_t(bytes), f.get()) != std::size_t(bytes))
    fail(fn, path, std::string("read error: ") + std::strerror(errno));
}

void write_npy(const std::filesystem::path& path, dtype t, int rank, const index_t* shape,
               bool fortran, const void* data, std::size_t bytes, int version) {
  const char* fn = "save_npy";
  if (version != 1 && version != 2)
    fail(fn, path, "can write .npy format version 1 or 2, not " + std::to_string(version));
  std::string dict = std::string("{'descr': '") + info(t).descr +
                     "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape_string(rank, shape) + ", }";
  const std::size_t len_bytes = version == 1 ? 2 : 4;
  // Pad with spaces so that the data starts on a 64-byte boundary; the header ends in '\n'.
  const std::size_t unpadded = magic_len + 2 + len_bytes + dict.size() + 1;
  dict.append((align - unpadded % align) % align, ' ');
  dict += '\n';
  if (version == 1 && dict.size() > 0xffff)
    fail(fn, path, "header too long for format version 1; use version 2");
  std::string head(magic, magic_len);
  head += char(version);
  head += char(0);
  for (std::size_t k = 0; k < len_bytes; ++k) head += char((dict.size() >> (8 * k)) & 0xff);
  head += dict;

  file_ptr f(std::fopen(path.c_str(), "wb"));
  if (!f) fail(fn, path, std::string("cannot open for writing: ") + std::strerror(errno));
  if (std::fwrite(head.data(), 1, head.size(), f.get()) != head.size() ||
      (bytes && std::fwrite(data, 1, bytes, f.get()) != bytes))
    fail(fn, path, std::string("write error: ") + std::strerror(errno));
  if (std::fclose(f.release()) != 0)
    fail(fn, path, std::string("write error: ") + std::strerror(errno));
}

} // namespace lz::detail
