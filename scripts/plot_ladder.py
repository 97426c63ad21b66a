#!/usr/bin/env python3
"""Plots one shape's `tessel bench --csv` rows as bars: each kernel's share of
the cuBLAS timed beside it in the same rows, in ladder order, one colour per
precision.

    scripts/plot_ladder.py RESULTS.csv OUT.png [--title TEXT]
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="tessel against cuBLAS, same run")
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    labels = [r["kernel"] + (f" ({r['ran']})" if r.get("ran") else "") for r in rows]
    share = [100.0 * float(r["ratio"]) for r in rows]
    dtypes = list(dict.fromkeys(r["dtype"] for r in rows))
    colours = {d: plt.cm.tab10(i) for i, d in enumerate(dtypes)}
    fig, ax = plt.subplots(figsize=(9, 0.22 * len(rows) + 1.5))
    ax.barh(range(len(rows)), share, color=[colours[r["dtype"]] for r in rows])
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(100, color="black", linewidth=0.8)
    ax.set_xlabel("% of cuBLAS (same shape, same run)")
    ax.set_title(a.title, fontsize=9)
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colours[d]) for d in dtypes], labels=dtypes, fontsize=7,
              loc="lower right")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
