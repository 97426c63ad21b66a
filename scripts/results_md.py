#!/usr/bin/env python3
"""Renders `tessel bench --json` files as a markdown table (GPU, versions,
command and date from the file itself), so committed tables are never typed
by hand.

    scripts/results_md.py RESULTS.json [MORE.json ...] > results.md
"""
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


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(render(p) for p in sys.argv[1:]))
