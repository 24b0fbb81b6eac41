// The .npy format pieces that src/npy.cpp (lz::save_npy / lz::load_npy) and src/sparse_io.cpp
// (the .npy members of a SciPy .npz archive) share: prefix and header-dictionary parsing, dtype
// names, header writing. Internal: not installed, included by those two files only.
#pragma once

#include <lz/npy.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace lz::detail::npy_format {

/// Where a problem is: messages read "lz::<fn>: '<path>': [<member>: ]<why>".
struct origin {
  const char* fn;
  const std::filesystem::path& path;
  std::string_view member = {}; ///< an archive member ("indptr.npy"), empty for a plain file
};

/// Throws io_error with the message described at `origin`.
[[noreturn]] void fail(const origin& o, const std::string& why);

/// Bytes of the magic string and the version (the prefix before the header length).
inline constexpr std::size_t prefix_size = 8;

/// Checks the magic string and version in the first prefix_size bytes at `pre`; sets
/// h.version; returns the width in bytes of the header-length field that follows (2 or 4).
std::size_t check_prefix(const unsigned char* pre, npy_header& h, const origin& o);

/// The little-endian header length stored in `len_bytes` bytes at `p`.
std::size_t header_length(const unsigned char* p, std::size_t len_bytes);

/// Parses the header dictionary `text` into h.fortran_order, h.rank and h.shape; `descr`
/// receives the dtype string as written (not mapped: the caller may accept other dtypes).
void parse_dict(std::string_view text, npy_header& h, std::string& descr, const origin& o);

/// Maps a descr string to lazuli's dtype; false (with the reason in `why`) when unsupported.
bool parse_descr(const std::string& d, dtype& t, std::string& why);

/// Parses a whole .npy file held in memory (n bytes at p): the header (h.type is left as is;
/// `descr` receives the dtype string) and the offset of the first data byte. Never reads past
/// p + n; throws io_error on a short or malformed header.
npy_header parse_bytes(const unsigned char* p, std::size_t n, std::string& descr,
                       std::size_t& data_offset, const origin& o);

/// The complete header (magic, version, length, dictionary, padding to 64 bytes, '\n') of an
/// array of dtype string `descr`. Throws io_error for a bad version or an oversized header.
std::string make_header(std::string_view descr, int rank, const index_t* shape, bool fortran,
                        int version, const origin& o);

/// NumPy's little-endian descr of a dtype ("<f8").
const char* descr_of(dtype t);
/// The C++ name of a dtype, for messages ("double").
const char* name_of(dtype t);
/// Bytes per element of a dtype.
std::size_t size_of(dtype t);
/// A shape as Python prints a tuple: "(2, 3)", "(4,)", "()".
std::string shape_string(int rank, const index_t* shape);

} // namespace lz::detail::npy_format
