// Sparse matrices on the device: lz::device_csr<T, I> (CSR arrays in device memory, float or
// double values, int32 or int64 indices), made by lz::to_device(csr_matrix) and brought back by
// lz::to_host. In device expressions it is what csr_matrix is on the host: `y = 2*A*x - 3*y` is
// ONE sparse step (cuSPARSE's cusparseSpMV with α and β folded; lazuli's CPU kernel on Thrust's
// host system), `C = transpose(A)*B + C` one cusparseSpMM, through the same rules (spmv, spmm) and
// the device sinks (device/plan.hpp). docs/sparse.md, "On the device".
#pragma once

#include <lz/device/copy.hpp>
#include <lz/device/tensor.hpp>
#include <lz/sparse.hpp>

#include <cstdint>

namespace lz {

/// A non-owning CSR matrix in device memory (or its transpose, when the pattern says so): what
/// device expressions hold. Made by device_csr::view() and lz::transpose.
template <class T, class I = std::int32_t>
struct device_csr_view {
  using lz_sparse = void;
  using lz_kind = detail::sparse_kind;
  static constexpr memory_space lz_space = memory_space::device;
  static constexpr std::size_t rank = 2;
  using value_type = std::remove_const_t<T>;
  using index_type = I;
  using const_view = device_csr_view<const value_type, I>;

  detail::pattern_ref<I> pattern_;
  T* values_ = nullptr;

  shape_t<2> shape() const noexcept { return pattern_.shape(); }
  index_t nnz() const noexcept { return pattern_.nnz; }
  const detail::pattern_ref<I>& pattern() const noexcept { return pattern_; }
  T* values_data() const noexcept { return values_; }
  /// The stored values as a device vector expression.
  device_view<const value_type, 1> values_expr() const noexcept {
    return device_view<const value_type, 1>(
        values_, strided_layout<1>::right(shape_t<1>{pattern_.nnz}), detail::trusted);
  }
  const_view as_const() const noexcept { return {pattern_, values_}; }
};

/// A CSR matrix in device memory: its row offsets, column indices and values, each one device
/// allocation. Copies are deep (device to device).
template <class T, class I = std::int32_t>
class device_csr {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "lz::device_csr: device products take float or double values");

 public:
  using lz_sparse = void;
  using lz_kind = detail::sparse_kind;
  static constexpr memory_space lz_space = memory_space::device;
  static constexpr std::size_t rank = 2;
  using value_type = T;
  using index_type = I;

  device_csr() = default;
  /// One host-to-device transfer per array.
  explicit device_csr(const csr_matrix<T, I>& h)
      : rows_(h.rows()), cols_(h.cols()), row_ptr_(shape_t<1>{h.rows() + 1}, uninitialized),
        col_idx_(shape_t<1>{h.nnz()}, uninitialized), values_(shape_t<1>{h.nnz()}, uninitialized) {
    put(row_ptr_.data(), h.row_ptr().data(), h.row_ptr().size() * sizeof(I));
    put(col_idx_.data(), h.col_idx().data(), h.col_idx().size() * sizeof(I));
    put(values_.data(), h.values().data(), h.values().size() * sizeof(T));
  }

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  index_t nnz() const noexcept { return values_.size(); }
  shape_t<2> shape() const noexcept { return {rows_, cols_}; }
  detail::pattern_ref<I> pattern() const noexcept {
    return {rows_, cols_, nnz(), row_ptr_.data(), col_idx_.data(), false, nullptr, false};
  }
  device_csr_view<T, I> view() noexcept { return {pattern(), values_.data()}; }
  device_csr_view<const T, I> view() const noexcept { return {pattern(), values_.data()}; }
  device_view<const T, 1> values_expr() const noexcept { return values_.view(); }
  /// The values, writable with any device expression (the pattern stays).
  device_view<T, 1> values_view() noexcept { return values_.view(); }
  const device_tensor<I, 1>& row_ptr() const noexcept { return row_ptr_; }
  const device_tensor<I, 1>& col_idx() const noexcept { return col_idx_; }

 private:
  template <class U>
  static void put(U* dst, const U* src, std::size_t bytes) {
    if (bytes)
      kernels::dev::copy(dst, src, bytes, kernels::dev::copy_kind::host_to_device, nullptr);
  }
  index_t rows_ = 0, cols_ = 0;
  device_tensor<I, 1> row_ptr_, col_idx_;
  device_tensor<T, 1> values_;
};

/// Copies a host sparse matrix to the device (three transfers).
template <class T, class I>
device_csr<T, I> to_device(const csr_matrix<T, I>& a) {
  return device_csr<T, I>(a);
}

/// Copies a device sparse matrix to the host (three transfers; the pattern is checked again).
template <class T, class I>
csr_matrix<T, I> to_host(const device_csr<T, I>& d) {
  std::vector<I> rp(std::size_t(d.rows()) + 1), ci(std::size_t(d.nnz()));
  std::vector<T> v(std::size_t(d.nnz()));
  const auto get = [](void* dst, const void* src, std::size_t bytes) {
    if (bytes)
      kernels::dev::copy(dst, src, bytes, kernels::dev::copy_kind::device_to_host, nullptr);
  };
  get(rp.data(), d.row_ptr().data(), rp.size() * sizeof(I));
  get(ci.data(), d.col_idx().data(), ci.size() * sizeof(I));
  get(v.data(), d.values_expr().data(), v.size() * sizeof(T));
  return csr_matrix<T, I>(d.rows(), d.cols(), std::move(rp), std::move(ci), std::move(v));
}

} // namespace lz
