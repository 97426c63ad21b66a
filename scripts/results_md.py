#!/usr/bin/env python3
"""Renders `tessel bench --json` files as a markdown table (GPU, versions,
command and date from the file itself), so committed tables are never typed
by hand.

    scripts/results_md.py RESULTS.json [MORE.json ...] > results.md
    scripts/results_md.py --summary [--at 4096] [--from 2048] SWEEP.json

--summary: one row per kernel and op of a sweep over square sizes: its share
of cuBLAS at size --at, its best and worst (with the size), and its worst
from size --from up.
"""
import argparse
import json
import sys


def render(path: str) -> str:
    with open(path) as f:
        d = json.load(f)
    g = d["gpu"]
    out = [
        f"### {g['name']} — {d['date']}",
        "",
        f"- GPU: {g['name']}, {g['sm_count']} SMs, compute capability {g['compute_capability']}, "
        f"max SM clock {g['sm_clock_max_mhz']} MHz, L2 {g['l2_bytes'] / 2**20:.0f} MiB, "
        f"FP32 peak (est.) {g['peak_fp32_tflops']:.1f} TFLOP/s",
        f"- CUDA driver {g['driver']}, runtime {g['runtime']}, cuBLAS {g['cublas']}",
        f"- reference: {d['reference']}",
        f"- command: `{d['command']}`",
        "",
        "| kernel | dtype | op | m x n x k | median ms | TFLOP/s | cuBLAS TFLOP/s | % of cuBLAS | runs | status |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in d["results"]:
        shape = f"{r['m']}x{r['n']}x{r['k']}"
        kernel = r["kernel"] + (f" ({r['ran']})" if r.get("ran") else "")
        if r["status"] == "ok":
            out.append(f"| {kernel} | {r['dtype']} | {r['opA']}{r['opB']} | {shape} | {r['median_ms']:.4f} | {r['tflops']:.2f} "
                       f"| {r['ref_tflops']:.2f} | {100 * r['ratio']:.1f}% | {r['runs']} | ok |")
        else:
            out.append(f"| {kernel} | {r['dtype']} | {r['opA']}{r['opB']} | {shape} | - | - | {r['ref_tflops']:.2f} | - | - "
                       f"| {r['status']}: {r['note']} |")
    return "\n".join(out) + "\n"


def summary(path: str, at: int, start: int) -> str:
    with open(path) as f:
        d = json.load(f)
    rows = {}  # (kernel, op) -> {size: % of cuBLAS}, square shapes that ran
    for r in d["results"]:
        if r["status"] == "ok" and r["m"] == r["n"] == r["k"]:
            rows.setdefault((r["kernel"], r["opA"] + r["opB"]), {})[r["m"]] = 100 * r["ratio"]
    out = [
        f"| kernel | op | at {at}³ | best (size) | worst from {start}³ up (size) | worst (size) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for (kernel, op), by_size in rows.items():
        def pick(sizes, fn):
            s = fn(sizes, key=by_size.get)
            return f"{by_size[s]:.1f} ({s})"
        upper = [s for s in by_size if s >= start]
        out.append(f"| {kernel} | {op} | {f'{by_size[at]:.1f}' if at in by_size else '-'} | {pick(by_size, max)} "
                   f"| {pick(upper, min) if upper else '-'} | {pick(by_size, min)} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", metavar="RESULTS.json")
    ap.add_argument("--summary", action="store_true", help="per-kernel summary of a sweep instead of the rows")
    ap.add_argument("--at", type=int, default=4096, help="--summary: the size whose share is shown")
    ap.add_argument("--from", dest="start", type=int, default=2048, help="--summary: worst from this size up")
    a = ap.parse_args()
    if a.summary:
        print("\n".join(summary(p, a.at, a.start) for p in a.files))
    else:
        print("\n".join(render(p) for p in a.files))
