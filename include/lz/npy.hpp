// NumPy .npy files in and out: lz::save_npy(path, e) and lz::load_npy<T, R>(path). Leaves sit
// beside the pipeline: a contiguous tensor or view is written straight from its memory, anything
// else (strided views, expressions) is evaluated once first. Parsing, validation and file I/O
// are compiled once in src/npy.cpp.
//
// Format (numpy.lib.format): magic "\x93NUMPY", version (1.0: 16-bit header length; 2.0 and
// 3.0: 32-bit), a Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}
// padded to a multiple of 64 bytes, then the raw little-endian elements.
#pragma once

#include <lz/errors.hpp>
#include <lz/io.hpp>
#include <lz/tensor.hpp>

#include <filesystem>

namespace lz {

namespace detail {

/// What a .npy header says, after validation.
struct npy_header {
  dtype type = dtype::f64;
  bool fortran_order = false;
  int rank = 0;
  index_t shape[max_rank] = {};
  int version = 1; ///< major format version of the file (1, 2 or 3)
};

/// Writes a .npy file holding `rank` dims of type `t`; `data` holds the elements in C order
/// (Fortran order when `fortran`), `bytes` bytes. Throws io_error.
void write_npy(const std::filesystem::path& path, dtype t, int rank, const index_t* shape,
               bool fortran, const void* data, std::size_t bytes, int version);

/// Called once the header is validated; returns where the data goes (npy_header's shape and
/// order decide the layout), or nullptr when there are no elements.
using npy_sink = void* (*)(void* ctx, const npy_header& h);

/// Reads a .npy file whose elements must be of type `want` and rank `want_rank`: validates the
/// header, asks `sink` for the destination, reads the data into it. Throws io_error.
void read_npy(const std::filesystem::path& path, dtype want, int want_rank, npy_sink sink,
              void* ctx);

/// Parses only the header (for tools and error reporting). Throws io_error.
npy_header read_npy_header(const std::filesystem::path& path);

template <class T>
constexpr void check_npy_type() {
  static_assert(!std::is_same_v<T, long double>, "lz npy: long double has no portable dtype");
  static_assert(element<T>, "lz npy: elements must be arithmetic, bool or std::complex");
}

} // namespace detail

/// Writes `e` (a tensor, a view or any expression) to a NumPy .npy file. A row-major tensor or
/// view is written from its memory as is (C order), a column-major one too (fortran_order:
/// True); anything else is evaluated into a row-major temporary first. `version` is the .npy
/// format version: 1 (NumPy's default) or 2. Throws io_error.
template <expression E>
void save_npy(const std::filesystem::path& path, const E& e, int version = 1) {
  using T = value_t<E>;
  constexpr std::size_t R = rank_v<E>;
  detail::check_npy_type<T>();
  const auto write = [&](const T* data, const strided_layout<R>& l, bool fortran) {
    detail::write_npy(path, detail::dtype_of<T>(), int(R), l.extents.data(), fortran, data,
                      static_cast<std::size_t>(l.size()) * sizeof(T), version);
  };
  if constexpr (std::is_same_v<detail::kind_t<E>, detail::leaf_kind>) {
    const strided_layout<R>& l = e.layout();
    if (l.empty() || l.is_row_major()) return write(e.data(), l, false);
    if (R >= 2 && l.is_column_major()) return write(e.data(), l, true);
    const tensor<T, R> t(e.view()); // padded or strided: one copy into row-major storage
    write(t.data(), t.layout(), false);
  } else {
    const tensor<T, R> t(e); // one evaluation into row-major storage
    write(t.data(), t.layout(), false);
  }
}

/// Reads a NumPy .npy file (format 1.0, 2.0 or 3.0) holding elements of type T (`<f4 <f8 <i4
/// <i8 <c8 <c16`, and the other little-endian integer and bool dtypes) and rank R. A
/// C-order file loads as a row-major tensor, a Fortran-order file as a column-major tensor
/// (no transpose, no copy); in a bool file every nonzero byte is true (NumPy writes only 0 and
/// 1). Throws io_error naming the file and what is wrong: cannot open,
/// bad magic, malformed header, other dtype or rank than requested, truncated data.
template <class T, std::size_t R>
tensor<T, R> load_npy(const std::filesystem::path& path) {
  detail::check_npy_type<T>();
  tensor<T, R> out;
  detail::read_npy(
      path, detail::dtype_of<T>(), int(R),
      [](void* ctx, const detail::npy_header& h) -> void* {
        auto& t = *static_cast<tensor<T, R>*>(ctx);
        shape_t<R> s{};
        for (std::size_t k = 0; k < R; ++k) s[k] = h.shape[k];
        if (R >= 2 && h.fortran_order)
          t = tensor<T, R>(s, layout_left, uninitialized);
        else
          t = tensor<T, R>(s, uninitialized);
        return t.data();
      },
      &out);
  if constexpr (std::is_same_v<T, bool>) { // a bool holds 0 or 1: any other byte reads as true
    auto* b = reinterpret_cast<unsigned char*>(out.data());
    for (index_t i = 0, n = out.size(); i < n; ++i) b[i] = b[i] != 0;
  }
  return out;
}

} // namespace lz
