// lazuli's own gemm: C = alpha·A·B + beta·C for any signed strides and for element types BLAS
// lacks (int32, int64; float and double too, for strides BLAS cannot take). Run by gemm plan
// steps that CBLAS cannot serve. GotoBLAS/BLIS design:
//
//   for jc in n step NC            B block  (KC×NC)  packed once, shared, lives in L3
//     for pc in k step KC
//       pack B block
//       parallel over (MC-row block of C × group of NR-panels)   [lz::kernels::cpu::parallel_for]
//         pack A block (MC×KC) into the thread's buffer          lives in L2
//         for each NR-panel of B                                 B micro-panel (KC×NR) in L1
//           for each MR-panel of A: micro-kernel MR×NR           accumulators in registers
//
// Packing reads any strides (transposed, stride-2 and reversed views are all just strides) and
// zero-pads edges, so the micro-kernels see only contiguous, aligned panels. Integers are
// computed in the unsigned type of the same width: identical bits, and wrap-around is defined.
// Every C element is summed in the same k order whatever the thread count, so results are
// bit-identical for any number of threads.
#include "gemm_kernels.hpp"
#include "trace.hpp"

#include <lz/errors.hpp>
#include <lz/kernels/blas/blas.hpp>
#include <lz/kernels/cpu/parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>

namespace lz::kernels::blas {
namespace {

using detail::blocking;

index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }
index_t round_up(index_t a, index_t b) { return ceil_div(a, b) * b; }

// The unsigned type integers are computed in (same bits, defined wrap-around).
template <class T, bool = std::is_integral_v<T>>
struct compute {
  using type = T;
};
template <class T>
struct compute<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using compute_t = typename compute<T>::type;

// Kernel and blocking per element type. The micro-tiles fill AVX2's 16 registers: 12
// accumulators + B vectors + one broadcast (6×16 float/int32, 6×8 double, 6×4 int64 with two
// accumulators per lane). KC·NR·size = 16 KiB keeps a B micro-panel in half of the 32 KiB L1
// while A micro-panels stream past it; MC·KC·size = 144–192 KiB keeps the packed A block in the
// 512 KiB L2; NC bounds the shared B block (4–8 MiB incl. int64's doubled panels, L3). These are
// the usual BLIS-style derivations for Zen 3 caches; on int64 KC ∈ {128, 256, 384, 512} and
// MC ∈ {36..192} measured within noise of each other (one-off sweep at n = 512, 1 thread).
template <class S>
struct config;
template <>
struct config<float> {
  using kernel = detail::simd_kernel<float, 6, 16 / int(xsimd::batch<float>::size)>;
  static constexpr blocking blk{256, 144, 4096};
};
template <>
struct config<double> {
  using kernel = detail::simd_kernel<double, 6, 8 / int(xsimd::batch<double>::size)>;
  static constexpr blocking blk{256, 96, 2048};
};
template <>
struct config<std::uint32_t> {
#if LZ_GEMM_ASM_KERNELS
  using kernel = detail::u32_avx2_kernel;
#else
  using kernel = detail::simd_kernel<std::uint32_t, 6, 16 / int(xsimd::batch<std::uint32_t>::size)>;
#endif
  static constexpr blocking blk{256, 144, 4096};
};
template <>
struct config<std::uint64_t> {
#if LZ_GEMM_ASM_KERNELS
  using kernel = detail::i64_avx2_kernel;
#else
  using kernel = detail::simd_kernel<std::uint64_t, 4, 1>;
#endif
  static constexpr blocking blk{256, 96, 2048};
};

// ---- scratch buffers -------------------------------------------------------------------------
// Packed panels live in per-thread buffers that grow and are kept, so steady-state calls do not
// allocate. A buffer is leased for one use: if a thread re-enters (TBB may run another caller's
// task on a thread that waits inside parallel_for), the nested use gets a fresh allocation.
struct scratch {
  void* p = nullptr;
  std::size_t bytes = 0;
  bool busy = false;
  ~scratch() { ::operator delete (p, std::align_val_t{64}); }
};
thread_local scratch tls_a, tls_b;

class lease {
 public:
  lease(scratch& s, std::size_t bytes) {
    if (!s.busy) {
      if (s.bytes < bytes) {
        ::operator delete (s.p, std::align_val_t{64});
        s.p = nullptr;
        s.bytes = 0;
        s.p = ::operator new (bytes, std::align_val_t{64});
        s.bytes = bytes;
      }
      s.busy = true;
      owner_ = &s;
      p_ = s.p;
    } else {
      p_ = ::operator new (bytes, std::align_val_t{64});
    }
  }
  ~lease() {
    if (owner_)
      owner_->busy = false;
    else
      ::operator delete (p_, std::align_val_t{64});
  }
  lease(const lease&) = delete;
  lease& operator=(const lease&) = delete;
  template <class S>
  S* get() const noexcept {
    return static_cast<S*>(p_);
  }

 private:
  scratch* owner_ = nullptr;
  void* p_ = nullptr;
};

// ---- packing ---------------------------------------------------------------------------------
// A block (mc×kc at A, strides rs, cs) → ceil(mc/MR) micro-panels of kc steps × MR values.
template <class K, class S>
void pack_a(index_t mc, index_t kc, const S* A, index_t rs, index_t cs, S* out) {
  constexpr int MR = K::MR;
  for (index_t i = 0; i < mc; i += MR, out += kc * MR) {
    const int mr = int(std::min<index_t>(MR, mc - i));
    const S* a = A + i * rs;
    if (mr == MR && rs == 1) { // column-major: MR contiguous values per k step
      for (index_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r) out[p * MR + r] = a[p * cs + r];
    } else if (mr == MR && cs == 1) { // row-major: MR rows read along k
      for (index_t p = 0; p < kc; ++p)
        for (int r = 0; r < MR; ++r) out[p * MR + r] = a[r * rs + p];
    } else {
      for (index_t p = 0; p < kc; ++p) {
        for (int r = 0; r < mr; ++r) out[p * MR + r] = a[r * rs + p * cs];
        for (int r = mr; r < MR; ++r) out[p * MR + r] = S(0);
      }
    }
  }
}

// B panels [j0, j1) of the block (kc×nc at B, strides rs, cs) → kc steps × K::bstep values each.
template <class K, class S>
void pack_b(index_t j0, index_t j1, index_t nc, index_t kc, const S* B, index_t rs, index_t cs,
            S* out) {
  constexpr int NR = K::NR;
  for (index_t jp = j0; jp < j1; ++jp) {
    const index_t j = jp * NR;
    const int nr = int(std::min<index_t>(NR, nc - j));
    const S* b = B + j * cs;
    S* o = out + jp * kc * K::bstep;
    if (cs == 1)
      for (index_t p = 0; p < kc; ++p, o += K::bstep) {
        const S* row = b + p * rs;
        K::pack_b_step(o, nr, [row](int c) { return row[c]; });
      }
    else
      for (index_t p = 0; p < kc; ++p, o += K::bstep) {
        const S* row = b + p * rs;
        K::pack_b_step(o, nr, [row, cs](int c) { return row[c * cs]; });
      }
  }
}

// C = beta·C (beta == 0 writes zeros without reading) over any strides.
template <class S>
void scale_c(index_t m, index_t n, S beta, S* C, index_t rsc, index_t csc) {
  if (beta == S(1)) return;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      S& c = C[i * rsc + j * csc];
      c = beta == S(0) ? S(0) : beta * c;
    }
}

// Problems smaller than this (m·n·k multiply-adds) stay on the calling thread: below it the
// second thread's start-up (a few µs) costs more than it saves.
constexpr double parallel_work = double(1 << 18);

template <class S>
void gemm_blocked(index_t m, index_t n, index_t k, S alpha, const S* A, index_t rsa, index_t csa,
                  const S* B, index_t rsb, index_t csb, S beta, S* C, index_t rsc, index_t csc) {
  using K = typename config<S>::kernel;
  constexpr index_t MR = K::MR, NR = K::NR;
  constexpr blocking blk = config<S>::blk;
  const bool parallel = double(m) * double(n) * double(k) >= parallel_work;
  const index_t threads = parallel ? std::max(1, lz::num_threads()) : 1;

  // k and n are split into equal blocks (never depending on the thread count: the k split fixes
  // the summation order). m is split into a multiple of the thread count blocks, so threads get
  // equal shares of C; MC only moves tile boundaries by whole MR panels.
  const index_t kblocks = ceil_div(k, blk.kc), kc_max = ceil_div(k, kblocks);
  const index_t nblocks = ceil_div(n, blk.nc), nc_max = round_up(ceil_div(n, nblocks), NR);
  index_t mblocks = ceil_div(m, blk.mc);
  mblocks = std::min(round_up(mblocks, threads), ceil_div(m, MR));
  const index_t mc_max = round_up(ceil_div(m, mblocks), MR);
  mblocks = ceil_div(m, mc_max);

  lease bbuf(tls_b, sizeof(S) * std::size_t(kc_max * (nc_max / NR) * K::bstep));
  S* bp = bbuf.get<S>();
  const std::size_t a_bytes = sizeof(S) * std::size_t(mc_max * kc_max);

  for (index_t jc = 0; jc < n; jc += nc_max) {
    const index_t nc = std::min(nc_max, n - jc);
    const index_t npanels = ceil_div(nc, NR);
    for (index_t pc = 0; pc < k; pc += kc_max) {
      const index_t kc = std::min(kc_max, k - pc);
      const S* Bblk = B + pc * rsb + jc * csb;
      // Pack B in parallel too, so the second thread does not idle while k·n values are read.
      const index_t pgrain = parallel ? std::max<index_t>(1, 4096 / kc) : npanels;
      cpu::parallel_for(npanels, pgrain,
                        [&](index_t b, index_t e) { pack_b<K>(b, e, nc, kc, Bblk, rsb, csb, bp); });

      const S beta_k = pc == 0 ? beta : S(1); // later k blocks accumulate
      // Few row blocks (small m): also split the B panels so every thread has work.
      const index_t jgroups =
          mblocks >= threads ? 1 : std::min(npanels, ceil_div(threads, mblocks));
      const index_t per_group = ceil_div(npanels, jgroups);
      const index_t tasks = mblocks * jgroups;
      cpu::parallel_for(tasks, parallel ? 1 : tasks, [&](index_t t0, index_t t1) {
        lease abuf(tls_a, a_bytes);
        S* ap = abuf.get<S>();
        index_t packed = -1;
        for (index_t t = t0; t < t1; ++t) {
          const index_t ib = t / jgroups, jg = t % jgroups;
          const index_t ic = ib * mc_max, mc = std::min(mc_max, m - ic);
          if (packed != ib) pack_a<K>(mc, kc, A + ic * rsa + pc * csa, rsa, csa, ap);
          packed = ib;
          const index_t jp1 = std::min(npanels, (jg + 1) * per_group);
          for (index_t jp = jg * per_group; jp < jp1; ++jp) {
            const index_t j = jp * NR;
            const int nr = int(std::min<index_t>(NR, nc - j));
            const S* bpanel = bp + jp * kc * K::bstep;
            for (index_t i = 0; i < mc; i += MR) {
              const int mr = int(std::min<index_t>(MR, mc - i));
              S* c = C + (ic + i) * rsc + (jc + j) * csc;
              K::run(kc, ap + i * kc, bpanel, alpha, beta_k, c, rsc, csc, mr, nr);
            }
          }
        }
      });
    }
  }
}

template <class T>
constexpr const char* generic_name() {
  if constexpr (std::is_same_v<T, std::int32_t>)
    return "gemm_generic<i32>";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "gemm_generic<i64>";
  else if constexpr (std::is_same_v<T, float>)
    return "gemm_generic<f32>";
  else
    return "gemm_generic<f64>";
}

std::string strides_arg(const char* name, index_t r, index_t c) {
  return std::string(name) + "=(" + std::to_string(r) + "," + std::to_string(c) + ")";
}

} // namespace

template <class T>
void gemm_generic(index_t m, index_t n, index_t k, T alpha, const T* A, index_t rsa, index_t csa,
                  const T* B, index_t rsb, index_t csb, T beta, T* C, index_t rsc, index_t csc) {
  using S = compute_t<T>;
  const char* name = generic_name<T>();
  const call c{name, order::row_major, trans::none,  trans::none, m,   n,
               k,    double(alpha),    double(beta), rsa,         rsb, rsc};
  auto describe = [&] {
    return std::string(name) + "(" + detail::arg("m", m) + ", " + detail::arg("n", n) + ", " +
           detail::arg("k", k) + ", " + detail::arg("alpha", double(alpha)) + ", " +
           strides_arg("A", rsa, csa) + ", " + strides_arg("B", rsb, csb) + ", " +
           detail::arg("beta", double(beta)) + ", " + strides_arg("C", rsc, csc) + ")";
  };
  const double ops = 2.0 * double(m) * double(n) * double(k);
  detail::run(c, ops, std::is_integral_v<T>, describe, [&] {
    if (m < 0 || n < 0 || k < 0)
      throw shape_error(std::string(name) + ": negative size (" + std::to_string(m) + ", " +
                        std::to_string(n) + ", " + std::to_string(k) + ")");
    if (m == 0 || n == 0) return;
    const S a = static_cast<S>(alpha), b = static_cast<S>(beta);
    S* Cs = reinterpret_cast<S*>(C);
    if (k == 0 || a == S(0)) {
      scale_c(m, n, b, Cs, rsc, csc);
      return;
    }
    const S* As = reinterpret_cast<const S*>(A);
    const S* Bs = reinterpret_cast<const S*>(B);
    // The micro-kernels write rows of C with vector stores; a C whose columns are contiguous
    // instead is computed as Cᵀ = Bᵀ·Aᵀ (swapping operands is just swapping strides).
    if (csc != 1 && rsc == 1)
      gemm_blocked<S>(n, m, k, a, Bs, csb, rsb, As, csa, rsa, b, Cs, csc, rsc);
    else
      gemm_blocked<S>(m, n, k, a, As, rsa, csa, Bs, rsb, csb, b, Cs, rsc, csc);
  });
}

template void gemm_generic<std::int32_t>(index_t, index_t, index_t, std::int32_t,
                                         const std::int32_t*, index_t, index_t, const std::int32_t*,
                                         index_t, index_t, std::int32_t, std::int32_t*, index_t,
                                         index_t);
template void gemm_generic<std::int64_t>(index_t, index_t, index_t, std::int64_t,
                                         const std::int64_t*, index_t, index_t, const std::int64_t*,
                                         index_t, index_t, std::int64_t, std::int64_t*, index_t,
                                         index_t);
template void gemm_generic<float>(index_t, index_t, index_t, float, const float*, index_t, index_t,
                                  const float*, index_t, index_t, float, float*, index_t, index_t);
template void gemm_generic<double>(index_t, index_t, index_t, double, const double*, index_t,
                                   index_t, const double*, index_t, index_t, double, double*,
                                   index_t, index_t);

} // namespace lz::kernels::blas
