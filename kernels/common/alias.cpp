// Overlap analysis for aliasing decisions (see kernels/alias.hpp).
#include <lz/kernels/alias.hpp>

#include <numeric>

namespace lz::kernels {
namespace {

struct byte_range {
  const char* lo;
  const char* hi; // one past the last byte
};

byte_range range_of(const detail::operand& op, int rank, const index_t* ext) {
  index_t lo = 0, hi = 0;
  for (int k = 0; k < rank; ++k) {
    if (ext[k] <= 1) continue;
    const index_t span = (ext[k] - 1) * op.strides[k];
    if (span < 0)
      lo += span;
    else
      hi += span;
  }
  return {op.ptr + lo * op.esize, op.ptr + (hi + 1) * op.esize};
}

bool empty_loop(int rank, const index_t* ext) {
  for (int k = 0; k < rank; ++k)
    if (ext[k] == 0) return true;
  return false;
}

// Disjoint when the byte ranges miss each other, or when both lattices step in multiples of g
// bytes and their offsets differ by a residue that keeps every pair of elements apart.
bool disjoint(const detail::operand& a, const detail::operand& b, int rank, const index_t* ext) {
  const byte_range ra = range_of(a, rank, ext), rb = range_of(b, rank, ext);
  if (ra.hi <= rb.lo || rb.hi <= ra.lo) return true;
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
  return d >= a.esize && d + b.esize <= g;
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
