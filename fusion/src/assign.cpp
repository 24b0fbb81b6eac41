// The out-of-line halves of an assignment that depend only on the element type and the rank
// (include/lz/evaluate.hpp, resize_target): compiled once here for the common ones.
#include <lz/evaluate.hpp>

namespace lz::detail {

LZ_RESIZE_TARGET_INSTANCES(template)

} // namespace lz::detail
