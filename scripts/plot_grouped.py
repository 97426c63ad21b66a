#!/usr/bin/env python3
"""Summarises `tessel bench --groups` / `--problems` CSV files: per row, tessel
against cuBLAS's grouped GEMM (ratio column) and against a loop of tessel
calls (the note's "this call Nx it"), as a markdown table, a summary CSV and
a bar plot of both ratios.

    scripts/plot_grouped.py [--title TEXT] OUT_PREFIX LABEL=RESULTS.csv [LABEL=RESULTS.csv ...]

writes OUT_PREFIX.md, OUT_PREFIX.csv and OUT_PREFIX.png; TEXT (name the GPU) heads the table and the plot.
"""
import argparse
import csv
import re
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LOOP = re.compile(r"a loop of tessel calls: ([0-9.]+) ms, this call ([0-9.]+)x it")


def rows(label: str, path: str):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            loop = LOOP.search(r["note"])
            yield {
                "set": label,
                "dtype": r["dtype"],
                "ops": r["opA"] + r["opB"],
                "gemms": r["batch"],
                "bounds": f'{r["m"]}x{r["n"]}x{r["k"]}',
                "ran": r["ran"] or r["kernel"],
                "tflops": float(r["tflops"]),
                "ms": float(r["median_ms"]),
                "cublas_ms": float(r["ref_median_ms"]),
                "vs_cublas": float(r["ratio"]),
                "loop_ms": float(loop.group(1)) if loop else float("nan"),
                "vs_loop": float(loop.group(2)) if loop else float("nan"),
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--title", default="")
    ap.add_argument("prefix")
    ap.add_argument("inputs", nargs="+", metavar="LABEL=RESULTS.csv")
    args = ap.parse_args()
    prefix = args.prefix
    table = []
    for arg in args.inputs:
        label, path = arg.split("=", 1)
        table.extend(rows(label, path))
    fields = list(table[0].keys())
    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(table)
    with open(prefix + ".md", "w") as f:
        if args.title:
            f.write(f"{args.title}\n\n")
        f.write("| set | dtype | ops | GEMMs | bounds | ran | TFLOP/s | ms | cuBLAS grouped ms | tessel / cuBLAS "
                "| loop of tessel calls ms | this call / loop |\n")
        f.write("|---|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|\n")
        for r in table:
            f.write(f'| {r["set"]} | {r["dtype"]} | {r["ops"]} | {r["gemms"]} | {r["bounds"]} | {r["ran"]} '
                    f'| {r["tflops"]:.1f} | {r["ms"]:.4f} | {r["cublas_ms"]:.4f} | {r["vs_cublas"]:.3f} '
                    f'| {r["loop_ms"]:.4f} | {r["vs_loop"]:.2f} |\n')
    names = [f'{r["set"]} {r["dtype"]} {r["ops"]}' for r in table]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(table)), 5))
    x = range(len(table))
    ax.bar([i - 0.2 for i in x], [r["vs_cublas"] for r in table], width=0.4, label="vs cuBLAS grouped GEMM")
    ax.bar([i + 0.2 for i in x], [r["vs_loop"] for r in table], width=0.4, label="vs a loop of tessel calls")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speed-up (time ratio, log scale)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=70, ha="right", fontsize=8)
    ax.legend()
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(prefix + ".png", dpi=110)


if __name__ == "__main__":
    main()
