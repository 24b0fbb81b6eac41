#!/usr/bin/python3
# perf/report.py: runs the perf/ benchmarks (interleaved repetitions, medians) and writes
# perf/RESULTS.md with every time, rate, ratio and target verdict. Ratios are always taken
# inside one process run (triad included), then summarised over rounds. --charts renders the
# results as PNGs (perf/charts.py -> perf/charts/) and links them from RESULTS.md; --gemm also
# runs a short gemm_bench (lazuli's own gemm/gemv against OpenBLAS: the GFLOP/s of the charts).
#
#   /usr/bin/python3 perf/report.py --build build                 # run + write RESULTS.md
#   /usr/bin/python3 perf/report.py --build build --rounds 3 --repetitions 12
#   /usr/bin/python3 perf/report.py --build build --no-run        # re-read the last JSON files
#   /usr/bin/python3 perf/report.py --build build --no-run --charts   # ... and draw them
#   /usr/bin/python3 perf/report.py --build build --charts --gemm     # everything, one command
#   /usr/bin/python3 perf/report.py --build build --only transpose_bench --filter 'W9'
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--repetitions", type=int, default=10)
    ap.add_argument("--min-time", default="0.1")
    ap.add_argument("--only", action="append", help="benchmark executable(s) to run")
    ap.add_argument("--filter", default="")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "RESULTS.md"))
    ap.add_argument("--note", default="", help="free text added under the header")
    ap.add_argument("--charts", action="store_true",
                    help="render perf/charts/*.png (perf/charts.py) and link them")
    ap.add_argument("--gemm", action="store_true",
                    help="also run gemm_bench (3 repetitions) into gemm_bench.json")
    a = ap.parse_args()

    resdir = os.path.join(a.build, "perf", "results")
    os.makedirs(resdir, exist_ok=True)
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
        res, ctx = parse(path)
        runs.setdefault(b, []).append((res, ratios(res, "t"), ratios(res, "c"), ctx))

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
    L = []
    L.append("# lazuli performance results\n")
    L.append("Generated by `perf/report.py` (commands at the bottom). Each benchmark executable "
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
        L.append(f"## {b}\n")
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

    L.append("## Targets (issue 2)\n")
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
        L.append("## gemm_bench (short run, `--gemm`)\n")
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

        made = charts.render(a.build, os.path.join(os.path.dirname(os.path.abspath(a.out)),
                                                    "charts"))
        L.append("## Charts\n")
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
            L.append(f"### {name}\n")
            L.append(f"![{name}]({rel})\n")
    L.append("## Reproduce\n")
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
    with open(a.out, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
