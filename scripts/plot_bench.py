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

    kernels = defaultdict(dict)  # kernel -> size -> TFLOP/s
    cublas = {}                  # size -> TFLOP/s
    with open(args.csv, newline="") as f:
        for row in csv.DictReader(f):
            m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
            if not (m == n == k) or row["status"] != "ok":
                continue
            kernels[row["kernel"]][m] = float(row["tflops"])
            cublas[m] = float(row["ref_tflops"])

    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = sorted(cublas)
    ax.plot(sizes, [cublas[s] for s in sizes], "k--", marker="s", label=f"{args.reference} (same run)")
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
