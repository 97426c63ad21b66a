#!/usr/bin/env python3
"""Compares two builds' `tessel bench` CSVs (several rounds each) row by row.

    scripts/compare_bench.py NEW.csv [NEW2.csv ...] -- OLD.csv [OLD2.csv ...]

Prints a markdown table: per precision and shape, the kernel each build ran,
the median over rounds of each build's median time, new/old, and each build's
ratio to the cuBLAS timed beside it in the same rows.
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
    cut = argv.index("--")
    new, old = read(argv[:cut]), read(argv[cut + 1:])
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


if __name__ == "__main__":
    main(sys.argv[1:])
