// lz::dist's compiled half: the only file that includes <mpi.h> and declares BLACS, PBLAS and
// ScaLAPACK symbols (include/lz/dist/runtime.hpp says what it offers and why).
#include <lz/dist/runtime.hpp>
#include <lz/errors.hpp>
#include <lz/log.hpp>
#include <lz/memory.hpp>

#include <dlfcn.h>
#include <mpi.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

extern "C" {
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int notdone);

#define LZ_PBLAS_DECLARE(p, T)                                                                     \
  void p##gemm_(const char*, const char*, const int*, const int*, const int*, const T*, const T*,  \
                const int*, const int*, const int*, const T*, const int*, const int*, const int*,  \
                const T*, T*, const int*, const int*, const int*);                                 \
  void p##gemv_(const char*, const int*, const int*, const T*, const T*, const int*, const int*,   \
                const int*, const T*, const int*, const int*, const int*, const int*, const T*,    \
                T*, const int*, const int*, const int*, const int*);                               \
  void p##syrk_(const char*, const char*, const int*, const int*, const T*, const T*, const int*,  \
                const int*, const int*, const T*, T*, const int*, const int*, const int*);         \
  void p##geadd_(const char*, const int*, const int*, const T*, const T*, const int*, const int*,  \
                 const int*, const T*, T*, const int*, const int*, const int*);                    \
  void p##lacpy_(const char*, const int*, const int*, const T*, const int*, const int*,            \
                 const int*, T*, const int*, const int*, const int*);                              \
  void p##gemr2d_(const int*, const int*, const T*, const int*, const int*, const int*, T*,        \
                  const int*, const int*, const int*, const int*);
#define LZ_PBLAS_TRAN(name, T)                                                                     \
  void name(const int*, const int*, const T*, const T*, const int*, const int*, const int*,        \
            const T*, T*, const int*, const int*, const int*);
LZ_PBLAS_DECLARE(ps, float)
LZ_PBLAS_DECLARE(pd, double)
LZ_PBLAS_DECLARE(pc, std::complex<float>)
LZ_PBLAS_DECLARE(pz, std::complex<double>)
LZ_PBLAS_TRAN(pstran_, float)
LZ_PBLAS_TRAN(pdtran_, double)
LZ_PBLAS_TRAN(pctranu_, std::complex<float>) // (the transpose, not the conjugate transpose)
LZ_PBLAS_TRAN(pztranu_, std::complex<double>)
#undef LZ_PBLAS_DECLARE
#undef LZ_PBLAS_TRAN
int pilaenv_(const int* ictxt, const char* prec);
}

namespace {
std::atomic<int> g_pblas_panel{256};
} // namespace

// PBLAS's own tuning hook (PBLAS/SRC/pilaenv.f: "users are encouraged to modify it"): the panel
// width its routines work in — the k of every local gemm inside pdgemm. The reference answers
// 32; with OpenBLAS's AVX-512 kernels a k = 32 update runs at ~60% of a full product's speed,
// and pdgemm on 2 ranks gained 1.27x over 1 instead of ~1.6x. Defined here, it takes the place
// of ScaLAPACK's (the library calls it through its PLT); lz::dist::set_pblas_panel sets it.
extern "C" int pilaenv_(const int*, const char*) {
  return g_pblas_panel.load(std::memory_order_relaxed);
}

namespace lz::dist::rt {
namespace {

std::mutex g_mutex;                                  // registry and grid cache
std::map<std::uintptr_t, const storage*> g_registry; // vbase → storage
std::map<std::pair<int, int>, std::shared_ptr<grid_state>> g_grids;
int g_next_grid = 0;

// PBLAS takes Fortran INTEGERs (32-bit in Debian's build): every size and index must fit.
int fint(index_t v, const char* what) {
  if (v < 0 || v > index_t(std::numeric_limits<int>::max()))
    throw std::length_error(std::string("lz::dist: ") + what + " " + std::to_string(v) +
                            " does not fit ScaLAPACK's 32-bit integers");
  return int(v);
}

// Every PBLAS call is made by the grid's members only; a rank outside it has nothing to do.
bool member(const operand& o) { return o.s && o.s->grid->member(); }

// A valid pointer for ranks whose local block is empty (ScaLAPACK never reads it then).
template <class T>
T* local_of(const storage* s) {
  static T dummy[1] = {};
  return s->local ? reinterpret_cast<T*>(s->local) : dummy;
}

int world_ctxt() { return grid(1, size())->ctxt; }

void trace(const std::string& what) {
  if (logging_on()) log(what);
}

} // namespace

storage::~storage() {
  if (vbase) {
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_registry.erase(vbase);
    }
    ::munmap(reinterpret_cast<void*>(vbase), vbytes);
  }
  lz::detail::free_bytes(local);
}

bool init(int* argc, char*** argv) {
  int done = 0;
  MPI_Initialized(&done);
  if (done) return false;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("lz::dist: MPI_Init_thread failed");
  return true;
}

void finalize(bool owned) noexcept {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto& [shape, g] : g_grids)
      if (g->member()) Cblacs_gridexit(g->ctxt);
    g_grids.clear();
  }
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;
  Cblacs_exit(1); // BLACS lets go of its state; MPI stays up for the caller
  if (owned) MPI_Finalize();
}

void set_pblas_panel(int width) noexcept { g_pblas_panel.store(width, std::memory_order_relaxed); }
int pblas_panel() noexcept { return g_pblas_panel.load(std::memory_order_relaxed); }
bool pblas_panel_in_use() noexcept {
  using fn = int (*)(const int*, const char*);
  const fn resolved = reinterpret_cast<fn>(::dlsym(RTLD_DEFAULT, "pilaenv_"));
  const int ctxt = 0;
  return resolved == &pilaenv_ || (resolved && resolved(&ctxt, "D") == pblas_panel());
}

bool initialized() noexcept {
  int done = 0, fin = 0;
  MPI_Initialized(&done);
  MPI_Finalized(&fin);
  return done && !fin;
}

int rank() noexcept {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() noexcept {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

int node_ranks() noexcept {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

void square_shape(int ranks, int& p, int& q) noexcept {
  p = 1;
  for (int d = 1; d * d <= ranks; ++d)
    if (ranks % d == 0) p = d;
  q = ranks / p;
}

std::shared_ptr<const grid_state> grid(int p, int q) {
  if (!initialized())
    throw std::logic_error("lz::dist: no MPI: make an lz::dist::environment first");
  if (p < 1 || q < 1 || index_t(p) * q > size())
    throw std::invalid_argument("lz::dist: a " + std::to_string(p) + " x " + std::to_string(q) +
                                " grid needs " + std::to_string(index_t(p) * q) +
                                " ranks; this run has " + std::to_string(size()));
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& slot = g_grids[{p, q}];
  if (!slot) { // every rank reaches this for the same (p, q): assignments are collective
    auto g = std::make_shared<grid_state>();
    int ctxt = 0;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "Row", p, q);
    g->nprow = p, g->npcol = q, g->id = g_next_grid++;
    if (rank() < p * q) {
      g->ctxt = ctxt;
      Cblacs_gridinfo(ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    }
    slot = std::move(g);
  }
  return slot;
}

std::shared_ptr<storage> allocate(std::shared_ptr<const grid_state> g, index_t m, index_t n,
                                  index_t mb, index_t nb, char dtype) {
  auto s = std::make_shared<storage>();
  s->esize = dtype == 's' ? 4 : dtype == 'd' || dtype == 'c' ? 8 : 16;
  s->dtype = dtype;
  s->m = fint(m, "rows"), s->n = fint(n, "columns");
  if (mb < 1 || nb < 1)
    throw std::invalid_argument("lz::dist: block sizes must be at least 1 (got " +
                                std::to_string(mb) + " x " + std::to_string(nb) + ")");
  s->mb = fint(mb, "row block"), s->nb = fint(nb, "column block");
  s->grid = std::move(g);
  const grid_state& gr = *s->grid;
  if (gr.member()) {
    s->lrows = numroc(m, mb, gr.myrow, gr.nprow);
    s->lcols = numroc(n, nb, gr.mycol, gr.npcol);
  }
  s->lld = std::max<index_t>(1, s->lrows);
  const int d[9] = {1,          gr.member() ? gr.ctxt : -1, int(m), int(n), int(mb), int(nb), 0, 0,
                    int(s->lld)};
  std::memcpy(s->desc, d, sizeof d);
  const std::size_t lbytes = std::size_t(s->lld) * std::size_t(s->lcols) * s->esize;
  if (s->lrows > 0 && s->lcols > 0) {
    s->local = static_cast<char*>(lz::detail::allocate_bytes(lbytes));
    std::memset(s->local, 0, lbytes);
  }
  // The virtual range: one address per global element, never backed by memory.
  const double span = double(m) * double(n) * double(s->esize);
  if (span > double(std::size_t(1) << 46))
    throw std::length_error("lz::dist: a " + std::to_string(m) + " x " + std::to_string(n) +
                            " matrix is larger than the address range lz::dist reserves (64 TiB)");
  s->vbytes = std::max<std::size_t>(std::size_t(span), 1);
  void* v =
      ::mmap(nullptr, s->vbytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (v == MAP_FAILED) throw std::bad_alloc();
  s->vbase = reinterpret_cast<std::uintptr_t>(v);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_registry[s->vbase] = s.get();
  return s;
}

const storage* find(const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_registry.upper_bound(a);
  if (it == g_registry.begin()) return nullptr;
  --it;
  const storage* s = it->second;
  return a < s->vbase + s->vbytes ? s : nullptr;
}

namespace {
// PBLAS's routines for one element type.
template <class T>
struct pb;
#define LZ_PB(T, p, tran)                                                                          \
  template <>                                                                                      \
  struct pb<T> {                                                                                   \
    static constexpr auto gemm = p##gemm_;                                                         \
    static constexpr auto gemv = p##gemv_;                                                         \
    static constexpr auto syrk = p##syrk_;                                                         \
    static constexpr auto geadd = p##geadd_;                                                       \
    static constexpr auto lacpy = p##lacpy_;                                                       \
    static constexpr auto gemr2d = p##gemr2d_;                                                     \
    static constexpr auto transpose = tran;                                                        \
  };
LZ_PB(float, ps, pstran_)
LZ_PB(double, pd, pdtran_)
LZ_PB(std::complex<float>, pc, pctranu_)
LZ_PB(std::complex<double>, pz, pztranu_)
#undef LZ_PB

// Calls f with a null pointer of the storage's element type (dispatch on dtype).
template <class F>
void by_type(char dtype, F&& f) {
  switch (dtype) {
  case 's':
    return f(static_cast<float*>(nullptr));
  case 'd':
    return f(static_cast<double*>(nullptr));
  case 'c':
    return f(static_cast<std::complex<float>*>(nullptr));
  default:
    return f(static_cast<std::complex<double>*>(nullptr));
  }
}
// A scalar as element type T (the imaginary part dropped for a real T).
template <class T>
T as(scalar v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return T(v.real());
  else
    return T(v);
}
// The 1-based (i, j) PBLAS takes.
struct at {
  int i, j;
  explicit at(const operand& o) : i(int(o.i) + 1), j(int(o.j) + 1) {}
};
} // namespace

void gemm(char ta, char tb, index_t m, index_t n, index_t k, scalar alpha, operand A, operand B,
          scalar beta, operand C) {
  if (!member(C) || m == 0 || n == 0) return;
  const char a[2] = {ta, 0}, b[2] = {tb, 0};
  trace(std::string("p") + C.s->dtype + "gemm('" + ta + "', '" + tb + "') m=" + std::to_string(m) +
        " n=" + std::to_string(n) + " k=" + std::to_string(k));
  const int mi = fint(m, "m"), ni = fint(n, "n"), ki = fint(k, "k");
  by_type(C.s->dtype, [&]<class T>(T*) {
    const T al = as<T>(alpha), be = as<T>(beta);
    const at pa(A), pbb(B), pc(C);
    pb<T>::gemm(a, b, &mi, &ni, &ki, &al, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc,
                local_of<T>(B.s), &pbb.i, &pbb.j, B.s->desc, &be, local_of<T>(C.s), &pc.i, &pc.j,
                C.s->desc);
  });
}

void gemv(char t, index_t m, index_t n, scalar alpha, operand A, operand x, bool x_row, scalar beta,
          operand y, bool y_row) {
  if (!member(y) || m == 0 || n == 0) return;
  const char tt[2] = {t, 0};
  const int incx = x_row ? int(x.s->m) : 1, incy = y_row ? int(y.s->m) : 1;
  trace(std::string("p") + y.s->dtype + "gemv('" + t + "') m=" + std::to_string(m) +
        " n=" + std::to_string(n));
  const int mi = fint(m, "m"), ni = fint(n, "n");
  by_type(y.s->dtype, [&]<class T>(T*) {
    const T al = as<T>(alpha), be = as<T>(beta);
    const at pa(A), px(x), py(y);
    pb<T>::gemv(tt, &mi, &ni, &al, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc, local_of<T>(x.s),
                &px.i, &px.j, x.s->desc, &incx, &be, local_of<T>(y.s), &py.i, &py.j, y.s->desc,
                &incy);
  });
}

void syrk_full(char t, index_t n, index_t k, scalar alpha, operand A, operand C) {
  if (!member(C) || n == 0) return;
  trace(std::string("p") + C.s->dtype + "syrk('L', '" + t + "') n=" + std::to_string(n) +
        " k=" + std::to_string(k));
  trace(std::string("p") + C.s->dtype + "tran (the mirror) n=" + std::to_string(n));
  trace(std::string("p") + C.s->dtype + "lacpy('U') n=" + std::to_string(n));
  const int ni = fint(n, "n"), ki = fint(k, "k");
  // The mirror: Cᵀ into a matrix distributed like C's storage, then its upper triangle back.
  auto tmp = allocate(C.s->grid, C.s->m, C.s->n, C.s->mb, C.s->nb, C.s->dtype);
  by_type(C.s->dtype, [&]<class T>(T*) {
    const char uplo[2] = {'L', 0}, tt[2] = {t, 0};
    const T al = as<T>(alpha), zero = T(0), one = T(1);
    const at pa(A), pc(C);
    pb<T>::syrk(uplo, tt, &ni, &ki, &al, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc, &zero,
                local_of<T>(C.s), &pc.i, &pc.j, C.s->desc);
    pb<T>::transpose(&ni, &ni, &one, local_of<T>(C.s), &pc.i, &pc.j, C.s->desc, &zero,
                     local_of<T>(tmp.get()), &pc.i, &pc.j, tmp->desc);
    pb<T>::lacpy("U", &ni, &ni, local_of<T>(tmp.get()), &pc.i, &pc.j, tmp->desc, local_of<T>(C.s),
                 &pc.i, &pc.j, C.s->desc);
  });
}

void copy(bool trans, index_t m, index_t n, operand A, operand C) {
  if (m == 0 || n == 0) return;
  const int mi = fint(m, "rows"), ni = fint(n, "columns");
  if (!trans) {
    // Every rank takes part (the union of both grids, through the world context); a rank in
    // neither grid passes descriptors with context -1.
    trace(std::string("p") + C.s->dtype + "gemr2d m=" + std::to_string(m) +
          " n=" + std::to_string(n));
    const int ctxt = world_ctxt();
    by_type(C.s->dtype, [&]<class T>(T*) {
      const at pa(A), pc(C);
      pb<T>::gemr2d(&mi, &ni, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc, local_of<T>(C.s), &pc.i,
                    &pc.j, C.s->desc, &ctxt);
    });
    return;
  }
  if (A.s->grid != C.s->grid) { // pdtran works within one grid: move A onto C's first
    auto tmp = allocate(C.s->grid, n, m, C.s->nb, C.s->mb, C.s->dtype);
    copy(false, n, m, A, {tmp.get(), 0, 0});
    copy(true, m, n, {tmp.get(), 0, 0}, C);
    return;
  }
  if (!member(C)) return;
  trace(std::string("p") + C.s->dtype + "tran m=" + std::to_string(m) + " n=" + std::to_string(n));
  by_type(C.s->dtype, [&]<class T>(T*) {
    const T one = T(1), zero = T(0);
    const at pa(A), pc(C);
    pb<T>::transpose(&mi, &ni, &one, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc, &zero,
                     local_of<T>(C.s), &pc.i, &pc.j, C.s->desc);
  });
}

void geadd(char t, index_t m, index_t n, scalar alpha, operand A, scalar beta, operand C) {
  if (!member(C) || m == 0 || n == 0) return;
  const char tt[2] = {t, 0};
  trace(std::string("p") + C.s->dtype + "geadd('" + t + "') m=" + std::to_string(m) +
        " n=" + std::to_string(n));
  const int mi = fint(m, "m"), ni = fint(n, "n");
  by_type(C.s->dtype, [&]<class T>(T*) {
    const T al = as<T>(alpha), be = as<T>(beta);
    const at pa(A), pc(C);
    pb<T>::geadd(tt, &mi, &ni, &al, local_of<T>(A.s), &pa.i, &pa.j, A.s->desc, &be,
                 local_of<T>(C.s), &pc.i, &pc.j, C.s->desc);
  });
}

void allgather(const void* mine, std::size_t bytes, void* out) {
  MPI_Allgather(mine, int(bytes), MPI_BYTE, out, int(bytes), MPI_BYTE, MPI_COMM_WORLD);
}

void broadcast(void* p, std::size_t bytes, int root) {
  MPI_Bcast(p, int(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
}

void barrier() { MPI_Barrier(MPI_COMM_WORLD); }

void minmax(std::uint64_t v, std::uint64_t& lo, int& lo_rank, std::uint64_t& hi, int& hi_rank) {
  std::vector<std::uint64_t> vals(static_cast<std::size_t>(size()));
  allgather(&v, sizeof v, vals.data());
  lo_rank = int(std::min_element(vals.begin(), vals.end()) - vals.begin());
  hi_rank = int(std::max_element(vals.begin(), vals.end()) - vals.begin());
  lo = vals[std::size_t(lo_rank)], hi = vals[std::size_t(hi_rank)];
}

bool all(bool ok) {
  int mine = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&mine, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return every != 0;
}

bool logging_on() noexcept { return lz::logging::on(lz::logging::dist); }

void log(const std::string& line) {
  lz::logging::write(lz::logging::dist, "[rank " + std::to_string(rank()) + "] " + line);
}

} // namespace lz::dist::rt
