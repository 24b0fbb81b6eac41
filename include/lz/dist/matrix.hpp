// lz::dist's types: the MPI environment, BLACS process grids, and block-cyclic matrices and
// vectors that are leaves of ordinary lazuli expressions (docs/distributed.md). A distributed
// leaf lives in its own memory space (lz::dist::space): a tree over it evaluates through the
// dist sinks (dist/plan.hpp), never through the host's loops, and mixing it with host or device
// operands is a compile error, as between host and device.
#pragma once

#include <lz/dist/runtime.hpp>
#include <lz/lz.hpp>
#include <lz/npy.hpp>

#include <functional>
#include <memory>
#include <utility>

namespace lz {
/// The base of lz::dist's leaves (empty): it puts namespace lz among their associated
/// namespaces, so that lazuli's operators (`2.0 * A * B`) are found for them.
struct distributed_leaf {};
} // namespace lz

namespace lz::dist {

/// The memory space of distributed operands (the next free bit of lz::memory_space).
inline constexpr memory_space space = memory_space(1u << 2);

/// MPI for the life of this object: MPI_Init_thread (FUNNELED) at construction unless the
/// program already initialized MPI (then it is adopted and left running), MPI_Finalize at
/// destruction when this object started it. It also caps the threads per rank: OpenBLAS at 1
/// (ScaLAPACK's ranks are the parallelism) and lazuli's own pool at the node's cores divided
/// by its ranks (LZ_NUM_THREADS, when set, wins); LZ_DIST_PANEL sets PBLAS's panel width
/// (set_pblas_panel; std::invalid_argument when malformed). Make one, first, in main; make every
/// lz::dist matrix inside its lifetime.
class environment {
 public:
  environment(int& argc, char**& argv) : owned_(rt::init(&argc, &argv)) {
    start(LZ_CHECKED != 0, owned_);
  }
  environment() : owned_(rt::init(nullptr, nullptr)) { start(LZ_CHECKED != 0, owned_); }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment();
  /// This process's rank in MPI_COMM_WORLD, and the number of ranks.
  int rank() const noexcept;
  int size() const noexcept;

 private:
  // The thread caps, PBLAS's panel width (LZ_DIST_PANEL), and plan checks on in the user's
  // checked builds (dist/plan.hpp). On an error, MPI is finalized again when this started it.
  static void start(bool checked, bool owned);
  bool owned_ = false;
};

namespace detail {
template <class T, std::size_t R, class D>
class distributed;
} // namespace detail

/// A BLACS process grid of p × q ranks (ranks 0 .. p·q-1 of MPI_COMM_WORLD, row-major); ranks
/// beyond p·q are idle in it (they hold no part of its matrices but still take part in every
/// assignment, which is collective). Grids are made once per shape and cached.
class grid {
 public:
  /// The p × q grid. Collective. std::invalid_argument when p·q exceeds the ranks.
  grid(int p, int q) : g_(rt::grid(p, q)) {}
  /// The most square grid over all ranks (p <= q, p·q = ranks).
  static grid square() {
    int p = 1, q = 1;
    rt::square_shape(rt::size(), p, q);
    return grid(p, q);
  }
  int rows() const noexcept { return g_->nprow; }
  int cols() const noexcept { return g_->npcol; }
  /// This rank's row and column in the grid (-1 when idle in it).
  int row() const noexcept { return g_->myrow; }
  int col() const noexcept { return g_->mycol; }
  bool member() const noexcept { return g_->member(); }
  const std::shared_ptr<const rt::grid_state>& state() const noexcept { return g_; }
  friend bool operator==(const grid& a, const grid& b) noexcept { return a.g_ == b.g_; }

 private:
  template <class, std::size_t, class>
  friend class detail::distributed;
  grid() = default; // no grid yet (a matrix being copied into)
  std::shared_ptr<const rt::grid_state> g_;
};

/// Block sizes of the block-cyclic distribution (ScaLAPACK's MB × NB).
struct blocking {
  index_t mb = 64, nb = 64;
};

namespace detail {
template <class T>
constexpr char dtype_letter() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, std::complex<float>> ||
                    std::is_same_v<T, std::complex<double>>,
                "lz::dist: distributed matrices hold float, double, std::complex<float> or "
                "std::complex<double>");
  return std::is_same_v<T, float>                 ? 's'
         : std::is_same_v<T, double>              ? 'd'
         : std::is_same_v<T, std::complex<float>> ? 'c'
                                                  : 'z';
}

// Local index → global index along one dimension (blocks of nb dealt to np processes).
inline index_t global_index(index_t l, index_t nb, int p, int np) noexcept {
  return ((l / nb) * np + p) * nb + l % nb;
}
} // namespace detail

template <class T, std::size_t R>
class tensor_view;

namespace detail {
template <lz::detail::assign_op Op, class T, std::size_t R, class E>
void assign_to(tensor_view<T, R> dst, const E& e);
} // namespace detail

/// A view of a distributed matrix or vector (a leaf): global shape and strides over the
/// matrix's virtual addresses (runtime.hpp). Transposes and sub-matrices (`A(lz::range(0, k),
/// lz::all)`) are views PBLAS takes without copies; a view with other strides (a step) is
/// refused where it is used.
template <class T, std::size_t R>
class tensor_view : public distributed_leaf {
  T* data_ = nullptr;
  strided_layout<R> layout_{};

 public:
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = lz::detail::leaf_kind;
  static constexpr memory_space lz_space = dist::space;
  static constexpr std::size_t rank = R;
  template <class U, std::size_t R2>
  using rebind = tensor_view<U, R2>;

  tensor_view() = default;
  tensor_view(const tensor_view&) = default;
  tensor_view(T* data, const strided_layout<R>& l, lz::detail::trusted_t) noexcept
      : data_(data), layout_(l) {}
  template <class U>
  requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
      tensor_view(const tensor_view<U, R>& v)
  noexcept : data_(v.data()), layout_(v.layout()) {}

  /// The virtual address of element 0 (never dereferenceable).
  T* data() const noexcept { return data_; }
  const strided_layout<R>& layout() const noexcept { return layout_; }
  const shape_t<R>& shape() const noexcept { return layout_.extents; }
  const shape_t<R>& strides() const noexcept { return layout_.strides; }
  index_t extent(std::size_t k) const noexcept { return layout_.extents[k]; }
  index_t size() const noexcept { return layout_.size(); }
  bool empty() const noexcept { return size() == 0; }
  index_t rows() const noexcept requires(R == 2) { return extent(0); }
  index_t cols() const noexcept requires(R == 2) { return extent(1); }
  tensor_view view() const noexcept { return *this; }

  /// A sub-view: `A(lz::range(0, 64), lz::all)`.
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> &&
                                  ...)) dist::tensor_view<T, sliced_rank_v<S...>>
  operator()(const S&... s) const {
    auto [off, l] = slice_layout(layout_, s...);
    return dist::tensor_view<T, sliced_rank_v<S...>>(data_ + off, l, lz::detail::trusted);
  }

  /// Collective: every rank evaluates the same assignment.
  tensor_view& operator=(const tensor_view& v) requires(!std::is_const_v<T>) {
    detail::assign_to<lz::detail::assign_op::set>(*this, v);
    return *this;
  }
  template <class E>
  requires(!std::is_const_v<T> && expression_or_scalar<E>) tensor_view& operator=(const E& e) {
    detail::assign_to<lz::detail::assign_op::set>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator+=(const E& e) {
    detail::assign_to<lz::detail::assign_op::add>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator-=(const E& e) {
    detail::assign_to<lz::detail::assign_op::sub>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator*=(const E& e) {
    detail::assign_to<lz::detail::assign_op::mul>(*this, e);
    return *this;
  }
  template <expression_or_scalar E>
  tensor_view& operator/=(const E& e) {
    detail::assign_to<lz::detail::assign_op::div>(*this, e);
    return *this;
  }
};

namespace detail {
// What matrix and vector (D) share: the storage, views, and the collective assignments.
template <class T, std::size_t R, class D>
class distributed : public distributed_leaf {
 public:
  using value_type = T;
  using element_type = T;
  using lz_expression = void;
  using lz_kind = lz::detail::leaf_kind;
  static constexpr memory_space lz_space = dist::space;
  static constexpr std::size_t rank = R;

  T* data() const noexcept { return reinterpret_cast<T*>(s_->vbase); }
  const strided_layout<R>& layout() const noexcept { return layout_; }
  const shape_t<R>& shape() const noexcept { return layout_.extents; }
  index_t size() const noexcept { return layout_.size(); }
  bool empty() const noexcept { return size() == 0; }
  dist::tensor_view<T, R> view() noexcept { return {data(), layout_, lz::detail::trusted}; }
  dist::tensor_view<const T, R> view() const noexcept {
    return {data(), layout_, lz::detail::trusted};
  }
  operator dist::tensor_view<T, R>() noexcept { return view(); }
  operator dist::tensor_view<const T, R>() const noexcept { return view(); }

  /// The grid it is distributed over, and its blocks.
  dist::grid grid() const { return grid_; }
  dist::blocking blocks() const noexcept { return {s_->mb, s_->nb}; }
  /// The storage (ScaLAPACK descriptor, local block) for users' own ScaLAPACK calls.
  const rt::storage& storage() const noexcept { return *s_; }
  /// Column-major leading dimension of the local block, and its ScaLAPACK descriptor.
  index_t local_ld() const noexcept { return s_->lld; }
  const int* descriptor() const noexcept { return s_->desc; }

  /// A sub-view: `A(lz::range(0, 64), lz::all)`.
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) {
    return view()(s...);
  }
  template <slice_arg... S>
  requires(sizeof...(S) == R && !(std::integral<std::remove_cvref_t<S>> && ...)) auto
  operator()(const S&... s) const {
    return view()(s...);
  }

  /// Collective assignments (every rank makes them): `C = e`, `C += e`, `-=`, `*=`, `/=`.
  template <class E>
  requires expression_or_scalar<E> D& operator=(const E& e) {
    detail::assign_to<lz::detail::assign_op::set>(view(), e);
    return self();
  }
  template <expression_or_scalar E>
  D& operator+=(const E& e) {
    detail::assign_to<lz::detail::assign_op::add>(view(), e);
    return self();
  }
  template <expression_or_scalar E>
  D& operator-=(const E& e) {
    detail::assign_to<lz::detail::assign_op::sub>(view(), e);
    return self();
  }
  template <expression_or_scalar E>
  D& operator*=(const E& e) {
    detail::assign_to<lz::detail::assign_op::mul>(view(), e);
    return self();
  }
  template <expression_or_scalar E>
  D& operator/=(const E& e) {
    detail::assign_to<lz::detail::assign_op::div>(view(), e);
    return self();
  }

 protected:
  distributed() = default;
  distributed(dist::grid g, index_t m, index_t n, index_t mb, index_t nb, const shape_t<R>& ext,
              const shape_t<R>& str)
      : grid_(std::move(g)), s_(rt::allocate(grid_.state(), m, n, mb, nb, dtype_letter<T>())) {
    layout_.extents = ext;
    layout_.strides = str;
  }
  // A deep copy: the same distribution, so each rank copies its own block (no communication).
  void copy_from(const distributed& o) {
    grid_ = o.grid_;
    s_ = rt::allocate(grid_.state(), o.s_->m, o.s_->n, o.s_->mb, o.s_->nb, dtype_letter<T>());
    layout_ = o.layout_;
    const std::size_t bytes = std::size_t(s_->lld) * std::size_t(s_->lcols) * sizeof(T);
    if (s_->local && o.s_->local) std::memcpy(s_->local, o.s_->local, bytes);
  }
  T* local_ptr() const noexcept { return reinterpret_cast<T*>(s_->local); }
  D& self() noexcept { return static_cast<D&>(*this); }
  // Copy assignment: the values (collective) when shape and grid match, else a deep copy.
  void copy_assign(const distributed& o) {
    if (this == &o) return;
    if (shape() == o.shape() && grid() == o.grid())
      detail::assign_to<lz::detail::assign_op::set>(view(), o.view());
    else
      copy_from(o);
  }

  dist::grid grid_;
  std::shared_ptr<rt::storage> s_;
  strided_layout<R> layout_{};
};
} // namespace detail

/// A block-cyclic m × n matrix over a grid (ScaLAPACK's layout: blocks of mb × nb dealt
/// round-robin to the grid's rows and columns, each rank's blocks column-major), zero-filled;
/// T is float, double, std::complex<float> or std::complex<double>.
/// Copies are deep (each rank copies its part); moves are free. `C = 2.0 * A * B + 3.0 * C;`
/// is ONE pdgemm. Every assignment is collective: every rank of MPI_COMM_WORLD must make it.
template <class T>
class matrix : public detail::distributed<T, 2, matrix<T>> {
  using base = detail::distributed<T, 2, matrix<T>>;

 public:
  matrix(const dist::grid& g, index_t m, index_t n, blocking b = {})
      : base(g, m, n, b.mb, b.nb, {m, n}, {1, m}) {}
  matrix(const matrix& o) : base() { this->copy_from(o); }
  matrix(matrix&&) noexcept = default;
  matrix& operator=(matrix&&) noexcept = default;
  /// Same shape: the values are assigned (collective); another shape: a deep copy.
  matrix& operator=(const matrix& o) {
    this->copy_assign(o);
    return *this;
  }
  using base::operator=;
  /// A new matrix holding the expression's value, distributed like its first distributed
  /// operand (its grid and blocks).
  template <expression E>
  requires(space_v<E> == dist::space && rank_v<E> == 2) matrix(const E& e);

  index_t rows() const noexcept { return this->shape()[0]; }
  index_t cols() const noexcept { return this->shape()[1]; }

  /// This rank's block: a column-major host view of local_rows() × local_cols() elements
  /// (ScaLAPACK's local array), for users' own code; global_row / global_col map its indices.
  lz::tensor_view<T, 2> local() noexcept { return local_view<T>(); }
  lz::tensor_view<const T, 2> local() const noexcept { return local_view<const T>(); }
  index_t global_row(index_t li) const noexcept {
    return detail::global_index(li, this->s_->mb, this->grid_.row(), this->grid_.rows());
  }
  index_t global_col(index_t lj) const noexcept {
    return detail::global_index(lj, this->s_->nb, this->grid_.col(), this->grid_.cols());
  }

 private:
  template <class U>
  lz::tensor_view<U, 2> local_view() const noexcept {
    strided_layout<2> l;
    l.extents = {this->s_->lrows, this->s_->lcols};
    l.strides = {1, this->s_->lld};
    return lz::tensor_view<U, 2>(this->local_ptr(), l, lz::detail::trusted);
  }
};

/// A distributed vector of n elements: an n × 1 block-cyclic matrix (ScaLAPACK's vectors), so
/// its blocks of mb live on the grid's first column. `y = A * x + y;` is ONE pdgemv.
template <class T>
class vector : public detail::distributed<T, 1, vector<T>> {
  using base = detail::distributed<T, 1, vector<T>>;

 public:
  vector(const dist::grid& g, index_t n, index_t mb = 64) : base(g, n, 1, mb, 1, {n}, {1}) {}
  vector(const vector& o) : base() { this->copy_from(o); }
  vector(vector&&) noexcept = default;
  vector& operator=(vector&&) noexcept = default;
  /// Same shape: the values are assigned (collective); another shape: a deep copy.
  vector& operator=(const vector& o) {
    this->copy_assign(o);
    return *this;
  }
  using base::operator=;
  template <expression E>
  requires(space_v<E> == dist::space && rank_v<E> == 1) vector(const E& e);

  /// This rank's part (empty off the grid's first column), and its indices' global numbers.
  lz::tensor_view<T, 1> local() noexcept { return local_view<T>(); }
  lz::tensor_view<const T, 1> local() const noexcept { return local_view<const T>(); }
  index_t global_index(index_t li) const noexcept {
    return detail::global_index(li, this->s_->mb, this->grid_.row(), this->grid_.rows());
  }

 private:
  template <class U>
  lz::tensor_view<U, 1> local_view() const noexcept {
    strided_layout<1> l;
    l.extents = {this->s_->lcols > 0 ? this->s_->lrows : 0};
    l.strides = {1};
    return lz::tensor_view<U, 1>(this->local_ptr(), l, lz::detail::trusted);
  }
};

/// Fills every element with f(i, j) (a matrix) or f(i) (a vector) of its global index; each
/// rank calls f for its own elements only (no communication).
template <class T, class F>
void fill(matrix<T>& A, F&& f) {
  auto L = A.local();
  for (index_t lj = 0; lj < L.shape()[1]; ++lj) {
    const index_t j = A.global_col(lj);
    for (index_t li = 0; li < L.shape()[0]; ++li) L(li, lj) = T(f(A.global_row(li), j));
  }
}
template <class T, class F>
void fill(vector<T>& x, F&& f) {
  auto L = x.local();
  for (index_t li = 0; li < L.shape()[0]; ++li) L(li) = T(f(x.global_index(li)));
}

} // namespace lz::dist

namespace lz::detail {
// Trees hold distributed operands as views (lvalues) or own them (rvalues), as for tensors.
template <class T>
struct closure<dist::matrix<T>&> {
  using type = dist::tensor_view<const T, 2>;
};
template <class T>
struct closure<const dist::matrix<T>&> {
  using type = dist::tensor_view<const T, 2>;
};
template <class T>
struct closure<dist::vector<T>&> {
  using type = dist::tensor_view<const T, 1>;
};
template <class T>
struct closure<const dist::vector<T>&> {
  using type = dist::tensor_view<const T, 1>;
};
template <class T, std::size_t R>
struct closure<dist::tensor_view<T, R>> {
  using type = dist::tensor_view<const std::remove_const_t<T>, R>;
};
template <class T, std::size_t R>
struct closure<dist::tensor_view<T, R>&> {
  using type = dist::tensor_view<const std::remove_const_t<T>, R>;
};
template <class T, std::size_t R>
struct closure<const dist::tensor_view<T, R>&> {
  using type = dist::tensor_view<const std::remove_const_t<T>, R>;
};
template <class T, std::size_t R>
struct closure<dist::tensor_view<T, R>&&> {
  using type = dist::tensor_view<const std::remove_const_t<T>, R>;
};
template <class T, std::size_t R>
struct closure<const dist::tensor_view<T, R>> {
  using type = dist::tensor_view<const std::remove_const_t<T>, R>;
};

// Views of distributed matrices are distributed views (lz::transpose, lz::slice).
template <class T>
struct as_view_t<dist::matrix<T>&> {
  static constexpr bool ok = true;
  using type = dist::tensor_view<T, 2>;
};
template <class T>
struct as_view_t<const dist::matrix<T>&> {
  static constexpr bool ok = true;
  using type = dist::tensor_view<const T, 2>;
};
template <class T>
struct as_view_t<dist::vector<T>&> {
  static constexpr bool ok = true;
  using type = dist::tensor_view<T, 1>;
};
template <class T>
struct as_view_t<const dist::vector<T>&> {
  static constexpr bool ok = true;
  using type = dist::tensor_view<const T, 1>;
};
template <class X>
requires requires {
  typename std::remove_cvref_t<X>::element_type;
} && std::is_same_v<
    std::remove_cvref_t<X>,
    dist::tensor_view<typename std::remove_cvref_t<X>::element_type, std::remove_cvref_t<X>::rank>>
struct as_view_t<X> {
  static constexpr bool ok = true;
  using type = std::remove_cvref_t<X>;
};
} // namespace lz::detail
