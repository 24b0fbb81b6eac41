// The level-1 BLAS rule's decision (fusion/rules/level1.hpp), compiled once per element type:
// each tree only gathers its additive terms (pointer, extents, strides, coefficient).
#include <lz/fusion/plan.hpp>
#include <lz/fusion/rules/level1.hpp>

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

template <class T>
bool same_geometry(int rank, const term<T>& a, const term<T>& b) {
  for (int k = 0; k < rank; ++k)
    if (a.extents[k] != b.extents[k] || a.strides[k] != b.strides[k]) return false;
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

template <class T>
bool run(lz::detail::assign_op op, int rank, const term<T>& dst, const term<T>* terms, int count) {
  const choice<T> c = choose<T>(op, rank, dst, terms, count);
  if (c.kind == choice<T>::none) return false; // the loop runs instead (flatten checks)
  for (int i = 0; i < count; ++i)
    lz::detail::check_alive(terms[i].serial, terms[i].extents, std::size_t(rank));
  exec_sink s;
  return emit(s, c, const_cast<T*>(dst.ptr));
}

template choice<float> choose(lz::detail::assign_op, int, const term<float>&, const term<float>*,
                              int);
template choice<double> choose(lz::detail::assign_op, int, const term<double>&, const term<double>*,
                               int);

template bool run(lz::detail::assign_op, int, const term<float>&, const term<float>*, int);
template bool run(lz::detail::assign_op, int, const term<double>&, const term<double>*, int);

} // namespace lz::fusion::detail_level1
