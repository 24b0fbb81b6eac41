#!/usr/bin/python3
# perf/charts.py: renders the benchmark results that perf/report.py stored (build/perf/results/
# *.r<round>.json, plus gemm_bench.json when present) as PNG charts in perf/charts/: one per
# workload (GB/s or GFLOP/s against size, lazuli next to every anchor, the triad bandwidth of the
# same runs drawn as the roof) and a roofline of every workload at its largest size.
# Called by `perf/report.py --charts` (which also links the charts from RESULTS.md), or alone:
#
#   /usr/bin/python3 perf/charts.py --build build          # -> perf/charts/*.png
#
# Needs matplotlib (Debian: python3-matplotlib; /usr/bin/python3 here).
import argparse
import glob
import math
import json
import os
import re
import statistics

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import report  # noqa: E402  (perf/report.py: the same JSON parser as the tables)

HERE = os.path.dirname(os.path.abspath(__file__))

# What each workload computes, and its nominal floating-point operations and bytes per element
# (each array counted once, as the GB/s figures and STREAM count them). sin and exp count as one
# operation each: their real cost is tens of instructions, which is why W2 sits far below both
# roofs. Families absent from the results are skipped.
WORKLOADS = {
    "W1": ("z = 2.5*x + 1.5*y (double)", 3, 24),
    "W11": ("z = 2.5*x + 1.5*y (float)", 3, 12),
    "W1par": ("z = 2.5*x + 1.5*y: 1 vs 2 threads", 3, 24),
    "W1stream": ("z = 2.5*x + 1.5*y: streaming stores on/off", 3, 24),
    "W2": ("z = x*y + sin(w)*exp(-v) (double)", 6, 40),
    "W2par": ("z = x*y + sin(w)*exp(-v): 1 vs 2 threads", 6, 40),
    "W3": ("s = sum((x - y)^2) (double)", 3, 16),
    "W9": ("Z = transpose(X) + Y, n x n (double)", 1, 24),
}

STYLE = {  # lazuli solid and bold, anchors thinner and dashed
    "lazuli": dict(color="#1f4e9c", lw=2.4, ls="-", marker="o"),
    "lazuli_default": dict(color="#3d85c6", lw=1.8, ls="-", marker="s"),
    "lazuli_par_2T": dict(color="#6fa8dc", lw=1.8, ls="-", marker="^"),
    "lazuli_stream": dict(color="#1f4e9c", lw=2.4, ls="-", marker="o"),
    "lazuli_cached": dict(color="#6fa8dc", lw=1.8, ls="-", marker="s"),
    "hand": dict(color="#444444", lw=1.4, ls="--", marker="x"),
    "hand_2T": dict(color="#888888", lw=1.4, ls="--", marker="x"),
    "hand_omp_simd": dict(color="#777777", lw=1.4, ls=":", marker="x"),
    "eigen": dict(color="#cc4125", lw=1.4, ls="--", marker="d"),
    "xtensor": dict(color="#6aa84f", lw=1.4, ls=":", marker="v"),
    "xtensor_noalias": dict(color="#38761d", lw=1.4, ls="--", marker="v"),
    "armadillo": dict(color="#e69138", lw=1.4, ls="--", marker="p"),
}


def style(variant):
    return STYLE.get(variant, dict(lw=1.4, ls="-.", marker="."))


def load_rounds(resdir):
    """{bench: [res, ...]} with report.parse's res {(family, variant, n): {'t', 'bytes', ...}}."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(resdir, "*.r*.json"))):
        bench = os.path.basename(path).split(".")[0]
        runs.setdefault(bench, []).append(report.parse(path)[0])
    return runs


def gbs(d):
    return d["bytes"] / d["t"] / 1e3 if d.get("bytes") and d.get("t") else None


def medians(rounds):
    """(family, variant, n) -> median over rounds of the per-round median GB/s."""
    vals = {}
    for res in rounds:
        for k, d in res.items():
            g = gbs(d)
            if g:
                vals.setdefault(k, []).append(g)
    return {k: statistics.median(v) for k, v in vals.items()}


def context(resdir):
    for path in sorted(glob.glob(os.path.join(resdir, "*.r*.json"))):
        with open(path) as f:
            return json.load(f).get("context", {})
    return {}


def load_gemm(resdir):
    """gemm_bench.json -> {(name, n, threads): GFLOP/s (GOP/s for integers)}: median rate."""
    path = os.path.join(resdir, "gemm_bench.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = re.match(r"([^/]+)/n:(\d+)/threads:(\d+)", b["run_name"])
        if m and "OP/s" in b:
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            if b.get("run_type") == "aggregate" or key not in out:
                out[key] = b["OP/s"] / 1e9
    return out


def save(fig, outdir, name, made):
    path = os.path.join(outdir, f"{name}.png")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    made.append(path)


def triad_lines(ax, triad):
    for label, v, ls, x, ha in (("triad 1 thread", triad.get(1), "-", 0.01, "left"),
                                ("triad 2 threads", triad.get(2), ":", 0.99, "right")):
        if v:
            ax.axhline(v, color="black", lw=1.0, ls=ls, alpha=0.7)
            ax.annotate(f"{label}: {v:.1f} GB/s", (x, v), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", fontsize=8, ha=ha)


def workload_chart(fam, med, triad, outdir, made):
    title, _, _ = WORKLOADS.get(fam, (fam, 0, 0))
    pts = {}
    for (f, var, n), g in med.items():
        if f == fam:
            pts.setdefault(var, []).append((n, g))
    if not pts:
        return
    sizes = sorted({n for v in pts.values() for n, _ in v})
    fig, ax = plt.subplots(figsize=(8, 5))
    order = sorted(pts, key=lambda v: (not v.startswith("lazuli"), v))
    if len(sizes) == 1:  # one size: bars
        vals = [dict(pts[v])[sizes[0]] for v in order]
        colors = [style(v).get("color", "#999999") for v in order]
        ax.bar(range(len(order)), vals, color=colors)
        ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
        for i, v in enumerate(vals):
            ax.annotate(f"{v:.1f}", (i, v), ha="center", xytext=(0, 2), textcoords="offset points",
                        fontsize=8)
        title += f", n = {sizes[0]:,}"
    else:
        for v in order:
            xs, ys = zip(*sorted(pts[v]))
            ax.plot(xs, ys, label=v, **style(v))
        ax.set_xscale("log")
        ax.set_xlabel("n (elements)" if fam != "W9" else "n (matrix is n x n)")
        ax.legend(fontsize=8, ncol=2)
    triad_lines(ax, triad)
    ax.set_ylabel("GB/s (nominal, real time, median)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    save(fig, outdir, fam, made)


def gemm_chart(gemm, outdir, made, peak1):
    if not gemm:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    for ax, t in zip(axes, (1, 2)):
        names = sorted({k[0] for k in gemm if k[2] == t and "gemm" in k[0]})
        for name in names:
            xs = sorted(n for (nm, n, tt) in gemm if nm == name and tt == t)
            ys = [gemm[(name, n, t)] for n in xs]
            st = dict(lw=2.2, ls="-", marker="o") if "own" in name else dict(lw=1.4, ls="--",
                                                                             marker="x")
            ax.plot(xs, ys, label=name, **st)
        if peak1:
            ax.axhline(peak1 * t, color="black", lw=1, ls=":")
            ax.annotate(f"FMA peak, {t} core(s), f64: {peak1 * t:.0f}", (0.01, peak1 * t),
                        xycoords=("axes fraction", "data"), xytext=(0, 3),
                        textcoords="offset points", fontsize=8)
        ax.set_xscale("log", base=2)
        ax.set_title(f"C = A·B, n x n, {t} thread(s)")
        ax.set_xlabel("n")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("GFLOP/s (GOP/s for integers), median")
    save(fig, outdir, "gemm", made)


def roofline(med, triad, gemm, outdir, made, peak1):
    """One thread: GFLOP/s against nominal flops per byte, under the measured triad bandwidth and
    the FMA peak (and OpenBLAS dgemm's best, when gemm_bench ran)."""
    bw = triad.get(1)
    if not bw:
        return
    fig, ax = plt.subplots(figsize=(8.5, 5.5))
    dgemm_best = max((v for (nm, n, t), v in gemm.items() if nm == "dgemm_cblas" and t == 1),
                     default=None)
    roof = peak1 or dgemm_best or 50.0
    top = 2.0 ** (7 if gemm else 3)  # flops per byte shown: gemm reaches n/12
    xs = [2 ** (e / 4) for e in range(-24, 1 + int(4 * math.log2(top)))]
    ax.plot(xs, [min(roof, bw * x) for x in xs], color="black", lw=1.5,
            label=f"roof: triad {bw:.1f} GB/s, FMA peak {roof:.0f} GFLOP/s")
    if dgemm_best:
        ax.axhline(dgemm_best, color="black", lw=1, ls=":")
        ax.annotate(f"dgemm (OpenBLAS), best measured: {dgemm_best:.1f}", (xs[0], dgemm_best),
                    xytext=(2, 3), textcoords="offset points", fontsize=8)
    for fam, (title, flops, nbytes) in WORKLOADS.items():
        if fam in ("W1par", "W2par", "W1stream"):  # the same operation as W1 / W2
            continue
        sizes = [n for (f, v, n) in med if f == fam]
        if not sizes:
            continue
        n = max(sizes)
        ai = flops / nbytes
        for var, mk in (("lazuli", "o"), ("hand", "x"), ("eigen", "d")):
            g = med.get((fam, var, n))
            if g:
                gf = g * ai  # GB/s x flops/byte
                ax.plot([ai], [gf], marker=mk, ms=8 if var == "lazuli" else 6, ls="none",
                        color=style(var)["color"], label=None)
                if var == "lazuli":
                    ax.annotate(f"{fam} (n={n:,})", (ai, gf), xytext=(5, -10),
                                textcoords="offset points", fontsize=8)
    for (nm, n, t), v in sorted(gemm.items()):
        if t == 1 and nm in ("gemm_own_f64", "dgemm_cblas"):
            ai = 2.0 * n ** 3 / (3 * n * n * 8)
            own = nm == "gemm_own_f64"
            ax.plot([ai], [v], marker="o" if own else "x", ms=8 if own else 6, ls="none",
                    color=style("lazuli" if own else "hand")["color"])
            if own:
                ax.annotate(f"gemm\nn={n}", (ai, v), xytext=(0, -22), textcoords="offset points",
                            fontsize=7, ha="center")
    for var, mk in (("lazuli", "o"), ("hand", "x"), ("eigen", "d")):
        ax.plot([], [], marker=mk, ls="none", color=style(var)["color"],
                label={"lazuli": "lazuli (own gemm for gemm points)",
                       "hand": "hand loop (OpenBLAS for gemm points)", "eigen": "Eigen"}[var])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (nominal flops per byte)")
    ax.set_ylabel("GFLOP/s, 1 thread (nominal flops, median)")
    ax.set_title("Roofline, one thread, each workload at its largest size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    save(fig, outdir, "roofline", made)


def render(build, outdir=os.path.join(HERE, "charts")):
    """Writes the PNGs; returns [(workload, path)] in a stable order."""
    resdir = os.path.join(build, "perf", "results")
    os.makedirs(outdir, exist_ok=True)
    runs = load_rounds(resdir)
    med, triad_by = {}, {1: [], 2: []}
    for bench, rounds in runs.items():
        m = medians(rounds)
        for (f, v, n), g in m.items():
            if f == "triad":
                triad_by[1 if v == "hand_1T" else 2].append(g)
            else:
                med[(f, v, n)] = g
    triad = {t: statistics.median(v) for t, v in triad_by.items() if v}
    ctx = context(resdir)
    # One core's double-precision FMA peak: 2 FMA units x 4 doubles x 2 flops per cycle (AVX2).
    peak1 = ctx.get("mhz_per_cpu", 0) * 1e-3 * 16 or None
    gemm = load_gemm(resdir)
    made = []
    for fam in WORKLOADS:
        workload_chart(fam, med, triad, outdir, made)
    gemm_chart(gemm, outdir, made, peak1)
    roofline(med, triad, gemm, outdir, made, peak1)
    return [(os.path.splitext(os.path.basename(p))[0], p) for p in made]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=os.path.join(HERE, "charts"))
    a = ap.parse_args()
    for name, path in render(a.build, a.out):
        print(f"{name}: {path}")


if __name__ == "__main__":
    main()
