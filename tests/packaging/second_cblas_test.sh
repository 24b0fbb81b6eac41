#!/usr/bin/env bash
# A second CBLAS behind the one BLAS door, and the distribution build (CTest
# `second_cblas_builds_and_runs`, label `packaging`): configures lazuli with -DLZ_BLAS=blis
# -DLZ_SHARED=ON in a scratch build directory, builds the kernels (liblazuli_kernels.so.<major>.
# <minor>), the BLAS suite and the BLAS-fusion example, and runs them: the products' numbers,
# the recorded calls, lz::info() naming BLIS, both programs loading the shared library. Skipped
# (77) where BLIS is not installed.
# Usage: second_cblas_test.sh <cmake> <lazuli source> <work dir> <c++ compiler>
set -euo pipefail
cmake=$1 src=$2 work=$3 cxx=$4
if ! compgen -G "/usr/include/*/blis*/cblas.h" >/dev/null && ! compgen -G "/usr/include/blis*/cblas.h" >/dev/null; then
  echo "BLIS (libblis-dev) not installed: skipped"
  exit 77
fi
rm -rf "$work"
log=$work.log
if ! "$cmake" -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DLZ_BLAS=blis -DLZ_SHARED=ON -DLZ_ENABLE_CUDA=OFF -DLZ_BUILD_PERF=OFF -DLZ_INSTALL=OFF -DLZ_TEST_PCH=OFF \
  -DLZ_WERROR=ON >"$log" 2>&1 ||
  ! "$cmake" --build "$work" -j2 --target blas_test 02_blas_fusion >>"$log" 2>&1; then
  cat "$log"
  echo "FAIL: lazuli with LZ_BLAS=blis does not build"
  exit 1
fi
grep -q "libblis" "$work/CMakeCache.txt" || { echo "FAIL: LZ_BLAS_LIBRARY is not BLIS"; exit 1; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$work/CMakeCache.txt")
so=$work/kernels/liblazuli_kernels.so.${version%.*}
[[ -e $so ]] || { ls "$work/kernels"; echo "FAIL: no $so (LZ_SHARED)"; exit 1; }
for exe in "$work/tests/blas_test" "$work/examples/02_blas_fusion"; do
  libs=$(ldd "$exe") # (not piped into grep -q: its early exit fails the pipe under pipefail)
  [[ $libs == *"liblazuli_kernels.so.${version%.*}"* ]] ||
    { echo "FAIL: $exe does not load liblazuli_kernels.so.${version%.*}"; exit 1; }
done
export BLIS_NUM_THREADS=1
"$work/tests/blas_test" --log_level=warning || { echo "FAIL: blas_test on BLIS"; exit 1; }
"$cmake" -DEXE="$work/examples/02_blas_fusion" -DSOURCE="$src/examples/02_blas_fusion.cpp" \
  -P "$src/examples/check_output.cmake" || { echo "FAIL: 02_blas_fusion on BLIS"; exit 1; }
echo "lazuli on BLIS, shared ($(basename "$so")): blas_test and 02_blas_fusion pass"
