// Device loop planning: see kernels/include/lz/kernels/thrust/plan.hpp.
#include <lz/kernels/thrust/plan.hpp>

#include <cstdlib>

namespace lz::kernels::dev {
inline namespace LZ_DEVICE_ABI {

loop_desc plan_loop(int R, const index_t* ext, int count, index_t* const* strides,
                    bool keep_order) {
  loop_desc d;
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
  // Dims that move (extent > 1), outermost first.
  int dims[max_rank];
  int n = 0;
  for (int k = 0; k < R; ++k)
    if (ext[k] != 1) dims[n++] = k;
  // Order by the guide's |stride|, largest first (innermost = the guide's fastest dim); stable,
  // so ties keep the logical order.
  if (!keep_order && count > 0) {
    auto mag = [&](int k) { return std::labs(strides[0][k]); };
    for (int a = 1; a < n; ++a)
      for (int b = a; b > 0 && mag(dims[b]) > mag(dims[b - 1]); --b)
        std::swap(dims[b], dims[b - 1]);
  }
  // Coalesce: outer dim a merges into inner dim b when, for every operand, s[a] == s[b]*ext[b].
  index_t cext[max_rank];
  int m = 0;
  int group_inner[max_rank]; // the innermost original dim of each coalesced group
  for (int t = 0; t < n; ++t) {
    const int k = dims[t];
    if (m > 0) {
      const int b = group_inner[m - 1];
      // k (inner) continues the group when the group's innermost stride is k's stride times
      // k's extent, for every operand; the merged group then steps by k's stride.
      bool ok = true;
      for (int j = 0; j < count && ok; ++j) ok = strides[j][b] == strides[j][k] * ext[k];
      if (ok) {
        cext[m - 1] *= ext[k];
        group_inner[m - 1] = k;
        continue;
      }
    }
    cext[m] = ext[k];
    group_inner[m] = k;
    ++m;
  }
  // Rewrite every operand's strides: group g takes the stride of its innermost dim, placed in
  // slot R - m + g.
  for (int j = 0; j < count; ++j) {
    index_t s[max_rank];
    for (int g = 0; g < m; ++g) s[g] = strides[j][group_inner[g]];
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

std::string describe(const loop_desc& d) {
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
