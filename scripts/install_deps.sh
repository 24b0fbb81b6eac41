#!/usr/bin/env bash
# Installs what lazuli needs from Debian 12 packages (run as root). Idempotent: installs only
# what is missing, so it is cheap to run before every build.
#   core:    compiler, CMake, xsimd, oneTBB, OpenBLAS, zlib (.npz archives), Boost.Test, Google
#            Benchmark, Thrust (host), {fmt} (the optional lz/fmt.hpp and its test), BLIS (the
#            second-CBLAS test: -DLZ_BLAS=blis), Doxygen (the API reference and its test), Open MPI
#            and ScaLAPACK (lz::dist, lazuli::dist: its suites run under mpiexec; Open MPI's
#            launcher looks for ssh even on one node)
#   anchors: Eigen, xtensor, Armadillo (the libraries perf/ compares against)
#   tools:   NumPy + matplotlib (npy interop tests, perf charts), SciPy (sparse_io_test's
#            Matrix Market and .npz files both ways), clang (libFuzzer), clang 16
#            + llvm-16 (the sanitizer builds and their symbolizer: scripts/sanitize.sh), pkg-config,
#            qemu-user (OpenBLAS on an emulated CPU it does not know: tests/kernels/unknown_cpu_test)
set -euo pipefail
pkgs=(g++ make cmake git pkg-config
      libxsimd-dev libtbb-dev libopenblas-dev zlib1g-dev libboost-test-dev libbenchmark-dev
      libthrust-dev libcub-dev libfmt-dev libblis-dev doxygen
      libopenmpi-dev openmpi-bin libscalapack-openmpi-dev openssh-client
      libeigen3-dev xtensor-dev libarmadillo-dev
      python3 python3-numpy python3-scipy python3-matplotlib
      clang libclang-rt-14-dev clang-16 libclang-rt-16-dev llvm-16 qemu-user)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install_deps: all ${#pkgs[@]} packages present"
