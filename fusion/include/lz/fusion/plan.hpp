// Plans as data, run or explained by a sink. A rule lowers an assignment into steps (BLAS
// calls, loops, temporaries) by calling a sink: exec_sink runs each step as it is lowered;
// explain_sink only records it. The lowering code is shared, so `lz::explain` shows exactly
// what an assignment will do — every BLAS call with its flags, sizes, leading dimensions, α and
// β; every loop with its SIMD width, threads and grain; every temporary with its bytes; and why
// a rule did not apply when it was close.
#pragma once

#include <lz/expr/matmul.hpp>
#include <lz/expr/tensor.hpp>
#include <lz/kernels/alias.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/loop.hpp>
#include <lz/kernels/lapack/lapack.hpp>
#include <lz/kernels/sparse/csr.hpp>
#include <lz/log.hpp>
#include <lz/ops/reductions.hpp>
#include <lz/policy.hpp>

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace lz::fusion {

/// The rules, one per file under rules/, in the order rules.hpp lists them (`rule_v` names the
/// first whose pattern matches a tree at compile time); the device's own rule last.
enum class rule_id {
  reduce,
  normal_equations,
  solve,
  triangular,
  inverse,
  spmv,
  spmm,
  sparse_add,
  gemm,
  gemv,
  sum_of_products,
  level1,
  via_temp,
  nested,
  map,
  bias_relu
};

/// Lowers dst ⊕= e into steps on sink s: the rule list (rules.hpp). Rules call it for the parts
/// they plan separately (groups, temporaries, copies).
template <lz::detail::assign_op Op, class Sink, class P, template <class, std::size_t> class View,
          class T, std::size_t R, class E>
void plan_assign(Sink& s, const P& pol, View<T, R> dst, const E& e);

/// Where a step's operand lives, for explain: the destination, a temporary, or user memory.
struct origin {
  static constexpr int user = -1;
  static constexpr int dst = -2;
  int id = user; ///< >= 0: temporary number
};

/// A matrix (a vector is cols == 1) operand: element (i, j) at ptr[i*rs + j*cs].
template <class V>
struct mat {
  V* ptr = nullptr;
  index_t rows = 0, cols = 0, rs = 0, cs = 0;
  origin from{};

  /// The transposed operand (a view: strides swap).
  mat transposed() const { return {ptr, cols, rows, cs, rs, from}; }
};

namespace detail_plan_mat {
// The first one or two dims of a layout as a mat over p (a vector: a column, cols = 1).
template <class P, class L>
mat<P> over(P* p, const L& l, origin from) {
  if constexpr (L::rank() == 2)
    return {p, l.extents[0], l.extents[1], l.strides[0], l.strides[1], from};
  else
    return {p, l.extents[0], 1, l.strides[0], 1, from};
}
} // namespace detail_plan_mat

/// A view as a read-only mat (a vector becomes a column: rows = n, cols = 1).
template <class V, class L>
mat<const V> mat_of(const L& leaf, origin from = {}) {
  return detail_plan_mat::over<const V>(leaf.data(), leaf.layout(), from);
}

/// A mat as a read-only view of rank R (for copy loops), of the sink's view kind.
template <std::size_t R, class Sink, class V>
auto view_of(const Sink&, const mat<V>& m) {
  strided_layout<R> l;
  l.extents[0] = m.rows;
  l.strides[0] = m.rs;
  if constexpr (R == 2) {
    l.extents[1] = m.cols;
    l.strides[1] = m.cs;
  }
  return typename Sink::template view<const V, R>(m.ptr, l, lz::detail::trusted);
}

/// Writable mat of a destination view.
template <template <class, std::size_t> class View, class V, std::size_t R>
mat<V> mat_of_dst(View<V, R> d, origin from) {
  return detail_plan_mat::over<V>(d.data(), d.layout(), from);
}

/// One gemm step, fully decided: BLAS (order, flags, leading dims) or lazuli's own kernel
/// (any strides).
template <class V>
struct gemm_step {
  bool generic = false;
  kernels::blas::order o = kernels::blas::order::row_major;
  kernels::blas::trans ta = kernels::blas::trans::none, tb = kernels::blas::trans::none;
  index_t m = 0, n = 0, k = 0;
  V alpha{}, beta{};
  mat<const V> A, B;
  mat<V> C;
  index_t lda = 0, ldb = 0, ldc = 0;
};

/// One gemv step: y = alpha·op(A)·x + beta·y.
template <class V>
struct gemv_step {
  bool generic = false;
  kernels::blas::order o = kernels::blas::order::row_major;
  kernels::blas::trans t = kernels::blas::trans::none;
  index_t m = 0, n = 0; ///< of A as stored (BLAS convention)
  V alpha{}, beta{};
  mat<const V> A, x; ///< x: cols == 1, stride rs
  mat<V> y;
  index_t lda = 0;
};

/// One syrk step: C = alpha·op(A)·op(A)ᵀ + beta·C (full symmetric result).
template <class V>
struct syrk_step {
  kernels::blas::order o = kernels::blas::order::row_major;
  kernels::blas::trans t = kernels::blas::trans::none;
  index_t n = 0, k = 0;
  V alpha{}, beta{};
  mat<const V> A;
  mat<V> C;
  index_t lda = 0, ldc = 0;
};

/// Level-1 steps.
template <class V>
struct axpy_step {
  index_t n = 0;
  V alpha{};
  mat<const V> x;
  mat<V> y;
};
template <class V>
struct scal_step {
  index_t n = 0;
  V alpha{};
  mat<V> x;
};

/// The LAPACK routines a plan step runs (kernels/lapack). trcheck is trtrs's test for a zero on
/// the diagonal on its own, run before a right-hand side is copied into the destination (so a
/// singular triangular matrix leaves it untouched); it calls no routine and records nothing.
enum class lapack_op : unsigned char { getrf, getrs, getri, potrf, potrs, trtrs, gels, trcheck };

/// One LAPACK step on column-major operands (rs == 1, cs = the leading dimension): a
/// factorization of A in place (getrf, potrf), a solve of B in place with A's factors (getrs,
/// potrs, trtrs), an inverse from the factors (getri) or a least-squares solve (gels: A m×n, B
/// max(m, n)×nrhs). `call` is the user's function, named by the error a singular matrix raises.
template <class V>
struct lapack_step {
  lapack_op op = lapack_op::getrf;
  kernels::blas::trans t = kernels::blas::trans::none;
  kernels::blas::uplo u = kernels::blas::uplo::lower;
  index_t m = 0, n = 0, nrhs = 0;
  mat<V> A, B;
  int* ipiv = nullptr;
  const char* call = "lz::solve";
};

/// A sparse operand as a step reads it: the stored CSR arrays (int32 or int64 indices, by
/// `index_bits`), whether the operand is their transpose, and the values (the user's, or a
/// temporary the plan wrote).
template <class V>
struct sparse_mat {
  index_t rows = 0, cols = 0, nnz = 0; ///< of the stored CSR
  int index_bits = 32;
  const void* row_ptr = nullptr;
  const void* col_idx = nullptr;
  const V* values = nullptr;
  origin from{};
  bool trans = false;             ///< the operand is the stored matrix's transpose (CSC)
  index_t lower = -1, upper = -1; ///< the stored CSR's bandwidths (-1: not known)
  const void* strips = nullptr;   ///< kernels::sparse::csr strips of `values` (pattern_ref's)
  index_t nstrips = 0;
};

/// The sparse steps a plan runs (kernels/sparse): products, `add` (C = alpha·op(A) + beta·C,
/// a scatter of A's stored entries into the dense C) and `multd` (C = alpha·op(A)·op(S) +
/// beta·C for two sparse operands and a dense C: the product accumulated into C's rows, no
/// pattern formed) and `summv` (C = alpha·f(a·op(A) + b·op(S))·B + beta·C: an SpMV (k = 1) or
/// SpMM over the merge of two sparse operands, f applied to the merged values, the sum's pattern
/// never formed).
enum class sparse_op : unsigned char { spmv, spmm, add, multd, summv };

/// One sparse step: C = alpha·op(A)·B + beta·C, B and C dense with any strides (SpMV: k = 1, B
/// and C columns; add: no B; multd: the sparse S, op(S) by `ts`, instead of B; summv: S, a, b
/// and f). `threads`: the policy lets the kernel split rows over lazuli's threads.
template <class V>
struct sparse_step {
  sparse_op op = sparse_op::spmv;
  kernels::blas::trans t = kernels::blas::trans::none;
  sparse_mat<V> A;
  index_t k = 1;
  V alpha{}, beta{};
  mat<const V> B;
  mat<V> C;
  bool threads = true;
  sparse_mat<V> S;                                      ///< multd's right operand, summv's B
  kernels::blas::trans ts = kernels::blas::trans::none; ///< op(S)
  V a{1}, b{1};                                         ///< summv's coefficients
  kernels::sparse::value_map<V> f{};                    ///< summv's function (null: none)
  kernels::sparse::value_fill<V> fill{}; ///< spmv/spmm: A's values computed a block at a time
};

namespace detail_plan {
std::string describe_sparse(const char* routine, char t, index_t m, index_t n, index_t nnz,
                            index_t k, const std::string& alpha, const std::string& beta,
                            index_t rsb, index_t rsc, int a, int b, int c, bool filled = false);
/// The text of a csrmultd step: C (m × n, strides rsc, csc) = alpha·op(A)·op(S) + beta·C.
std::string describe_sparse_multd(const char* routine, char ta, char ts, index_t m, index_t n,
                                  index_t k, index_t nnza, index_t nnzs, const std::string& alpha,
                                  const std::string& beta, index_t rsc, index_t csc, int a, int s,
                                  int c);
/// The text of a csrsummv / csrsummm step: Y = alpha·f(a·op(A) + b·op(B))·X + beta·Y (f: a
/// function applies; k columns; X's and Y's strides).
std::string describe_sparse_summv(const char* routine, char ta, char tb, index_t m, index_t n,
                                  index_t k, index_t nnza, index_t nnzb, const std::string& a,
                                  const std::string& b, bool f, const std::string& alpha,
                                  const std::string& beta, index_t rsx, index_t csx, index_t rsy,
                                  index_t csy, int ia, int ib, int ix, int iy);
/// The text of a csradd step: C (m × n, strides rsc, csc) = alpha·op(A) + beta·C.
std::string describe_sparse_add(const char* routine, char t, index_t m, index_t n, index_t nnz,
                                const std::string& alpha, const std::string& beta, index_t rsc,
                                index_t csc, int a, int c);
std::string describe_lapack(const char* routine, char t, char u, index_t m, index_t n, index_t nrhs,
                            index_t lda, index_t ldb, int a, int b);
/// The text of a trcheck step (the diagonal of an n×n triangular operand a checked for zeros).
std::string describe_trcheck(index_t n, int a);
/// The text of a full reduction `op` over `shape` settled before planning (rules/reduce.hpp).
std::string describe_settled(const char* op, const std::string& shape, index_t block);
/// linalg_error for LAPACK's info > 0 from `routine` on an m×n matrix, in the user's `call`.
[[noreturn]] void throw_lapack_info(const char* call, const char* routine, int info, index_t m,
                                    index_t n);
std::string describe_gemm(const char* routine, bool generic, char o, char ta, char tb, index_t m,
                          index_t n, index_t k, const std::string& alpha, const std::string& beta,
                          index_t lda, index_t ldb, index_t ldc, int a, int b, int c);
std::string describe_gemv(const char* routine, bool generic, char o, char t, index_t m, index_t n,
                          const std::string& alpha, const std::string& beta, index_t lda,
                          index_t incx, index_t incy, int a, int x, int y);
std::string describe_syrk(const char* routine, char o, char t, index_t n, index_t k,
                          const std::string& alpha, const std::string& beta, index_t lda,
                          index_t ldc, int a, int c);
std::string describe_level1(const char* routine, index_t n, const std::string& alpha, index_t incx,
                            index_t incy, int x, int y);
std::string format_scalar(double re, double im);
std::string format_bytes(std::size_t bytes);

/// A byte count in a note, printed as format_bytes prints it.
struct byte_count {
  std::size_t n;
};
/// One piece of a rule's note (LZ_LOG=fusion, lz::explain): text, an integer, a shape or a byte
/// count. A note is a braced list of pieces joined in compiled code (join), so that a rule's
/// message costs each tree that instantiates it a few stores, not a string expression.
struct note_piece {
  enum kind_t : unsigned char { text, integer, shape, bytes };
  kind_t kind = text;
  const char* s = "";
  index_t i = 0;                 ///< the integer, the byte count, or the shape's rank
  const index_t* dims = nullptr; ///< the shape's extents
  note_piece(const char* t) : s(t) {}
  note_piece(const std::string& t) : s(t.c_str()) {}
  template <std::integral I>
  note_piece(I v) : kind(integer), i(static_cast<index_t>(v)) {}
  template <std::size_t R>
  note_piece(const std::array<index_t, R>& sh) : kind(shape), i(index_t(R)), dims(sh.data()) {}
  note_piece(byte_count b) : kind(bytes), i(static_cast<index_t>(b.n)) {}
};
using note_text = std::initializer_list<note_piece>;
/// The pieces of a note as one string (kernels/common/explain.cpp).
std::string join(note_text pieces);
/// Writes a note to the LZ_LOG=fusion stream.
void log_note(note_text pieces);
/// The LZ_LOG=alloc line of a plan's temporary: "temporary (M,N):(sM,sN) 1.2 MiB (why)".
void log_temporary(const index_t* extents, const index_t* strides, std::size_t rank,
                   std::size_t bytes, const char* why);

template <class V>
std::string scalar_text(const V& v) {
  if constexpr (lz::detail::is_complex_v<V>)
    return format_scalar(double(v.real()), double(v.imag()));
  else
    return format_scalar(double(v), 0.0);
}
template <class V>
const char* blas_name(const char* op) { // "gemm" -> "dgemm" / "sgemm" / "zgemm" / "cgemm"
  static thread_local char buf[16];
  char p = std::is_same_v<V, float>                  ? 's'
           : std::is_same_v<V, double>               ? 'd'
           : std::is_same_v<V, std::complex<float>>  ? 'c'
           : std::is_same_v<V, std::complex<double>> ? 'z'
                                                     : 'x';
  buf[0] = p;
  std::size_t i = 0;
  for (; op[i] && i < 14; ++i) buf[i + 1] = op[i];
  buf[i + 1] = 0;
  return buf;
}
/// The routine a LAPACK step runs, with the type's letter: "dgetrf".
template <class V>
const char* lapack_name(lapack_op op) {
  static constexpr const char* ops[] = {"getrf", "getrs", "getri", "potrf",
                                        "potrs", "trtrs", "gels",  "trtrs"};
  return blas_name<V>(ops[int(op)]);
}
} // namespace detail_plan

/// Element types CBLAS takes.
template <class V>
inline constexpr bool blas_type_v =
    std::is_same_v<V, float> || std::is_same_v<V, double> ||
    std::is_same_v<V, std::complex<float>> || std::is_same_v<V, std::complex<double>>;
/// Element types lazuli's own gemm runs: float, double and every 32- or 64-bit integer type
/// (`long long` as well as `std::int64_t`, unsigned too: the kernel computes integers modulo
/// 2^bits, where signed and unsigned products have the same bits).
template <class V>
inline constexpr bool generic_gemm_type_v = std::is_same_v<V, float> || std::is_same_v<V, double> ||
                                            (std::is_integral_v<V> && !std::is_same_v<V, bool> &&
                                             (sizeof(V) == 4 || sizeof(V) == 8));
/// The type the compiled kernel is instantiated for: V itself, or the signed integer of its size
/// (unsigned types are its unsigned variant; `long long` has `long`'s representation on LP64 and
/// reaches the compiled library through a pointer it never inlines across).
template <class V>
using generic_gemm_t =
    std::conditional_t<!std::is_integral_v<V>, V,
                       std::conditional_t<sizeof(V) == 4, std::int32_t, std::int64_t>>;

/// Runs every step as it is lowered (the normal path of an assignment).
class exec_sink {
 public:
  /// The view kind plans build over this sink's memory (temporaries, substituted groups).
  template <class U, std::size_t R>
  using view = tensor_view<U, R>;
  exec_sink() = default;
  exec_sink(const exec_sink&) = delete;
  exec_sink& operator=(const exec_sink&) = delete;
  // Every assignment makes a sink; most keep no temporary: one test inline, the loop compiled.
  ~exec_sink() {
    if (ntemps_) lz::detail::free_all(temps_, ntemps_);
  }

  /// A fresh row-major temporary (freed when the plan ends).
  template <class T, std::size_t R>
  tensor_view<T, R> temp(const shape_t<R>& s, const char* why) {
    tensor<T, R> t(s, uninitialized);
    lz::detail::count_temporary();
    tensor_view<T, R> v(t.data(), t.layout(), lz::detail::trusted);
    if (LZ_UNLIKELY(logging::on(logging::alloc)))
      detail_plan::log_temporary(t.layout().extents.data(), t.layout().strides.data(), R,
                                 std::size_t(t.size()) * sizeof(T), why);
    keep(t.release());
    return v;
  }
  int last_temp() const { return ntemps_ - 1; }
  /// Where a pointer points, for explain labels (the executing sink does not track it).
  origin origin_of(const void*) const { return {}; }
  void set_dst(const void*) {}

  /// Trace a rule decision (only under LZ_LOG=fusion; callers guard with noting()).
  bool noting() const { return logging::on(logging::fusion); }
  void note(detail_plan::note_text msg) { detail_plan::log_note(msg); }

  template <class V>
  void gemm(const char* rule, const gemm_step<V>& g);
  template <class V>
  void gemv(const char* rule, const gemv_step<V>& g);
  template <class V>
  void syrk(const char* rule, const syrk_step<V>& g);
  template <class V>
  void axpy(const char* rule, const axpy_step<V>& g);
  template <class V>
  void scal(const char* rule, const scal_step<V>& g);
  /// A LAPACK step (kernels/lapack); info > 0 throws lz::linalg_error naming step.call.
  template <class V>
  void lapack(const char* rule, const lapack_step<V>& g);
  /// A sparse step (kernels/sparse): one SpMV or SpMM.
  template <class V>
  void sparse(const char* rule, const sparse_step<V>& g);
  /// The map step: dst ⊕= e as one elementwise loop (rules/map.hpp; no opaque node left in e).
  template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
  void map(const P& pol, tensor_view<T, R> dst, const E& e);
  /// A reduction step straight into dst (rules/reduce.hpp decided that it applies).
  template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
  void reduce(const P& pol, tensor_view<T, R> dst, const E& e);

 private:
  void keep(void* p) {
    if (ntemps_ == max_temps) {
      lz::detail::free_bytes(p);
      throw std::length_error("lz: a plan needs more than 32 temporaries");
    }
    temps_[ntemps_++] = p;
  }
  static constexpr int max_temps = 32;
  void* temps_[max_temps]; // [0, ntemps_) hold temporaries; the rest is never read
  int ntemps_ = 0;
};

/// Records steps as text instead of running them (lz::explain).
class explain_sink {
 public:
  template <class U, std::size_t R>
  using view = tensor_view<U, R>;

  template <class T, std::size_t R>
  tensor_view<T, R> temp(const shape_t<R>& s, const char* why) {
    const auto l = strided_layout<R>::right(s);
    const std::size_t bytes = std::size_t(l.size()) * sizeof(T);
    total_bytes_ += bytes;
    ++ntemps_;
    line("temporary tmp" + std::to_string(ntemps_ - 1) + " " + to_string(l) + " " +
         detail_plan::format_bytes(bytes) + " (" + why + ")");
    // A placeholder view: explain never dereferences it; its address encodes the temporary's
    // number (origin_of), far below any real allocation.
    return tensor_view<T, R>(reinterpret_cast<T*>(alignment * (2 + ntemps_ - 1)), l,
                             lz::detail::trusted);
  }
  int last_temp() const { return ntemps_ - 1; }
  /// The plan's destination (labelled "dst"), and the label of any pointer: dst, tmpN or user.
  void set_dst(const void* p) { dst_ = p; }
  origin origin_of(const void* p) const {
    if (p && p == dst_) return {origin::dst};
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (a >= 2 * alignment && a % alignment == 0 && a / alignment - 2 < std::uintptr_t(ntemps_))
      return {int(a / alignment - 2)};
    return {};
  }
  std::string name_of(const void* p) const {
    const origin o = origin_of(p);
    return o.id == origin::dst ? "dst" : o.id >= 0 ? "tmp" + std::to_string(o.id) : "view";
  }

  bool noting() const { return true; }
  void note(detail_plan::note_text msg) { steps_ += "     note: " + detail_plan::join(msg) + "\n"; }

  template <class V>
  void gemm(const char* rule, const gemm_step<V>& g) {
    step(detail_plan::describe_gemm(g.generic ? "gemm_generic" : detail_plan::blas_name<V>("gemm"),
                                    g.generic, char(g.o), char(g.ta), char(g.tb), g.m, g.n, g.k,
                                    detail_plan::scalar_text(g.alpha),
                                    detail_plan::scalar_text(g.beta), g.lda, g.ldb, g.ldc,
                                    g.A.from.id, g.B.from.id, g.C.from.id),
         rule);
  }
  template <class V>
  void gemv(const char* rule, const gemv_step<V>& g) {
    step(detail_plan::describe_gemv(g.generic ? "gemv_generic" : detail_plan::blas_name<V>("gemv"),
                                    g.generic, char(g.o), char(g.t), g.m, g.n,
                                    detail_plan::scalar_text(g.alpha),
                                    detail_plan::scalar_text(g.beta), g.lda, g.x.rs, g.y.rs,
                                    g.A.from.id, g.x.from.id, g.y.from.id),
         rule);
  }
  template <class V>
  void syrk(const char* rule, const syrk_step<V>& g) {
    step(detail_plan::describe_syrk(detail_plan::blas_name<V>("syrk"), char(g.o), char(g.t), g.n,
                                    g.k, detail_plan::scalar_text(g.alpha),
                                    detail_plan::scalar_text(g.beta), g.lda, g.ldc, g.A.from.id,
                                    g.C.from.id),
         rule);
  }
  template <class V>
  void axpy(const char* rule, const axpy_step<V>& g) {
    step(detail_plan::describe_level1(detail_plan::blas_name<V>("axpy"), g.n,
                                      detail_plan::scalar_text(g.alpha), g.x.rs, g.y.rs,
                                      g.x.from.id, g.y.from.id),
         rule);
  }
  template <class V>
  void scal(const char* rule, const scal_step<V>& g) {
    step(detail_plan::describe_level1(detail_plan::blas_name<V>("scal"), g.n,
                                      detail_plan::scalar_text(g.alpha), g.x.rs, 0, g.x.from.id,
                                      origin::user),
         rule);
  }

  template <class V>
  void lapack(const char* rule, const lapack_step<V>& g) {
    if (g.op == lapack_op::trcheck)
      step(detail_plan::describe_trcheck(g.n, g.A.from.id), rule);
    else
      step(detail_plan::describe_lapack(detail_plan::lapack_name<V>(g.op), char(g.t), char(g.u),
                                        g.m, g.n, g.nrhs, g.A.cs, g.B.cs, g.A.from.id, g.B.from.id),
           rule);
  }

  template <class V>
  void sparse(const char* rule, const sparse_step<V>& g) {
    if (g.op == sparse_op::multd) {
      const index_t m = g.C.rows, n = g.C.cols, k = g.A.trans ? g.A.rows : g.A.cols;
      step(detail_plan::describe_sparse_multd(
               detail_plan::blas_name<V>("csrmultd"), char(g.t), char(g.ts), m, n, k, g.A.nnz,
               g.S.nnz, detail_plan::scalar_text(g.alpha), detail_plan::scalar_text(g.beta), g.C.rs,
               g.C.cs, g.A.from.id, g.S.from.id, g.C.from.id),
           rule);
      return;
    }
    if (g.op == sparse_op::summv) {
      const bool tr = g.t != kernels::blas::trans::none;
      step(detail_plan::describe_sparse_summv(
               detail_plan::blas_name<V>(g.k == 1 ? "csrsummv" : "csrsummm"), char(g.t), char(g.ts),
               tr ? g.A.cols : g.A.rows, tr ? g.A.rows : g.A.cols, g.k, g.A.nnz, g.S.nnz,
               detail_plan::scalar_text(g.a), detail_plan::scalar_text(g.b), g.f.apply != nullptr,
               detail_plan::scalar_text(g.alpha), detail_plan::scalar_text(g.beta), g.B.rs, g.B.cs,
               g.C.rs, g.C.cs, g.A.from.id, g.S.from.id, g.B.from.id, g.C.from.id),
           rule);
      return;
    }
    if (g.op == sparse_op::add) {
      step(detail_plan::describe_sparse_add(
               detail_plan::blas_name<V>("csradd"), char(g.t), g.C.rows, g.C.cols, g.A.nnz,
               detail_plan::scalar_text(g.alpha), detail_plan::scalar_text(g.beta), g.C.rs, g.C.cs,
               g.A.from.id, g.C.from.id),
           rule);
      return;
    }
    step(detail_plan::describe_sparse(
             detail_plan::blas_name<V>(g.op == sparse_op::spmv ? "csrmv" : "csrmm"), char(g.t),
             g.A.rows, g.A.cols, g.A.nnz, g.k, detail_plan::scalar_text(g.alpha),
             detail_plan::scalar_text(g.beta), g.B.rs, g.C.rs, g.A.from.id, g.B.from.id,
             g.C.from.id, g.fill.fill != nullptr),
         rule);
  }

  /// A loop step, already described.
  void loop(const std::string& text, const char* rule) { step(text, rule); }
  template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
  void map(const P& pol, tensor_view<T, R> dst, const E& e);
  template <lz::detail::assign_op Op, class P, class T, std::size_t R, class E>
  void reduce(const P& pol, tensor_view<T, R> dst, const E& e);
  /// A full reduction settled before the plan (rules/reduce.hpp), described as its own pass.
  /// Returns a placeholder for its value: NaN where the type has one (a BLAS step's alpha that
  /// holds it shows "nan"), else 0.
  template <class P, class E>
  typename E::value_type settled(const P& pol, const E& e);
  /// A computed sparse term settled before the plan (fusion/sparse.hpp, defined in
  /// rules/sparse_apply.hpp): described as its own step, a placeholder CSR leaf returned.
  template <class G>
  auto settled_sparse(const G& g);

  /// The whole plan as text.
  std::string text(const std::string& title) const {
    std::string s = title + "\n" + steps_;
    s += "  temporaries: " + std::to_string(ntemps_) + " (" +
         detail_plan::format_bytes(total_bytes_) + ")\n";
    return s;
  }
  /// The plan as Graphviz DOT: one node per step, edges in execution order.
  std::string dot(const std::string& title) const;

  int steps() const { return nsteps_; }

 protected: // the device explain sink (include/lz/device/plan.hpp) records through these
  void line(const std::string& s) { steps_ += "  " + s + "\n"; }
  void step(const std::string& s, const char* rule) {
    ++nsteps_;
    line(std::to_string(nsteps_) + ". " + s + "   [rule " + rule + "]");
    labels_.push_back(s + "\\n[rule " + rule + "]");
  }
  std::string steps_;
  const void* dst_ = nullptr;
  std::vector<std::string> labels_;
  int ntemps_ = 0, nsteps_ = 0;
  std::size_t total_bytes_ = 0;
};

// ---- exec_sink steps: the calls into kernels/blas --------------------------------------------

template <class V>
void exec_sink::gemm(const char*, const gemm_step<V>& g) {
  if (g.generic) {
    if constexpr (generic_gemm_type_v<V>) {
      using W = generic_gemm_t<V>;
      kernels::blas::gemm_generic<W>(
          g.m, g.n, g.k, std::bit_cast<W>(g.alpha), reinterpret_cast<const W*>(g.A.ptr), g.A.rs,
          g.A.cs, reinterpret_cast<const W*>(g.B.ptr), g.B.rs, g.B.cs, std::bit_cast<W>(g.beta),
          reinterpret_cast<W*>(g.C.ptr), g.C.rs, g.C.cs);
    }
  } else if constexpr (blas_type_v<V>) {
    kernels::blas::gemm(g.o, g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.A.ptr, g.lda, g.B.ptr, g.ldb,
                        g.beta, g.C.ptr, g.ldc);
  }
}

template <class V>
void exec_sink::gemv(const char*, const gemv_step<V>& g) {
  if (g.generic) {
    if constexpr (generic_gemm_type_v<V>) {
      // g.A is op(A) as used (rows × cols, any strides): the own kernel takes it directly.
      using W = generic_gemm_t<V>;
      kernels::blas::gemv_generic<W>(
          g.A.rows, g.A.cols, std::bit_cast<W>(g.alpha), reinterpret_cast<const W*>(g.A.ptr),
          g.A.rs, g.A.cs, reinterpret_cast<const W*>(g.x.ptr), g.x.rs, std::bit_cast<W>(g.beta),
          reinterpret_cast<W*>(g.y.ptr), g.y.rs);
    }
  } else if constexpr (blas_type_v<V>) {
    // Vectors are passed as lazuli views (element 0, signed stride); the wrapper converts.
    kernels::blas::gemv(g.o, g.t, g.m, g.n, g.alpha, g.A.ptr, g.lda, g.x.ptr, g.x.rs, g.beta,
                        g.y.ptr, g.y.rs);
  }
}

template <class V>
void exec_sink::syrk(const char*, const syrk_step<V>& g) {
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>)
    kernels::blas::syrk(g.o, kernels::blas::uplo::upper, g.t, g.n, g.k, g.alpha, g.A.ptr, g.lda,
                        g.beta, g.C.ptr, g.ldc);
}

template <class V>
void exec_sink::axpy(const char*, const axpy_step<V>& g) {
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>)
    kernels::blas::axpy(g.n, g.alpha, g.x.ptr, g.x.rs, g.y.ptr, g.y.rs);
}

template <class V>
void exec_sink::scal(const char*, const scal_step<V>& g) {
  if constexpr (std::is_same_v<V, float> || std::is_same_v<V, double>)
    kernels::blas::scal(g.n, g.alpha, g.x.ptr, g.x.rs);
}

template <class V>
void exec_sink::lapack(const char*, const lapack_step<V>& g) {
  namespace lp = kernels::lapack;
  using kernels::blas::uplo;
  int info = 0;
  switch (g.op) {
  case lapack_op::getrf:
    info = lp::getrf(g.m, g.n, g.A.ptr, g.A.cs, g.ipiv);
    break;
  case lapack_op::getrs:
    lp::getrs(g.t, g.n, g.nrhs, g.A.ptr, g.A.cs, g.ipiv, g.B.ptr, g.B.cs);
    break;
  case lapack_op::getri:
    info = lp::getri(g.n, g.A.ptr, g.A.cs, g.ipiv);
    break;
  case lapack_op::potrf:
    info = lp::potrf(g.u, g.n, g.A.ptr, g.A.cs);
    break;
  case lapack_op::potrs:
    lp::potrs(g.u, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
    break;
  case lapack_op::trtrs:
    info = lp::trtrs(g.u, g.t, lp::diag::non_unit, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
    break;
  case lapack_op::gels:
    info = lp::gels(g.t, g.m, g.n, g.nrhs, g.A.ptr, g.A.cs, g.B.ptr, g.B.cs);
    break;
  case lapack_op::trcheck:
    for (index_t i = 0; i < g.n && !info; ++i)
      if (g.A.ptr[i * (g.A.cs + 1)] == V(0)) info = int(i + 1);
    break;
  }
  if (info > 0)
    detail_plan::throw_lapack_info(g.call, detail_plan::lapack_name<V>(g.op), info, g.m, g.n);
}

template <class V>
void exec_sink::sparse(const char*, const sparse_step<V>& g) {
  namespace sp = kernels::sparse;
  const auto run = [&]<class I>(const I*) {
    const auto csr_of = [](const sparse_mat<V>& m) {
      return sp::csr<V, I>{m.rows,
                           m.cols,
                           m.nnz,
                           static_cast<const I*>(m.row_ptr),
                           static_cast<const I*>(m.col_idx),
                           m.values,
                           m.lower,
                           m.upper,
                           static_cast<const sp::csr<V, I>*>(m.strips),
                           m.nstrips};
    };
    const sp::csr<V, I> A = csr_of(g.A);
    if (g.op == sparse_op::multd)
      sp::spgemm_dense<V, I>(g.t, A, g.ts, csr_of(g.S), g.alpha, g.beta, g.C.ptr, g.C.rs, g.C.cs,
                             g.threads);
    else if (g.op == sparse_op::summv && g.k == 1)
      sp::spmv_sum<V, I>(g.t, A, g.a, g.ts, csr_of(g.S), g.b, g.f, g.alpha, g.B.ptr, g.B.rs, g.beta,
                         g.C.ptr, g.C.rs, g.threads);
    else if (g.op == sparse_op::summv)
      sp::spmm_sum<V, I>(g.t, A, g.a, g.ts, csr_of(g.S), g.b, g.f, g.k, g.alpha, g.B.ptr, g.B.rs,
                         g.B.cs, g.beta, g.C.ptr, g.C.rs, g.C.cs, g.threads);
    else if (g.fill.fill && g.op == sparse_op::spmv)
      sp::spmv_fill<V, I>(g.t, A, g.fill, g.alpha, g.B.ptr, g.B.rs, g.beta, g.C.ptr, g.C.rs,
                          g.threads);
    else if (g.fill.fill)
      sp::spmm_fill<V, I>(g.t, A, g.fill, g.k, g.alpha, g.B.ptr, g.B.rs, g.B.cs, g.beta, g.C.ptr,
                          g.C.rs, g.C.cs, g.threads);
    else if (g.op == sparse_op::spmv)
      sp::spmv<V, I>(g.t, A, g.alpha, g.B.ptr, g.B.rs, g.beta, g.C.ptr, g.C.rs, g.threads);
    else if (g.op == sparse_op::add)
      sp::add_dense<V, I>(g.t, A, g.alpha, g.beta, g.C.ptr, g.C.rs, g.C.cs, g.threads);
    else
      sp::spmm<V, I>(g.t, A, g.k, g.alpha, g.B.ptr, g.B.rs, g.B.cs, g.beta, g.C.ptr, g.C.rs, g.C.cs,
                     g.threads);
  };
  if (g.A.index_bits == 64)
    run(static_cast<const std::int64_t*>(nullptr));
  else
    run(static_cast<const std::int32_t*>(nullptr));
}

} // namespace lz::fusion
