#!/usr/bin/env python3
"""A/B compile cost of perf/compile/lazuli_30.cpp between two checkouts of lazuli.

Compiles the file from each checkout in turn (interleaved, so machine noise hits both alike) and
prints the median and minimum user+system CPU seconds and the object's text size.

  python3 perf/compile/ab.py --runs 5 OLD_CHECKOUT NEW_CHECKOUT [--products] [--cxx g++]
"""
import argparse
import importlib.util
import os
import statistics
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("checkouts", nargs="+", help="lazuli source trees to compare")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--products", action="store_true", help="also compile the 5 products")
    ap.add_argument("--cxx", default="g++")
    args = ap.parse_args()
    times = {d: [] for d in args.checkouts}
    spec = importlib.util.spec_from_file_location("run", os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    arch = {d: run.kernels_simd_arch(args.cxx, d) for d in args.checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        objs = {d: os.path.join(tmp, f"{i}.o") for i, d in enumerate(args.checkouts)}
        for _ in range(args.runs):
            for d in args.checkouts:
                cmd = [args.cxx, "-std=c++20", "-O2", "-march=native", "-c",
                       f"-I{d}/include", f"-I{d}/fusion/include", f"-I{d}/kernels/include",
                       f"{d}/perf/compile/lazuli_30.cpp", "-o", objs[d]]
                cmd += arch[d]
                if args.products:
                    cmd.append("-DLZ_BENCH_PRODUCTS")
                before = os.times()
                subprocess.run(cmd, check=True)
                after = os.times()
                times[d].append(after.children_user + after.children_system -
                                before.children_user - before.children_system)
        for d in args.checkouts:
            text = subprocess.run(["size", objs[d]], capture_output=True, text=True,
                                  check=True).stdout.splitlines()[1].split()[0]
            t = times[d]
            print(f"{d}: median {statistics.median(t):.2f} s, min {min(t):.2f} s "
                  f"({' '.join(f'{x:.2f}' for x in t)}), text {text} B")


if __name__ == "__main__":
    main()
