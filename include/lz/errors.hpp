// Exceptions lazuli throws. Every message names the shapes, strides or call involved, and every
// throw happens before the destination is written (see docs/errors.md).
#pragma once

#include <stdexcept>
#include <string>

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

/// The device backend failed: no GPU, out of device memory, a CUDA or cuBLAS error.
struct device_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace lz
