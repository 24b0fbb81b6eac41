#!/usr/bin/env bash
# Sanitizer runs (docs/reliability.md): `asan` builds the test suite with AddressSanitizer +
# UndefinedBehaviorSanitizer (every report fatal) and runs it; `tsan` builds the threaded
# suites with ThreadSanitizer and runs them. Each uses its own build directory, so the Release
# build is untouched. Usage: scripts/sanitize.sh asan|tsan [build-dir] ; JOBS=n overrides -j.
# Excluded from the ASan run: `gpu` (no device), compile-time checks (they run the compiler,
# not lazuli), packaging (an install test) and `tuning` (measures time; sanitizers distort it).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-asan}
jobs=${JOBS:-$(nproc)}
common=(-DLZ_BUILD_EXAMPLES=OFF -DLZ_BUILD_PERF=OFF -DLZ_INSTALL=OFF -DLZ_ENABLE_CUDA=OFF
        -DCMAKE_BUILD_TYPE=RelWithDebInfo)
start=$(date +%s)
case "$mode" in
asan)
  dir=${2:-build-asan}
  flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  cmake --build "$dir" -j"$jobs"
  # detect_leaks: lazuli must not leak, even on the error paths the bad-input suite takes.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # The fuzz batch at a fifth of its size: under ASan a tree costs ~5x (the Release run keeps 20k).
  export LZ_FUZZ_TREES=${LZ_FUZZ_TREES:-4000}
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -LE 'gpu|compile-fail|packaging|tuning' \
        -E '_compiles|compile_fail|fail_to_compile|pulls_in_no'
  ;;
tsan)
  dir=${2:-build-tsan}
  flags="-O1 -g -fno-omit-frame-pointer -fsanitize=thread"
  cmake -S . -B "$dir" "${common[@]}" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
        -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
  # The suites that run lz::par / lz::automatic over TBB (kernels/cpu/parallel.cpp) or the
  # TBB host system of the device backend.
  # TSAN_TESTS="a b" runs a subset.
  read -r -a threaded <<<"${TSAN_TESTS:-random_tree_test elementwise_test reduction_test \
alias_test kernels_loop_test device_elementwise_test device_reduce_test fuzz_batch_test}"
  cmake --build "$dir" -j"$jobs" --target "${threaded[@]}"
  export LZ_FUZZ_TREES=${LZ_FUZZ_TREES:-2000}
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
  regex=$(IFS='|'; echo "^(${threaded[*]})\$")
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -R "$regex"
  ;;
*)
  echo "usage: $0 asan|tsan [build-dir]" >&2
  exit 2
  ;;
esac
echo "sanitize $mode: $(( $(date +%s) - start )) s"
