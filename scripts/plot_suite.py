#!/usr/bin/env python3
"""Plots a `tessel bench --suite ... --csv` file: tessel / cuBLAS for every call,
one panel per precision, calls in suite order, the 1.0 and 0.9 lines drawn and
the geometric mean in each title; and writes the markdown summary beside it.

    scripts/plot_suite.py RESULTS.csv OUT.png [--title TEXT]     (OUT.md: the summary)
"""
import argparse
import csv
import math
import pathlib
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="tessel / cuBLAS per call, same run")
    a = ap.parse_args()
    by = defaultdict(list)  # (kernel, dtype) -> rows in file order
    with open(a.csv, newline="") as f:
        for r in csv.DictReader(f):
            by[(r["kernel"], r["dtype"])].append(r)
    panels = list(by)
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 2.4 * len(panels) + 0.6), squeeze=False)
    lines = ["| kernel | precision | calls | timed | geometric mean | worst | worst call |", "|---|---|---:|---:|---:|---:|---|"]
    for ax, key in zip(axes[:, 0], panels):
        rows = by[key]
        ok = [r for r in rows if r["status"] == "ok" and float(r["ratio"]) > 0]
        ratios = [float(r["ratio"]) for r in ok]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else float("nan")
        worst = min(ok, key=lambda r: float(r["ratio"])) if ok else None
        xs = [i for i, r in enumerate(rows) if r in ok]
        ax.scatter(xs, ratios, s=6, c=["tab:red" if x < 0.9 else "tab:blue" for x in ratios])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.9, color="tab:red", linewidth=0.6, linestyle="--")
        ax.set_ylabel("tessel / cuBLAS")
        ax.set_title(f"{key[0]} {key[1]}: geomean {geo:.3f}" + (f", worst {float(worst['ratio']):.3f}" if worst else ""),
                     fontsize=9)
        ax.set_xlim(-1, len(rows))
        ax.grid(alpha=0.3)
        call = f"{worst['opA']}{worst['opB']} {worst['m']}x{worst['n']}x{worst['k']}" if worst else "—"
        lines.append(f"| {key[0]} | {key[1]} | {len(rows)} | {len(ok)} | {geo:.3f} | "
                     f"{float(worst['ratio']) if worst else float('nan'):.3f} | {call} |")
    axes[-1, 0].set_xlabel("call (suite order)")
    fig.suptitle(a.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    pathlib.Path(a.png).with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
