// Exceptions lazuli throws. Every message names the shapes, strides or call involved, and every
// throw happens before the destination is written (see docs/errors.md).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace lz {

/// Operand shapes do not fit the operation (broadcasting, products, assignment).
struct shape_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// A layout is unusable: negative extents, overflowing sizes, overlapping writable elements,
/// a reshape that would need a copy, a null pointer with a non-empty shape.
struct layout_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// A file could not be read or written: it cannot be opened, is truncated or malformed, or holds
/// another element type or rank than requested (lz::load_npy). The message names the file.
struct io_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An expression was evaluated after a tensor it reads was destroyed or reallocated (a returned
/// or stored expression that outlived its operands). Thrown only by checked builds (LZ_CHECKED,
/// on by default without NDEBUG; docs/errors.md, "Lifetimes"); unchecked builds read freed memory.
struct lifetime_error : std::logic_error {
  using std::logic_error::logic_error;
};

/// A linear-algebra operation met a matrix it cannot handle: singular (lz::inverse of a matrix
/// whose determinant is 0). The message names the call and the matrix's size.
struct linalg_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The device backend failed: no GPU, out of device memory, a CUDA or cuBLAS error. Carries the
/// backend's error code and name (`cudaErrorMemoryAllocation`, `CUBLAS_STATUS_NOT_SUPPORTED`);
/// what() reads "lz: <call> failed: <name>: <message>".
struct device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
  device_error(const std::string& what, int code, std::string name)
      : std::runtime_error(what), code_(code), name_(std::move(name)) {}
  /// The backend's numeric error code (cudaError_t, cublasStatus_t), 0 when none applies.
  int code() const noexcept { return code_; }
  /// The backend's name for the error ("cudaErrorNoDevice"), empty when none applies.
  const std::string& error_name() const noexcept { return name_; }

 private:
  int code_ = 0;
  std::string name_;
};

} // namespace lz
