#!/usr/bin/env bash
# Long differential-fuzzing run (docs/reliability.md): TREES trees (default 1,000,000) through
# the fixed-seed driver tests/reliability/fuzz_batch_test, as chunks of CHUNK trees with
# seeds FIRST_SEED, FIRST_SEED+1, ... run JOBS at a time. Prints each chunk's line and a total;
# exits non-zero if any chunk found a mismatch (its shrunk reproducer is in the chunk's log).
# Usage: scripts/fuzz_long.sh [build-dir]   (env: TREES CHUNK JOBS FIRST_SEED BIG_EVERY LOGS
# NO_BUILD=1: use the built binary as is)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
trees=${TREES:-1000000}
chunk=${CHUNK:-20000}
jobs=${JOBS:-$(nproc)}
first=${FIRST_SEED:-1000}
big=${BIG_EVERY:-5000}
[ -n "${NO_BUILD:-}" ] || cmake --build "$dir" --target fuzz_batch_test -j"$jobs" >/dev/null
bin="$dir/tests/fuzz_batch_test"
logs=${LOGS:-$(mktemp -d)}
mkdir -p "$logs"
chunks=$(( (trees + chunk - 1) / chunk ))
start=$(date +%s)
seq "$first" $((first + chunks - 1)) | xargs -P "$jobs" -I{} sh -c \
  "LZ_FUZZ_SEED={} LZ_FUZZ_TREES=$chunk LZ_FUZZ_BIG_EVERY=$big '$bin' --log_level=error \
     --run_test=twenty_thousand_random_trees_match_the_reference > '$logs/{}.log' 2>&1; \
   echo \"chunk {} rc \$?: \$(grep -h '^fuzz_batch' '$logs/{}.log')\"" || true
secs=$(( $(date +%s) - start ))
total=$(cat "$logs"/*.log | sed -n 's/^fuzz_batch seed [0-9]*: \([0-9]*\) trees.*/\1/p' | paste -sd+ | bc)
bad=$(cat "$logs"/*.log | sed -n 's/.* \([0-9]*\) mismatches.*/\1/p' | paste -sd+ | bc)
failed=$(grep -L '0 mismatches' "$logs"/*.log | wc -l)
echo "fuzz_long: ${total:-0} trees, ${bad:-0} mismatches, $failed failing chunks, ${secs} s" \
     "($(( ${total:-0} / (secs > 0 ? secs : 1) )) trees/s with $jobs jobs); logs in $logs"
[ "$failed" -eq 0 ]
