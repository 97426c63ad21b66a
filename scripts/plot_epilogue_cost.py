#!/usr/bin/env python3
"""Summarises `tessel bench --epilogue E` CSV files: per row, the fused call's time, the same call
without its epilogue (timed in the same alternation; the note's "without the epilogue"), the cost
(fused / plain - 1) and the reference's time, as a CSV, a markdown table and a bar plot of the cost.

    scripts/plot_epilogue_cost.py [--title TEXT] OUT_PREFIX REFERENCE=RESULTS.csv [REFERENCE=RESULTS.csv ...]

REFERENCE names what each file's rows were timed against (e.g. "cuBLASLt's fused epilogue");
writes OUT_PREFIX.csv, OUT_PREFIX.md and OUT_PREFIX.png; TEXT (name the GPU) heads the table and plot.
"""
import argparse
import csv
import re
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WITHOUT = re.compile(r"without the epilogue \(([^)]*)\): ([0-9.]+) ms")


def rows(reference: str, path: str):
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            plain = WITHOUT.search(r["note"])
            if r["status"] != "ok" or not plain:
                continue
            fused, without, ref = float(r["median_ms"]), float(plain.group(2)), float(r["ref_median_ms"])
            yield {"dtype": r["dtype"], "epilogue": r["epilogue"], "m": r["m"], "n": r["n"], "k": r["k"],
                   "fused_ms": fused, "plain_ms": without, "cost_pct": round(100.0 * (fused / without - 1.0), 1),
                   "reference": reference, "reference_ms": ref, "fused_vs_reference": round(ref / fused, 3),
                   "kernel": r["ran"] or r["kernel"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--title", default="")
    ap.add_argument("prefix")
    ap.add_argument("inputs", nargs="+", metavar="REFERENCE=RESULTS.csv")
    args = ap.parse_args()
    table = [row for arg in args.inputs for row in rows(*arg.split("=", 1))]
    with open(args.prefix + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0].keys()))
        w.writeheader()
        w.writerows(table)
    with open(args.prefix + ".md", "w") as f:
        if args.title:
            f.write(f"{args.title}\n\n")
        f.write("| kernel | dtype | epilogue | m×n×k | without (ms) | fused (ms) | cost | reference | reference (ms) "
                "| fused / reference |\n|---|---|---|---|---:|---:|---:|---|---:|---:|\n")
        for r in table:
            f.write(f'| {r["kernel"]} | {r["dtype"]} | {r["epilogue"]} | {r["m"]}×{r["n"]}×{r["k"]} '
                    f'| {r["plain_ms"]:.4f} '
                    f'| {r["fused_ms"]:.4f} | {r["cost_pct"]:+.1f}% | {r["reference"]} | {r["reference_ms"]:.4f} '
                    f'| {r["fused_vs_reference"]:.3f}× |\n')
    fig, ax = plt.subplots(figsize=(max(8, 0.5 * len(table)), 7))
    ax.bar(range(len(table)), [r["cost_pct"] for r in table])
    ax.axhline(3.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_ylabel("fused epilogue's cost over\nthe same call without it (%)")
    ax.set_xticks(range(len(table)))
    labels = [f'{r["kernel"].removeprefix("wgmma_")} {r["epilogue"]} {r["m"]}×{r["n"]}×{r["k"]}' for r in table]
    ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=7)
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.prefix + ".png", dpi=110)


if __name__ == "__main__":
    main()
