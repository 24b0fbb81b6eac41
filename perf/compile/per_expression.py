#!/usr/bin/python3
"""Compiler instructions per expression of perf/compile's 25 (lazuli and its peers).

For each expression eNN of LIB_30.cpp (the 25 without products), a file of the file's preamble
(headers, aliases) and that one function is compiled under valgrind (cachegrind, no cache
simulation, GCC's garbage collector held off as run.py does); the preamble alone is counted
too, and each expression's figure is its file's count minus the preamble's (millions). An
expression alone also pays for what the 25 would share (loop entries, the reduction tables),
so the figures add up to more than the whole file's: they say where one library spends more
than another, expression by expression, not what the file costs.

  /usr/bin/python3 perf/compile/per_expression.py --march x86-64-v3
  /usr/bin/python3 perf/compile/per_expression.py --libs lazuli --only e13,e17 --march native
"""
import argparse
import concurrent.futures
import importlib.util
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load_run():
    spec = importlib.util.spec_from_file_location("run", os.path.join(HERE, "run.py"))
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    return run


def split(path):
    """(preamble, {name: function text}) of a *_30.cpp file, products left out."""
    src = open(path).read().split("#ifdef LZ_BENCH_PRODUCTS")[0]
    first = re.search(r"^(void|double) e01", src, re.M)
    pre, body = src[:first.start()], src[first.start():]
    starts = [(m.start(), m.group(2)) for m in re.finditer(r"^(void|double) (e\d\d)", body, re.M)]
    funcs = {}
    for i, (at, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(body)
        funcs[name] = re.split(r"\n\s*\n", body[at:end])[0] + "\n"
    return pre, funcs


def count(cxx, flags, text, tmp, tag):
    src, out = os.path.join(tmp, tag + ".cpp"), os.path.join(tmp, tag + ".cg")
    with open(src, "w") as f:
        f.write(text)
    cmd = [cxx, "-std=c++20", "-O2", "-S", src, "-o", "/dev/null", "-wrapper",
           f"valgrind,--tool=cachegrind,--cache-sim=no,--cachegrind-out-file={out}"] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{tag}: compile failed\n{r.stderr[-2000:]}")
    for line in open(out):
        if line.startswith("summary:"):
            return int(line.split()[1]) / 1e6
    raise SystemExit(f"{tag}: no cachegrind summary")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--libs", default="lazuli,eigen", help="comma-separated: lazuli,eigen,...")
    ap.add_argument("--only", default="", help="comma-separated expressions (default: all 25)")
    ap.add_argument("--march", default="native")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    run = load_run()
    run.MARCH = args.march  # (kernels_simd_arch probes for this target)
    libs = args.libs.split(",")
    table = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lib in libs:
            flags = [f"-march={args.march}"] + run.FLAGS[lib] + run.NO_GC
            if lib == "lazuli":  # the library's SIMD target, as a CMake user gets it
                flags += run.kernels_simd_arch(args.cxx, run.ROOT)
            pre, funcs = split(os.path.join(HERE, f"{lib}_30.cpp"))
            names = [n for n in funcs if not args.only or n in args.only.split(",")]
            jobs = {"preamble": pre, **{n: pre + funcs[n] for n in names}}
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
                got = dict(zip(jobs, ex.map(lambda kv: count(args.cxx, flags, kv[1], tmp,
                                                             f"{lib}_{kv[0]}"), jobs.items())))
            table[lib] = {n: got[n] - got["preamble"] for n in names}
            table[lib]["preamble"] = got["preamble"]
    rows = ["preamble"] + [n for n in table[libs[0]] if n != "preamble"]
    print(f"M instructions, -O2 -march={args.march}, GC held off; expression = file - preamble")
    print("| expression | " + " | ".join(libs) + " |")
    print("|---|" + "---|" * len(libs))
    for n in rows:
        print(f"| {n} | " + " | ".join(f"{table[l].get(n, float('nan')):.0f}" for l in libs) + " |")


if __name__ == "__main__":
    main()
