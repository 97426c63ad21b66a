#!/usr/bin/env python3
"""Plots TFLOP/s against size for every kernel in a `tessel bench --csv` file,
with cuBLAS (the ref_tflops column, measured in the same run) beside them.

    scripts/plot_bench.py RESULTS.csv OUT.png [--title TEXT]

Square shapes are plotted against their size; other shapes are skipped.
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="tessel FP32 kernels vs cuBLAS")
    ap.add_argument("--reference", default="cuBLAS", help="the reference's name in the legend")
    args = ap.parse_args()

    kernels = defaultdict(dict)  # kernel (and precision, where the file has several) -> size -> TFLOP/s
    cublas = defaultdict(dict)   # precision -> size -> TFLOP/s
    with open(args.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok" and r["m"] == r["n"] == r["k"]]
    several = len({r["dtype"] for r in rows}) > 1
    for row in rows:
        m = int(row["m"])
        kernels[row["kernel"] + (f" {row['dtype']}" if several else "")][m] = float(row["tflops"])
        cublas[row["dtype"]][m] = float(row["ref_tflops"])

    fig, ax = plt.subplots(figsize=(8, 5))
    for j, (dtype, points) in enumerate(cublas.items()):
        sizes = sorted(points)
        ax.plot(sizes, [points[s] for s in sizes], "k--", marker="sPX"[j % 3],
                label=f"{args.reference}{f' {dtype}' if several else ''} (same run)")
    # Colours repeat after ten lines: the marker tells the next ten apart.
    for i, (name, points) in enumerate(kernels.items()):
        xs = sorted(points)
        ax.plot(xs, [points[s] for s in xs], marker="os^Dv"[i // 10 % 5], label=name)
    ax.set_xlabel("m = n = k")
    ax.set_ylabel("TFLOP/s (median)")
    ax.set_yscale("log")
    ax.set_title(args.title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=120)


if __name__ == "__main__":
    main()
