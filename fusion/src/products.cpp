// The product steps of the executing sink (fusion/products.hpp: emit_product, lower_chain),
// compiled once for every element type and host policy. User files declare them extern.
#include <lz/lz.hpp>

namespace lz::fusion {

LZ_FUSION_PRODUCT_INSTANCES(template)

} // namespace lz::fusion
