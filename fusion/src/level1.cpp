// The level-1 BLAS rule's decision (fusion/rules/level1.hpp), compiled once per element type:
// a tree planned through a sink gathers its additive terms (pointer, extents, strides,
// coefficient); a tree executed directly hands over its flattened loop (try_call).
#include <lz/fusion/plan.hpp>
#include <lz/fusion/rules/level1.hpp>
#include <lz/fusion/rules/map.hpp>

namespace lz::fusion::detail_level1 {
namespace {

index_t size_of(int rank, const index_t* e) {
  index_t n = 1;
  for (int k = 0; k < rank; ++k) n *= e[k];
  return n;
}

// A term walked as one flat BLAS vector: rank 1 with a non-zero stride (any stride when
// it has one element), or a row- or column-major contiguous layout (extent-1 dims ignored).
template <class T>
bool as_vector(int rank, const term<T>& a, index_t n, index_t& inc) {
  if (rank == 1) {
    if (n > 1 && a.strides[0] == 0) return false;
    inc = n > 1 ? a.strides[0] : 1;
    return true;
  }
  inc = 1;
  bool row = true, col = true;
  index_t s = 1;
  for (int k = rank; k-- > 0;) {
    row = row && (a.extents[k] == 1 || a.strides[k] == s);
    s *= a.extents[k];
  }
  s = 1;
  for (int k = 0; k < rank; ++k) {
    col = col && (a.extents[k] == 1 || a.strides[k] == s);
    s *= a.extents[k];
  }
  return row || col;
}

// The same elements in the same places: equal extents, equal strides wherever the extent is
// not 1 (there the stride is never used: flatten writes 0, a view keeps its own).
template <class T>
bool same_geometry(int rank, const term<T>& a, const term<T>& b) {
  for (int k = 0; k < rank; ++k)
    if (a.extents[k] != b.extents[k] || (a.extents[k] != 1 && a.strides[k] != b.strides[k]))
      return false;
  return true;
}

} // namespace

template <class T>
choice<T> choose(lz::detail::assign_op op, int rank, const term<T>& dst, const term<T>* terms,
                 int count) {
  using lz::detail::assign_op;
  choice<T> c;
  const index_t n = size_of(rank, dst.extents);
  if (n == 0 || op == assign_op::div) return c;
  index_t incy = 0;
  if (!as_vector(rank, dst, n, incy)) return c;
  c.n = n, c.incy = incy;
  if (op == assign_op::mul) { // x *= a: the one term is the destination, scaled
    if (count == 1 && terms[0].ptr == dst.ptr && same_geometry(rank, terms[0], dst))
      c.kind = choice<T>::scal, c.alpha = terms[0].coef;
    return c;
  }
  // dst ⊕ e as a·dst + b·x: at most one term other than the destination itself.
  T dst_coef = op == assign_op::set ? T(0) : T(1);
  const term<T>* x = nullptr;
  for (int j = 0; j < count; ++j) {
    const term<T>& t = terms[j];
    if (t.ptr == dst.ptr && same_geometry(rank, t, dst)) {
      dst_coef += t.coef;
      continue;
    }
    // x must run element for element with the destination (same extents: a broadcast term
    // cannot be an axpy operand; matrices: the same layout) and must not overlap it.
    if (x != nullptr) return c;
    for (int k = 0; k < rank; ++k)
      if (t.extents[k] != dst.extents[k]) return c;
    if (rank > 1 && !same_geometry(rank, t, dst)) return c;
    if (lz::detail::spans_overlap(
            lz::detail::span_of(dst.ptr, sizeof(T), rank, dst.extents, dst.strides),
            lz::detail::span_of(t.ptr, sizeof(T), rank, t.extents, t.strides)))
      return c;
    index_t incx = 0;
    if (!as_vector(rank, t, n, incx)) return c;
    x = &t;
    c.incx = incx;
  }
  if (x != nullptr && dst_coef == T(1)) {
    c.kind = choice<T>::axpy, c.x = x->ptr, c.alpha = x->coef;
  } else if (x == nullptr && op == assign_op::set) {
    c.kind = choice<T>::scal, c.alpha = dst_coef;
  }
  return c;
}

namespace {

// choose, and when a call applies run it as exec_sink does: false when the assignment is not a
// BLAS 1 call (the caller runs its loop). The terms' leaves were checked alive (checked builds)
// by flatten.
template <class T>
bool run(lz::detail::assign_op op, int rank, const term<T>& dst, const term<T>* terms, int count) {
  const choice<T> c = choose<T>(op, rank, dst, terms, count);
  if (c.kind == choice<T>::none) return false;
  exec_sink s;
  return emit(s, c, const_cast<T*>(dst.ptr));
}

// Operand j of a flattened loop as a term over the destination's extents (a leaf's extent-1
// dims carry stride 0 there: same_geometry and as_vector see a broadcast leaf as one).
template <class T>
term<T> term_of(const lz::detail::operand& op, int rank, const index_t* extents, T coef) {
  term<T> t;
  t.ptr = reinterpret_cast<const T*>(op.ptr);
  for (int k = 0; k < rank; ++k) t.extents[k] = extents[k], t.strides[k] = op.strides[k];
  t.coef = coef;
  return t;
}

} // namespace

// The leaves' coefficients come from the tree's own kernel, run over one batch of scratch
// operands: in lane j leaf j reads 1, every other leaf 0 and the destination -0 (so that
// dst ± c·1 is exactly ±c, signed zeros included): lane j's result is leaf j's coefficient
// as the loop applies it, the sign of -= folded in. The tree is linear in its leaves
// (level1_candidate_v), so the other leaves add exact zeros, unless a coefficient is infinite
// or NaN: then another lane reads NaN, the geometry test fails and the loop runs, with the
// numbers the BLAS call would give (inf or NaN either way). x *= a: lane 0, x = 1, gives a.
template <class T, lz::detail::assign_op Op>
bool try_call(const kernels::cpu::map_call& c) {
  static_assert(Op != lz::detail::assign_op::div);
  constexpr bool scale = Op == lz::detail::assign_op::mul;
  const kernels::cpu::map_info& info = *c.info;
  const int count = info.count; // the destination and 1 or 2 leaves (none: x *= a)
  constexpr int lanes = 64;
  const int n = info.k.simd_width < 4 ? 4 : info.k.simd_width; // whole batches, 3 lanes
  if (count > 3 || n > lanes) return false;
  alignas(64) T probe[3][lanes] = {};
  char* p[3];
  const index_t so[3] = {};
  for (int j = 0; j < count; ++j) {
    p[j] = reinterpret_cast<char*>(probe[j]);
    probe[0][j] = scale ? T(1) : T(-0.0);
    if (j > 0) probe[j][j] = T(1);
  }
  info.k.fn(c.tree, p, so, 1, n, 0);
  const int rank = info.rank;
  const term<T> dst = term_of<T>(c.ops[0], rank, c.extents, T(0));
  term<T> terms[2];
  if (scale) { // the one term is the destination, scaled
    terms[0] = dst;
    terms[0].coef = probe[0][0];
    return run<T>(Op, rank, dst, terms, 1);
  }
  for (int j = 1; j < count; ++j) terms[j - 1] = term_of<T>(c.ops[j], rank, c.extents, probe[0][j]);
  return run<T>(Op, rank, dst, terms, count - 1);
}

template choice<float> choose(lz::detail::assign_op, int, const term<float>&, const term<float>*,
                              int);
template choice<double> choose(lz::detail::assign_op, int, const term<double>&, const term<double>*,
                               int);

template bool try_call<float, lz::detail::assign_op::set>(const kernels::cpu::map_call&);
template bool try_call<float, lz::detail::assign_op::add>(const kernels::cpu::map_call&);
template bool try_call<float, lz::detail::assign_op::sub>(const kernels::cpu::map_call&);
template bool try_call<float, lz::detail::assign_op::mul>(const kernels::cpu::map_call&);
template bool try_call<double, lz::detail::assign_op::set>(const kernels::cpu::map_call&);
template bool try_call<double, lz::detail::assign_op::add>(const kernels::cpu::map_call&);
template bool try_call<double, lz::detail::assign_op::sub>(const kernels::cpu::map_call&);
template bool try_call<double, lz::detail::assign_op::mul>(const kernels::cpu::map_call&);

} // namespace lz::fusion::detail_level1
