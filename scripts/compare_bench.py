#!/usr/bin/env python3
"""Compares two builds' `tessel bench` CSVs (several rounds each) row by row.

    scripts/compare_bench.py [--plot OUT.png] NEW.csv [NEW2.csv ...] -- OLD.csv [OLD2.csv ...]

Prints a markdown table: per precision and shape, the kernel each build ran,
the median over rounds of each build's median time, new/old, and each build's
ratio to the cuBLAS timed beside it in the same rows. --plot draws those two
ratios side by side (over 40 rows: each row's old ratio against its new one).
"""
import csv
import statistics
import sys
from collections import defaultdict


def read(paths):
    rows = defaultdict(list)
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["status"] != "ok":
                    continue
                key = (r["dtype"], r["opA"] + r["opB"], f'{r["m"]}x{r["n"]}x{r["k"]}')
                rows[key].append(r)
    return rows


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    plot = None
    if argv[0] == "--plot":
        plot, argv = argv[1], argv[2:]
    cut = argv.index("--")
    new, old = read(argv[:cut]), read(argv[cut + 1:])
    bars = []
    print("| precision | ops | shape | kernel (new) | kernel (old) | new us | old us | new/old | new % cuBLAS | old % cuBLAS |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|")
    for key in sorted(new, key=lambda k: (k[0], k[2], k[1])):
        if key not in old:
            continue
        n, o = new[key], old[key]
        t_new = statistics.median(float(r["median_ms"]) for r in n) * 1e3
        t_old = statistics.median(float(r["median_ms"]) for r in o) * 1e3
        r_new = statistics.median(float(r["ratio"]) for r in n) * 100
        r_old = statistics.median(float(r["ratio"]) for r in o) * 100
        print(f"| {key[0]} | {key[1]} | {key[2]} | {n[0].get('ran', '')} | {o[0].get('ran', '')} | {t_new:.1f} | "
              f"{t_old:.1f} | {t_new / t_old:.3f} | {r_new:.1f} | {r_old:.1f} |")
        bars.append((f"{key[0]} {key[1]}\n{key[2]}", r_new, r_old))
    if plot:
        draw(bars, plot)


def draw(bars, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if len(bars) > 40:  # too many for bars: each row's ratio before against after, the diagonal unchanged
        fig, ax = plt.subplots(figsize=(5.5, 5.5))
        ax.scatter([b[2] for b in bars], [b[1] for b in bars], s=12)
        lo = min(min(b[1], b[2]) for b in bars) * 0.95
        hi = max(max(b[1], b[2]) for b in bars) * 1.05
        ax.plot([lo, hi], [lo, hi], color="gray", lw=0.8)
        ax.axhline(100, color="gray", lw=0.5, ls=":"), ax.axvline(100, color="gray", lw=0.5, ls=":")
        ax.set_xlabel("before: % of cuBLAS (same rows)")
        ax.set_ylabel("after: % of cuBLAS (same rows)")
        ax.set_title(f"{len(bars)} rows; above the diagonal: faster")
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        return
    x = range(len(bars))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(bars)), 4))
    ax.bar([i - 0.2 for i in x], [b[2] for b in bars], 0.4, label="before")
    ax.bar([i + 0.2 for i in x], [b[1] for b in bars], 0.4, label="after")
    ax.axhline(100, color="gray", lw=0.8)
    ax.set_xticks(list(x), [b[0] for b in bars], fontsize=7)
    ax.set_ylabel("% of cuBLAS (same rows)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1:])
