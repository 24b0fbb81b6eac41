#!/usr/bin/python3
# perf/report.py: runs the perf/ benchmarks (interleaved repetitions, medians) and writes every
# time, rate, ratio and target verdict to its own files, perf/generated/loops.md and
# perf/generated/products.md (--out-dir). It never writes perf/RESULTS.md, whose tables and notes
# are written by hand from these runs, and it writes nothing when it has no results to report
# (tests/perf/report_test.py checks both). Ratios are always taken inside one process run (triad
# included), then summarised over rounds. --charts renders the results as PNGs (perf/charts.py ->
# perf/charts/) and links them from loops.md;
# --gemm also runs a short gemm_bench (lazuli's own gemm/gemv against OpenBLAS: the GFLOP/s of
# the charts).
#
#   /usr/bin/python3 perf/report.py --build build                 # run + perf/generated/loops.md
#   /usr/bin/python3 perf/report.py --build build --rounds 3 --repetitions 12
#   /usr/bin/python3 perf/report.py --build build --no-run        # re-read the last JSON files
#   /usr/bin/python3 perf/report.py --build build --no-run --charts   # ... and draw them
#   /usr/bin/python3 perf/report.py --build build --charts --gemm     # everything, one command
#   /usr/bin/python3 perf/report.py --build build --only transpose_bench --filter 'W9'
#   /usr/bin/python3 perf/report.py --build build --products      # products + level 1 section
import argparse
import datetime
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys

BENCHES = ["elementwise_bench", "reduce_bench", "transpose_bench"]
# The gemm_bench variants --gemm runs (one JSON file, gemm_bench.json, not part of the rounds).
GEMM_FILTER = "dgemm_cblas|gemm_own_f64|sgemm_cblas|gemm_own_f32|dgemv_cblas|gemv_own_f64"

# (workload, size, lazuli variant, reference variants, what the target asks)
TARGETS = [
    ("W1", 10_000_000, "lazuli", "best(hand,eigen,armadillo)", "<=", 1.0),
    ("W1", 10_000_000, "lazuli", "%triad", ">=", 90.0),
    ("W1", 1_000, "lazuli", "hand", "<=", 1.3),
    ("W1", 1_000, "lazuli_default", "hand", "<=", 1.3),
    ("W2", 10_000_000, "lazuli", "xtensor_noalias", "<=", 1.0),
    ("W3", 10_000_000, "lazuli", "eigen", "<=", 1.0),
    ("W9", 2_000, "lazuli", "hand", "<=", 0.8),
    ("W2", 10_000_000, "lazuli", "speedup_2T", ">=", 1.8),
]

ANCHORS = ["hand", "hand_omp_simd", "eigen", "xtensor_noalias", "xtensor", "armadillo"]


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def run_bench(exe, out, reps, min_time, filt):
    cmd = [exe, "--benchmark_enable_random_interleaving=true",
           f"--benchmark_repetitions={reps}", f"--benchmark_min_time={min_time}",
           "--benchmark_report_aggregates_only=true",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    if filt:
        cmd.append(f"--benchmark_filter={filt}")
    print(" ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def parse(path):
    """{(family, variant, n): {'t': median real time (us), 'c': median CPU time of the main
    thread (us), 'bytes': nominal bytes per iteration, 'cv': cv of real time}}, context"""
    with open(path) as f:
        data = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    res = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "aggregate":
            continue
        name = b["run_name"]  # family/variant/arg/real_time
        m = re.match(r"([^/]+)/([^/]+)/(\d+)", name)
        if not m:
            continue
        key = (m.group(1), m.group(2), int(m.group(3)))
        agg = b["aggregate_name"]
        d = res.setdefault(key, {})
        if agg == "median":
            d["t"] = b["real_time"] * scale[b["time_unit"]]
            d["c"] = b["cpu_time"] * scale[b["time_unit"]]
            d["bytes"] = b.get("bytes_per_second", 0.0) * d["t"] * 1e-6
        elif agg == "cv":
            d["cv"] = b["real_time"]
    return res, data.get("context", {})


def ratios(res, metric="t"):
    """Ratios computed inside one run: lazuli / anchor, % of triad, 2-thread speed-ups.
    metric "t": real time (all variants); "c": the main thread's CPU time, single-thread
    variants only (robust to being descheduled by other load; blind to other threads)."""
    out = {}
    tm = {k: v[metric] for k, v in res.items() if metric in v}
    if metric == "c":
        tm = {k: v for k, v in tm.items() if "2T" not in k[1]}

    def gbs(k):
        return res[k]["bytes"] / tm[k] / 1e3 if k in tm and res[k].get("bytes") else None

    triad = gbs(("triad", "hand_1T", 10_000_000))
    out[("triad", 10_000_000, "GB/s 1T")] = triad
    if metric == "t":
        out[("triad", 10_000_000, "GB/s 2T")] = gbs(("triad", "hand_2T", 10_000_000))
    groups = {}
    for (fam, var, n), t in tm.items():
        if fam != "triad":
            groups.setdefault((fam, n), {})[var] = t
    for (fam, n), g in groups.items():
        for lzv in ("lazuli", "lazuli_default"):
            if lzv not in g:
                continue
            for a in ANCHORS:
                if a in g:
                    out[(fam, n, f"{lzv}/{a}")] = g[lzv] / g[a]
            best = [g[a] for a in ("hand", "eigen", "armadillo") if a in g]
            if best:
                out[(fam, n, f"{lzv}/best(hand,eigen,armadillo)")] = g[lzv] / min(best)
        for v in g:
            r = gbs((fam, v, n))
            if triad and r:
                out[(fam, n, f"%triad {v}")] = 100.0 * r / triad
        for v in g:
            if v.startswith("lazuli_tile") and "hand" in g:
                out[(fam, n, f"{v}/hand")] = g[v] / g["hand"]
        if "lazuli_stream" in g and "lazuli_cached" in g:
            out[(fam, n, "stream/cached")] = g["lazuli_stream"] / g["lazuli_cached"]
        if "lazuli" in g and "lazuli_par_2T" in g:
            out[(fam, n, "speedup_2T lazuli")] = g["lazuli"] / g["lazuli_par_2T"]
        if "hand" in g and "hand_2T" in g:
            out[(fam, n, "speedup_2T hand")] = g["hand"] / g["hand_2T"]
    return out


def fmt(x, nd=2):
    return "–" if x is None else f"{x:.{nd}f}"


def machine():
    model = sh("lscpu | sed -n 's/^Model name: *//p'")
    cpus = sh("nproc")
    flags = sh("grep -o -w -E 'avx512f|avx2|fma' /proc/cpuinfo | sort -u | tr '\\n' ' '")
    cxx = sh("c++ --version | head -1")
    return model, cpus, flags, cxx


def build_flags(build):
    f = os.path.join(build, "perf/CMakeFiles/elementwise_bench.dir/flags.make")
    try:
        for line in open(f):
            if line.startswith("CXX_FLAGS"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return "?"


def gemm_table(path):
    """Rows "| name | n | threads | GFLOP/s |" from gemm_bench's JSON (median aggregate)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        data = json.load(f)
    rows = []
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median" or "OP/s" not in b:
            continue
        m = re.match(r"([^/]+)/n:(\d+)/threads:(\d+)", b["run_name"])
        if m:
            rows.append((m.group(1), int(m.group(2)), int(m.group(3)), b["OP/s"] / 1e9))
    rows.sort(key=lambda r: (r[2], r[1], r[0]))
    return [f"| {nm} | {n} | {t} | {fmt(v, 1)} |" for nm, n, t, v in rows]


# ------------------------------------------------------------------------------ products (issue 3)
# `--products`: runs products_bench and level1_bench once per OpenBLAS core setting
# (OPENBLAS_CORETYPE=Haswell, then unset: OpenBLAS detects the core itself) per round, and
# writes perf/generated/products.md.
PRODUCT_BENCHES = ["products_bench", "level1_bench"]
CORE_SETTINGS = [("Haswell", "Haswell"), ("unset", None)]
BEGIN, END = "<!-- products:begin -->", "<!-- products:end -->"

# (family, n, lazuli variant, reference variant, bound on time(lazuli)/time(reference), what)
PRODUCT_TARGETS = [
    ("W4", 256, "lazuli", "cblas", 1.02, "C = transpose(A)*B (dgemm)"),
    ("W4", 1024, "lazuli", "cblas", 1.02, "C = transpose(A)*B (dgemm)"),
    ("W6", 1024, "lazuli", "cblas", 1.02, "C = 2*A*B + 3*C (dgemm)"),
    ("W5", 2048, "lazuli", "cblas", 1.05, "y = A*x + y (dgemv, beta=1)"),
    ("W7", 512, "lazuli", "hand", 1.0, "D = maximum(A*B + broadcast_to(b), 0) vs dgemm + loop"),
    ("W10", 1000, "lazuli", "hand", 1.1, "r = A*B*x vs hand A*(B*x) (two dgemv)"),
    ("CH", 1000, "lazuli", "hand", 1.0, "R = A*B*C*D (1000x20, 20x1000, ...) vs best hand order"),
    ("W11T", 256, "lazuli", "cblas", 1.02, "float C = transpose(A)*B (sgemm)"),
    ("W11T", 1024, "lazuli", "cblas", 1.02, "float C = transpose(A)*B (sgemm)"),
    ("W11S", 1024, "lazuli", "cblas", 1.02, "float C = 2*A*B + 3*C (sgemm)"),
]
# Workloads that must be exactly one BLAS call and zero allocations.
ONE_CALL = {"W4", "W6", "W5", "W11T", "W11S"}
# Own integer gemm: speed relative to dgemm (time(dgemm) / time(own)) >= bound.
INT_TARGETS = [("lazuli_i32", 0.30), ("lazuli_i64", 0.30)]
PRODUCT_DESC = {
    "W4": "C = transpose(A)*B, double", "W6": "C = 2*A*B + 3*C, double",
    "W5": "y = A*x + y, double", "W7": "D = maximum(A*B + broadcast_to(b, {n, n}), 0)",
    "W10": "r = A*B*x", "CH": "R = A*B*C*D, A,C n x 20, B,D 20 x n",
    "W11T": "C = transpose(A)*B, float", "W11S": "C = 2*A*B + 3*C, float",
    "IG": "C = A*B, own integer gemm vs cblas_dgemm",
}


def parse_products(path):
    """{(family, variant, n): {'t', 'c', 'calls', 'allocs'}} (medians), context"""
    with open(path) as f:
        data = json.load(f)
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    res = {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        m = re.match(r"([^/]+)/([^/]+)/(\d+)", b["run_name"])
        if not m or m.group(1) == "triad":
            continue
        d = res.setdefault((m.group(1), m.group(2), int(m.group(3))), {})
        d["t"] = b["real_time"] * scale[b["time_unit"]]
        d["c"] = b["cpu_time"] * scale[b["time_unit"]]
        if "blas_calls" in b:
            d["calls"], d["allocs"] = b["blas_calls"], b["allocs"]
    return res, data.get("context", {})


def run_products(a, resdir):
    benches = a.only or PRODUCT_BENCHES  # --only re-runs one of them, keeping the other's files
    for b in benches:
        for old in glob.glob(os.path.join(resdir, f"prod_{b}.*.json")):
            os.remove(old)
    for r in range(a.rounds):
        for label, value in CORE_SETTINGS:
            env = dict(os.environ)
            env.pop("OPENBLAS_CORETYPE", None)
            if value:
                env["OPENBLAS_CORETYPE"] = value
            for b in benches:
                exe = os.path.join(a.build, "perf", b)
                out = os.path.join(resdir, f"prod_{b}.{label}.r{r}.json")
                cmd = [exe, "--benchmark_enable_random_interleaving=true",
                       f"--benchmark_repetitions={a.repetitions}",
                       f"--benchmark_min_time={a.min_time}",
                       "--benchmark_report_aggregates_only=true",
                       f"--benchmark_out={out}", "--benchmark_out_format=json"]
                if a.filter:
                    cmd.append(f"--benchmark_filter={a.filter}")
                print(f"OPENBLAS_CORETYPE={value or '(unset)'} " + " ".join(cmd),
                      file=sys.stderr, flush=True)
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=env)


def mcell(vals, nd=3):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "–"
    m = statistics.median(vals)
    if len(vals) == 1:
        return fmt(m, nd)
    return f"{fmt(m, nd)} [{fmt(min(vals), nd)}–{fmt(max(vals), nd)}]"


def products_section(a, resdir):
    # runs[label][bench] = list of (res, ctx), one per round
    runs = {}
    for path in sorted(glob.glob(os.path.join(resdir, "prod_*.json"))):
        if os.path.getsize(path) == 0:  # a run whose filter matched nothing
            continue
        base = os.path.basename(path)[len("prod_"):]
        bench, label = base.split(".")[0], base.split(".")[1]
        runs.setdefault(label, {}).setdefault(bench, []).append(parse_products(path))
    model, cpus, flags, cxx = machine()
    L = [BEGIN, "## Products and level 1 (issue 3)\n"]
    L.append("Generated by `perf/report.py --products`: `products_bench` and `level1_bench` run "
             "once per OpenBLAS core setting per round (`OPENBLAS_CORETYPE=Haswell`, then unset "
             "so that OpenBLAS detects the core; the core it used is printed from "
             "`openblas_get_corename()`). Every variant runs in the same process with random "
             "interleaving, **one thread** (lazuli's TBB pool and OpenBLAS's own). Times are "
             "medians over the repetitions; ratios `time(lazuli) / time(reference)` are taken "
             "inside one run and summarised over rounds as median [min–max] (< 1: lazuli "
             "faster). **real** = wall time, **cpu** = CPU time "
             "of the benchmark thread (steadier under load). Eigen 3.4 uses its own product "
             "kernels (no `EIGEN_USE_BLAS`); Armadillo 11 calls BLAS through libblas.so.3, which "
             "is the same OpenBLAS here, so it differs from `cblas` only by its own overheads "
             "(temporaries, the `+ 3*C` pass).\n")
    L.append(f"- date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}")
    l3 = sh("lscpu | sed -n 's/^L3 cache: *//p'")
    L.append(f"- machine: {model}, {cpus} cores ({platform.machine()}; {flags.strip()}), L3 {l3}")
    L.append(f"- compiler: {cxx}; flags: `{build_flags(a.build)}`")
    for b in PRODUCT_BENCHES:
        try:
            with open(os.path.join(resdir, f"prod_params.{b}.txt")) as f:
                pp = json.load(f)
        except OSError:
            continue
        L.append(f"- `{b}`: {pp['rounds']} round(s) x 2 core settings, {pp['repetitions']} "
                 f"repetitions per run, min time {pp['min_time']} s per repetition; load "
                 f"average before / after: {' '.join(pp['load_before'])} / "
                 f"{' '.join(pp['load_after'])} (2 cores shared with other developers' builds: "
                 "**measured under load**)")
    for label, _ in CORE_SETTINGS:
        for b in PRODUCT_BENCHES:
            rs = runs.get(label, {}).get(b)
            if rs:
                ctx = rs[-1][1]
                L.append(f"- `{b}`, OPENBLAS_CORETYPE={ctx.get('OPENBLAS_CORETYPE', '?')}: "
                         f"OpenBLAS core **{ctx.get('openblas core', '?')}**")
    ctx = next((rs[-1][1] for d in runs.values() for b, rs in d.items()
                if b == "products_bench"), {})
    for k in ("blas", "eigen", "armadillo"):
        if k in ctx:
            L.append(f"- {k}: {ctx[k]}")
    L.append("")

    def per_round(label, bench, f):
        return [f(res) for res, _ in runs.get(label, {}).get(bench, [])]

    def ratio(res, fam, n, num, den, metric):
        x, y = res.get((fam, num, n)), res.get((fam, den, n))
        return x[metric] / y[metric] if x and y and metric in x and metric in y else None

    # Targets, both core settings.
    L.append("### Targets\n")
    L.append("Verdicts on both clocks: under this load the wall-time ratio of a ~1-100 ms "
             "call swings by ±20% between rounds (the other builds preempt one variant and not "
             "the next), while the CPU-time ratio stays within a few %; for these "
             "single-threaded calls CPU time is the work done, so the **cpu** verdict is the "
             "meaningful one here. A one-call workload also fails if it made more than one BLAS "
             "call or allocated.\n")
    L.append("| workload | n | target | core | real | cpu | BLAS calls / allocs per call | "
             "verdict (real) | verdict (cpu) |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for fam, n, lzv, ref, bound, what in PRODUCT_TARGETS:
        for label, _ in CORE_SETTINGS:
            rr = per_round(label, "products_bench", lambda r: ratio(r, fam, n, lzv, ref, "t"))
            cr = per_round(label, "products_bench", lambda r: ratio(r, fam, n, lzv, ref, "c"))
            cnt = per_round(label, "products_bench",
                            lambda r: (r.get((fam, lzv, n)) or {}).get("calls"))
            alc = per_round(label, "products_bench",
                            lambda r: (r.get((fam, lzv, n)) or {}).get("allocs"))
            vals = [v for v in rr if v is not None]
            cvals = [v for v in cr if v is not None]
            if not vals:
                L.append(f"| {fam} {what} | {n} | ≤ {bound}× {ref} | {label} | not measured "
                         f"| – | – | – | – |")
                continue
            ok = statistics.median(vals) <= bound
            cok = bool(cvals) and statistics.median(cvals) <= bound
            calls = "–"
            if cnt and cnt[0] is not None:
                calls = f"{fmt(max(cnt), 2)} / {fmt(max(alc), 2)}"
                if fam in ONE_CALL and (max(cnt) != 1 or max(alc) != 0):
                    ok = cok = False
            L.append(f"| {fam} {what} | {n} | ≤ {bound}× {ref} | {label} | {mcell(rr)} | "
                     f"{mcell(cr)} | {calls} | {'met' if ok else '**not met**'} | "
                     f"{'met' if cok else '**not met**'} |")
    for lzv, bound in INT_TARGETS:
        for label, _ in CORE_SETTINGS:
            rr = per_round(label, "products_bench", lambda r: ratio(r, "IG", 512, "dgemm_cblas",
                                                                    lzv, "t"))
            cr = per_round(label, "products_bench", lambda r: ratio(r, "IG", 512, "dgemm_cblas",
                                                                    lzv, "c"))
            def verdict(xs):
                xs = [v for v in xs if v is not None]
                return "–" if not xs else ("met" if statistics.median(xs) >= bound
                                           else "**not met**")
            L.append(f"| IG own gemm {lzv[7:]} (speed vs dgemm = time(dgemm)/time(own)) | 512 | "
                     f"≥ {bound:.2f} | {label} | {mcell(rr)} | {mcell(cr)} | – | {verdict(rr)} | "
                     f"{verdict(cr)} |")
    L.append("")

    # All times and ratios vs the reference of each family.
    refs = {"W7": "hand", "W10": "hand", "CH": "hand", "IG": "dgemm_cblas"}
    for label, _ in CORE_SETTINGS:
        rs = runs.get(label, {}).get("products_bench")
        if not rs:
            continue
        L.append(f"### products_bench, OPENBLAS_CORETYPE={label} "
                 f"(core {rs[-1][1].get('openblas core', '?')})\n")
        L.append("| workload | variant | n | real ms | cpu ms | real / ref | cpu / ref | "
                 "BLAS calls | allocs |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        keys = sorted({k for res, _ in rs for k in res}, key=lambda k: (k[0], k[2], k[1]))
        for fam, v, n in keys:
            ref = refs.get(fam, "cblas")
            t = [res.get((fam, v, n), {}).get("t") for res, _ in rs]
            c = [res.get((fam, v, n), {}).get("c") for res, _ in rs]
            rr = [ratio(res, fam, n, v, ref, "t") for res, _ in rs]
            cr = [ratio(res, fam, n, v, ref, "c") for res, _ in rs]
            calls = rs[-1][0].get((fam, v, n), {}).get("calls")
            allocs = rs[-1][0].get((fam, v, n), {}).get("allocs")
            L.append(f"| {fam} {PRODUCT_DESC.get(fam, '')} | {v} | {n} | "
                     f"{mcell([x / 1e3 for x in t if x], 3)} | "
                     f"{mcell([x / 1e3 for x in c if x], 3)} | {mcell(rr)} | {mcell(cr)} | "
                     f"{fmt(calls, 2) if calls is not None else '–'} | "
                     f"{fmt(allocs, 2) if allocs is not None else '–'} |")
        L.append("")
        for k, v in sorted(rs[-1][1].items()):
            if k.startswith("check "):
                L.append(f"- {k}: {v}")
        L.append("")
    plans = [(k, v) for k, v in ctx.items() if k.startswith("plan ")]
    if plans:
        L.append("Plans (`lz::explain`, small sizes):\n")
        L.append("```")
        for k, v in plans:
            L.append(f"# {k[5:]}")
            L.append(v.rstrip())
        L.append("```\n")

    # Level 1 sweep.
    L.append("### Level 1: fused loop vs BLAS 1 (level1_bench)\n")
    L.append("`lazuli_fused`: the xsimd loop / pairwise reduction (rule off); `lazuli_blas`: the "
             "axpy / dot rule forced on (through lazuli's BLAS wrapper); `lazuli`: the defaults of "
             "`lz::tuning`; `cblas`: direct `cblas_daxpy` / `cblas_ddot`. Cells: median real "
             "time in µs, then time / cblas (real; cpu).\n")
    for label, _ in CORE_SETTINGS:
        rs = runs.get(label, {}).get("level1_bench")
        if not rs:
            continue
        L.append(f"OPENBLAS_CORETYPE={label} (core {rs[-1][1].get('openblas core', '?')}); "
                 f"defaults: level1_blas = {rs[-1][1].get('level1_blas default', '?')}, "
                 f"dot_blas = {rs[-1][1].get('dot_blas default', '?')}\n")
        L.append("| op | n | cblas µs | lazuli_fused | lazuli_blas | lazuli (default) |")
        L.append("|---|---|---|---|---|---|")
        keys = sorted({(k[0], k[2]) for res, _ in rs for k in res})
        for fam, n in keys:
            cb = [res.get((fam, "cblas", n), {}).get("t") for res, _ in rs]
            cells = []
            for v in ("lazuli_fused", "lazuli_blas", "lazuli"):
                t = [res.get((fam, v, n), {}).get("t") for res, _ in rs]
                rr = [ratio(res, fam, n, v, "cblas", "t") for res, _ in rs]
                cr = [ratio(res, fam, n, v, "cblas", "c") for res, _ in rs]
                cells.append(f"{mcell([x for x in t if x], 3)} µs; {mcell(rr, 2)}; "
                             f"{mcell(cr, 2)}")
            L.append(f"| {fam} | {n:,} | {mcell([x for x in cb if x], 3)} | "
                     f"{' | '.join(cells)} |")
        L.append("")
    L.append("### Reproduce\n")
    L.append("```sh")
    L.append("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLZ_BUILD_PERF=ON")
    L.append("cmake --build build -j2 --target products_bench level1_bench")
    L.append("/usr/bin/python3 perf/report.py --build build --products --only products_bench "
             "--rounds 2 --repetitions 8 --min-time 0.1")
    L.append("/usr/bin/python3 perf/report.py --build build --products --only level1_bench "
             "--rounds 1 --repetitions 5 --min-time 0.05")
    L.append("# by hand (run once with OPENBLAS_CORETYPE=Haswell and once with it unset):")
    L.append("OPENBLAS_CORETYPE=Haswell build/perf/products_bench "
             "--benchmark_enable_random_interleaving=true --benchmark_repetitions=10 "
             "--benchmark_report_aggregates_only=true")
    L.append("```")
    L.append(END)
    return "\n".join(L) + "\n"


def write_section(path, section):
    """Writes one generated section to its own file (the markers dropped): regenerating it can
    never touch a hand-written note."""
    lines = [l for l in section.split("\n") if l not in (BEGIN, END, LOOPS_BEGIN, LOOPS_END)]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines).lstrip("\n"))


def nothing_to_report(what, resdir):
    sys.exit(f"report.py: no {what} results under {resdir}: nothing written (run the benchmarks "
             "first: drop --no-run)")


# Marks the loops section's text (dropped when written; kept for the section builders).
LOOPS_BEGIN, LOOPS_END = "<!-- loops:begin -->", "<!-- loops:end -->"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--repetitions", type=int, default=10)
    ap.add_argument("--min-time", default="0.1")
    ap.add_argument("--only", action="append", help="benchmark executable(s) to run")
    ap.add_argument("--filter", default="")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(__file__), "generated"),
                    help="where loops.md and products.md go (never perf/RESULTS.md)")
    ap.add_argument("--note", default="", help="free text added under the header")
    ap.add_argument("--charts", action="store_true",
                    help="render perf/charts/*.png (perf/charts.py) and link them")
    ap.add_argument("--gemm", action="store_true",
                    help="also run gemm_bench (3 repetitions) into gemm_bench.json")
    ap.add_argument("--products", action="store_true",
                    help="run products_bench + level1_bench (both OpenBLAS core settings) and "
                         "write products.md")
    a = ap.parse_args()
    a.out = os.path.join(a.out_dir, "products.md" if a.products else "loops.md")

    resdir = os.path.join(a.build, "perf", "results")
    os.makedirs(resdir, exist_ok=True)
    if a.products:
        load_before = open("/proc/loadavg").read().split()[:3]
        if not a.no_run:
            run_products(a, resdir)
        load_after = open("/proc/loadavg").read().split()[:3]
        # Run parameters per executable (--only re-runs one and keeps the other's).
        for b in (a.only or PRODUCT_BENCHES):
            if not a.no_run:
                with open(os.path.join(resdir, f"prod_params.{b}.txt"), "w") as f:
                    json.dump({"repetitions": a.repetitions, "min_time": a.min_time,
                               "rounds": a.rounds, "load_before": load_before,
                               "load_after": load_after}, f)
        if not glob.glob(os.path.join(resdir, "prod_*.json")):
            nothing_to_report("products", resdir)
        write_section(a.out, products_section(a, resdir))
        print(f"wrote the products section to {a.out}", file=sys.stderr)
        return
    benches = a.only or BENCHES
    load_before = open("/proc/loadavg").read().split()[:3]
    if not a.no_run:
        for old in glob.glob(os.path.join(resdir, "*.json")):
            if any(os.path.basename(old).startswith(b) for b in benches):
                os.remove(old)
        for r in range(a.rounds):
            for b in benches:
                run_bench(os.path.join(a.build, "perf", b), os.path.join(resdir, f"{b}.r{r}.json"),
                          a.repetitions, a.min_time, a.filter)
    if a.gemm and not a.no_run:
        run_bench(os.path.join(a.build, "perf", "gemm_bench"),
                  os.path.join(resdir, "gemm_bench.json"), 3, a.min_time, GEMM_FILTER)
    load_after = open("/proc/loadavg").read().split()[:3]
    params = os.path.join(resdir, "params.json")
    cxx_flags = build_flags(a.build)
    coretype = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    if a.no_run and os.path.exists(params):  # describe the run that made the JSON files
        with open(params) as f:
            prev = json.load(f)
        a.repetitions, a.min_time = prev["repetitions"], prev["min_time"]
        load_before, load_after = prev["load_before"], prev["load_after"]
        cxx_flags = prev.get("flags", cxx_flags)
        coretype = prev.get("openblas_coretype", coretype)
    elif not a.no_run:
        with open(params, "w") as f:
            json.dump({"repetitions": a.repetitions, "min_time": a.min_time,
                       "load_before": load_before, "load_after": load_after, "flags": cxx_flags,
                       "openblas_coretype": coretype}, f)

    # Per round: medians and in-run ratios. Across rounds: median (and range) of each.
    runs = {}  # bench -> list of (res, real-time ratios, CPU-time ratios, context)
    for path in sorted(glob.glob(os.path.join(resdir, "*.r*.json"))):
        b = os.path.basename(path).split(".")[0]
        if b.startswith("prod_"):  # the products section's files (--products)
            continue
        res, ctx = parse(path)
        runs.setdefault(b, []).append((res, ratios(res, "t"), ratios(res, "c"), ctx))
    if not runs:
        nothing_to_report("loop benchmark", resdir)

    def summarise(dicts):
        keys = sorted({k for d in dicts for k in d if d[k] is not None}, key=str)
        out = {}
        for k in keys:
            vals = [d[k] for d in dicts if d.get(k) is not None]
            out[k] = (statistics.median(vals), min(vals), max(vals), len(vals))
        return out

    def cell(v, nd=3):
        if v is None:
            return "–"
        m, lo, hi, cnt = v
        return fmt(m, nd) if cnt == 1 else f"{fmt(m, nd)} [{fmt(lo, nd)}–{fmt(hi, nd)}]"

    model, cpus, flags, cxx = machine()
    L = [LOOPS_BEGIN]
    L.append("## Loops and reductions: every measured figure (W1-W3, W9)\n")
    L.append("Generated by `perf/report.py` (this file is rewritten by each run; commands at its "
             "end). Each benchmark executable "
             "runs every variant in one process with Google Benchmark's random interleaving; "
             "times are medians over the repetitions. Ratios are computed inside one run (the "
             "triad too) and summarised over rounds as median [min–max]. A ratio `lazuli/X` < 1 "
             "means lazuli is faster. Two clocks: **real** (wall time, every variant; what the "
             "targets are judged on) and **cpu** (the main thread's CPU time, single-thread "
             "variants only: insensitive to being descheduled by other load, so it is the "
             "steadier figure on this shared machine). GB/s are nominal (each array counted "
             "once, as STREAM counts them).\n")
    when = datetime.datetime.now().strftime('%Y-%m-%d %H:%M')
    if a.no_run and runs:  # the date of the run that made the JSON files
        when = next(iter(runs.values()))[0][3].get("date", when).replace("T", " ")[:16]
    L.append(f"- date: {when}")
    l3 = sh("lscpu | sed -n 's/^L3 cache: *//p'")
    L.append(f"- machine: {model}, {cpus} cores ({platform.machine()}; {flags.strip()}), L3 {l3}")
    L.append(f"- OPENBLAS_CORETYPE={coretype}")
    L.append(f"- compiler: {cxx}; flags: `{cxx_flags}`")
    L.append(f"- load average before / after: {' '.join(load_before)} / {' '.join(load_after)} "
             "(2 cores, shared with other developers' builds: figures taken under load)")
    L.append(f"- rounds: {max(len(v) for v in runs.values()) if runs else 0}, repetitions per "
             f"round: {a.repetitions}, min time per repetition: {a.min_time} s")
    if a.note:
        L.append(f"- note: {a.note}")
    L.append("")

    real_all, cpu_all = {}, {}
    for b, rs in runs.items():
        med = summarise([{k: v.get("t") for k, v in r[0].items()} for r in rs])
        cmed = summarise([{k: v.get("c") for k, v in r[0].items()} for r in rs])
        cv = summarise([{k: v.get("cv") for k, v in r[0].items()} for r in rs])
        rat = summarise([r[1] for r in rs])
        crat = summarise([r[2] for r in rs])
        real_all.update(rat)
        cpu_all.update(crat)
        L.append(f"### {b}\n")
        ctx = rs[-1][3]
        extra = {k: v for k, v in ctx.items()
                 if k.startswith(("W", "max ulp")) and isinstance(v, str)}
        for k, v in sorted(extra.items()):
            L.append(f"- {k}: **{v}**")
        if extra:
            L.append("")
        L.append("| benchmark | n | real µs | cpu µs | cv (real) | GB/s (real) | % of triad (real) |")
        L.append("|---|---|---|---|---|---|---|")
        for key in sorted(med, key=lambda k: (k[0], k[2], k[1])):
            fam, var, n = key
            pt = rat.get((fam, n, f"%triad {var}"))
            bts = rs[-1][0][key].get("bytes")
            g = bts / med[key][0] / 1e3 if bts else None
            L.append(f"| {fam}/{var} | {n:,} | {fmt(med[key][0], 3)} | "
                     f"{fmt(cmed[key][0], 3) if '2T' not in var else '–'} | "
                     f"{fmt(100 * cv[key][0] if key in cv else None, 1)}% | {fmt(g, 1)} | "
                     f"{fmt(pt[0] if pt else None, 0)} |")
        L.append("")
        L.append("| workload | n | ratio | real | cpu |")
        L.append("|---|---|---|---|---|")
        for (fam, n, what) in sorted(rat, key=str):
            if what.startswith("%triad") and not what.startswith("%triad lazuli"):
                continue
            L.append(f"| {fam} | {n:,} | {what} | {cell(rat[(fam, n, what)])} | "
                     f"{cell(crat.get((fam, n, what)))} |")
        L.append("")

    L.append("### Targets (issue 2)\n")
    L.append("Judged on the real-time median; the CPU-time figure is shown for comparison.\n")
    L.append("| target | real: median [min–max] | cpu | verdict |")
    L.append("|---|---|---|---|")
    for fam, n, lzv, ref, op, bound in TARGETS:
        if ref == "%triad":
            key = (fam, n, f"%triad {lzv}")
            label = f"{fam} n={n:,}: {lzv} ≥ {bound:.0f}% of triad"
        elif ref == "speedup_2T":
            key = (fam, n, "speedup_2T lazuli")
            label = f"{fam} n={n:,}: 2-thread speed-up ≥ {bound}"
        else:
            key = (fam, n, f"{lzv}/{ref}")
            label = f"{fam} n={n:,}: {lzv} / {ref} {op} {bound}"
        v = real_all.get(key)
        if v is None:
            L.append(f"| {label} | not measured | – | – |")
            continue
        m = v[0]
        ok = m <= bound if op == "<=" else m >= bound
        L.append(f"| {label} | {cell(v)} | {cell(cpu_all.get(key))} | "
                 f"{'met' if ok else '**not met**'} |")
    L.append("")
    gemm_rows = gemm_table(os.path.join(resdir, "gemm_bench.json"))
    if gemm_rows:
        L.append("### gemm_bench (short run, `--gemm`)\n")
        with open(os.path.join(resdir, "gemm_bench.json")) as f:
            gctx = json.load(f).get("context", {})
        L.append("lazuli's own blocked kernels against OpenBLAS in the same process, n x n, "
                 "median of 3 repetitions, real time; GFLOP/s = 2n³ (gemm) or 2n² (gemv) per "
                 f"call. Run {gctx.get('date', '?')[:16].replace('T', ' ')}, load average "
                 f"{' '.join(f'{x:.2f}' for x in gctx.get('load_avg', []))} on 2 cores: other "
                 "processes took much of the CPU, so these rates are well below the kernels' "
                 "own (compare the rows with each other, not with the peak).\n")
        L.append("| benchmark | n | threads | GFLOP/s |")
        L.append("|---|---|---|---|")
        L.extend(gemm_rows)
        L.append("")
    if a.charts:
        import charts  # perf/charts.py; needs matplotlib

        made = charts.render(a.build, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "charts"))
        L.append("### Charts\n")
        L.append("Drawn by `perf/charts.py` from the same JSON files. One chart per workload: "
                 "nominal GB/s (real time, median over rounds) against size for lazuli (solid) "
                 "and every anchor (dashed), with the triad bandwidth of the same runs as the "
                 "roof (a rate above it means the data was in cache, or, at 10⁷ elements, "
                 "streaming stores saving the write-allocate traffic the triad loop pays). "
                 "`roofline`: one thread, each workload at its largest size, GFLOP/s against "
                 "nominal flops per byte, under the triad bandwidth and the FMA peak "
                 "(the CPU clock in the benchmark context × 16 double flops per cycle: two 4-wide "
                 "FMA units; sin/exp count as one "
                 "flop, so W2 sits below both roofs).\n")
        for name, path in made:
            rel = os.path.relpath(path, os.path.dirname(os.path.abspath(a.out)))
            L.append(f"#### {name}\n")
            L.append(f"![{name}]({rel})\n")
    L.append("### Reproduce\n")
    L.append("```sh")
    L.append("cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLZ_BUILD_PERF=ON")
    L.append("cmake --build build -j2 --target elementwise_bench reduce_bench transpose_bench")
    L.append(f"/usr/bin/python3 perf/report.py --build build --rounds {a.rounds} "
             f"--repetitions {a.repetitions} --min-time {a.min_time}")
    L.append("# charts (and gemm_bench, built with --target gemm_bench) from the stored JSON / a run:")
    L.append("/usr/bin/python3 perf/report.py --build build --no-run --charts")
    L.append("/usr/bin/python3 perf/report.py --build build --charts --gemm")
    L.append("# one executable by hand:")
    L.append("build/perf/elementwise_bench --benchmark_enable_random_interleaving=true "
             "--benchmark_repetitions=10 --benchmark_min_time=0.1 "
             "--benchmark_report_aggregates_only=true")
    L.append("```")
    L.append(LOOPS_END)
    write_section(a.out, "\n".join(L) + "\n")
    print(f"wrote the loops section to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
