#!/usr/bin/env bash
# Runs the CUDA build's GPU checks on a machine with an NVIDIA GPU, from a folder made by
# scripts/gpu_bundle.sh (or from a build directory's binaries collected the same way):
#   bash gpu_check.sh BUNDLE [LOG_DIR]
# 1. every GPU test suite with LZ_REQUIRE_GPU=1 (a missing GPU fails instead of skipping),
# 2. the GPU example, 3. perf/device_bench_gpu: W1/W2/W3 at n = 1e8 against the same run's
#    device-to-device copy, and W4/W6/W7 at n = 4096 (double, then float) against direct cuBLAS
#    (perf/RESULTS.md).
# Prints a summary table last; full logs go to LOG_DIR (default: BUNDLE/logs).
set -uo pipefail
dir=$(cd "${1:?bundle dir}" && pwd)
logs=${2:-$dir/logs}
mkdir -p "$logs"
# CUDA runtime and cuBLAS: the toolkit's, else the pip wheels' (PyTorch images carry them).
where=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local /opt /usr/lib)
cudalibs=$(dirname "$(find "${where[@]}" -name 'libcublasLt.so.13*' 2>/dev/null | head -1)" 2>/dev/null)
cudart=$(dirname "$(find "${where[@]}" -name 'libcudart.so.13*' 2>/dev/null | head -1)" 2>/dev/null)
echo "cuBLAS from ${cudalibs:-?}, cudart from ${cudart:-?}"
export LD_LIBRARY_PATH="$dir/lib:${cudalibs:-}:${cudart:-}:${LD_LIBRARY_PATH:-}"
export LZ_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
  2>&1 | tee "$logs/gpu.txt"
run() { # name, command...: runs it with a time limit, logs to LOG_DIR/name.log, records rc
  local name=$1
  shift
  local t0=$SECONDS
  timeout "${LZ_GPU_CHECK_TIMEOUT:-180}" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  printf '%-34s rc=%-3s %4ss\n' "$name" "$rc" $((SECONDS - t0)) >"$logs/$name.rc"
}
# The test suites share the GPU and run side by side (each checks against the CPU engine).
for t in elementwise reduce views memory products batch; do
  run "device_gpu_${t}_test" "$dir/bin/device_gpu_${t}_test" --log_level=warning \
    --report_level=short &
done
run device_cublas_test "$dir/bin/device_cublas_test" --log_level=warning --report_level=short &
# Without a GPU this one checks the errors; with one it must report "skipped" (77).
run device_no_gpu_test "$dir/bin/device_no_gpu_test" --log_level=warning &
wait
LZ_LOG=device,copy run example_07_device_gpu "$dir/bin/07_device_gpu"
# The benchmarks alone on the machine, one after the other.
run bench_w123 "$dir/bin/device_bench_gpu" 1e8 20
run bench_products "$dir/bin/device_bench_gpu" products 4096 20
run bench_products_f32 "$dir/bin/device_bench_gpu" products 4096 20 float
for f in "$logs"/*_test.log "$logs"/example_07_device_gpu.log; do
  echo "== $(basename "$f")"
  tail -4 "$f"
done
cat "$logs/bench_w123.log" "$logs/bench_products.log" "$logs/bench_products_f32.log"
cat "$logs"/*.rc
