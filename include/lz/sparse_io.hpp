// Sparse matrices in files: Matrix Market (lz::read_matrix_market, lz::write_matrix_market) and
// SciPy's .npz (lz::load_npz, lz::save_npz: scipy.sparse.save_npz / load_npz). Parsing, ZIP,
// DEFLATE (zlib) and validation are compiled once in src/sparse_io.cpp for every value and index
// type of lz::csr_matrix; this header only hands the arrays to csr_matrix. Every problem with a
// file is an lz::io_error naming the file and, for Matrix Market, the line.
//
// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html): a banner
// `%%MatrixMarket matrix <coordinate|array> <real|integer|complex|pattern>
// <general|symmetric|skew-symmetric|hermitian>`, comment lines (%), a size line (`rows cols nnz`
// for coordinate, `rows cols` for array), then one entry per line, 1-based.
//
// .npz: a ZIP archive of .npy files; for a CSR matrix scipy writes indices.npy, indptr.npy,
// format.npy (b'csr'), shape.npy and data.npy, DEFLATE-compressed by default.
#pragma once

#include <lz/errors.hpp>
#include <lz/sparse.hpp>

#include <complex>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace lz {

namespace detail {

/// A Matrix Market file as triplets: 0-based, symmetric entries already mirrored, duplicates
/// not yet summed; every index checked against rows × cols, which fit I. When the entries came
/// in row-major order without a repeat (as lazuli and scipy write them), they are CSR already:
/// `row` is empty and `row_ptr` holds the rows + 1 offsets.
template <class T, class I>
struct mm_triplets {
  index_t rows = 0, cols = 0;
  std::vector<I> row, col, row_ptr;
  std::vector<T> values;
};

/// Parses a Matrix Market file into triplets (src/sparse_io.cpp). Throws io_error.
template <class T, class I>
mm_triplets<T, I> read_mm_triplets(const std::filesystem::path& path);

/// Writes CSR arrays as a Matrix Market coordinate general file (src/sparse_io.cpp).
template <class T, class I>
void write_mm(const std::filesystem::path& path, index_t rows, index_t cols,
              std::span<const I> row_ptr, std::span<const I> col_idx, std::span<const T> values);

/// The arrays of a scipy .npz file, validated and converted to T and I: CSR of rows × cols, or
/// with `csc` CSR of the transpose (indptr over the columns). Rows may be unsorted and hold
/// duplicate columns (scipy's non-canonical format).
template <class T, class I>
struct npz_arrays {
  index_t rows = 0, cols = 0;
  bool csc = false;
  std::vector<I> indptr, indices;
  std::vector<T> data;
};

/// Reads and validates a scipy .npz file (src/sparse_io.cpp). Throws io_error.
template <class T, class I>
npz_arrays<T, I> read_npz_arrays(const std::filesystem::path& path);

/// Writes CSR arrays as a scipy .npz file (src/sparse_io.cpp).
template <class T, class I>
void write_npz(const std::filesystem::path& path, index_t rows, index_t cols,
               std::span<const I> row_ptr, std::span<const I> col_idx, std::span<const T> values);

} // namespace detail

/// Reads a Matrix Market coordinate or array file into a CSR matrix (duplicates summed).
///
/// Fields real, integer, complex and pattern (every value 1); symmetries general, symmetric,
/// skew-symmetric (mirrored entries negated) and hermitian (mirrored entries conjugated; a real
/// hermitian file reads as symmetric). Entries of a symmetric file may sit in either triangle
/// (each off-diagonal entry is mirrored, as scipy.io.mmread does). An array (dense) file keeps
/// its nonzero entries. A complex file into a real T is refused; a real one into a complex T is
/// fine. Throws lz::io_error naming the file, the line and the problem (malformed banner or size
/// line, sizes that do not fit I, an index out of range, a non-numeric value, missing or extra
/// entries, a nonzero skew-symmetric diagonal, ...).
template <class T, class I = std::int32_t>
csr_matrix<T, I> read_matrix_market(const std::filesystem::path& path) {
  detail::mm_triplets<T, I> t = detail::read_mm_triplets<T, I>(path);
  if (!t.row_ptr.empty())
    return csr_matrix<T, I>(t.rows, t.cols, std::move(t.row_ptr), std::move(t.col),
                            std::move(t.values));
  return csr_matrix<T, I>::from_triplets(t.rows, t.cols, t.row, t.col, t.values);
}

/// Writes `m` as a Matrix Market coordinate general file.
///
/// Field real (float, double) or complex; entries row by row, 1-based, at full precision (the
/// shortest decimal that reads back exactly for double, 9 significant digits for float). Throws
/// lz::io_error when the file cannot be written.
template <class T, class I>
void write_matrix_market(const std::filesystem::path& path, const csr_matrix<T, I>& m) {
  detail::write_mm<T, I>(path, m.rows(), m.cols(), m.row_ptr(), m.col_idx(), m.values());
}

/// Reads a scipy.sparse.save_npz file (compressed or not) holding a CSR or CSC matrix.
///
/// Index arrays int32 or int64 (converted to I when they fit), data float32, float64, complex64
/// or complex128 converted to T when that does not narrow (float64 into float is refused).
/// Unsorted rows and duplicate entries (scipy's non-canonical format) are sorted and summed; a
/// CSC file is transposed into CSR. ZIP64 archives are read. Throws lz::io_error naming the file
/// and the problem: not a ZIP archive, truncated, a CRC mismatch, a missing member, another
/// format than csr/csc, arrays of the wrong dtype, rank or length, a non-monotone indptr, an
/// index out of range.
template <class T, class I = std::int32_t>
csr_matrix<T, I> load_npz(const std::filesystem::path& path) {
  detail::npz_arrays<T, I> a = detail::read_npz_arrays<T, I>(path);
  if (!a.csc)
    return csr_matrix<T, I>(a.rows, a.cols, std::move(a.indptr), std::move(a.indices),
                            std::move(a.data), csr_order::sort);
  const csr_matrix<T, I> t(a.cols, a.rows, std::move(a.indptr), std::move(a.indices),
                           std::move(a.data), csr_order::sort);
  csr_matrix<T, I> m;
  m = lz::transpose(t.view());
  return m;
}

/// Writes `m` to a .npz file as scipy.sparse.save_npz writes a CSR matrix.
///
/// The archive holds indices.npy, indptr.npy (I's dtype), format.npy (b'csr'), shape.npy (int64)
/// and data.npy (T's dtype), readable by scipy.sparse.load_npz and numpy.load. The members are
/// stored, not compressed. Throws lz::io_error when the file cannot be written or would exceed
/// 4 GiB (lazuli writes no ZIP64).
template <class T, class I>
void save_npz(const std::filesystem::path& path, const csr_matrix<T, I>& m) {
  detail::write_npz<T, I>(path, m.rows(), m.cols(), m.row_ptr(), m.col_idx(), m.values());
}

} // namespace lz
