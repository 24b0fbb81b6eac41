// Loop-dimension planning shared by the CPU and device loops: see
// kernels/include/lz/kernels/dims.hpp.
#include <lz/kernels/dims.hpp>

#include <utility>

namespace lz::kernels {

int plan_dims(int rank, index_t* ext, int count, index_t* const* strides, bool keep_order,
              index_t* flip) {
  // 1. Drop extent-1 dims: they address nothing.
  int R = 0;
  for (int k = 0; k < rank; ++k) {
    if (ext[k] == 1) continue;
    ext[R] = ext[k];
    for (int j = 0; j < count; ++j) strides[j][R] = strides[j][k];
    ++R;
  }
  if (R == 0) return 0;
  // 2. Walk memory in the guide's order: |stride| largest outside, stable.
  if (!keep_order && count > 0) {
    const auto mag = [&](int k) { return strides[0][k] < 0 ? -strides[0][k] : strides[0][k]; };
    int perm[max_rank];
    for (int k = 0; k < R; ++k) perm[k] = k;
    for (int a = 1; a < R; ++a)
      for (int b = a; b > 0 && mag(perm[b]) > mag(perm[b - 1]); --b)
        std::swap(perm[b], perm[b - 1]);
    index_t t[max_rank];
    for (int k = 0; k < R; ++k) t[k] = ext[perm[k]];
    for (int k = 0; k < R; ++k) ext[k] = t[k];
    for (int j = 0; j < count; ++j) {
      for (int k = 0; k < R; ++k) t[k] = strides[j][perm[k]];
      for (int k = 0; k < R; ++k) strides[j][k] = t[k];
    }
    // 3. The guide's reversed dims run forward (every operand flips with it).
    if (flip)
      for (int k = 0; k < R; ++k)
        if (strides[0][k] < 0)
          for (int j = 0; j < count; ++j) {
            flip[j] += (ext[k] - 1) * strides[j][k];
            strides[j][k] = -strides[j][k];
          }
  }
  // 4. Coalesce, innermost first: dim k joins the group `out` when every operand steps over it
  //    contiguously (the group then keeps its innermost stride).
  int out = R - 1;
  for (int k = R - 2; k >= 0; --k) {
    bool merge = true;
    for (int j = 0; j < count && merge; ++j) merge = strides[j][k] == strides[j][out] * ext[out];
    if (merge) {
      ext[out] *= ext[k];
    } else {
      --out;
      ext[out] = ext[k];
      for (int j = 0; j < count; ++j) strides[j][out] = strides[j][k];
    }
  }
  const int m = R - out;
  for (int k = 0; k < m; ++k) ext[k] = ext[k + out];
  for (int j = 0; j < count; ++j)
    for (int k = 0; k < m; ++k) strides[j][k] = strides[j][k + out];
  return m;
}

} // namespace lz::kernels
