"""tessel.matmul against torch.matmul on the same tensors, in the same process.

    python -m tessel.bench --suite llm --dtype bf16 [--compile] [--repeat 20] [--csv F]

Each row times tessel.matmul and torch.matmul (cuBLAS/cuBLASLt under torch; with
--compile also torch.compile(mode="max-autotune")) in alternation, the median of
--repeat runs between CUDA events with the L2 flushed before each, checks the
results agree, and prints tessel / torch. Last: per dtype the geometric mean and
the worst row, and the host time per call of each (back to back, no flush).
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import pathlib
import statistics
import time

import torch

import tessel

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def suite_calls(names: str):
    """(m, n, k, ops) per line of the suites (tessel's bench/suites format)."""
    folders = [os.environ.get("TESSEL_SUITES", ""), pathlib.Path(tessel.__file__).parent / "suites",
               pathlib.Path(__file__).resolve().parents[2] / "bench" / "suites"]
    calls = []
    for name in names.split(","):
        path = pathlib.Path(name) if "/" in name else next(
            (pathlib.Path(f) / f"{name}.txt" for f in folders if f and (pathlib.Path(f) / f"{name}.txt").exists()), None)
        if path is None or not path.exists():
            raise SystemExit(f"error: no suite '{name}'")
        for line in path.read_text().splitlines():
            fields = line.split("#")[0].split()
            if fields:
                calls.append((int(fields[0]), int(fields[1]), int(fields[2]), fields[3].upper()))
    return calls


def operands(m, n, k, ops, dtype):
    a = torch.randn(k, m, device="cuda", dtype=dtype).T if ops[0] == "T" else torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(n, k, device="cuda", dtype=dtype).T if ops[1] == "T" else torch.randn(k, n, device="cuda", dtype=dtype)
    return a, b


def median_ms(fns, repeat, flush):
    """Medians of the callables' times, run in alternation, L2 flushed before each run."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times[i].append(start.elapsed_time(end))
    return [statistics.median(t) for t in times]


def host_us(fn, calls=200):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="llm", help="suite names or files, comma-separated (bench/suites)")
    ap.add_argument("--sizes", help="MxNxK[:OPS],... instead of --suite")
    ap.add_argument("--dtype", default="bf16", help="f32, f16, bf16, comma-separated")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--compile", action="store_true", help="also torch.compile(mode='max-autotune')")
    ap.add_argument("--csv")
    args = ap.parse_args()
    if args.sizes:
        calls = []
        for item in args.sizes.split(","):
            shape, _, ops = item.partition(":")
            m, n, k = (int(x) for x in shape.lower().split("x"))
            calls.append((m, n, k, (ops or "NN").upper()))
    else:
        calls = suite_calls(args.suite)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows = []
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'dtype':<5} {'ops':<3} {'m x n x k':>20} {'tessel ms':>10} {'torch ms':>10} {'ratio':>7}"
          + (f" {'compile ms':>10} {'ratio':>7}" if args.compile else ""))
    for name in args.dtype.split(","):
        dtype = DTYPES[name]
        for m, n, k, ops in calls:
            a, b = operands(m, n, k, ops, dtype)
            out = torch.empty(m, n, device="cuda", dtype=dtype)
            fns = [lambda: tessel.matmul(a, b, out=out), lambda: torch.matmul(a, b, out=out)]
            if args.compile:
                compiled = torch.compile(lambda x, y: x @ y, mode="max-autotune")
                fns.append(lambda: compiled(a, b))
            want = (a.double() @ b.double())
            tessel.matmul(a, b, out=out)
            err = ((out.double() - want).norm() / want.norm().clamp_min(1e-30)).item()
            ms = median_ms(fns, args.repeat, flush)
            row = {"dtype": name, "ops": ops, "m": m, "n": n, "k": k, "tessel_ms": ms[0], "torch_ms": ms[1],
                   "ratio": ms[1] / ms[0], "rel_err": err}
            if args.compile:
                row["compile_ms"], row["compile_ratio"] = ms[2], ms[2] / ms[0]
            rows.append(row)
            print(f"{name:<5} {ops:<3} {f'{m}x{n}x{k}':>20} {ms[0]:>10.4f} {ms[1]:>10.4f} {row['ratio']:>7.3f}"
                  + (f" {ms[2]:>10.4f} {row['compile_ratio']:>7.3f}" if args.compile else ""))
    print("\ntessel / torch.matmul (speed: > 1 is faster)")
    for name in args.dtype.split(","):
        mine = [r for r in rows if r["dtype"] == name]
        if mine:
            geo = math.exp(sum(math.log(r["ratio"]) for r in mine) / len(mine))
            worst = min(mine, key=lambda r: r["ratio"])
            print(f"  {name}: geomean {geo:.3f}, worst {worst['ratio']:.3f} ({worst['ops']} "
                  f"{worst['m']}x{worst['n']}x{worst['k']}) over {len(mine)} calls")
    a, b = operands(64, 64, 64, "NN", torch.bfloat16)
    out = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    print(f"host time per call (64^3 bf16, back to back): tessel.matmul {host_us(lambda: tessel.matmul(a, b, out=out)):.1f} us, "
          f"torch.matmul {host_us(lambda: torch.matmul(a, b, out=out)):.1f} us")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
