#!/usr/bin/env bash
# Packs the CUDA build's GPU binaries into one folder that can be copied to a GPU machine which
# lacks lazuli's Debian dependencies (TBB, OpenBLAS, Boost.Test): the binaries (stripped), the
# non-system shared libraries they load, and scripts/gpu_check.sh. The CUDA runtime and cuBLAS are
# NOT packed (hundreds of MB): the GPU machine's CUDA 13 toolkit or driver provides them.
#   scripts/gpu_bundle.sh BUILD_DIR DEST     (BUILD_DIR configured with CUDA, GPU targets built)
# Then, on the GPU machine: bash DEST/gpu_check.sh DEST [LOG_DIR]
# Build for a CPU the GPU machine has: -DLZ_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3
# -DCMAKE_CUDA_FLAGS=-Xcompiler=-march=x86-64-v3 (its host CPU is not this machine's), and with
# -DLZ_GPU_TESTS_FAST_BUILD=OFF so the GPU suites run the device code at the level users get.
set -euo pipefail
build=${1:?build dir}
dest=${2:?destination}
mkdir -p "$dest/bin" "$dest/lib"
bins=(tests/device/device_gpu_elementwise_test tests/device/device_gpu_reduce_test
      tests/device/device_gpu_views_test tests/device/device_gpu_memory_test
      tests/device/device_gpu_products_test tests/device/device_gpu_batch_test
      tests/device/device_cublas_test
      tests/device/device_no_gpu_test examples/07_device_gpu perf/device_bench_gpu)
for b in "${bins[@]}"; do
  if [[ -x $build/$b ]]; then
    strip -o "$dest/bin/$(basename "$b")" "$build/$b"
  else
    echo "gpu_bundle: $build/$b not built; skipping it" >&2
  fi
done
# Shared libraries outside glibc/libstdc++ and outside the CUDA toolkit.
for b in "$dest"/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | libstdc++.so* | \
      libgcc_s.so* | libcuda.so* | libcudart.so* | libcublas*.so*) ;;
    *) cp -L "$lib" "$dest/lib/" ;;
  esac
done
cp "$(dirname "$0")/gpu_check.sh" "$dest/"
du -sh "$dest"
