// Distributed plans: the SAME fusion pass as the host and the device (fusion::plan_assign over
// fusion::rule_order), with a third pair of sinks. The rules decide — product terms, α/β
// folding, transposes from strides, temporaries for aliasing, nested groups — and the sinks
// here turn each step into distributed work:
//   gemm / gemv   → one pdgemm / pdgemv on the destination's grid (an operand on another grid
//                   is moved onto it first, pdgemr2d)
//   syrk          → pdsyrk (one triangle), mirrored by pdtran + pdlacpy('U')
//   axpy          → pdgeadd;  scal → a local loop
//   map           → ONE local fused loop over each rank's block (lazuli's own host engine) when
//                   every leaf is distributed like the destination; a leaf that is not is moved
//                   once (pdgemr2d, or pdtran for a transposed leaf) into a temporary that is
//   temporaries   → block-cyclic matrices on the destination's grid
// A full reduction is a local reduction per rank and one exchange of the partial results
// (combined in rank order, so every rank gets the same bits). An address says which matrix an
// operand is (runtime.hpp: the virtual address model). dist_exec_sink runs; dist_explain_sink
// records (lz::explain(C, e) for a distributed C).
#pragma once

#include <lz/dist/matrix.hpp>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lz::dist {

/// An assignment that ranks did not make together (checked plans), or an error one rank hit
/// while the others did not (raised on every rank, naming the rank that failed).
class collective_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether every assignment first compares its plan across the ranks (one small allgather): a
/// rank that planned something else — another tree, other shapes, a skipped statement — then
/// raises collective_error on every rank instead of hanging in PBLAS. The environment turns it
/// on in checked builds (LZ_CHECKED in the file that makes it), off otherwise.
void set_plan_checks(bool on) noexcept;
/// Whether plan checks are on (set_plan_checks).
bool plan_checks() noexcept;

/// The panel width of PBLAS's routines (PBLAS's PILAENV, which lazuli_dist answers): the k of
/// each local gemm inside pdgemm, the width of each broadcast panel. Reference PBLAS uses 32; the
/// default here is 256 (docs/distributed.md, "Scaling", has the measurement), or LZ_DIST_PANEL
/// when the environment starts. Every rank must use the same width (as for any ScaLAPACK
/// parameter); std::invalid_argument unless width >= 1.
void set_pblas_panel(int width);
/// The current PBLAS panel width (set_pblas_panel).
int pblas_panel() noexcept;

namespace detail {

using lz::detail::assign_op;

/// The policy distributed plans run under (rules pass it through to the sinks).
struct policy {
  static constexpr exec_kind kind = exec_kind::seq; // (rules ask; each rank threads its loops)
};

/// A matrix operand as PBLAS sees it: the stored block at global (i, j) of s, and whether the
/// operand is that block's transpose. ok = false: not a distributed operand PBLAS can take.
struct located {
  const rt::storage* s = nullptr;
  index_t i = 0, j = 0;
  index_t rows = 0, cols = 0; ///< of the stored block
  bool trans = false;
  bool ok = false;
  rt::operand op() const noexcept { return {s, i, j}; }
};

/// Where the mat (rows × cols as used, strides rs, cs over virtual addresses) lies.
template <class V>
located locate(const fusion::mat<V>& m) {
  located L;
  L.s = rt::find(m.ptr);
  if (!L.s) return L;
  const index_t off = index_t((reinterpret_cast<std::uintptr_t>(m.ptr) - L.s->vbase) / L.s->esize);
  const index_t M = L.s->m, N = L.s->n;
  L.i = off % std::max<index_t>(M, 1);
  L.j = off / std::max<index_t>(M, 1);
  const bool rows1 = m.rows <= 1, cols1 = m.cols <= 1;
  if ((rows1 || m.rs == 1) && (cols1 || m.cs == M) && L.i + m.rows <= M && L.j + m.cols <= N) {
    L.rows = m.rows, L.cols = m.cols, L.ok = true;
  } else if ((rows1 || m.rs == M) && (cols1 || m.cs == 1) && L.i + m.cols <= M &&
             L.j + m.rows <= N) {
    L.rows = m.cols, L.cols = m.rows, L.trans = true, L.ok = true;
  }
  return L;
}

[[noreturn]] void throw_not_pblas(const char* what);
[[noreturn]] void throw_unsupported(const char* what);

template <class V>
located require(const fusion::mat<V>& m, const char* what) {
  located L = locate(m);
  if (!L.ok) throw_not_pblas(what);
  return L;
}

/// A level-1 operand: a vector, or a whole-column range of a matrix run as one flat vector
/// (the level1 rule flattens contiguous matrices).
template <class V>
located require_flat(const fusion::mat<V>& m, const char* what) {
  located L = locate(m);
  if (!L.ok && L.s && m.cols == 1 && m.rs == 1 && L.i == 0 && L.s->m > 0 && m.rows % L.s->m == 0 &&
      L.j + m.rows / L.s->m <= L.s->n) {
    L.rows = L.s->m, L.cols = m.rows / L.s->m, L.trans = false, L.ok = true;
  }
  if (!L.ok) throw_not_pblas(what);
  return L;
}

/// True when a and b put the same global element offsets on the same ranks at the same local
/// offsets: one grid, one blocking, one orientation, offsets a whole cycle apart.
inline bool aligned(const located& a, const located& b) noexcept {
  if (!a.s || !b.s) return false;
  const rt::grid_state& g = *a.s->grid;
  return a.s->grid == b.s->grid && a.s->mb == b.s->mb && a.s->nb == b.s->nb && a.trans == b.trans &&
         a.rows == b.rows && a.cols == b.cols && (a.i - b.i) % (a.s->mb * g.nprow) == 0 &&
         (a.j - b.j) % (a.s->nb * g.npcol) == 0;
}

/// This rank's part of the block L as a host view of rank R (the block's transpose when
/// L.trans; a vector: its one row or column). Empty on ranks that hold none of it.
template <class U, std::size_t R>
lz::tensor_view<U, R> local_part(const located& L) {
  const rt::storage& s = *L.s;
  const rt::grid_state& g = *s.grid;
  index_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  if (g.member()) {
    r0 = rt::numroc(L.i, s.mb, g.myrow, g.nprow),
    r1 = rt::numroc(L.i + L.rows, s.mb, g.myrow, g.nprow);
    c0 = rt::numroc(L.j, s.nb, g.mycol, g.npcol),
    c1 = rt::numroc(L.j + L.cols, s.nb, g.mycol, g.npcol);
  }
  U* p = s.local ? reinterpret_cast<U*>(s.local) + r0 + c0 * s.lld : nullptr;
  strided_layout<R> l;
  if constexpr (R == 2) {
    l.extents = L.trans ? shape_t<2>{c1 - c0, r1 - r0} : shape_t<2>{r1 - r0, c1 - c0};
    l.strides = L.trans ? shape_t<2>{s.lld, 1} : shape_t<2>{1, s.lld};
  } else if constexpr (R == 1) {
    const bool column = !L.trans;
    const index_t n = column ? (c1 - c0 == 1 ? r1 - r0 : 0) : (r1 - r0 == 1 ? c1 - c0 : 0);
    l.extents = {n};
    l.strides = {column ? 1 : s.lld};
  }
  if (!p) p = reinterpret_cast<U*>(alignof(std::max_align_t)); // empty: never read
  return lz::tensor_view<U, R>(p, l, lz::detail::trusted);
}

// ---- the local loop: a tree over distributed leaves → the same tree over this rank's blocks ----

/// What localizing a tree against the destination block D needs and makes.
struct localizer {
  located D;
  std::vector<std::shared_ptr<rt::storage>>* keep; ///< temporaries for moved leaves
  bool dry = false;                                ///< explain: decide, move nothing
  std::vector<std::string>* moves = nullptr;       ///< explain: what would move, and why

  template <class X>
  auto operator()(const X& x) const {
    using K = lz::detail::kind_t<X>;
    if constexpr (std::is_same_v<K, lz::detail::scalar_kind>) {
      return x;
    } else if constexpr (std::is_same_v<K, lz::detail::leaf_kind>) {
      return leaf(x);
    } else if constexpr (std::is_same_v<K, lz::detail::map_kind>) {
      return map(x);
    } else if constexpr (std::is_same_v<K, lz::detail::permute_kind>) {
      return (*this)(permuted(x.arg, x.perm));
    } else {
      static_assert(std::is_same_v<K, lz::detail::scalar_kind>,
                    "lz::dist: this node (a broadcast of a tree, or a reduction along an axis "
                    "inside a tree) is not supported on distributed operands yet: evaluate it "
                    "into a distributed matrix or vector first");
      return x;
    }
  }

  /// A transpose (permutation) of a whole elementwise tree, pushed down to its leaves, where it
  /// is a view's layout: transpose(f(a, b)) = f(transpose(a), transpose(b)).
  template <class X>
  static auto permuted(const X& x, const std::array<std::size_t, rank_v<X>>& perm) {
    using K = lz::detail::kind_t<X>;
    constexpr std::size_t R = rank_v<X>;
    if constexpr (std::is_same_v<K, lz::detail::scalar_kind> || R < 2) {
      return x;
    } else if constexpr (std::is_same_v<K, lz::detail::leaf_kind>) {
      return lz::permute(x, perm);
    } else if constexpr (std::is_same_v<K, lz::detail::permute_kind>) {
      std::array<std::size_t, R> q{};
      for (std::size_t k = 0; k < R; ++k) q[k] = x.perm[perm[k]];
      return permuted(x.arg, q);
    } else if constexpr (std::is_same_v<K, lz::detail::map_kind>) {
      return permuted_map(x, perm);
    } else {
      static_assert(std::is_same_v<K, lz::detail::scalar_kind>,
                    "lz::dist: a transpose of a tree holding a broadcast or an axis reduction is "
                    "not supported on distributed operands yet: evaluate the tree first");
      return x;
    }
  }
  template <class F, class... A>
  static auto permuted_map(const map_expr<F, A...>& x,
                           const std::array<std::size_t, rank_v<map_expr<F, A...>>>& perm) {
    constexpr std::size_t R = rank_v<map_expr<F, A...>>;
    shape_t<R> s{};
    for (std::size_t k = 0; k < R; ++k) s[k] = x.shape()[perm[k]];
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using M = map_expr<F, decltype(permuted_child<R>(lz::detail::get<I>(x.args), perm))...>;
      return M{x.f, {{permuted_child<R>(lz::detail::get<I>(x.args), perm)}...}, s};
    }
    (std::index_sequence_for<A...>{});
  }
  template <std::size_t R, class C>
  static auto permuted_child(const C& c, const std::array<std::size_t, R>& perm) {
    if constexpr (rank_v<C> == R) {
      return permuted(c, perm);
    } else {
      static_assert(rank_v<C> == 0, "lz::dist: a transposed tree's operands have its rank");
      return c;
    }
  }

  template <class F, class... A>
  auto map(const map_expr<F, A...>& e) const {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      using M = map_expr<F, decltype((*this)(lz::detail::get<I>(e.args)))...>;
      return M{e.f, {{(*this)(lz::detail::get<I>(e.args))}...}, local_shape<M::rank>()};
    }
    (std::index_sequence_for<A...>{});
  }

  template <std::size_t R>
  shape_t<R> local_shape() const {
    if constexpr (R == 0)
      return {};
    else
      return local_part<const char, R>(D).shape();
  }

  template <class X>
  auto leaf(const X& x) const {
    using V = value_t<X>;
    constexpr std::size_t R = rank_v<X>;
    static_assert(space_v<X> == dist::space, "lz::dist: a host leaf in a distributed tree");
    if constexpr (R == 0) {
      throw_unsupported("a rank-0 distributed operand");
      return lz::tensor_view<const V, 0>();
    } else {
      located L = locate(fusion::mat_of<V>(x));
      const bool found = L.s != nullptr;
      if (found && !L.ok) throw_not_pblas("an elementwise operand");
      if (found && (L.trans ? L.cols : L.rows) != (D.trans ? D.cols : D.rows))
        throw_unsupported("broadcasting a distributed operand to another shape");
      if (!found || aligned(L, D)) // (an explain placeholder: a temporary made aligned)
        return dry ? lz::tensor_view<const V, R>() : local_part<const V, R>(L);
      // Moved once into a temporary distributed like the destination.
      if (moves)
        moves->push_back(std::string(L.trans != D.trans ? "pdtran" : "pdgemr2d") + " of a " +
                         std::to_string(L.rows) + "x" + std::to_string(L.cols) + " operand " +
                         (L.s->grid != D.s->grid ? "on another grid" : "distributed otherwise") +
                         " into a temporary laid out like the destination");
      if (dry) return lz::tensor_view<const V, R>();
      auto t = rt::allocate(D.s->grid, D.s->m, D.s->n, D.s->mb, D.s->nb, D.s->dtype);
      rt::copy(L.trans != D.trans, D.rows, D.cols, L.op(), {t.get(), D.i, D.j});
      located T = D;
      T.s = t.get();
      keep->push_back(std::move(t));
      return local_part<const V, R>(T);
    }
  }
};

/// The full reductions in a tree, computed now (collectively) and put in as scalars.
template <class X>
auto settle_reductions(const X& x);

/// A full reduction's accumulator, left unfinalized (the ranks' partials are combined first).
struct keep_acc {
  static constexpr const char* name = "";
  template <class A>
  A operator()(const A& a, index_t) const {
    return a;
  }
};

template <class X>
const located* first_leaf(const X& x, located& out);

/// Position (row-major, in the operand of shape `whole`) of element `k` (row-major) of this
/// rank's part of L, whose local shape is `part`.
template <std::size_t R>
index_t global_flat(const located& L, const shape_t<R>& part, const shape_t<R>& whole, index_t k) {
  const rt::storage& s = *L.s;
  const rt::grid_state& g = *s.grid;
  const index_t r0 = rt::numroc(L.i, s.mb, g.myrow, g.nprow);
  const index_t c0 = rt::numroc(L.j, s.nb, g.mycol, g.npcol);
  auto row = [&](index_t lr) {
    return dist::detail::global_index(r0 + lr, s.mb, g.myrow, g.nprow) - L.i;
  };
  auto col = [&](index_t lc) {
    return dist::detail::global_index(c0 + lc, s.nb, g.mycol, g.npcol) - L.j;
  };
  if constexpr (R == 1) {
    return L.trans ? col(k) : row(k);
  } else {
    const index_t a = k / part[1], b = k % part[1]; // (a, b) of the local view
    const index_t i = L.trans ? col(a) : row(a), j = L.trans ? row(b) : col(b);
    return i * whole[1] + j;
  }
}

/// The value of a full reduction over distributed operands: each rank reduces its block with
/// lazuli's own loop, the partial results are exchanged, and every rank combines them in rank
/// order (the same bits everywhere).
template <class Op, class Fin, class E>
auto reduce_value(const reduce_expr<Op, Fin, E>& r) {
  using RE = reduce_expr<Op, Fin, E>;
  using A = typename RE::acc_type;
  const auto arg = settle_reductions(r.arg);
  located D;
  if (!first_leaf(arg, D)) throw_unsupported("a reduction without a distributed operand");
  std::vector<std::shared_ptr<rt::storage>> keep;
  localizer lc{D, &keep};
  const auto local = lc(arg);
  struct part {
    A acc;
    int has;
  } mine{A{}, 0};
  index_t n = 1;
  for (std::size_t k = 0; k < rank_v<E>; ++k) n *= local.shape()[k];
  bool ok = true;
  std::string what;
  try {
    if (n > 0) {
      mine.acc = lz::detail::reduce_value(
          lz::automatic, reduce_expr<Op, keep_acc, std::remove_cvref_t<decltype(local)>>(local));
      mine.has = 1;
      if constexpr (RE::is_arg) // the local flat index → the operand's flat index (row-major)
        mine.acc.index = global_flat(D, local.shape(), r.arg.shape(), mine.acc.index);
    }
  } catch (const std::exception& e) {
    ok = false;
    what = e.what();
  }
  if (!rt::all(ok)) {
    if (!ok) throw collective_error(what);
    throw collective_error("lz::dist: another rank failed in a reduction");
  }
  std::vector<part> all(std::size_t(rt::size()));
  rt::allgather(&mine, sizeof mine, all.data());
  if constexpr (RE::is_arg) // combined in index order: ties go to the first index, as on one node
    std::stable_sort(all.begin(), all.end(),
                     [](const part& a, const part& b) { return a.acc.index < b.acc.index; });
  A acc = mine.acc;
  bool any = false;
  for (const part& p : all)
    if (p.has) {
      acc = any ? Op::combine(acc, p.acc) : p.acc;
      any = true;
    }
  index_t total = 1;
  for (std::size_t k = 0; k < rank_v<E>; ++k) total *= r.arg.shape()[k];
  if (!any) {
    if constexpr (!Op::has_identity)
      lz::detail::throw_empty_reduction(Op::name, r.arg.shape().data(), rank_v<E>);
    else
      acc = Op::template identity<A>();
  }
  return Fin{}(acc, total);
}

template <class X>
auto settle_reductions(const X& x) {
  return fusion::settle_reductions(x, [](const auto& r) { return dist::detail::reduce_value(r); });
}

template <class X>
const located* first_leaf(const X& x, located& out) {
  using K = lz::detail::kind_t<X>;
  if constexpr (std::is_same_v<K, lz::detail::leaf_kind>) {
    if constexpr (rank_v < X >> 0) {
      out = locate(fusion::mat_of<value_t<X>>(x));
      if (!out.ok) throw_not_pblas("a reduction's operand");
      return &out;
    }
    return nullptr;
  } else if constexpr (std::is_same_v<K, lz::detail::map_kind>) {
    const located* found = nullptr;
    for_each_arg(x, [&](const auto& a) {
      if (!found) found = first_leaf(a, out);
    });
    return found;
  } else if constexpr (std::is_same_v<K, lz::detail::permute_kind>) {
    return first_leaf(localizer::permuted(x.arg, x.perm), out);
  } else {
    return nullptr;
  }
}

/// Runs the local part of a step on every rank; an exception on some rank is raised on all.
template <class F>
void collectively(F&& f) {
  bool ok = true;
  std::string what;
  try {
    f();
  } catch (const std::exception& e) {
    ok = false;
    what = e.what();
  }
  if (!rt::all(ok)) {
    if (!ok) throw collective_error(what);
    throw collective_error("lz::dist: another rank failed in this assignment (its error is "
                           "raised there)");
  }
}

// ---- the sinks ---------------------------------------------------------------------------------

/// What both dist sinks share: the plan's grid and blocks (temporaries are made there).
class sink_base {
 public:
  explicit sink_base(const rt::storage& dst) : grid_(dst.grid), mb_(dst.mb), nb_(dst.nb) {}

 protected:
  template <class T, std::size_t R>
  dist::tensor_view<T, R> make_temp(const shape_t<R>& s) {
    if constexpr (!std::is_floating_point_v<T> && !lz::detail::is_complex_v<T>) {
      // argmin/argmax into a destination that overlaps its operand (a via-temp plan)
      throw_unsupported("a temporary of indices (an argmin/argmax whose destination overlaps its "
                        "operand: assign it to a separate vector first)");
    } else {
      return make_typed_temp<T, R>(s);
    }
  }
  template <class T, std::size_t R>
  dist::tensor_view<T, R> make_typed_temp(const shape_t<R>& s) {
    index_t m = 1, n = 1, nb = nb_;
    if constexpr (R >= 1) m = s[0];
    if constexpr (R == 2) n = s[1];
    if constexpr (R < 2) nb = 1;
    auto t = rt::allocate(grid_, m, n, mb_, nb, detail::dtype_letter<T>());
    strided_layout<R> l;
    if constexpr (R >= 1) l.extents[0] = m, l.strides[0] = 1;
    if constexpr (R == 2) l.extents[1] = n, l.strides[1] = m;
    T* p = reinterpret_cast<T*>(t->vbase);
    keep_.push_back(std::move(t));
    return dist::tensor_view<T, R>(p, l, lz::detail::trusted);
  }
  // An operand on another grid than the destination's: moved onto it first.
  located on_grid(located L, const located& C) {
    if (L.s->grid == C.s->grid) return L;
    auto t = rt::allocate(C.s->grid, L.rows, L.cols, L.s->mb, L.s->nb, L.s->dtype);
    rt::copy(false, L.rows, L.cols, L.op(), {t.get(), 0, 0});
    L.s = t.get(), L.i = 0, L.j = 0;
    keep_.push_back(std::move(t));
    return L;
  }

  std::shared_ptr<const rt::grid_state> grid_;
  index_t mb_, nb_;
  std::vector<std::shared_ptr<rt::storage>> keep_;
};

/// Runs each step as it is lowered (the normal path of a distributed assignment).
class dist_exec_sink : public sink_base {
 public:
  template <class U, std::size_t R>
  using view = dist::tensor_view<U, R>;

  using sink_base::sink_base;
  dist_exec_sink(const dist_exec_sink&) = delete;
  dist_exec_sink& operator=(const dist_exec_sink&) = delete;

  template <class T, std::size_t R>
  dist::tensor_view<T, R> temp(const shape_t<R>& s, const char* why) {
    if (rt::logging_on())
      rt::log(std::string("temporary ") + lz::detail::to_string(s) + " (" + why + ")");
    ++ntemps_;
    return make_temp<T, R>(s);
  }
  int last_temp() const { return ntemps_ - 1; }
  fusion::origin origin_of(const void*) const { return {}; }
  void set_dst(const void*) {}
  bool noting() const { return logging::on(logging::fusion); }
  void note(fusion::detail_plan::note_text msg) { fusion::detail_plan::log_note(msg); }

  template <class V>
  void gemm(const char*, const fusion::gemm_step<V>& g) {
    located C = require(g.C, "a product's destination");
    located A = require(g.A, "a product's operand");
    located B = require(g.B, "a product's operand");
    index_t m = g.C.rows, n = g.C.cols;
    if (C.trans) { // Cᵀ = op(B)ᵀ·op(A)ᵀ
      std::swap(A, B), std::swap(m, n);
      A.trans = !A.trans, B.trans = !B.trans, C.trans = false;
    }
    A = on_grid(A, C), B = on_grid(B, C);
    rt::gemm(A.trans ? 'T' : 'N', B.trans ? 'T' : 'N', m, n, g.A.cols, rt::scalar(g.alpha), A.op(),
             B.op(), rt::scalar(g.beta), C.op());
  }
  template <class V>
  void gemv(const char*, const fusion::gemv_step<V>& g) {
    located A = require(g.A, "a product's operand");
    located x = require(g.x, "a product's vector");
    located y = require(g.y, "a product's destination");
    A = on_grid(A, y), x = on_grid(x, y);
    rt::gemv(A.trans ? 'T' : 'N', A.rows, A.cols, rt::scalar(g.alpha), A.op(), x.op(), x.trans,
             rt::scalar(g.beta), y.op(), y.trans);
  }
  template <class V>
  void syrk(const char*, const fusion::syrk_step<V>& g) {
    located A = require(g.A, "a product's operand");
    located C = require(g.C, "a product's destination");
    A = on_grid(A, C);
    // g.A is the left factor as used (n × k): stored as is ('N': C = A·Aᵀ) or transposed ('T').
    rt::syrk_full(A.trans ? 'T' : 'N', g.n, g.k, rt::scalar(g.alpha), A.op(), C.op());
  }
  template <class V>
  void axpy(const char*, const fusion::axpy_step<V>& g) {
    located x = require_flat(g.x, "an axpy operand");
    located y = require_flat(g.y, "an axpy destination");
    x = on_grid(x, y);
    rt::geadd(x.trans != y.trans ? 'T' : 'N', y.rows, y.cols, rt::scalar(g.alpha), x.op(), 1.0,
              y.op());
  }
  template <class V>
  void scal(const char*, const fusion::scal_step<V>& g) {
    located x = require_flat(g.x, "a scaled operand");
    auto l = local_part<V, 2>(x);
    const V a = g.alpha;
    collectively([&] { lz::assign(l, a * l); });
  }
  template <class V>
  void lapack(const char*, const fusion::lapack_step<V>&) {
    static_assert(sizeof(V) == 0, "lz::dist: solvers on distributed matrices (ScaLAPACK's "
                                  "pdgesv, pdposv) are not built yet");
  }
  template <class V>
  void sparse(const char*, const fusion::sparse_step<V>&) {
    static_assert(sizeof(V) == 0, "lz::dist: there are no distributed sparse matrices");
  }
  template <assign_op Op, class T, std::size_t R, class E>
  void map(const policy&, dist::tensor_view<T, R> dst, const E& e) {
    static_assert(R == 1 || R == 2, "lz::dist: distributed operands are matrices or vectors");
    const located D = require(fusion::mat_of_dst(dst, {}), "an elementwise destination");
    localizer lc{D, &keep_};
    const auto local = lc(e);
    const auto out = local_part<T, R>(D);
    if (rt::logging_on())
      rt::log("local loop " + lz::detail::to_string(out.shape()) + " " +
              lz::detail::assign_op_symbol(Op) + " f(...) over this rank's block");
    collectively([&] { lz::detail::assign_with<Op>(lz::automatic, out, local); });
  }
  /// An axis reduction of a distributed matrix into a distributed vector: each rank reduces
  /// its block along the axis (lazuli's host engine, unfinalized), the partials (one column or
  /// row per grid column or row) are moved once onto the destination's rows (pdgemr2d, or
  /// pdtran for axis 0) and combined there in grid order, then finalized (mean, norm2).
  template <assign_op Op, class T, std::size_t R, class E>
  void reduce(const policy& pol, dist::tensor_view<T, R> dst, const E& e) {
    if constexpr (!fusion::is_axis_reduction_v<E> || R != 1) {
      static_assert(sizeof(E) == 0, "lz::dist: reductions of distributed operands go along one "
                                    "axis of a matrix into a vector, or over everything");
    } else {
      using X = std::remove_cvref_t<decltype(e.arg)>;
      static_assert(rank_v<X> == 2, "lz::dist: axis reductions of distributed matrices");
      static_assert(std::is_same_v<typename E::acc_type, value_t<X>> ||
                        std::is_same_v<typename E::acc_type, red::arg_acc<value_t<X>>>,
                    "lz::dist: axis reductions of float or double operands");
      if constexpr (E::is_arg) { // nothing to take the first of: the same error on every rank
        const auto s = e.arg.shape();
        if (s[e.axis] == 0 && dst.size() > 0)
          lz::detail::throw_empty_reduction(E::op_name(), s.data(), 2);
      }
      located D;
      if (!first_leaf(e.arg, D)) throw_unsupported("a reduction without a distributed operand");
      const rt::grid_state& g = *D.s->grid;
      const bool at_origin = !D.trans && D.i % (D.s->mb * g.nprow) == 0 &&
                             D.j % (D.s->nb * g.npcol) == 0 && D.rows == e.arg.shape()[0];
      if (at_origin) {
        localizer lc{D, &keep_};
        axis_partials<Op>(pol, dst, e, D, lc(e.arg));
      } else { // the operand tree into a matrix laid out from the origin first
        auto t = temp<value_t<X>, 2>(e.arg.shape(), "an axis reduction's operand");
        map<assign_op::set>(pol, t, e.arg);
        located T0 = require(fusion::mat_of_dst(t, {}), "a temporary");
        axis_partials<Op>(pol, dst, e, T0, local_part<const value_t<X>, 2>(T0));
      }
    }
  }

 private:
  template <assign_op Op, class T, class E, class L>
  void axis_partials(const policy& pol, dist::tensor_view<T, 1> dst, const E& e, const located& D,
                     const L& local) {
    using V = value_t<decltype(e.arg)>;
    using ROp = decltype(red_op(e));
    const std::size_t ax = e.axis;
    const index_t m = e.arg.shape()[0], n = e.arg.shape()[1];
    const rt::grid_state& g = *D.s->grid;
    const int K = ax == 1 ? g.npcol : g.nprow;
    // Partials: ax 1 → P (m × K, blocks mb × 1): grid column c's partial is column c, exactly
    // its local block; ax 0 → P (K × n, blocks 1 × nb): grid row r's is row r.
    auto partials = [&](char dtype) {
      return ax == 1 ? rt::allocate(D.s->grid, m, K, D.s->mb, 1, dtype)
                     : rt::allocate(D.s->grid, K, n, 1, D.s->nb, dtype);
    };
    auto P = partials(D.s->dtype);
    std::shared_ptr<rt::storage> PI; // argmin/argmax: the global index of each partial, as double
    const index_t mine = ax == 1 ? local.shape()[0] : local.shape()[1];
    const index_t local_along = ax == 1 ? local.shape()[1] : local.shape()[0];
    if constexpr (E::is_arg) {
      PI = partials('d');
      collectively([&] {
        if (P->local && mine > 0)
          arg_partials<ROp>(D, local, ax, reinterpret_cast<V*>(P->local),
                            reinterpret_cast<double*>(PI->local));
      });
    } else {
      collectively([&] {
        if (!P->local || mine == 0) return;
        lz::tensor_view<V, 1> part(reinterpret_cast<V*>(P->local), strided_layout<1>{{mine}, {1}},
                                   lz::detail::trusted);
        if (local_along == 0)
          part = ROp::template identity<V>();
        else
          reduce_axis_expr<ROp, keep_acc, std::remove_cvref_t<L>>{local, ax, {mine}}
              .template apply_to<assign_op::set>(lz::automatic, part);
      });
    }
    // The destination's rows: a column vector laid out from a cycle boundary, else a temporary.
    const located Y = locate(fusion::mat_of_dst(dst, {}));
    if (Y.ok && !Y.trans && Y.i % (Y.s->mb * Y.s->grid->nprow) == 0) {
      combine<Op, T>(Y, *P, PI.get(), e, K);
    } else {
      auto t = temp<T, 1>(dst.shape(), "an axis reduction's result");
      combine<assign_op::set, T>(require(fusion::mat_of_dst(t, {}), "a temporary"), *P, PI.get(), e,
                                 K);
      map<Op>(pol, dst, dist::tensor_view<const T, 1>(t));
    }
  }
  // argmin/argmax: this rank's best element along the axis for each of its rows (axis 1) or
  // columns (axis 0): its value into val, its index along the axis in the whole operand into idx
  // (-1 where the rank holds none of that axis).
  template <class ROp, class V, class L>
  static void arg_partials(const located& D, const L& local, std::size_t ax, V* val, double* idx) {
    const index_t lm = local.shape()[0], ln = local.shape()[1];
    const index_t mine = ax == 1 ? lm : ln, along = ax == 1 ? ln : lm;
    if (along == 0) {
      std::fill(idx, idx + mine, -1.0);
      std::fill(val, val + mine, V{});
      return;
    }
    if constexpr (!std::is_same_v<std::remove_cvref_t<L>, lz::tensor_view<const V, 2>> &&
                  !std::is_same_v<std::remove_cvref_t<L>, lz::tensor_view<V, 2>>) {
      const lz::tensor<V, 2> t = local; // a tree: its values once, then looked up
      arg_partials<ROp>(D, t.view(), ax, val, idx);
    } else {
      std::vector<index_t> at(std::size_t(mine), 0);
      lz::tensor_view<index_t, 1> best(at.data(), strided_layout<1>{{mine}, {1}},
                                       lz::detail::trusted);
      reduce_axis_expr<ROp, red::index_fin, L>{local, ax, {mine}}.template apply_to<assign_op::set>(
          lz::automatic, best);
      const rt::storage& s = *D.s;
      const rt::grid_state& g = *s.grid;
      const index_t first = ax == 1 ? rt::numroc(D.j, s.nb, g.mycol, g.npcol)
                                    : rt::numroc(D.i, s.mb, g.myrow, g.nprow);
      for (index_t k = 0; k < mine; ++k) {
        const index_t a = at[std::size_t(k)];
        val[k] = ax == 1 ? local(k, a) : local(a, k);
        idx[k] =
            double(ax == 1 ? dist::detail::global_index(first + a, s.nb, g.mycol, g.npcol) - D.j
                           : dist::detail::global_index(first + a, s.mb, g.myrow, g.nprow) - D.i);
      }
    }
  }
  // The K partials of each output moved onto Y's rows (one pdgemr2d, or pdtran for axis 0),
  // combined in grid order and finalized into Y.
  template <assign_op Op, class T, class E> // T: the element type of Y
  void combine(const located& Y, const rt::storage& P, const rt::storage* PI, const E& e, int K) {
    using V = value_t<decltype(e.arg)>;
    using ROp = decltype(red_op(e));
    using Fin = decltype(fin(e));
    const std::size_t ax = e.axis;
    const index_t len = ax == 1 ? e.arg.shape()[0] : e.arg.shape()[1];
    const index_t along = ax == 1 ? e.arg.shape()[1] : e.arg.shape()[0];
    auto Q = rt::allocate(Y.s->grid, len, K, Y.s->mb, K, P.dtype);
    rt::copy(ax == 0, len, K, {&P, 0, 0}, {Q.get(), 0, 0});
    std::shared_ptr<rt::storage> QI;
    if (PI) {
      QI = rt::allocate(Y.s->grid, len, K, Y.s->mb, K, PI->dtype);
      rt::copy(ax == 0, len, K, {PI, 0, 0}, {QI.get(), 0, 0});
    }
    if (rt::logging_on())
      rt::log("axis reduction: " + std::to_string(K) + " partials per output combined locally");
    auto out = local_part<T, 1>(Y);
    const V* q = reinterpret_cast<const V*>(Q->local);
    std::vector<red::arg_acc<V>> parts(E::is_arg ? std::size_t(K) : 0);
    collectively([&] {
      for (index_t i = 0; q && i < out.shape()[0]; ++i) {
        T& d = out(i);
        if constexpr (E::is_arg) { // in index order: ties and NaNs go to the first, as on one node
          const double* qi = reinterpret_cast<const double*>(QI->local);
          std::size_t np = 0;
          for (int k = 0; k < K; ++k)
            if (qi[i + k * QI->lld] >= 0)
              parts[np++] = {q[i + k * Q->lld], index_t(qi[i + k * QI->lld])};
          std::sort(parts.begin(), parts.begin() + std::ptrdiff_t(np),
                    [](const auto& a, const auto& b) { return a.index < b.index; });
          red::arg_acc<V> acc{V{}, -1};
          for (std::size_t k = 0; k < np; ++k) acc = ROp::combine(acc, parts[k]);
          d = static_cast<T>(fn::assign_combine<Op>(d, static_cast<T>(Fin{}(acc, along))));
        } else {
          V acc = q[i];
          for (int k = 1; k < K; ++k) acc = ROp::combine(acc, q[i + k * Q->lld]);
          d = static_cast<T>(fn::assign_combine<Op>(d, static_cast<T>(Fin{}(acc, along))));
        }
      }
    });
  }
  template <class ROp, class Fin, class X>
  static ROp red_op(const reduce_axis_expr<ROp, Fin, X>&);
  template <class ROp, class Fin, class X>
  static Fin fin(const reduce_axis_expr<ROp, Fin, X>&);

  int ntemps_ = 0;
};

static_assert(fusion::plan_sink<dist_exec_sink, policy>);

/// Text of one PBLAS step for explain.
std::string describe(const char* routine, const std::string& flags, index_t m, index_t n, index_t k,
                     const std::string& alpha, const std::string& beta,
                     const std::string& operands);
/// A scalar (α, β) as explain prints it.
template <class V>
std::string sc(const V& v) {
  return fusion::detail_plan::scalar_text(v);
}
std::string grid_text(const rt::storage& s);

/// Records the distributed plan as text (lz::explain of a distributed destination).
class dist_explain_sink : public fusion::explain_sink, public sink_base {
 public:
  template <class U, std::size_t R>
  using view = dist::tensor_view<U, R>;

  explicit dist_explain_sink(const rt::storage& dst) : sink_base(dst), grid_text_(grid_text(dst)) {}

  template <class T, std::size_t R>
  dist::tensor_view<T, R> temp(const shape_t<R>& s, const char* why) {
    const auto t = fusion::explain_sink::temp<T, R>(s, why); // placeholder, numbered
    return dist::tensor_view<T, R>(t.data(), t.layout(), lz::detail::trusted);
  }

  template <class V>
  void gemm(const char* rule, const fusion::gemm_step<V>& g) {
    const located A = locate(g.A), B = locate(g.B), C = locate(g.C);
    const bool ct = C.ok && C.trans;
    const bool ta = (A.ok && A.trans) != ct, tb = (B.ok && B.trans) != ct;
    const std::string names = ct ? name_of(g.B.ptr) + ", " + name_of(g.A.ptr)
                                 : name_of(g.A.ptr) + ", " + name_of(g.B.ptr);
    step(describe(pname<V>("gemm"),
                  std::string("'") + ((ct ? tb : ta) ? 'T' : 'N') + "', '" +
                      ((ct ? ta : tb) ? 'T' : 'N') + "'",
                  ct ? g.n : g.m, ct ? g.m : g.n, g.k, sc(g.alpha), sc(g.beta),
                  names + " -> " + name_of(g.C.ptr) + grid_text_),
         rule);
  }
  template <class V>
  void gemv(const char* rule, const fusion::gemv_step<V>& g) {
    const located A = locate(g.A);
    step(describe(pname<V>("gemv"), std::string("'") + (A.ok && A.trans ? 'T' : 'N') + "'", A.rows,
                  A.cols, 0, sc(g.alpha), sc(g.beta),
                  name_of(g.A.ptr) + ", " + name_of(g.x.ptr) + " -> " + name_of(g.y.ptr) +
                      grid_text_),
         rule);
  }
  template <class V>
  void syrk(const char* rule, const fusion::syrk_step<V>& g) {
    const located A = locate(g.A);
    step(describe(pname<V>("syrk"), std::string("'L', '") + (A.ok && A.trans ? 'T' : 'N') + "'",
                  g.n, g.n, g.k, sc(g.alpha), "0",
                  name_of(g.A.ptr) + " -> " + name_of(g.C.ptr) + grid_text_ +
                      "; the upper triangle mirrored by " + pname<V>("tran") + " + " +
                      pname<V>("lacpy") + "('U')"),
         rule);
  }
  template <class V>
  void axpy(const char* rule, const fusion::axpy_step<V>& g) {
    step(describe(pname<V>("geadd"), "'N'", g.n, 1, 0, sc(g.alpha), "1",
                  name_of(g.x.ptr) + " -> " + name_of(g.y.ptr) + grid_text_),
         rule);
  }
  template <class V>
  void scal(const char* rule, const fusion::scal_step<V>& g) {
    step("local loop " + name_of(g.x.ptr) + " *= " + fusion::detail_plan::scalar_text(g.alpha) +
             " over each rank's block (no communication)",
         rule);
  }
  template <class V>
  void lapack(const char*, const fusion::lapack_step<V>&) {
    static_assert(sizeof(V) == 0, "lz::dist: solvers on distributed matrices are not built yet");
  }
  template <class V>
  void sparse(const char*, const fusion::sparse_step<V>&) {
    static_assert(sizeof(V) == 0, "lz::dist: there are no distributed sparse matrices");
  }
  template <assign_op Op, class T, std::size_t R, class E>
  void map(const policy&, dist::tensor_view<T, R> dst, const E& e) {
    located D = locate(fusion::mat_of_dst(dst, {}));
    std::vector<std::string> moves;
    if (D.ok) {
      localizer lc{D, nullptr, true, &moves};
      (void)lc(e);
    }
    for (const auto& m : moves) step(m, "map");
    step("local loop " + name_of(dst.data()) + " " + lz::detail::assign_op_symbol(Op) + " f(" +
             std::to_string(lz::detail::leaf_count_v<E>) +
             " leaves): ONE fused loop over each rank's block (lazuli's host engine), no "
             "communication",
         "map");
  }
  template <assign_op Op, class T, std::size_t R, class E>
  void reduce(const policy&, dist::tensor_view<T, R> dst, const E& e) {
    if constexpr (fusion::is_axis_reduction_v<E>) {
      step(std::string("local ") + std::remove_cvref_t<E>::op_name() + " along axis " +
               std::to_string(e.axis) + " of each rank's block, the partials" +
               (E::is_arg ? " (values, and their indices in the whole operand)" : "") +
               " moved by " + (e.axis == 0 ? "pdtran" : "pdgemr2d") + " onto " +
               name_of(dst.data()) + "'s rows and combined in " +
               (E::is_arg ? "index order" : "grid order"),
           "reduce");
    }
  }

 private:
  template <class V>
  static const char* pname(const char* op) {
    static thread_local char buf[16];
    std::snprintf(buf, sizeof buf, "p%c%s", dtype_letter<V>(), op);
    return buf;
  }
  std::string grid_text_;
};

static_assert(fusion::plan_sink<dist_explain_sink, policy>);

/// A hash of the plan's text, for the cross-rank check.
std::uint64_t plan_hash(const std::string& text) noexcept;
[[noreturn]] void throw_plan_mismatch(int lo_rank, int hi_rank);

template <assign_op Op, class T, std::size_t R, class E>
std::string plan_text(dist::tensor_view<T, R> dst, const E& e) {
  const rt::storage* s = rt::find(dst.data());
  dist_explain_sink sink(*s);
  sink.set_dst(dst.data());
  fusion::plan_assign<Op>(sink, policy{}, dst, e);
  return sink.text(std::string("plan: dst") + lz::to_string(dst.layout()) + " " +
                   lz::detail::assign_op_symbol(Op) + " " + lz::detail::expr_text(e) +
                   "  [lz::dist, " + std::to_string(rt::size()) + " ranks]");
}

template <assign_op Op, class T, std::size_t R, class E>
void assign_to(dist::tensor_view<T, R> dst, const E& e) {
  static_assert(!std::is_const_v<T>, "lz: cannot assign to a read-only view");
  if constexpr (scalar_like<E>) {
    assign_to<Op>(dst, scalar_expr<T>{static_cast<T>(e)});
  } else {
    static_assert(within_space<E>(dist::space),
                  "lz::dist: this expression mixes distributed and host (or device) operands; "
                  "move one side explicitly first (lz::dist::scatter, lz::dist::gather)");
    static_assert(rank_v<E> == R || rank_v<E> == 0,
                  "lz: the expression's rank differs from the destination's rank");
    (void)sizeof(lz::detail::check_narrowing<value_t<E>, T, E>);
    if constexpr (!lz::detail::narrows<value_t<E>, T>() && (rank_v<E> == R || rank_v<E> == 0)) {
      if constexpr (rank_v<E> == R && R > 0) {
        if (e.shape() != dst.shape())
          lz::detail::throw_assign_shape(e.shape().data(), dst.shape().data(), R,
                                         lz::detail::assign_op_symbol(Op));
      }
      const rt::storage* s = rt::find(dst.data());
      if (!s) throw_not_pblas("the destination");
      const auto settled = settle_reductions(e);
      if (plan_checks()) {
        std::uint64_t lo = 0, hi = 0;
        int lr = 0, hr = 0;
        rt::minmax(plan_hash(plan_text<Op>(dst, settled)), lo, lr, hi, hr);
        if (lo != hi) throw_plan_mismatch(lr, hr);
      }
      dist_exec_sink sink(*s);
      fusion::plan_assign<Op>(sink, policy{}, dst, settled);
    }
  }
}

} // namespace detail

template <class T>
template <expression E>
requires(space_v<E> == dist::space && rank_v<E> == 2) matrix<T>::matrix(const E& e) {
  detail::located L;
  if (!detail::first_leaf(e, L))
    detail::throw_unsupported("an expression with no distributed leaf");
  *this = matrix(dist::grid(L.s->grid->nprow, L.s->grid->npcol), e.shape()[0], e.shape()[1],
                 {L.s->mb, L.s->nb});
  *this = e;
}
template <class T>
template <expression E>
requires(space_v<E> == dist::space && rank_v<E> == 1) vector<T>::vector(const E& e) {
  detail::located L;
  if (!detail::first_leaf(e, L))
    detail::throw_unsupported("an expression with no distributed leaf");
  *this = vector(dist::grid(L.s->grid->nprow, L.s->grid->npcol), e.shape()[0], L.s->mb);
  *this = e;
}

// ---- moving data in and out through rank 0 -----------------------------------------------------

/// A distributed copy of `host`, a matrix expression read on rank 0 only (other ranks may pass
/// an empty one): its shape is broadcast, then one pdgemr2d deals the blocks. Collective.
template <class T = double, class E>
matrix<T> scatter(const grid& g, const E& host, blocking b = {}) {
  static_assert(rank_v<E> == 2, "lz::dist::scatter of a matrix (lz::dist::scatter_vector for a "
                                "vector)");
  index_t sh[2] = {0, 0};
  if (rt::rank() == 0) sh[0] = host.shape()[0], sh[1] = host.shape()[1];
  rt::broadcast(sh, sizeof sh, 0);
  matrix<T> A(g, sh[0], sh[1], b);
  auto root = rt::allocate(rt::grid(1, 1), sh[0], sh[1], std::max<index_t>(sh[0], 1),
                           std::max<index_t>(sh[1], 1), detail::dtype_letter<T>());
  detail::collectively([&] {
    if (rt::rank() == 0 && root->local)
      lz::assign(lz::tensor_view<T, 2>(reinterpret_cast<T*>(root->local),
                                       strided_layout<2>{{sh[0], sh[1]}, {1, sh[0]}},
                                       lz::detail::trusted),
                 host);
  });
  rt::copy(false, sh[0], sh[1], {root.get(), 0, 0}, {&A.storage(), 0, 0});
  return A;
}
/// A distributed copy of the host vector `host` (read on rank 0 only). Collective.
template <class T = double, class E>
vector<T> scatter_vector(const grid& g, const E& host, index_t mb = 64) {
  static_assert(rank_v<E> == 1, "lz::dist::scatter_vector of a vector");
  index_t n = rt::rank() == 0 ? host.shape()[0] : 0;
  rt::broadcast(&n, sizeof n, 0);
  vector<T> x(g, n, mb);
  auto root =
      rt::allocate(rt::grid(1, 1), n, 1, std::max<index_t>(n, 1), 1, detail::dtype_letter<T>());
  detail::collectively([&] {
    if (rt::rank() == 0 && root->local)
      lz::assign(lz::tensor_view<T, 1>(reinterpret_cast<T*>(root->local),
                                       strided_layout<1>{{n}, {1}}, lz::detail::trusted),
                 host);
  });
  rt::copy(false, n, 1, {root.get(), 0, 0}, {&x.storage(), 0, 0});
  return x;
}

/// The whole of a distributed matrix, vector or view as a row-major host tensor on rank 0
/// (other ranks get an empty tensor). Collective: one pdgemr2d (pdtran for a transposed view).
template <class X>
auto gather(const X& x) {
  using T = value_t<X>;
  constexpr std::size_t R = rank_v<X>;
  const auto v = dist::tensor_view<const T, R>(x.data(), x.layout(), lz::detail::trusted);
  const detail::located L = detail::require(fusion::mat_of<T>(v), "a gathered operand");
  const index_t m = L.trans ? L.cols : L.rows, n = L.trans ? L.rows : L.cols;
  auto root = rt::allocate(rt::grid(1, 1), m, n, std::max<index_t>(m, 1), std::max<index_t>(n, 1),
                           detail::dtype_letter<T>());
  rt::copy(L.trans, m, n, L.op(), {root.get(), 0, 0});
  shape_t<R> s{};
  if (rt::rank() == 0) s = x.shape();
  lz::tensor<T, R> out(s);
  if (rt::rank() == 0 && root->local) {
    strided_layout<R> l;
    l.extents = s;
    l.strides[0] = 1;
    if constexpr (R == 2) l.strides[1] = m;
    out = lz::tensor_view<const T, R>(reinterpret_cast<const T*>(root->local), l,
                                      lz::detail::trusted);
  }
  return out;
}
/// gather(x) on every rank (rank 0's copy broadcast).
template <class X>
auto gather_all(const X& x) {
  auto t = gather(x);
  using T = value_t<X>;
  constexpr std::size_t R = rank_v<X>;
  shape_t<R> s = x.shape();
  if (rt::rank() != 0) t = lz::tensor<T, R>(s);
  if (t.size() > 0) rt::broadcast(t.data(), std::size_t(t.size()) * sizeof(T), 0);
  return t;
}

/// Writes a distributed matrix or vector as one .npy file from rank 0. Collective; an error on
/// rank 0 (the file cannot be written) is raised on every rank.
template <class X>
void save_npy(const std::filesystem::path& path, const X& x) {
  const auto t = gather(x);
  detail::collectively([&] {
    if (rt::rank() == 0) lz::save_npy(path, t);
  });
}
/// Reads a .npy matrix on rank 0 and distributes it. Collective; errors are raised everywhere.
template <class T = double>
matrix<T> load_npy(const grid& g, const std::filesystem::path& path, blocking b = {}) {
  lz::tensor<T, 2> t;
  detail::collectively([&] {
    if (rt::rank() == 0) t = lz::load_npy<T, 2>(path);
  });
  return scatter<T>(g, t, b);
}

} // namespace lz::dist

namespace lz {

/// The plan of `dst = e` for a distributed destination: the PBLAS calls, redistributions, local
/// loops and temporaries, computed without running anything (not collective).
template <class T, class E>
std::string explain(dist::matrix<T>& dst, const E& e) {
  return dist::detail::plan_text<detail::assign_op::set>(dst.view(),
                                                         dist::detail::settle_reductions(e));
}
template <class T, class E>
std::string explain(dist::vector<T>& dst, const E& e) {
  return dist::detail::plan_text<detail::assign_op::set>(dst.view(),
                                                         dist::detail::settle_reductions(e));
}
template <class T, std::size_t R, class E>
std::string explain(dist::tensor_view<T, R> dst, const E& e) {
  return dist::detail::plan_text<detail::assign_op::set>(dst, dist::detail::settle_reductions(e));
}

namespace detail {
/// Full reductions over distributed operands (ops/reductions.hpp calls it).
template <class Op, class Fin, class E>
typename reduce_expr<Op, Fin, E>::value_type dist_reduce_value(const reduce_expr<Op, Fin, E>& r) {
  return dist::detail::reduce_value(r);
}
} // namespace detail

} // namespace lz
