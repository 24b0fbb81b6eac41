// The CPU reduction drivers (kernels/cpu/reduce.cpp) and what they promise a tree's slab
// (kernels/cpu/reduce.hpp): a slab on batches of W lanes reads each row's last batch ending at
// the row's last element, so the W elements ending there must be readable. A recording slab
// (W = 8, doubles) reads exactly that, as the real one does, and sums only the lanes it owns;
// the operands sit between sentinels (values below 100, every element at least 100), so a
// read before an operand, into a row gap or past its end shows in the smallest value seen,
// and any lane counted twice or missed shows in the sum (integers: exact in double).
#include <boost/test/unit_test.hpp>

#include <lz/lz.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <tuple>
#include <vector>

namespace {

namespace cpu = lz::kernels::cpu;
using lz::index_t;

using float_types = std::tuple<float, double>;
constexpr index_t W = 8;              // the recording slab's declared batch
constexpr double sentinel = 1.0;      // below every element
constexpr index_t margin = 2 * W + 8; // sentinel elements before and after an operand

struct slab_log {
  double smallest_seen = 1e300; // smallest value read, padding lanes included
  int calls = 0;
  int each_calls = 0;       // calls storing each row as an output
  int empty_calls = 0;      // calls of no row or no element
  int in_place_partial = 0; // calls with n % W != 0 reading the row where it lies
  int vertical_calls = 0;   // calls of the vertical kernel
  const double* lo = nullptr;
  const double* hi = nullptr; // the operand's storage [lo, hi)
  std::vector<double> trace;  // per call: rows, n, and what each row added
};

// What the real slab does on batches: whole batches from the row's start, then the last W
// elements with the lanes before position i (counted already) left out.
// With `each`, every row is an output of its own, stored at p[0] + r * so[0].
void recording_slab(const void* ctx, char* const* p, const index_t*, const index_t* so,
                    index_t rows, index_t n, index_t, index_t, void* st, bool each) {
  slab_log& log = *static_cast<slab_log*>(const_cast<void*>(ctx));
  double& acc = *static_cast<double*>(st);
  ++log.calls;
  if (each) ++log.each_calls;
  if (rows <= 0 || n <= 0) ++log.empty_calls;
  log.trace.push_back(double(rows));
  log.trace.push_back(double(n));
  for (index_t r = 0; r < rows; ++r) {
    const double* x = reinterpret_cast<const double*>(p[1] + r * so[1]);
    if (n % W != 0 && x >= log.lo && x < log.hi) ++log.in_place_partial;
    double row = 0;
    for (index_t i = 0; i < n; i += W) {
      const index_t j = i + W <= n ? i : n - W;
      for (index_t l = 0; l < W; ++l) {
        const double v = x[j + l];
        log.smallest_seen = std::min(log.smallest_seen, v);
        if (l >= i - j) row += v;
      }
    }
    log.trace.push_back(row);
    if (each)
      *reinterpret_cast<double*>(p[0] + r * so[0]) = row;
    else
      acc += row;
  }
}
void init_sum(void* st) { *static_cast<double*>(st) = 0; }
void finish_sum(const void* st, void* part) {
  *static_cast<double*>(part) = *static_cast<const double*>(st);
}
void combine_sum(void* a, const void* b) {
  *static_cast<double*>(a) += *static_cast<const double*>(b);
}
void combine_n_sum(void* a, const void* b, index_t n) {
  for (index_t i = 0; i < n; ++i)
    combine_sum(static_cast<double*>(a) + i, static_cast<const double*>(b) + i);
}
void store_sum(const void* part, index_t, char* dst) {
  *reinterpret_cast<double*>(dst) = *static_cast<const double*>(part);
}

constexpr cpu::reduce_kernels recording{&recording_slab, &init_sum,      &finish_sum,
                                        &combine_sum,    &combine_n_sum, &store_sum,
                                        nullptr,         int(W),         8};

// What the real vertical kernel reads (kernels/cpu/reduce.hpp): outputs in batches of W, a last
// partial batch as the last W outputs, each of the len rows of every leaf at p[l] + i * s_axis
// elements, its outputs s_inner apart (1 or 0); it sums output j of leaf 1 over the rows and
// stores it (raw: into dst[j] as a double, the only mode the drivers' narrow outputs use); a
// read outside [lo, hi) counts as a sentinel (with lo null, as for a driver's tiled copy, none).
// The trace: per call len, nout, leaf 1's s_axis and s_inner, and raw.
void recording_vertical(const void* ctx, char* const* p, const index_t* s_inner,
                        const index_t* s_axis, index_t len, index_t nout, char* dst, bool raw) {
  slab_log& log = *static_cast<slab_log*>(const_cast<void*>(ctx));
  ++log.vertical_calls;
  if (len <= 0 || nout < W) ++log.empty_calls; // (nout >= W: the kernel's precondition)
  for (double t : {double(len), double(nout), double(s_axis[1]), double(s_inner[1]), double(raw)})
    log.trace.push_back(t);
  for (index_t j = 0; j < nout; ++j) {
    double sum = 0;
    for (index_t i = 0; i < len; ++i) {
      const double* x = reinterpret_cast<const double*>(p[1]) + i * s_axis[1] + j * s_inner[1];
      const bool inside = !log.lo || (x >= log.lo && x < log.hi); // (no lo: a driver's copy)
      log.smallest_seen = std::min(log.smallest_seen, inside ? *x : -1.0);
      sum += inside ? *x : 0.0;
    }
    reinterpret_cast<double*>(dst)[j] = sum;
  }
}

constexpr cpu::reduce_kernels recording_axis{&recording_slab,     &init_sum,      &finish_sum,
                                             &combine_sum,        &combine_n_sum, &store_sum,
                                             &recording_vertical, int(W),         8};

// An operand of `count` elements laid out `stride` apart (0: one element broadcast), between
// sentinels, gaps holding sentinels too; values 100 + k.
struct guarded {
  std::vector<double> mem;
  double* data;
  guarded(index_t count, index_t stride) {
    const index_t span = stride == 0 ? 1 : (count - 1) * stride + 1;
    mem.assign(std::size_t(std::max<index_t>(span, 0) + 2 * margin), sentinel);
    data = mem.data() + margin;
    for (index_t k = 0; k < count; ++k) data[k * stride] = 100.0 + double(k % 1000);
  }
};

cpu::reduce_options one_thread(index_t block) {
  cpu::reduce_options o;
  o.threads = false;
  o.block = block;
  return o;
}

void check(const slab_log& log, double got, double want) {
  BOOST_TEST(got == want);
  BOOST_TEST(log.smallest_seen >= 100.0); // no sentinel read: nothing before, between or after
  BOOST_TEST(log.empty_calls == 0);
}

// run_reduce over the first n elements of x, contiguous; want: their sum.
double reduce_contiguous(const guarded& x, index_t n, slab_log& log, const cpu::reduce_options& opt,
                         double& want) {
  log.lo = x.data, log.hi = x.data + n;
  lz::detail::operand ops[2] = {};
  for (auto& o : ops) o.ptr = reinterpret_cast<char*>(x.data), o.esize = 8, o.strides[0] = 1;
  const index_t ext[1] = {n};
  double got = -1;
  want = 0;
  for (index_t k = 0; k < n; ++k) want += x.data[k];
  cpu::run_reduce(1, ext, 2, ops, recording, &log, opt, &got);
  return got;
}

} // namespace

// A contiguous vector (run_reduce's fast path) in blocks of 4096 or of a few elements: a block
// of fewer than W elements with fewer than W before it in the vector runs on a padded copy;
// a later short block reads its last batch in place, overlapping the block before.
BOOST_AUTO_TEST_CASE(a_contiguous_reduction_reads_each_last_batch_within_its_operand) {
  for (index_t block : {4096, 3, 5, 8, 13})
    for (index_t n = 0; n <= 41; ++n) {
      guarded x(n, 1);
      slab_log log;
      double want;
      const double got = reduce_contiguous(x, n, log, one_thread(block), want);
      BOOST_TEST_CONTEXT("n = " << n << ", block " << block) {
        check(log, got, want);
        // In place whenever the W elements before the end lie in the vector.
        if (n >= W && n % W != 0 && block >= W) BOOST_TEST(log.in_place_partial >= 1);
        if (n < W && n > 0) BOOST_TEST(log.in_place_partial == 0); // a padded copy
      }
    }
}

// run_reduce_vector<N>, the entry of rank-1 trees (the operand test unrolled), makes the slab
// calls run_reduce makes, in the same order, on any length, block, prefetch setting, stride
// (contiguous, strided: packed, broadcast) and with a second leaf, ops[0] left unset (garbage
// here: the entry fills it before run_reduce reads it).
template <int N>
void check_vector_entry(index_t n, index_t stride, const cpu::reduce_options& opt) {
  guarded x(n, stride), y(n, 1);
  slab_log want_log, got_log;
  want_log.lo = got_log.lo = x.data;
  want_log.hi = got_log.hi =
      x.data + (stride == 0 ? 1 : std::max<index_t>((n - 1) * stride + 1, 0));
  auto operands = [&](bool walk_order) {
    std::array<lz::detail::operand, N> ops{};
    ops[1].ptr = reinterpret_cast<char*>(x.data), ops[1].esize = 8, ops[1].strides[0] = stride;
    if (N > 2)
      ops[2].ptr = reinterpret_cast<char*>(y.data), ops[2].esize = 8, ops[2].strides[0] = 1;
    if (walk_order)
      ops[0] = ops[1];
    else
      ops[0].ptr = nullptr, ops[0].esize = 3, ops[0].strides[0] = -7;
    return ops;
  };
  auto want_ops = operands(true), got_ops = operands(false);
  double want = -1, got = -2;
  cpu::run_reduce(1, &n, N, want_ops.data(), recording, &want_log, opt, &want);
  cpu::run_reduce_vector<N>(n, got_ops.data(), recording, &got_log, opt, &got);
  double sum = 0;
  for (index_t k = 0; k < n; ++k) sum += x.data[k * stride];
  BOOST_TEST(want == sum); // (the recording slab sums leaf 1 only)
  BOOST_TEST(got == want);
  BOOST_TEST(got_log.trace == want_log.trace, boost::test_tools::per_element());
  BOOST_TEST(got_log.smallest_seen >= 100.0);
  BOOST_TEST(got_log.empty_calls == 0);
}

BOOST_AUTO_TEST_CASE(the_vector_entry_makes_the_slab_calls_run_reduce_makes) {
  std::vector<index_t> lengths;
  for (index_t n = 0; n <= 41; ++n) lengths.push_back(n);
  for (index_t n : {129, 300, 4096, 4097, 5000}) lengths.push_back(n);
  for (index_t block : {4096, 3, 8, 13})
    for (bool prefetch : {false, true})
      for (index_t n : lengths)
        for (index_t stride : {1, 2, 0}) {
          cpu::reduce_options opt = one_thread(block);
          if (prefetch) opt.prefetch_bytes = 1, opt.prefetch_distance = 16;
          BOOST_TEST_CONTEXT("n = " << n << ", stride " << stride << ", block " << block
                                    << (prefetch ? ", prefetching" : "")) {
            check_vector_entry<2>(n, stride, opt);
            check_vector_entry<3>(n, stride, opt);
          }
        }
}

// Software prefetches cut a row into spans of 128 elements: a span's short end reads into the
// span before it, inside the same row.
BOOST_AUTO_TEST_CASE(prefetched_spans_read_their_last_batch_within_the_row) {
  for (index_t n : {129, 130, 135, 257, 300, 4096 + 7}) {
    guarded x(n, 1);
    slab_log log;
    cpu::reduce_options opt = one_thread(4096);
    opt.prefetch_bytes = 1, opt.prefetch_distance = 16;
    double want;
    const double got = reduce_contiguous(x, n, log, opt, want);
    BOOST_TEST_CONTEXT("n = " << n) {
      check(log, got, want);
      BOOST_TEST(log.calls >= 2); // (spans, not one call)
    }
  }
}

// Rows with gaps between them, strided columns (packed) and broadcast columns (stride 0), in
// blocks of whole rows or of a few elements: rows shorter than a batch run on padded copies
// and never read a gap.
BOOST_AUTO_TEST_CASE(short_rows_gaps_strides_and_broadcasts_never_read_outside_the_operand) {
  for (index_t block : {4096, 5})
    for (index_t m : {1, 2, 5})
      for (index_t n = 1; n <= 19; ++n)
        for (index_t col : {1, 2, 0}) { // column stride: contiguous, strided, broadcast
          const index_t row = col == 0 ? 1 : n * col + 3; // 3 sentinels between rows
          guarded x(m * (col == 0 ? 1 : row), 1);
          for (index_t r = 0; r < m; ++r) // the gaps and the skipped columns: sentinels
            for (index_t c = 0; c < (col == 0 ? 1 : row); ++c)
              if (col != 0 && (c % col != 0 || c / col >= n)) x.data[r * row + c] = sentinel;
          slab_log log;
          log.lo = x.data, log.hi = x.data + m * row;
          lz::detail::operand ops[2] = {};
          ops[0].ptr = reinterpret_cast<char*>(x.data), ops[0].esize = 8;
          ops[0].strides[0] = n, ops[0].strides[1] = 1; // (guides the order only)
          ops[1].ptr = reinterpret_cast<char*>(x.data), ops[1].esize = 8;
          ops[1].strides[0] = row, ops[1].strides[1] = col;
          const index_t ext[2] = {m, n};
          double got = -1, want = 0;
          for (index_t r = 0; r < m; ++r)
            for (index_t c = 0; c < n; ++c) want += x.data[r * row + c * col];
          cpu::run_reduce(2, ext, 2, ops, recording, &log, one_thread(block), &got);
          BOOST_TEST_CONTEXT("m = " << m << ", n = " << n << ", column stride " << col << ", block "
                                    << block) {
            check(log, got, want);
          }
        }
}

// Along an axis by segments (one output at a time), the axis contiguous or strided: an axis
// shorter than a batch runs on padded copies.
BOOST_AUTO_TEST_CASE(axis_segments_read_each_last_batch_within_their_operand) {
  for (index_t block : {4096, 5})
    for (index_t len = 0; len <= 19; ++len)
      for (index_t s_axis : {1, 3}) {
        const index_t nout = 4, row = len * s_axis + 2;
        guarded x(nout * row, 1);
        for (index_t o = 0; o < nout; ++o)
          for (index_t c = 0; c < row; ++c)
            if (c % s_axis != 0 || c / s_axis >= len) x.data[o * row + c] = sentinel;
        slab_log log;
        log.lo = x.data, log.hi = x.data + nout * row;
        std::vector<double> out(nout, -1.0);
        lz::detail::operand ops[2] = {};
        ops[0].ptr = reinterpret_cast<char*>(out.data()), ops[0].esize = 8;
        ops[0].strides[0] = 1;
        ops[1].ptr = reinterpret_cast<char*>(x.data), ops[1].esize = 8;
        ops[1].strides[0] = row, ops[1].strides[1] = s_axis;
        const index_t out_ext[1] = {nout};
        cpu::run_reduce_axis(1, out_ext, len, 2, ops, recording, &log, one_thread(block));
        BOOST_TEST_CONTEXT("axis " << len << " at stride " << s_axis << ", block " << block) {
          for (index_t o = 0; o < nout; ++o) {
            double want = 0;
            for (index_t c = 0; c < len; ++c) want += x.data[o * row + c * s_axis];
            BOOST_TEST(out[std::size_t(o)] == want);
          }
          BOOST_TEST(log.smallest_seen >= 100.0);
          BOOST_TEST(log.empty_calls == 0);
        }
      }
}

// Along a contiguous axis of a batch or more within one block: each row of outputs is one slab
// call, every output one row of it, stored by the slab (`each`); rows of outputs apart in
// memory (a 2-d result) are separate calls. Shorter axes, strided axes and axes longer than a
// block go by segments.
BOOST_AUTO_TEST_CASE(contiguous_axis_segments_run_a_row_of_outputs_per_slab_call) {
  for (index_t block : {4096, 16})
    for (index_t len : {W - 1, W, W + 3, index_t(37)})
      for (index_t nout : {1, 5, 20}) {
        const index_t planes = 2, row = len + 3, plane = nout * row + 5; // gaps: sentinels
        guarded x(planes * plane, 1);
        for (index_t q = 0; q < planes; ++q)
          for (index_t o = 0; o < nout; ++o)
            for (index_t c = len; c < row; ++c) x.data[q * plane + o * row + c] = sentinel;
        for (index_t q = 0; q < planes; ++q)
          for (index_t c = nout * row; c < plane; ++c) x.data[q * plane + c] = sentinel;
        slab_log log;
        log.lo = x.data, log.hi = x.data + planes * plane;
        std::vector<double> out(std::size_t(planes * nout), -1.0);
        lz::detail::operand ops[2] = {};
        ops[0].ptr = reinterpret_cast<char*>(out.data()), ops[0].esize = 8;
        ops[0].strides[0] = nout, ops[0].strides[1] = 1;
        ops[1].ptr = reinterpret_cast<char*>(x.data), ops[1].esize = 8;
        ops[1].strides[0] = plane, ops[1].strides[1] = row, ops[1].strides[2] = 1;
        const index_t out_ext[2] = {planes, nout};
        cpu::run_reduce_axis(2, out_ext, len, 2, ops, recording, &log, one_thread(block));
        BOOST_TEST_CONTEXT("axis " << len << ", " << nout << " outputs a row, block " << block) {
          for (index_t q = 0; q < planes; ++q)
            for (index_t o = 0; o < nout; ++o) {
              double want = 0;
              for (index_t c = 0; c < len; ++c) want += x.data[q * plane + o * row + c];
              BOOST_TEST(out[std::size_t(q * nout + o)] == want);
            }
          BOOST_TEST(log.smallest_seen >= 100.0);
          BOOST_TEST(log.empty_calls == 0);
          if (len >= W && len <= block) {
            BOOST_TEST(log.calls == planes);
            BOOST_TEST(log.each_calls == planes);
          } else {
            BOOST_TEST(log.each_calls == 0);
            BOOST_TEST(log.calls >= planes * nout);
          }
        }
      }
}

// Outputs that are not a whole number of batch pairs (k % 2W != 0), the leaf contiguous over
// the (axis, outputs) block (`sum(P, 0)` of an m x k point set), a row vector broadcast down
// the axis, or one value broadcast to all: the block runs as len / r rows of P = lcm(k, 2W)
// elements (r = P / k) in raw vertical calls (one per chunk of at most 128 KiB, halved), the
// rows left over (fewer than r) as one row of a last call over the block's last max(their
// elements, W) elements, and nothing is read outside the operand; each output is the sum of its
// elements. Blocks of fewer than W elements, k = 1, whole batch pairs, P of more than 256
// doubles (2 KiB) and, from a batch of outputs up, blocks of fewer than 64 wide rows go by
// segments (the destination is strided: the vertical kernel's other mode is not taken).
BOOST_AUTO_TEST_CASE(narrow_outputs_run_as_wide_rows_in_raw_vertical_calls) {
  for (index_t k = 1; k <= 5 * W; ++k)
    for (index_t len : {1, 2, 3, 7, 8, 15, 16, 17, 33, 100, 127, 128, 257, 1001, 5000})
      for (int leaf = 0; leaf < 3; ++leaf) { // contiguous block, row vector, one value
        const index_t count = leaf == 0 ? len * k : leaf == 1 ? k : 1;
        guarded x(count, 1);
        slab_log log;
        log.lo = x.data, log.hi = x.data + count;
        const index_t L = len * k, P = std::lcm(k, 2 * W);
        const bool narrow =
            k > 1 && k % (2 * W) != 0 && P <= 256 && L >= W && (k < W || len >= 64 * (P / k));
        if (leaf == 1 && narrow) log.lo = nullptr; // (read from the driver's tiles)
        std::vector<double> out(std::size_t(2 * k), -1.0);
        lz::detail::operand ops[2] = {};
        ops[0].ptr = reinterpret_cast<char*>(out.data()), ops[0].esize = 8;
        ops[0].strides[0] = 2; // (a strided destination)
        ops[1].ptr = reinterpret_cast<char*>(x.data), ops[1].esize = 8;
        ops[1].strides[0] = leaf == 2 ? 0 : 1, ops[1].strides[1] = leaf == 0 ? k : 0;
        const index_t out_ext[1] = {k};
        cpu::run_reduce_axis(1, out_ext, len, 2, ops, recording_axis, &log, one_thread(4096));
        BOOST_TEST_CONTEXT(len << " x " << k << ", leaf kind " << leaf) {
          for (index_t o = 0; o < k; ++o) {
            double want = 0;
            for (index_t i = 0; i < len; ++i)
              want += x.data[leaf == 0 ? i * k + o : leaf == 1 ? o : 0];
            BOOST_TEST(out[std::size_t(2 * o)] == want);
            BOOST_TEST(out[std::size_t(2 * o + 1)] == -1.0); // (between outputs: untouched)
          }
          BOOST_TEST(log.smallest_seen >= 100.0);
          BOOST_TEST(log.empty_calls == 0);
          if (!narrow) { // by segments: slab calls only
            BOOST_TEST(log.calls >= 1);
            BOOST_TEST(log.vertical_calls == 0);
            continue;
          }
          BOOST_TEST(log.calls == 0);
          const index_t r = P / k, rows = len / r, Lt = L - rows * P;
          std::vector<double> want_trace;
          const double s_in = leaf == 2 ? 0 : 1;
          const double s_ax = leaf == 0 ? double(P) : 0.0;
          // Rows of a contiguous block in chunks of at most 128 KiB (and 256 rows at least),
          // halved in order.
          const index_t chunk = leaf == 0 ? std::max<index_t>(256, 131072 / (P * 8)) : rows;
          auto chunks = [&](auto self, index_t n) -> void {
            if (n <= chunk) {
              want_trace.insert(want_trace.end(), {double(n), double(P), s_ax, s_in, 1.0});
              return;
            }
            self(self, n / 2);
            self(self, n - n / 2);
          };
          if (rows > 0) chunks(chunks, rows);
          if (Lt > 0)
            want_trace.insert(want_trace.end(), {1.0, double(std::max(Lt, W)), s_ax, s_in, 1.0});
          BOOST_TEST(log.trace == want_trace, boost::test_tools::per_element());
        }
      }
}

// A batch's lanes fold in the order red_acc::fold_lanes documents (kernels/cpu/reduce.hpp):
// adjacent lanes pairwise, then adjacent pairs, and so on, then the scalar accumulator. Every
// full and axis reduction ends in this fold, so its order is part of their bits. The values
// span 2^±30, so most orders round differently; the test checks that halves first (another
// tree of the same depth) would have failed it.
BOOST_AUTO_TEST_CASE_TEMPLATE(a_batch_folds_its_lanes_adjacent_pairs_first, T, float_types) {
  using B = xsimd::batch<T>;
  constexpr int w = int(B::size);
  using acc = cpu::red_acc<lz::red::sum_op, T, true>;
  static_assert(acc::W == w);
  std::uint64_t state = 0x5eed + sizeof(T);
  auto next = [&] { // xorshift64*
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545f4914f6cdd1dull;
  };
  auto value = [&] {
    const T mantissa = T(1) + T(double(next() >> 11) * 0x1p-53);
    return T((next() & 1) ? -1 : 1) * std::ldexp(mantissa, int(next() % 61) - 30);
  };
  int other_order_differs = 0;
  for (int trial = 0; trial < 200; ++trial) {
    alignas(64) T lanes[w];
    for (T& l : lanes) l = value();
    const T tail = value();
    T pairs[w], halves[w];
    std::copy(lanes, lanes + w, pairs);
    std::copy(lanes, lanes + w, halves);
    for (int width = w; width > 1; width /= 2)
      for (int j = 0; j < width / 2; ++j) {
        pairs[j] = pairs[2 * j] + pairs[2 * j + 1];
        halves[j] = halves[j] + halves[j + width / 2];
      }
    const T want = pairs[0] + tail, other = halves[0] + tail;
    const T got = acc::fold_lanes(B::load_aligned(lanes), tail);
    BOOST_TEST(std::memcmp(&got, &want, sizeof(T)) == 0, got << " vs " << want);
    other_order_differs += std::memcmp(&other, &want, sizeof(T)) != 0;
  }
  BOOST_TEST(other_order_differs > 0);
}
