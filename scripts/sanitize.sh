#!/usr/bin/env bash
# Sanitizer runs (docs/reliability.md), both run by .ci/run after the Release suite:
#   asan: the whole test suite and the examples with AddressSanitizer + UndefinedBehaviorSanitizer
#         (every report fatal, leaks included). Excluded: `gpu` (no device here; those suites'
#         sources also build on the host system and run), compile-time checks (they run the
#         compiler, not lazuli), packaging (an install test) and `emulated` (run under QEMU's
#         user mode, which the sanitizers' runtimes do not run under).
#   tsan: the suites that run lz::par / lz::automatic over TBB threads, the fuzz batch
#         included, with ThreadSanitizer (scripts/tsan.supp: TBB's own task machinery only).
#         Not the device suites on Thrust's TBB host system: Thrust spawns its TBB tasks in its
#         own headers, where lazuli cannot state the fork/join edges that the uninstrumented
#         libtbb.so hides from TSan (kernels/cpu/parallel.cpp does it for lazuli's loops), so
#         every device result read back would be reported.
# Each uses its own build directory, so the Release build is untouched.
# Usage: scripts/sanitize.sh asan|tsan [build-dir]; JOBS=n overrides -j; OPT=-O1 overrides the
# optimisation level, DEBUG=-g the debug information. Both build at -O0: for most suites building
# optimised costs more CPU than the run saves (GCC at -O1 with ASan needs ~4.6 GB and 5 min for
# the largest test TU; clang at -O1 4x the -O0 build time), and -O0 still runs every SIMD kernel
# (include/lz/simd.hpp keeps AVX-512 debug builds compiling). The few suites whose -O0 run costs more than an optimised
# build (RUN_BOUND in tests/CMakeLists.txt, measured per suite in docs/reliability.md) build at
# -O1 (RUN_BOUND_OPT overrides).
# Compiler: clang 16 where present (scripts/install_deps.sh installs it), else the default
# (GCC); SAN_CXX=<compiler> overrides. clang's UBSan also checks pointer arithmetic (it found an
# offset applied to a null pointer that GCC's let through); its ASan build takes about half of
# GCC's CPU and its TSan suites run ~4x faster (docs/decisions/sanitizers-with-clang.md).
# clang's runtimes symbolize reports with llvm-symbolizer (package llvm-16): without it no frame
# has a name and scripts/tsan.supp, which matches names, suppresses nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-asan}
jobs=${JOBS:-$(nproc)}
# lz::dist is off here: Open MPI keeps memory until exit that LeakSanitizer reports, and its
# suites run under mpiexec (the Release build runs them: ctest -L dist).
common=(-DLZ_ENABLE_MPI=OFF -DLZ_BUILD_EXAMPLES=ON -DLZ_BUILD_PERF=OFF -DLZ_INSTALL=OFF -DLZ_ENABLE_CUDA=OFF
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLZ_RUN_BOUND_FLAGS="${RUN_BOUND_OPT:--O1}")
sym=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
cxx=${SAN_CXX:-$(command -v clang++-16 || true)}
# TSan's suppressions need symbolized frames: clang for tsan only with a symbolizer.
[[ -z ${SAN_CXX:-} && $mode == tsan && -z $sym ]] && cxx=
ubsan=undefined
symbolizer=
# Reports need function names and lines, not variables: line tables only (-g1 for GCC) cost ~8%
# less to compile than -g (clang, device_elementwise_test under ASan: 20.3 against 22.1 CPU-s) and
# make the objects 16% smaller to link. DEBUG="-g" gives a debugger's build.
debug=${DEBUG:--g1}
if [[ -n $cxx ]]; then
  common+=(-DCMAKE_CXX_COMPILER="$cxx")
  if [[ $("$cxx" --version) == *clang* ]]; then
    debug=${DEBUG:--gline-tables-only}
    # clang's -fsanitize=undefined also checks float-to-int casts, which GCC's does not (GCC has
    # it as a separate -fsanitize=float-cast-overflow), and xsimd's scalar `to_int` casts NaN/Inf
    # in exp's range reduction: that one check stays off, as with GCC.
    ubsan="undefined -fno-sanitize=float-cast-overflow"
    [[ -n $sym ]] && symbolizer=":external_symbolizer_path=$sym"
  fi
fi
start=$(date +%s)
case "$mode" in
asan)
  dir=${2:-build-asan}
  flags="${OPT:--O0} $debug -fno-omit-frame-pointer -fsanitize=address,$ubsan -fno-sanitize-recover=all"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  cmake --build "$dir" -j"$jobs"
  built=$(date +%s)
  # detect_leaks: lazuli must not leak, even on the error paths the bad-input suite takes.
  # allocator_may_return_null: the bad-input suite asks for a few EiB and expects
  # std::bad_alloc, which ASan's allocator otherwise turns into a fatal report.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:allocator_may_return_null=1$symbolizer
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1$symbolizer
  # The fuzz batch at a fifth of its size: under ASan a tree costs ~5x (the Release run keeps 20k).
  export LZ_FUZZ_TREES=${LZ_FUZZ_TREES:-4000}
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE 'gpu|compile-fail|packaging|emulated' \
        -E '_compiles|compile_fail|fails?_to_compile|pulls_in_no'
  ;;
tsan)
  dir=${2:-build-tsan}
  flags="${OPT:--O0} $debug -fno-omit-frame-pointer -fsanitize=thread"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
  # The suites that run lz::par / lz::automatic over TBB (kernels/cpu/parallel.cpp; not the
  # device suites, see the top of this file). TSAN_TESTS="a b" runs a subset.
  read -r -a threaded <<<"${TSAN_TESTS:-random_tree_test elementwise_test reduction_test \
ops_test alias_test alias_torture_test kernels_loop_test evaluate_test gemm_test nested_test \
tuning_inputs_test first_use_test lifetime_test sparse_kernels_test sparse_test sparse_computed_test \
fuzz_batch_test}"
  # One make per test (each is one TU), $jobs at a time: `cmake --build --target a b c` would
  # build the targets one after the other, on one core.
  cmake --build "$dir" -j"$jobs" --target lazuli_kernels lz_test_main # (main + the shared PCH)
  printf '%s\n' "${threaded[@]}" | xargs -P "$jobs" -I{} cmake --build "$dir" -j1 --target {}
  built=$(date +%s)
  export LZ_FUZZ_TREES=${LZ_FUZZ_TREES:-2000}
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp$symbolizer"
  # OpenBLAS's own threads hand work back through spin-waits in uninstrumented code, invisible to
  # TSan: with them, a product's result read by the caller is reported as a race against the
  # worker's memset of C (dgemm_beta on the SkylakeX core). lazuli's threads are TBB's; OpenBLAS
  # runs on one thread here (the Release suites run it threaded).
  export OPENBLAS_NUM_THREADS=1
  regex=$(IFS='|'; echo "^(${threaded[*]})\$")
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -R "$regex"
  ;;
*)
  echo "usage: $0 asan|tsan [build-dir]" >&2
  exit 2
  ;;
esac
end=$(date +%s)
echo "sanitize $mode: $((end - start)) s (configure + build $((built - start)) s, tests $((end - built)) s)"
