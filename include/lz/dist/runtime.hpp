// The compiled half of lz::dist (dist/src/runtime.cpp, library lazuli_dist): MPI, BLACS grids,
// block-cyclic storage and the PBLAS/ScaLAPACK calls. This header names no MPI or ScaLAPACK
// type: a file that includes <lz/dist.hpp> compiles without <mpi.h>, and only lazuli_dist
// declares the Fortran and C symbols it calls (pdgemm_, Cblacs_gridinit, ...).
//
// The address model: every distributed matrix reserves a range of virtual addresses
// (PROT_NONE: touching it faults) as if its m × n global elements were stored column-major:
// element (i, j) "is at" base + i + j·m. A lz::dist::view is then an ordinary strided view over
// those addresses, so the fusion pass's algebra — transposes (swapped strides), sub-matrices
// (offset pointers), overlap analysis (address ranges) — applies unchanged, and a sink turns an
// address back into what PBLAS takes: (local array, ia, ja, descriptor).
#pragma once

#include <lz/config.hpp>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace lz::dist::rt {

/// A BLACS process grid: its context and this rank's coordinates (-1 when the rank is idle).
struct grid_state {
  int ctxt = -1;
  int nprow = 1, npcol = 1;
  int myrow = -1, mycol = -1;
  int id = 0; ///< creation number (explain text)
  bool member() const noexcept { return myrow >= 0 && mycol >= 0; }
};

/// One distributed matrix's memory (a vector is an n × 1 matrix): the local block of this rank
/// (column-major, leading dimension lld) and its ScaLAPACK descriptor.
struct storage {
  std::shared_ptr<const grid_state> grid;
  index_t m = 0, n = 0, mb = 1, nb = 1;
  index_t lrows = 0, lcols = 0, lld = 1;
  int desc[9] = {};
  std::size_t esize = 0;
  char dtype = 'd'; ///< 's' float, 'd' double, 'c' complex<float>, 'z' complex<double>
  char* local = nullptr;
  std::uintptr_t vbase = 0; ///< the virtual address of global element (0, 0)
  std::size_t vbytes = 0;
  storage() = default;
  storage(const storage&) = delete;
  storage& operator=(const storage&) = delete;
  ~storage();
};

/// Rows (or columns) among the first n that process `iproc` of `nprocs` owns, blocks of nb
/// dealt round-robin from process 0 (ScaLAPACK's NUMROC).
constexpr index_t numroc(index_t n, index_t nb, int iproc, int nprocs) noexcept {
  const index_t nblocks = n / nb;
  index_t num = (nblocks / nprocs) * nb;
  const index_t extra = nblocks % nprocs;
  if (iproc < extra)
    num += nb;
  else if (iproc == extra)
    num += n % nb;
  return num;
}

// ---- environment -------------------------------------------------------------------------------
/// MPI_Init_thread (FUNNELED) unless MPI is already initialized; true when this call did it.
bool init(int* argc, char*** argv);
/// MPI_Finalize (after releasing the grids) when `owned`.
void finalize(bool owned) noexcept;
/// True between MPI's initialization and its finalization.
bool initialized() noexcept;
/// This process's rank in MPI_COMM_WORLD.
int rank() noexcept;
/// The number of ranks in MPI_COMM_WORLD.
int size() noexcept;
/// Ranks of this node (MPI_COMM_TYPE_SHARED), for the thread cap.
int node_ranks() noexcept;

/// The panel width PBLAS works in (its PILAENV, answered by lazuli_dist): set, read, and
/// whether the PILAENV the process resolves is lazuli's (false if another library's wins).
void set_pblas_panel(int width) noexcept;
int pblas_panel() noexcept;
bool pblas_panel_in_use() noexcept;

// ---- grids -------------------------------------------------------------------------------------
/// The p × q grid over the first p·q ranks of MPI_COMM_WORLD (row-major rank order), made once
/// and cached; ranks from p·q on are idle in it. Collective. Throws std::invalid_argument when
/// p·q exceeds the ranks or p, q < 1.
std::shared_ptr<const grid_state> grid(int p, int q);
/// The most square p × q with p·q = ranks and p <= q.
void square_shape(int ranks, int& p, int& q) noexcept;

// ---- storage -----------------------------------------------------------------------------------
/// A distributed m × n matrix of `esize`-byte elements on `g`, blocks mb × nb, zero-filled.
std::shared_ptr<storage> allocate(std::shared_ptr<const grid_state> g, index_t m, index_t n,
                                  index_t mb, index_t nb, char dtype);
/// The storage whose virtual range holds p (null when none: p is not distributed memory).
const storage* find(const void* p) noexcept;

/// A PBLAS operand: the stored sub-matrix at global (i, j) (0-based) of `s`.
struct operand {
  const storage* s = nullptr;
  index_t i = 0, j = 0;
};

// ---- PBLAS / ScaLAPACK (any dtype; sizes as PBLAS takes them) ---------------------------------
/// A scalar argument (α, β), converted to the operands' element type (real: its real part).
using scalar = std::complex<double>;
/// C = α·op(A)·op(B) + β·C (pdgemm / psgemm) on C's grid; A and B must be on it too.
void gemm(char ta, char tb, index_t m, index_t n, index_t k, scalar alpha, operand A, operand B,
          scalar beta, operand C);
/// y = α·op(A)·x + β·y; x and y are sub-vectors: a column (inc 1) or a row (inc = M).
void gemv(char t, index_t m, index_t n, scalar alpha, operand A, operand x, bool x_row, scalar beta,
          operand y, bool y_row);
/// The lower triangle of C = α·op(A)·op(A)ᵀ (β = 0), then its mirror into the upper one.
void syrk_full(char t, index_t n, index_t k, scalar alpha, operand A, operand C);
/// C(m × n) = op(A) copied across distributions and grids: pdgemr2d (no transpose) or pdtran.
/// `world` context over every rank.
void copy(bool trans, index_t m, index_t n, operand A, operand C);
/// C = β·C + α·op(A) on one grid (pdgeadd).
void geadd(char t, index_t m, index_t n, scalar alpha, operand A, scalar beta, operand C);

// ---- collectives over MPI_COMM_WORLD ------------------------------------------------------------
/// Every rank's `bytes` bytes, in rank order, into out (size()·bytes bytes).
void allgather(const void* mine, std::size_t bytes, void* out);
/// Rank `root`'s `bytes` bytes at p, to every rank.
void broadcast(void* p, std::size_t bytes, int root);
/// Every rank waits for all.
void barrier();
/// The smallest and largest `v` over the ranks, with the ranks that hold them.
void minmax(std::uint64_t v, std::uint64_t& lo, int& lo_rank, std::uint64_t& hi, int& hi_rank);
/// True when `ok` holds on every rank (an error one rank found is then raised on all of them).
bool all(bool ok);
/// True when the dist channel is traced (LZ_LOG=dist).
bool logging_on() noexcept;
/// One trace line on the dist channel, prefixed with the rank.
void log(const std::string& line);

} // namespace lz::dist::rt
