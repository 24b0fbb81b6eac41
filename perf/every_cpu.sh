#!/bin/bash
# perf/every_cpu.sh: the measurements behind issue 30's "done when" (fast on every CPU), in one
# run, for each build directory given: the CPU and BLAS kernels in use first, then each
# benchmark with the command that ran it. Nothing is set for OpenBLAS's kernels: the figures are
# what a user gets with no environment (export OPENBLAS_CORETYPE yourself to compare). The
# verdicts are read from the output against perf/RESULTS.md's targets by hand.
#
#   bash perf/every_cpu.sh build                # the native Release build
#   bash perf/every_cpu.sh build build-avx2     # and an AVX2-only one (-march=x86-64-v3)
#   bash perf/every_cpu.sh build > every_cpu.txt 2>&1
# The builds (the AVX2-only one with -DLZ_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3):
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLZ_BUILD_PERF=ON
#   cmake --build build -j --target products_bench w1_paired w3_paired elementwise_bench \
#     w13_tall_gemv w8_fixed reduce_paired 06_tuning
set -u
if [ $# -lt 1 ]; then
  echo "usage: bash perf/every_cpu.sh BUILD_DIR [BUILD_DIR...]" >&2
  exit 2
fi

run() {
  echo "\$ $*"
  "$@"
  echo
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
grep -m1 'model name' /proc/cpuinfo
echo "family $(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
  "model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
  "$(nproc) cores; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-(unset)}"
echo "GCC -march=native: $(gcc -march=native -Q --help=target 2>/dev/null |
  awk '$1 == "-march=" {print $2; exit}')"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

for b in "$@"; do
  p="$b/perf"
  if [ ! -x "$p/products_bench" ]; then
    echo "every_cpu.sh: $p/products_bench is missing: build the perf targets in $b first" >&2
    exit 2
  fi
  echo "## build $b ($(awk '/^(LZ_NATIVE|CMAKE_CXX_FLAGS):/ {printf "%s ", $0}' \
    "$b/CMakeCache.txt" 2>/dev/null))"
  echo
  # lz::info(): the SIMD target, BLAS, its kernels and where each tuning value came from (the
  # example also calibrates and saves a tuning file: in a directory of its own).
  if [ -x "$b/examples/06_tuning" ]; then
    ex="$(cd "$b" && pwd)/examples/06_tuning"
    tmp=$(mktemp -d)
    (cd "$tmp" && run "$ex")
    rm -rf "$tmp"
  fi
  # W4 / W6 and their float forms (W11T / W11S), n = 1024, against Eigen's own gemm and the CBLAS
  # call: one thread.
  run env OPENBLAS_NUM_THREADS=1 LZ_NUM_THREADS=1 "$p/products_bench" \
    --benchmark_filter='^W(4|6|11T|11S)/(lazuli|cblas|eigen)/1024' \
    --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true
  # W1 in cache (n = 1e3, and one past it): lazuli/hand, thread CPU time.
  run "$p/w1_paired" 1000 41 cpu
  run "$p/w1_paired" 1001 41 cpu
  # W3 from memory: lazuli/Eigen; and NaN-propagating max(abs(x - y)) in cache (the maximum's
  # AVX-512 form, docs/decisions/fixed-trees-on-simd-vectors.md).
  run "$p/w3_paired" 10000000 21 cpu
  run "$p/w3_paired" 10000 101 cpu max
  # W1 n = 1e7 against the best peer, W2 against xtensor: one thread.
  run env LZ_NUM_THREADS=1 "$p/elementwise_bench" \
    --benchmark_filter='^(W1/(lazuli|hand|eigen|armadillo)/10000000|W2/(lazuli|xtensor_noalias)/10000000)' \
    --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true
  # W13: transpose(X) * r, 100,000 x 100 row-major, on all threads, against Eigen's gemv.
  run "$p/w13_tall_gemv" 100000 100 41
  # W8 fixed-size 4x4 trees against Eigen (exp(A) runs 512-bit through the library's exp: is
  # that faster than 256-bit inlined on this core? docs/decisions/fixed-trees-on-simd-vectors.md)
  run "$p/w8_fixed" 21
  # Axis sums and short full sums against Eigen (docs/decisions/reduction-tail-in-lanes.md).
  run "$p/reduce_paired" 15
done
