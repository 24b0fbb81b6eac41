#!/usr/bin/python3
# perf/compile/run.py: compile-cost benchmark. Compiles, for lazuli, Eigen, xtensor and
# Armadillo, (a) the main header alone, (b) the same 25 non-product expressions and (c) all 30
# expressions (with the 5 matrix products, -DLZ_BENCH_PRODUCTS), and for lazuli and Eigen (d) 30
# fixed-size expressions (*_fixed_30.cpp), each with
#   g++ -std=c++20 -O2 -march=native -c
# under /usr/bin/time -f '%e %M' (wall seconds, peak RSS; plus user+system CPU seconds, the
# steadier figure on a loaded machine), runs interleaved, median of --runs.
# With --instructions, each file is also compiled once under valgrind (cachegrind, no cache
# simulation) to count the compiler's instructions: deterministic, unlike times on a shared
# machine, so the ratios between libraries hold from run to run (a 1.3 s compile takes ~35 s).
# Each is counted twice: as compiled (what a user waits for) and with GCC's garbage collector
# held off. A collection runs when the compiler's heap has doubled since the last one, so a
# file that crosses that line by a little pays ~0.4-0.6 G more than one just below it: a step
# that says nothing about the file's expressions (docs/decisions/
# compile-cost-counted-without-gc.md).
# Writes perf/compile/RESULTS.md.
#
#   /usr/bin/python3 perf/compile/run.py                 # lazuli without its products
#   /usr/bin/python3 perf/compile/run.py --products      # once lazuli's A*B compiles
#   /usr/bin/python3 perf/compile/run.py --runs 5 --cxx g++-12
#   /usr/bin/python3 perf/compile/run.py --runs 1 --products --instructions --march x86-64-v3
import argparse
import concurrent.futures
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIBS = ["lazuli", "eigen", "xtensor", "armadillo"]
FIXED = ["lazuli", "eigen"]  # the fixed-size pair: *_fixed_30.cpp
FLAGS = {
    "lazuli": [f"-I{ROOT}/include", f"-I{ROOT}/fusion/include", f"-I{ROOT}/kernels/include"],
    "eigen": ["-I/usr/include/eigen3"],
    "xtensor": ["-DXTENSOR_USE_XSIMD"],
    "armadillo": [],
}
# The collector held off: a collection only once the heap has grown 1000x, from 100 GB (KiB).
NO_GC = ["--param", "ggc-min-expand=100000", "--param", "ggc-min-heapsize=100000000"]
MARCH = "native"  # --march


def has_xtensor_blas(cxx):
    r = subprocess.run([cxx, "-std=c++20", "-E", "-x", "c++", "-"], input=
                       "#include <xtensor-blas/xlinalg.hpp>\n", capture_output=True, text=True)
    return r.returncode == 0


def kernels_simd_arch(cxx, root):
    """The -D a CMake user of lazuli::lazuli gets: the SIMD target lazuli_kernels is built for
    (kernels/CMakeLists.txt probes it with cmake/simd_arch.cpp), so that files for the same
    target call the library's compiled math instead of inlining it. [] when not probeable."""
    probe = os.path.join(root, "cmake", "simd_arch.cpp")
    if not os.path.exists(probe):
        return []
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "probe")
        if subprocess.run([cxx, "-std=c++20", f"-march={MARCH}", probe, "-o", exe],
                          capture_output=True).returncode != 0:
            return []
        out = subprocess.run([exe], capture_output=True, text=True).stdout.strip()
    return [f"-DLZ_KERNELS_SIMD_ARCH={out}"] if out.isdigit() else []


def compile_once(cxx, lib, src, defines):
    cmd = ["/usr/bin/time", "-f", "%e %M %U %S", cxx, "-std=c++20", "-O2", f"-march={MARCH}", "-c",
           os.path.join(HERE, src), "-o", os.devnull] + FLAGS[lib] + defines
    r = subprocess.run(cmd, capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    if r.returncode != 0:
        return None, r.stderr
    t, kb, us, sy = last.split()
    return (float(t), int(kb) / 1024.0, float(us) + float(sy)), None


def instructions_once(cxx, lib, src, defines, gc=True):
    """Instructions the compiler (cc1plus) executes for one file, in G (gc=False: with the
    garbage collector held off); None on failure."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = [cxx, "-std=c++20", "-O2", f"-march={MARCH}", "-S", os.path.join(HERE, src), "-o",
               os.devnull, "-wrapper",
               f"valgrind,--tool=cachegrind,--cache-sim=no,--cachegrind-out-file={out}"]
        cmd += [] if gc else NO_GC
        r = subprocess.run(cmd + FLAGS[lib] + defines, capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            return None
        for line in open(out):
            if line.startswith("summary:"):
                return int(line.split()[1]) / 1e9
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--products", action="store_true",
                    help="also compile lazuli's 5 matrix products (-DLZ_BENCH_PRODUCTS)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the compiler's instructions per file (valgrind)")
    ap.add_argument("--march", default="native",
                    help="the -march of every compile (and of lazuli's kernels' target)")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    global MARCH
    MARCH = a.march

    xblas = has_xtensor_blas(a.cxx)
    FLAGS["lazuli"] += kernels_simd_arch(a.cxx, ROOT)
    jobs = []  # (lib, kind, src, defines)
    for lib in LIBS:
        jobs.append((lib, "header", f"{lib}_header.cpp", []))
        jobs.append((lib, "25", f"{lib}_30.cpp", []))
        with_products = {"lazuli": a.products, "xtensor": xblas}.get(lib, True)
        if with_products:
            jobs.append((lib, "30", f"{lib}_30.cpp", ["-DLZ_BENCH_PRODUCTS"]))
        if lib in FIXED:
            jobs.append((lib, "fixed", f"{lib}_fixed_30.cpp", []))
    samples = {(j[0], j[1]): [] for j in jobs}
    errors = {}
    load = [open("/proc/loadavg").read().split()[0]]
    for r in range(a.runs):  # interleaved: one sample of every job per round
        for lib, kind, src, defs in jobs:
            res, err = compile_once(a.cxx, lib, src, defs)
            print(f"round {r + 1}: {lib:9s} {kind:6s} {res}", file=sys.stderr, flush=True)
            if res is None:
                errors[(lib, kind)] = err
            else:
                samples[(lib, kind)].append(res)
    load.append(open("/proc/loadavg").read().split()[0])
    instr, instr_no_gc = {}, {}
    if a.instructions and shutil.which("valgrind"):
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            futs = {(lib, kind, gc): pool.submit(instructions_once, a.cxx, lib, src, defs, gc)
                    for lib, kind, src, defs in jobs for gc in (True, False)}
            for (lib, kind, gc), f in futs.items():
                (instr if gc else instr_no_gc)[(lib, kind)] = f.result()
                print(f"instructions{'' if gc else ' (no GC)'}: {lib:9s} {kind:6s} {f.result()}",
                      file=sys.stderr)

    def med(lib, kind):
        s = samples.get((lib, kind), [])
        if not s:
            return None
        return tuple(statistics.median(x[i] for x in s) for i in range(3))

    cxxv = subprocess.run([a.cxx, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    L = ["# Compile cost: the same expressions in lazuli, Eigen, xtensor and Armadillo\n"]
    L.append("Generated by `perf/compile/run.py`. Each file is compiled with "
             f"`{a.cxx} -std=c++20 -O2 -march={MARCH} -c` under `/usr/bin/time -f '%e %M'`; "
             f"the figures are medians of {a.runs} interleaved runs: wall seconds / peak RSS MiB "
             "(as asked), and in brackets user+system CPU seconds, which other processes on "
             "the machine inflate far less than wall time. \"25\" is the 25 non-product expressions (elementwise arithmetic and math, "
             "reductions, views/slices/transposes, broadcasting), identical in every file; "
             "\"30\" adds the 5 matrix products (`A*B`, `transpose(A)*B`, `A*x + y`, "
             "`2*A*B + 3*C`, `A*B*x`). Per expression = (25-file - header) / 25.\n")
    L.append(f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}; compiler: {cxxv}")
    L.append(f"- load average (1 min) before / after: {load[0]} / {load[1]} (2 shared cores: "
             "absolute times are inflated by other builds; compare within the table)")
    if not a.products:
        L.append("- lazuli's matrix products are not implemented yet: its \"30\" column is "
                 "pending (`--products` compiles them once they are).")
    if not xblas:
        L.append("- xtensor-blas is not installed here: xtensor has no \"30\" figure.")
    L.append("")
    L.append("| library | header only | 25 expressions | 30 expressions | per expression (25) |")
    L.append("|---|---|---|---|---|")

    def cell(v):
        return "–" if v is None else f"{v[0]:.2f} s / {v[1]:.0f} MiB ({v[2]:.2f} s cpu)"

    for lib in LIBS:
        h, e25, e30 = med(lib, "header"), med(lib, "25"), med(lib, "30")
        per = (f"{(e25[0] - h[0]) / 25 * 1000:.0f} ms ({(e25[2] - h[2]) / 25 * 1000:.0f} ms cpu)"
               if h and e25 else "–")
        if (lib, "30") in errors:
            c30 = "does not compile"
        else:
            c30 = cell(e30)
        L.append(f"| {lib} | {cell(h)} | {cell(e25)} | {c30} | {per} |")

    def instr_table(counts):
        L.append("| library | header only | 25 expressions | 30 expressions | per expression (25) |")
        L.append("|---|---|---|---|---|")

        def icell(lib, kind):
            v, e = counts.get((lib, kind)), counts.get(("eigen", kind))
            if v is None:
                return "–"
            return f"{v:.2f} G" + (f" ({v / e:.3f}x Eigen)" if e else "")

        for lib in LIBS:
            h, e25 = counts.get((lib, "header")), counts.get((lib, "25"))
            per = f"{(e25 - h) / 25 * 1000:.0f} M" if h and e25 else "–"
            L.append(f"| {lib} | {icell(lib, 'header')} | {icell(lib, '25')} | "
                     f"{icell(lib, '30')} | {per} |")

    if instr:
        L.append("")
        L.append("Instructions the compiler executes (G, valgrind --tool=cachegrind, one run each: "
                 "deterministic), and the ratio to Eigen's file:\n")
        instr_table(instr)
        L.append("")
        L.append("The same with GCC's garbage collector held off (`" + " ".join(NO_GC) + "`): "
                 "the compiler's work on each file without the collections its heap size happens "
                 "to trigger (each ~0.4-0.6 G, a step, not a cost per expression; "
                 "docs/decisions/compile-cost-counted-without-gc.md):\n")
        instr_table(instr_no_gc)
    L.append("")
    L.append("Fixed-size: the 30 expressions of `lazuli_fixed_30.cpp` and `eigen_fixed_30.cpp` "
             "(4×4, 3×3 and 6×6 matrices and vectors: products, elementwise, reductions, cross, "
             "determinant, inverse; lz::fixed_matrix and Eigen's Matrix4d), same compiler and "
             "flags; per expression = (file - header) / 30.\n")
    L.append("| library | 30 fixed-size expressions | per expression | instructions |")
    L.append("|---|---|---|---|")
    for lib in FIXED:
        h, f = med(lib, "header"), med(lib, "fixed")
        per = (f"{(f[0] - h[0]) / 30 * 1000:.0f} ms ({(f[2] - h[2]) / 30 * 1000:.0f} ms cpu)"
               if h and f else "–")
        icol = "–"
        for counts, label in ((instr, ""), (instr_no_gc, " without GC")):
            ins, ie = counts.get((lib, "fixed")), counts.get(("eigen", "fixed"))
            if ins is not None:
                icol = ("" if icol == "–" else icol + "; ") + f"{ins:.2f} G{label}" + (
                    f" ({ins / ie:.3f}x Eigen)" if ie else "")
        L.append(f"| {lib} | {cell(f)} | {per} | {icol} |")
    L.append("")
    L.append("Samples (wall s / MiB / cpu s):\n")
    for (lib, kind), s in samples.items():
        L.append(f"- {lib} {kind}: " + ", ".join(f"{t:.2f}/{m:.0f}/{c:.2f}" for t, m, c in s))
    for (lib, kind), err in errors.items():
        L.append(f"- {lib} {kind}: compile error: `{err.strip().splitlines()[0][:200]}`")
    L.append("")
    L.append("Reproduce: `/usr/bin/python3 perf/compile/run.py --runs 5 --products "
             f"--instructions{'' if MARCH == 'native' else ' --march ' + MARCH}`.")
    with open(a.out, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
