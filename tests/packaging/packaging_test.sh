#!/usr/bin/env bash
# Packaging proof (CTest test `packaging_test`, label `packaging`). Builds and runs the one-file
# consumer in tests/packaging/consumer four ways:
#   1. find_package(lazuli CONFIG REQUIRED) from an installed prefix that was moved after
#      `cmake --install` (relocatable), with a compatible and an incompatible version request;
#      then COMPONENTS device: the device example (examples/07_device) built against
#      lazuli::device_host and run, and, where lazuli was built with CUDA, 07_device.cu built
#      by nvcc against lazuli::device (run: exit 77 without a GPU)
#      then, where lazuli_dist was built, COMPONENTS dist: examples/11_distributed on one rank
#   2. find_package with lazuli_DIR pointing at the build tree (build-tree export), the device
#      component too
#   3. add_subdirectory(<lazuli source>): must configure and build quietly (no warnings, no
#      tests/examples/benchmarks, no device backend the consumer does not link, no install
#      rules)
#   4. pkg-config: c++ -std=c++20 main.cpp $(pkg-config --cflags --libs lazuli), also with
#      -Wpedantic -Werror (Requires: tbb openblas where their .pc files exist)
#   5. the same file for a narrower instruction set than the kernels (-march=x86-64) must fail
#      with lazuli's message, and compile with -DLZ_ALLOW_NARROWER_SIMD
# Steps 1-3 compile without any -march of their own: lazuli::lazuli carries the kernels'.
# Usage: packaging_test.sh <cmake> <lazuli source> <lazuli build> <c++ compiler> <work dir>
# Exits 77 (skipped) only when pkg-config is missing, after running steps 1-3.
set -euo pipefail
cmake=$1 src=$2 build=$3 cxx=$4 work=$5
consumer="$src/tests/packaging/consumer"
rm -rf "$work"
mkdir -p "$work"

t0=$SECONDS
step() { echo "== [$((SECONDS - t0))s] $*"; }
fail() {
  echo "FAIL: $*"
  exit 1
}
# run <log> <cmd...>: runs quietly, shows the log when the command fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    fail "$*"
  fi
}
# consumer_build <build dir> <cmake args...>: configure and build the consumer; consumer: and run.
consumer_build() {
  local dir=$1
  shift
  run "$dir.configure.log" "$cmake" -S "$consumer" -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@"
  run "$dir.build.log" "$cmake" --build "$dir" -j2
}
consumer() {
  consumer_build "$@"
  "$1/consumer" || fail "consumer in $1"
}
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }

version=$(sed -n 's/^#define LZ_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$src/include/lz/config.hpp" | paste -sd.)
IFS=. read -r major minor _ <<<"$version"

step "install lazuli $version into a staging prefix, then move the prefix"
libs=(lazuli_kernels lazuli_device_host)
[[ $(cache_value "$build" LZ_ENABLE_CUDA) == ON ]] && libs+=(lazuli_device_cuda)
dist=0
[[ -f "$build/lazuli-dist-targets.cmake" ]] && dist=1 && libs+=(lazuli_dist)
run "$work/kernels.log" "$cmake" --build "$build" --target "${libs[@]}" -j2
run "$work/install.log" "$cmake" --install "$build" --prefix "$work/staging"
mv "$work/staging" "$work/prefix"
if grep -rl "$work/staging" "$work/prefix"; then fail "the package records its staging path"; fi
[[ -f "$work/prefix/include/lz/lz.hpp" && -f "$work/prefix/include/lz/fusion/rules.hpp" &&
  -f "$work/prefix/include/lz/kernels/cpu/parallel.hpp" ]] || fail "headers not under include/lz"
[[ -f "$work/prefix/share/doc/lazuli/LICENSE" && -f "$work/prefix/share/doc/lazuli/CHANGELOG.md" ]] ||
  fail "LICENSE and CHANGELOG.md not installed under share/doc/lazuli"

step "1. find_package(lazuli $major.$minor CONFIG REQUIRED) from the moved prefix"
consumer "$work/installed" -DCMAKE_PREFIX_PATH="$work/prefix" -DLZ_WANT_VERSION="$major.$minor"
[[ $(cache_value "$work/installed" lazuli_DIR) == "$work/prefix/"* ]] ||
  fail "consumer found lazuli at $(cache_value "$work/installed" lazuli_DIR)"
if "$cmake" -S "$consumer" -B "$work/incompatible" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DLZ_WANT_VERSION="$major.$((minor + 1))" >"$work/incompatible.log" 2>&1; then
  fail "find_package accepted version $major.$((minor + 1)) from lazuli $version"
fi
grep -q "considered but not accepted" "$work/incompatible.log" || {
  cat "$work/incompatible.log"
  fail "incompatible version rejected for another reason"
}

step "1b. find_package(lazuli COMPONENTS device): the device example on Thrust's host system"
consumer "$work/device-host" -DCMAKE_PREFIX_PATH="$work/prefix" -DLZ_DEVICE=host \
  -DLZ_EXAMPLE_DIR="$src/examples"
"$work/device-host/consumer_device" >"$work/device-host.out" || fail "device consumer (host system)"
grep -q "z\[0:4\] = \[1.07879574" "$work/device-host.out" || {
  cat "$work/device-host.out"
  fail "device consumer (host system) printed something else"
}
if [[ $(cache_value "$build" LZ_ENABLE_CUDA) == ON ]]; then
  step "1c. find_package(lazuli COMPONENTS device) with nvcc: lazuli::device is the CUDA backend"
  consumer_build "$work/device-cuda" -DCMAKE_PREFIX_PATH="$work/prefix" -DLZ_DEVICE=cuda \
    -DLZ_EXAMPLE_DIR="$src/examples" -DCMAKE_CUDA_COMPILER="$(cache_value "$build" CMAKE_CUDA_COMPILER)"
  rc=0
  "$work/device-cuda/consumer_device" >"$work/device-cuda.out" 2>&1 || rc=$?
  ((rc == 0 || rc == 77)) || { cat "$work/device-cuda.out"; fail "device consumer (CUDA), rc $rc"; }
  echo "   built with nvcc against lazuli::device_cuda; ran with exit status $rc (77: no GPU here)"
fi

if ((dist)); then
  step "1d. find_package(lazuli COMPONENTS dist): the lz::dist example, one rank"
  consumer_build "$work/dist" -DCMAKE_PREFIX_PATH="$work/prefix" -DLZ_DIST=ON \
    -DLZ_EXAMPLE_DIR="$src/examples"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$work/dist/consumer_dist" \
    >"$work/dist.out" 2>&1 || { cat "$work/dist.out"; fail "dist consumer"; }
  grep -q "C = 2\*A\*B + 3\*C matches serial lazuli: yes" "$work/dist.out" || {
    cat "$work/dist.out"
    fail "dist consumer printed something else"
  }
fi

step "2. find_package with lazuli_DIR = the build tree"
consumer "$work/buildtree" -Dlazuli_DIR="$build"
[[ $(cache_value "$work/buildtree" lazuli_DIR) == "$build" ]] || fail "build tree not used"
consumer "$work/buildtree-device" -Dlazuli_DIR="$build" -DLZ_DEVICE=host \
  -DLZ_EXAMPLE_DIR="$src/examples"
"$work/buildtree-device/consumer_device" >/dev/null || fail "device consumer from the build tree"

step "3. add_subdirectory(lazuli): quiet"
# (Debug: this step compiles lazuli's kernels library from source, 30 CPU-s at -O0 against 47 at
# -O3; the Release build has already compiled it optimised, warnings as errors.)
consumer "$work/subdir" -DLZ_CONSUME=subdir -DLZ_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=Debug
if grep -E "CMake (Warning|Deprecation)" "$work/subdir.configure.log"; then
  fail "warnings while configuring lazuli as a subproject"
fi
if grep -E "warning:" "$work/subdir.build.log"; then fail "compiler warnings in the subproject"; fi
if grep -E "lazuli_device_(host|cuda)|lazuli_dist" "$work/subdir.build.log"; then
  fail "the subproject built a device backend or lz::dist, which its consumer does not link"
fi
"$cmake" --build "$work/subdir" --target help >"$work/subdir.targets"
if grep -E "tensor_test|00_elementwise|_bench" "$work/subdir.targets"; then
  fail "tests, examples or benchmarks built in a subproject"
fi
run "$work/subdir.install.log" "$cmake" --install "$work/subdir" --prefix "$work/subdir-prefix"
if [[ -e "$work/subdir-prefix" ]]; then fail "a subproject installed files (LZ_INSTALL on)"; fi

if ! command -v pkg-config >/dev/null; then
  step "4. pkg-config not found: skipped"
  exit 77
fi
step "4. pkg-config"
pcdir=$(dirname "$(find "$work/prefix" -name lazuli.pc)")
export PKG_CONFIG_PATH=$pcdir
[[ $(pkg-config --modversion lazuli) == "$version" ]] || fail "pkg-config version"
flags=$(pkg-config --cflags --libs lazuli)
echo "   pkg-config --cflags --libs lazuli: $flags"
mkdir -p "$work/pkgconfig"
# shellcheck disable=SC2086 # the flags are a word list
run "$work/pkgconfig.build.log" "$cxx" -std=c++20 -O2 "$consumer/main.cpp" $flags \
  -o "$work/pkgconfig/consumer"
"$work/pkgconfig/consumer" || fail "pkg-config consumer"
# lazuli's headers are -Wpedantic clean (they are found through -I, not as system headers)
# shellcheck disable=SC2086
run "$work/pkgconfig.pedantic.log" "$cxx" -std=c++20 -O2 -Wall -Wextra -Wpedantic -Werror \
  "$consumer/main.cpp" $flags -o "$work/pkgconfig/consumer-pedantic"

step "5. a consumer compiled for a narrower instruction set than the kernels is refused"
cflags=$(pkg-config --cflags lazuli)
arch=$(grep -o -- '-march=[^ ]*' <<<"$cflags" || true)
if [[ -n $arch ]]; then
  narrow=${cflags//$arch/-march=x86-64} # SSE2, as a consumer that forgot the flag
  # shellcheck disable=SC2086
  if "$cxx" -std=c++20 $narrow -fsyntax-only "$consumer/main.cpp" >"$work/narrow.log" 2>&1; then
    fail "a consumer built with -march=x86-64 compiled against kernels built with $arch"
  fi
  grep -q "narrower SIMD instruction set than lazuli's kernels" "$work/narrow.log" || {
    cat "$work/narrow.log"
    fail "the narrower consumer failed for another reason"
  }
  # shellcheck disable=SC2086
  run "$work/narrow-allowed.log" "$cxx" -std=c++20 $narrow -DLZ_ALLOW_NARROWER_SIMD \
    -fsyntax-only "$consumer/main.cpp"
else
  echo "   the kernels carry no -march flag (LZ_NATIVE=OFF): nothing to check"
fi
step "all consumers built and ran"
