#!/usr/bin/python3
"""perf/report.py never writes perf/RESULTS.md (hand-written tables and notes) and writes nothing
when it has no results: `--no-run` over an empty build directory exits with a message and
creates no file; over stored results it writes perf/generated-style files in --out-dir only.
Usage: report_test.py <lazuli source dir> <scratch dir>  (CTest: perf_report_never_touches_results_md)"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

src, work = sys.argv[1], sys.argv[2]
report = os.path.join(src, "perf", "report.py")
results_md = os.path.join(src, "perf", "RESULTS.md")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(*args):
    return subprocess.run([sys.executable, report, *args], capture_output=True, text=True)


shutil.rmtree(work, ignore_errors=True)
empty, out = os.path.join(work, "empty-build"), os.path.join(work, "generated")
os.makedirs(empty)
before = digest(results_md)
failures = []

# 1. nothing stored: a message, a failing status, no file written
for extra in ([], ["--products"]):
    r = run("--build", empty, "--no-run", "--out-dir", out, *extra)
    if r.returncode == 0 or "nothing written" not in r.stderr:
        failures.append(f"--no-run {extra} with no results: rc {r.returncode}, stderr {r.stderr!r}")
    if os.path.exists(out) and os.listdir(out):
        failures.append(f"--no-run {extra} with no results wrote {os.listdir(out)}")

# 2. one stored run (a Google Benchmark JSON file as elementwise_bench writes it): loops.md only
resdir = os.path.join(empty, "perf", "results")
agg = lambda name, t: {"run_name": name, "run_type": "aggregate", "aggregate_name": "median",
                       "real_time": t, "cpu_time": t, "time_unit": "us",
                       "bytes_per_second": 1e9}
with open(os.path.join(resdir, "elementwise_bench.r0.json"), "w") as f:
    json.dump({"context": {"date": "2026-11-28T05:00:00"},
               "benchmarks": [agg("W1/lazuli/1000/real_time", 0.12),
                              agg("W1/hand/1000/real_time", 0.10)]}, f)
r = run("--build", empty, "--no-run", "--out-dir", out)
loops = os.path.join(out, "loops.md")
if r.returncode != 0 or not os.path.exists(loops):
    failures.append(f"--no-run over a stored run: rc {r.returncode}, stderr {r.stderr!r}")
elif "elementwise_bench" not in open(loops).read():
    failures.append("loops.md does not report the stored run")

if digest(results_md) != before:
    failures.append("perf/RESULTS.md was modified")
for f in failures:
    print("FAIL:", f)
print("report.py: never touched RESULTS.md, wrote nothing without results" if not failures else "")
sys.exit(1 if failures else 0)
