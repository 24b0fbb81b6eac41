// lz::calibrate (include/lz/calibrate.hpp): measured crossovers on this machine. Each point is
// the minimum of three timed repetitions (the minimum is the least noisy estimate of what the
// code can do on a shared machine); a crossover must hold at two consecutive sizes.
#include <lz/calibrate.hpp>
#include <lz/kernels/first_use.hpp>
#include <lz/lz.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace lz {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds per call of f: repeat until the budget is spent, three times, keep the minimum.
template <class F>
double time_per_call(F&& f, double budget) {
  f(); // warm up (page faults, first touch, thread pool start)
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    long calls = 0;
    const double t0 = now_s();
    double t = t0;
    do {
      f();
      ++calls;
      t = now_s();
    } while (t - t0 < budget / 3);
    best = std::min(best, (t - t0) / double(calls));
  }
  return best;
}

template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// Smallest size from which `faster(i)` holds at that size and the next one; -1 if never.
template <class Pred>
index_t crossover(const std::vector<index_t>& sizes, Pred&& faster) {
  std::vector<bool> win(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) win[i] = faster(i);
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i)
    if (win[i] && win[i + 1]) return sizes[i];
  if (!sizes.empty() && win.back()) return sizes.back();
  return -1;
}

// Measures the points of a size sweep in order, `point(i)` returning the fastest call it timed,
// and stops after the first whose fastest call alone cost `too_slow` (the larger sizes would only
// cost more): a debug or sanitizer build calibrates on the sizes it reached in seconds, instead
// of minutes. Trims `sizes` to the points measured; returns the report's note ("" if all were).
template <class Point>
std::string sweep(std::vector<index_t>& sizes, double too_slow, Point&& point) {
  std::size_t m = 0;
  while (m < sizes.size())
    if (point(m++) > too_slow) break;
  if (m == sizes.size()) return {};
  sizes.resize(m);
  return " [sweep stopped after n=" + std::to_string(sizes.back()) +
         ": one call took ten points' budgets]";
}

} // namespace

namespace detail {
double measure_reduce_prefetch_ratio(double budget, int& pairs) {
  const index_t n = index_t(1) << 22; // 2 x 32 MiB: from memory on every CPU measured so far
  const vector<double> x = full<double>({n}, 1.25), y = full<double>({n}, 0.5);
  volatile double sink = 0;
  auto timed = [&](index_t from) {
    const kernels::cpu::scoped_prefetch p(from); // this thread only: thresholds() untouched
    return time_per_call([&] { sink = sink + double(eval(simd, sum(square(x - y)))); }, budget);
  };
  std::vector<double> ratio;
  for (int rep = 0; rep < std::max(pairs, 1); ++rep) {
    const double on = timed(1), off = timed(0);
    ratio.push_back(on / off);
    if (std::min(on, off) > 10 * budget) break; // one pair decides (debug, sanitizers)
  }
  pairs = int(ratio.size());
  std::sort(ratio.begin(), ratio.end());
  return ratio[ratio.size() / 2];
}
std::vector<wide_batch_point> measure_wide_batches(double budget) {
  std::vector<wide_batch_point> points;
  if constexpr (!std::is_same_v<kernels::cpu::narrow_arch, xsimd::default_arch>) {
    const index_t nmax = 8192;
    const vector<double> x = random<double>({nmax}, 7), y = random<double>({nmax}, 8);
    vector<double> z = full<double>({nmax}, 0.0);
    const auto e = 2.5 * x + 1.5 * y;
    using E = std::remove_cvref_t<decltype(e)>;
    constexpr auto set = assign_op::set;
    constexpr kernels::cpu::map_kernel narrow =
        kernels::cpu::map_kernel_for<double, E, true, set>();
    constexpr kernels::cpu::map_kernel wide = kernels::cpu::wide_kernel_for<double, E, true, set>();
    static_assert(std::is_same_v<kernels::cpu::narrow_arch, xsimd::default_arch> ||
                  narrow.simd_width < wide.simd_width); // (not a template: both branches compile)
    // The kernels are called directly: nothing here may assign through run_map, whose first
    // use of wide_bytes would wait for this measurement (x, y, z are filled by constructors).
    const auto tree = kernels::cpu::bind<1>(e);
    char* const p[3] = {reinterpret_cast<char*>(z.data()),
                        reinterpret_cast<char*>(const_cast<double*>(x.data())),
                        reinterpret_cast<char*>(const_cast<double*>(y.data()))};
    const index_t so[3] = {};
    for (index_t n = 512; n <= nmax; n *= 2) {
      wide_batch_point pt;
      pt.n = n;
      pt.wide_s = pt.narrow_s = 1e30;
      std::vector<double> ratio;
      for (int rep = 0; rep < 3; ++rep) {
        const double w = time_per_call([&] { wide.fn(&tree, p, so, 1, n, 0); }, budget);
        const double t = time_per_call([&] { narrow.fn(&tree, p, so, 1, n, 0); }, budget);
        pt.wide_s = std::min(pt.wide_s, w), pt.narrow_s = std::min(pt.narrow_s, t);
        ratio.push_back(w / t);
        if (std::min(w, t) > 10 * budget) break; // one pair decides (debug, sanitizers)
      }
      std::sort(ratio.begin(), ratio.end());
      pt.ratio = ratio[ratio.size() / 2];
      points.push_back(pt);
      if (!(pt.ratio < 0.97)) break;
    }
  }
  return points;
}
} // namespace detail

calibration calibrate(const calibrate_options& opt) {
  calibration c;
  c.defaults = thresholds();
  c.measured = c.defaults;
  const double budget = opt.seconds_per_point;
  // A call that alone costs ten budgets ends a sweep (never in an optimized build at the
  // default budget; debug and sanitizer builds reach it at large sizes).
  const double too_slow = 10 * budget;
  std::string& r = c.report;

  // 1. Threads: one thread (lz::simd) against TBB threads (lz::par), for a cheap and an
  //    expensive tree; the threshold is in work = elements x cost.
  if (num_threads() > 1) {
    std::vector<index_t> sizes;
    for (index_t n = 1 << 9; n <= (index_t(1) << 21); n *= 2) sizes.push_back(n);
    const index_t nmax = sizes.back();
    vector<double> x = random<double>({nmax}, 1), y = random<double>({nmax}, 2), z(nmax);
    index_t best_work = -1;
    auto measure = [&](auto make, int cost, const char* name) {
      std::vector<index_t> sz = sizes;
      std::vector<double> t1(sz.size()), t2(sz.size());
      const std::string stopped = sweep(sz, too_slow, [&](std::size_t i) {
        const index_t n = sz[i];
        auto xs = x(range(0, n)), ys = y(range(0, n));
        auto zs = z(range(0, n));
        t1[i] = time_per_call([&] { assign(simd, zs, make(xs, ys)); }, budget);
        t2[i] = time_per_call([&] { assign(par, zs, make(xs, ys)); }, budget);
        return std::min(t1[i], t2[i]);
      });
      const index_t n = crossover(sz, [&](std::size_t i) { return t2[i] < 0.9 * t1[i]; });
      r += std::string("threads, ") + name + ": ";
      if (n < 0)
        r += "never faster up to " + std::to_string(sz.back()) + " elements" + stopped + "\n";
      else {
        const std::size_t i = std::size_t(std::find(sz.begin(), sz.end(), n) - sz.begin());
        r += "faster from " + std::to_string(n) + " elements" +
             fmt(" (%.1f us vs %.1f us; work %.0f)", t2[i] * 1e6, t1[i] * 1e6, double(n) * cost) +
             stopped + "\n";
        const index_t w = n * cost;
        if (best_work < 0 || w < best_work) best_work = w;
      }
    };
    measure([](const auto& a, const auto& b) { return 2.5 * a + 1.5 * b; },
            lz::detail::cost_v<decltype(2.5 * x + 1.5 * y)>, "2.5*x + 1.5*y");
    measure([](const auto& a, const auto& b) { return sin(a) * exp(-b); },
            lz::detail::cost_v<decltype(sin(x) * exp(-y))>, "sin(x)*exp(-y)");
    if (best_work > 0) c.measured.parallel_work = best_work;
  } else {
    r += "threads: 1 thread available, parallel threshold unchanged\n";
  }

  // 2. Products with a non-BLAS operand: own any-stride kernel against copy + dgemm.
  {
    std::vector<index_t> sizes = {8, 12, 16, 24, 32, 48, 64, 96, 128};
    std::vector<double> own(sizes.size()), blas(sizes.size());
    const std::string stopped = sweep(sizes, too_slow, [&](std::size_t i) {
      const index_t n = sizes[i];
      matrix<double> wide = random<double>({n, 2 * n}, 3), B = random<double>({n, n}, 4), C(n, n),
                     Acopy(n, n);
      auto A = wide(all, range(0, 2 * n, 2)); // column stride 2: not a BLAS layout
      own[i] = time_per_call(
          [&] {
            kernels::blas::gemm_generic<double>(n, n, n, 1.0, A.data(), A.strides()[0],
                                                A.strides()[1], B.data(), n, 1, 0.0, C.data(), n,
                                                1);
          },
          budget);
      blas[i] = time_per_call(
          [&] {
            assign(simd, Acopy, A);
            kernels::blas::gemm(kernels::blas::order::row_major, kernels::blas::trans::none,
                                kernels::blas::trans::none, n, n, n, 1.0, Acopy.data(), n, B.data(),
                                n, 0.0, C.data(), n);
          },
          budget);
      return std::min(own[i], blas[i]);
    });
    const index_t n = crossover(sizes, [&](std::size_t i) { return blas[i] < own[i]; });
    if (n < 0) {
      const index_t top = sizes.back();
      r += "products with awkward strides: own kernel faster up to n=" + std::to_string(top) +
           stopped + "\n";
      c.measured.gemm_copy_flops = top * top * top;
    } else {
      const std::size_t i = std::size_t(std::find(sizes.begin(), sizes.end(), n) - sizes.begin());
      r += "products with awkward strides: copy + BLAS faster from n=" + std::to_string(n) +
           fmt(" (%.1f us vs own %.1f us)", blas[i] * 1e6, own[i] * 1e6) + stopped + "\n";
      c.measured.gemm_copy_flops = n * n * n;
    }
  }

  // 3. BLAS level 1 against the fused loop / reduction.
  {
    std::vector<index_t> sizes;
    for (index_t n = 1 << 10; n <= (index_t(1) << 20); n *= 4) sizes.push_back(n);
    const index_t nmax = sizes.back();
    vector<double> x = random<double>({nmax}, 5), y = random<double>({nmax}, 6);
    std::vector<double> fused(sizes.size()), blas(sizes.size()), fdot(sizes.size()),
        bdot(sizes.size());
    volatile double sink = 0;
    const std::string stopped = sweep(sizes, too_slow, [&](std::size_t i) {
      const index_t n = sizes[i];
      auto xs = x(range(0, n));
      auto ys = y(range(0, n));
      fused[i] = time_per_call([&] { assign(automatic, ys, 1e-9 * xs + ys); }, budget);
      blas[i] =
          time_per_call([&] { kernels::blas::axpy(n, 1e-9, xs.data(), 1, ys.data(), 1); }, budget);
      fdot[i] = time_per_call(
          [&] {
            tuning saved = thresholds();
            thresholds().dot_blas = 0;
            sink = sink + double(dot(xs, ys));
            thresholds() = saved;
          },
          budget);
      bdot[i] = time_per_call(
          [&] { sink = sink + kernels::blas::dot(n, xs.data(), 1, ys.data(), 1); }, budget);
      return std::min({fused[i], blas[i], fdot[i], bdot[i]});
    });
    const index_t na = crossover(sizes, [&](std::size_t i) { return blas[i] < 0.95 * fused[i]; });
    const index_t nd = crossover(sizes, [&](std::size_t i) { return bdot[i] < 0.95 * fdot[i]; });
    c.measured.level1_blas = na < 0 ? index_t(1) << 62 : na;
    c.measured.dot_blas = nd < 0 ? 0 : nd;
    r += na < 0 ? std::string("axpy: the fused loop is as fast as BLAS at every size\n")
                : "axpy: BLAS faster from " + std::to_string(na) + " elements\n";
    r += nd < 0 ? std::string("dot: the fused reduction is as fast as BLAS at every size")
                : "dot: BLAS faster from " + std::to_string(nd) + " elements";
    r += stopped + "\n";
  }

  // 4. Software prefetch in full reductions from memory: W3 with and without (first_use.hpp).
  //    It stays on only where it wins by 3% (median of 5 paired measurements): on some cores it
  //    adds to the hardware prefetcher's misses in flight, on others it only costs issue slots.
  {
    int pairs = 5;
    const double med = detail::measure_reduce_prefetch_ratio(budget, pairs);
    const index_t now = thresholds().reduce_prefetch;
    const index_t from = now > 0 ? now : index_t(8) << 20;
    c.measured.reduce_prefetch = med < 0.97 ? from : 0;
    r += med < 0.97 ? fmt("reductions from memory: software prefetch on from %lld bytes",
                          static_cast<long long>(from))
                    : std::string("reductions from memory: software prefetch off");
    r += fmt(" (time with / without %.3f)\n", med);
  }

  // 5. Streaming (non-temporal) stores: `z = 2.5*x + 1.5*y` on one thread with them forced on
  //    and off, for destinations of 1 to 32 MiB. A streaming store skips the read of the line a
  //    normal store first makes, and loses while the arrays fit the cache, so the crossover
  //    follows the cache size: stream_bytes = the smallest destination from which streaming wins
  //    by 5% there and at the next size; never in the sweep: left as it was.
  {
    std::vector<index_t> sizes; // elements: 1, 2, ..., 32 MiB of doubles
    for (index_t n = index_t(1) << 17; n <= (index_t(1) << 22); n *= 2) sizes.push_back(n);
    const index_t nmax = sizes.back();
    const vector<double> x = full<double>({nmax}, 1.25), y = full<double>({nmax}, 0.5);
    vector<double> z = full<double>({nmax}, 0.0);
    std::vector<double> on(sizes.size()), off(sizes.size());
    const index_t saved = thresholds().stream_bytes;
    const std::string stopped = sweep(sizes, too_slow, [&](std::size_t i) {
      auto xs = x(range(0, sizes[i])), ys = y(range(0, sizes[i]));
      auto zs = z(range(0, sizes[i]));
      auto timed = [&](index_t from) {
        thresholds().stream_bytes = from;
        return time_per_call([&] { assign(simd, zs, 2.5 * xs + 1.5 * ys); }, budget);
      };
      on[i] = timed(1);
      off[i] = timed(0);
      return std::min(on[i], off[i]);
    });
    thresholds().stream_bytes = saved;
    const index_t n = crossover(sizes, [&](std::size_t i) { return on[i] < 0.95 * off[i]; });
    if (n < 0) {
      r += "streaming stores: never 5% faster up to " +
           std::to_string((sizes.back() * index_t(sizeof(double))) >> 20) +
           " MiB destinations, stream_bytes unchanged";
    } else {
      const std::size_t i = std::size_t(std::find(sizes.begin(), sizes.end(), n) - sizes.begin());
      c.measured.stream_bytes = n * index_t(sizeof(double));
      r += fmt("streaming stores: faster from %lld MiB destinations (%.1f us vs %.1f us)",
               static_cast<long long>(c.measured.stream_bytes >> 20), on[i] * 1e6, off[i] * 1e6);
    }
    r += stopped + "\n";
  }

  // 6. The batch width of cheap trees (AVX-512 targets only: below it there is one width):
  //    `z = 2.5*x + 1.5*y` on one thread through its full-width and its 256-bit kernel, passes
  //    of 12 to 192 KiB (first_use.hpp: the measurement a CPU not in lazuli's table makes on
  //    first use). Full width wins in the L1 cache on some cores and loses on others, and
  //    beyond it wins on some and loses a few percent on others: wide_bytes = the pass up to
  //    which it won by 3% at every size; 0 if not at the first; unlimited if at all of them.
  if constexpr (std::is_same_v<kernels::cpu::narrow_arch, xsimd::default_arch>) {
    r += fmt("batch width of cheap trees: one width on this target (%s), wide_bytes unchanged\n",
             xsimd::default_arch::name());
  } else {
    const std::vector<detail::wide_batch_point> pts = detail::measure_wide_batches(budget);
    c.measured.wide_bytes = detail::wide_bytes_of(pts);
    std::size_t won = 0; // the sizes full width won, from the first (as wide_bytes_of decides)
    while (won < pts.size() && pts[won].ratio < 0.97) ++won;
    const detail::wide_batch_point& last = pts[won > 0 ? won - 1 : 0];
    r += c.measured.wide_bytes == 0
             ? fmt("batch width of cheap trees: %d-bit batches never 3%% faster (n=%lld: %.2f us "
                   "vs %.2f us), wide_bytes 0",
                   int(xsimd::batch<double>::size * 64), static_cast<long long>(pts[0].n),
                   pts[0].wide_s * 1e6, pts[0].narrow_s * 1e6)
             : fmt("batch width of cheap trees: %d-bit batches faster up to %lld-byte passes "
                   "(n=%lld: %.3f us vs %.3f us)%s",
                   int(xsimd::batch<double>::size * 64),
                   static_cast<long long>(last.n * 3 * index_t(sizeof(double))),
                   static_cast<long long>(last.n), last.wide_s * 1e6, last.narrow_s * 1e6,
                   won == pts.size() ? ", every size measured: wide_bytes unlimited" : "");
    r += "\n";
  }

  if (opt.apply) thresholds() = c.measured;
  return c;
}

} // namespace lz
