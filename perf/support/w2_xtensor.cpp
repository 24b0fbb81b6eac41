// W2's xtensor variant, compiled apart from lazuli's. GCC inlines xsimd's sin and exp bodies
// into xtensor's loop only while that loop is their one caller in the file: in
// elementwise_bench.cpp, where lazuli's W2 kernel inlines the same bodies (AVX2 targets,
// include/lz/simd.hpp), both became out-of-line calls and xtensor ran 1.2-1.4x slower than in a
// file of its own, as a user's would be (perf/RESULTS.md, "Transcendental math on AVX2").
#include "support/anchors.hpp"
#include "support/w2.hpp"

#if LZ_HAVE_XTENSOR
#include <array>

namespace lz_perf {

void w2_xtensor(benchmark::State& st, bool noalias) {
  const std::int64_t n = st.range(0);
  const std::array<std::size_t, 1> sh{std::size_t(n)};
  arrays<double> a(5, n);
  w2_fill(a[0], a[1], a[2], a[3], n);
  auto x = xt::adapt(a[0], sh), y = xt::adapt(a[1], sh), w = xt::adapt(a[2], sh),
       v = xt::adapt(a[3], sh), z = xt::adapt(a[4], sh);
  xt::xtensor<double, 1> zc = xt::zeros<double>(sh); // plain form: see elementwise_bench's W1
  use_threads(1);
  for (auto _ : st) {
    if (noalias)
      xt::noalias(z) = x * y + xt::sin(w) * xt::exp(-v);
    else
      zc = x * y + xt::sin(w) * xt::exp(-v);
    benchmark::DoNotOptimize(z.data());
    benchmark::DoNotOptimize(zc.data());
    benchmark::ClobberMemory();
  }
  set_bytes(st, n, 5, sizeof(double));
}

} // namespace lz_perf
#endif
