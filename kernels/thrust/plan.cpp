// Device loop planning: see kernels/include/lz/kernels/thrust/plan.hpp.
#include <lz/kernels/dims.hpp>
#include <lz/kernels/thrust/plan.hpp>

#include <cstdlib>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {

loop_plan plan_loop(int R, const index_t* ext, int count, index_t* const* strides,
                    bool keep_order) {
  loop_plan d;
  d.slots = R;
  d.size = 1;
  for (int k = 0; k < R; ++k) d.size *= ext[k];
  for (int k = 0; k < R; ++k) d.ext[k] = 1;
  if (R == 0 || d.size <= 1) { // nothing to walk: one element (or none) at offset 0
    d.rank = R == 0 ? 0 : 1;
    for (int j = 0; j < count; ++j)
      for (int k = 0; k < R; ++k) strides[j][k] = 0;
    if (R > 0) d.ext[R - 1] = d.size;
    d.p = path::flat;
    return d;
  }
  // Drop extent-1 dims, order by the guide's |stride| (innermost = its fastest dim), coalesce
  // (kernels/dims.hpp; device loops never flip reversed dims), then right-align in the R slots.
  index_t cext[max_rank];
  for (int k = 0; k < R; ++k) cext[k] = ext[k];
  const int m = plan_dims(R, cext, count, strides, keep_order, nullptr);
  for (int j = 0; j < count; ++j) {
    index_t s[max_rank];
    for (int g = 0; g < m; ++g) s[g] = strides[j][g];
    for (int k = 0; k < R; ++k) strides[j][k] = 0;
    for (int g = 0; g < m; ++g) strides[j][R - m + g] = s[g];
  }
  for (int g = 0; g < m; ++g) d.ext[R - m + g] = cext[g];
  d.rank = m;
  if (m == 1) {
    bool unit = true;
    for (int j = 0; j < count && unit; ++j) unit = strides[j][R - 1] == 1;
    d.p = unit ? path::flat : path::linear;
  } else {
    d.p = m == 2 ? path::rows : path::general;
  }
  return d;
}

std::string describe(const loop_plan& d) {
  static const char* names[] = {"flat", "linear", "rows", "general"};
  std::string s = names[int(d.p)];
  if (d.rank <= 1) return s + " " + std::to_string(d.size);
  s += " (";
  for (int g = d.slots - d.rank; g < d.slots; ++g) {
    if (g > d.slots - d.rank) s += ',';
    s += std::to_string(d.ext[g]);
  }
  return s + ")";
}

} // namespace LZ_DEVICE_ABI
} // namespace lz::kernels::dev
