// lz::dist's compiled front end: the environment, plan checks, explain text and error paths.
// (MPI and ScaLAPACK are only in runtime.cpp.)
#include <lz/dist.hpp>
#include <lz/kernels/blas/blas.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace lz::dist {
namespace {
std::atomic<bool> g_plan_checks{false};

// Threads per rank: OpenBLAS at 1 (the ranks are ScaLAPACK's parallelism), lazuli's pool at
// the node's cores shared among its ranks, unless the user chose (LZ_NUM_THREADS).
void cap_threads() {
  kernels::blas::set_num_threads(1);
  if (std::getenv("LZ_NUM_THREADS")) return;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  lz::set_num_threads(std::max(1, cores / std::max(1, rt::node_ranks())));
}

// LZ_DIST_PANEL: PBLAS's panel width, a positive integer (a malformed value is an error, not
// a silent default: a rank that disagreed would hang in PBLAS).
void panel_from_environment() {
  const char* v = std::getenv("LZ_DIST_PANEL");
  if (!v) return;
  char* end = nullptr;
  const long w = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || w < 1 || w > (1 << 20))
    throw std::invalid_argument(std::string("lz::dist: LZ_DIST_PANEL=\"") + v +
                                "\" is not a panel width (a whole number from 1 to 1048576)");
  rt::set_pblas_panel(int(w));
}
} // namespace

void environment::start(bool checked, bool owned) {
  try {
    panel_from_environment();
  } catch (...) {
    rt::finalize(owned);
    throw;
  }
  cap_threads();
  set_plan_checks(checked);
}
environment::~environment() { rt::finalize(owned_); }
int environment::rank() const noexcept { return rt::rank(); }
int environment::size() const noexcept { return rt::size(); }

void set_plan_checks(bool on) noexcept { g_plan_checks.store(on, std::memory_order_relaxed); }
bool plan_checks() noexcept { return g_plan_checks.load(std::memory_order_relaxed); }

void set_pblas_panel(int width) {
  if (width < 1)
    throw std::invalid_argument("lz::dist: a PBLAS panel width must be at least 1, not " +
                                std::to_string(width));
  rt::set_pblas_panel(width);
}
int pblas_panel() noexcept { return rt::pblas_panel(); }

namespace detail {

void throw_not_pblas(const char* what) {
  throw layout_error(std::string("lz::dist: ") + what +
                     " is not a distributed matrix, vector, sub-matrix or transpose PBLAS can "
                     "take (a view with a step or a broadcast): copy it into a distributed "
                     "matrix first");
}

void throw_unsupported(const char* what) {
  throw std::invalid_argument(std::string("lz::dist: ") + what + " is not supported");
}

std::string describe(const char* routine, const std::string& flags, index_t m, index_t n, index_t k,
                     const std::string& alpha, const std::string& beta,
                     const std::string& operands) {
  std::string s =
      std::string(routine) + "(" + flags + ") m=" + std::to_string(m) + " n=" + std::to_string(n);
  if (k) s += " k=" + std::to_string(k);
  return s + " alpha=" + alpha + " beta=" + beta + "  " + operands;
}

std::string grid_text(const rt::storage& s) {
  return "  [grid " + std::to_string(s.grid->nprow) + "x" + std::to_string(s.grid->npcol) +
         ", blocks " + std::to_string(s.mb) + "x" + std::to_string(s.nb) + "]";
}

std::uint64_t plan_hash(const std::string& text) noexcept {
  std::uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

void throw_plan_mismatch(int lo_rank, int hi_rank) {
  throw collective_error("lz::dist: ranks " + std::to_string(std::min(lo_rank, hi_rank)) + " and " +
                         std::to_string(std::max(lo_rank, hi_rank)) +
                         " planned different assignments (another tree, other shapes, or a "
                         "statement one of them skipped): every assignment to a distributed "
                         "matrix must be made by every rank");
}

} // namespace detail
} // namespace lz::dist
