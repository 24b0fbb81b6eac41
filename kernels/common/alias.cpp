// Overlap analysis for aliasing decisions (see kernels/alias.hpp).
#include <lz/kernels/alias.hpp>

#include <numeric>

namespace lz::kernels {
namespace {

detail::byte_span range_of(const detail::operand& op, int rank, const index_t* ext) {
  return detail::span_of(op.ptr, std::size_t(op.esize), rank, ext, op.strides);
}

bool empty_loop(int rank, const index_t* ext) {
  for (int k = 0; k < rank; ++k)
    if (ext[k] == 0) return true;
  return false;
}

// Two lattices with the same strides, b shifted from a by d elements, meet iff d = Σ s_k t_k
// for some |t_k| < extent_k. Searched from the largest stride down: the smaller dims reach at
// most `reach[k]`, which bounds t_k to a few candidates per level for the layouts views make
// (row-interleaved slices, shifted blocks). Returns 1 (they meet), 0 (they cannot), or -1 when
// the search would be too long to settle (callers then assume they meet).
struct lattice_search {
  index_t s[max_rank], e[max_rank], reach[max_rank + 1];
  int n = 0;
  long budget = 4096;
  int meets(int k, index_t d) {
    if (k == n) return d == 0 ? 1 : 0;
    if (--budget < 0) return -1;
    // s[k] > 0 (sorted by |stride|, signs folded into t); t in [-(e-1), e-1].
    const index_t r = reach[k + 1];
    index_t lo = d - r, hi = d + r; // s_k t_k must land in [lo, hi]
    index_t t0 = lo >= 0 ? (lo + s[k] - 1) / s[k] : -((-lo) / s[k]);
    index_t t1 = hi >= 0 ? hi / s[k] : -((-hi + s[k] - 1) / s[k]);
    if (t0 < -(e[k] - 1)) t0 = -(e[k] - 1);
    if (t1 > e[k] - 1) t1 = e[k] - 1;
    int verdict = 0;
    for (index_t t = t0; t <= t1; ++t) {
      const int m = meets(k + 1, d - s[k] * t);
      if (m == 1) return 1;
      if (m < 0) verdict = -1;
    }
    return verdict;
  }
};

int same_strides_meet(const detail::operand& a, const detail::operand& b, int rank,
                      const index_t* ext) {
  lattice_search q;
  for (int k = 0; k < rank; ++k) {
    if (ext[k] <= 1) continue;
    if (a.strides[k] != b.strides[k]) return -1;
    const index_t st = a.strides[k] < 0 ? -a.strides[k] : a.strides[k];
    if (st == 0) return -1;
    int j = q.n++; // insertion sort, largest stride first
    for (; j > 0 && q.s[j - 1] < st; --j) q.s[j] = q.s[j - 1], q.e[j] = q.e[j - 1];
    q.s[j] = st;
    q.e[j] = ext[k];
  }
  q.reach[q.n] = 0;
  for (int k = q.n; k-- > 0;) q.reach[k] = q.reach[k + 1] + q.s[k] * (q.e[k] - 1);
  return q.meets(0, (b.ptr - a.ptr) / a.esize);
}

// Disjoint when the byte ranges miss each other, or when both lattices step in multiples of g
// bytes and their offsets differ by a residue that keeps every pair of elements apart, or (same
// strides) when no shift within the extents maps one onto the other.
bool disjoint(const detail::operand& a, const detail::operand& b, int rank, const index_t* ext) {
  if (!detail::spans_overlap(range_of(a, rank, ext), range_of(b, rank, ext))) return true;
  index_t g = 0;
  for (int k = 0; k < rank; ++k) {
    if (ext[k] <= 1) continue;
    g = std::gcd(g, a.strides[k] * a.esize);
    g = std::gcd(g, b.strides[k] * b.esize);
  }
  if (g == 0) return false; // both single elements, ranges overlap
  index_t d = (b.ptr - a.ptr) % g;
  if (d < 0) d += g;
  // a's elements cover residues [0, a.esize), b's cover [d, d + b.esize) (mod g).
  if (d >= a.esize && d + b.esize <= g) return true;
  if (a.esize == b.esize && (b.ptr - a.ptr) % a.esize == 0)
    return same_strides_meet(a, b, rank, ext) == 0;
  return false;
}

} // namespace

overlap classify_overlap(const detail::operand& dst, const detail::operand& src, int rank,
                         const index_t* ext) noexcept {
  if (empty_loop(rank, ext)) return overlap::none;
  if (src.ptr == dst.ptr && src.esize == dst.esize) {
    bool same = true;
    for (int k = 0; k < rank && same; ++k) same = ext[k] <= 1 || src.strides[k] == dst.strides[k];
    if (same) return overlap::same_position;
  }
  return disjoint(dst, src, rank, ext) ? overlap::none : overlap::elsewhere;
}

bool reads_destination_elsewhere(const detail::operand& dst, const detail::operand* srcs, int count,
                                 int rank, const index_t* ext) noexcept {
  for (int j = 0; j < count; ++j)
    if (classify_overlap(dst, srcs[j], rank, ext) == overlap::elsewhere) return true;
  return false;
}

bool touches(const detail::operand& dst, const detail::operand& src, int rank,
             const index_t* ext) noexcept {
  return !empty_loop(rank, ext) && !disjoint(dst, src, rank, ext);
}

} // namespace lz::kernels
