#!/usr/bin/env python3
"""Where a kernel's warps wait, instruction by instruction, from Nsight
Compute's source page: the stall samples summed per reason, then for each
of the largest reasons the SASS instructions that collect the most of it,
with their offsets from the kernel's first instruction.

On the GPU machine (one report, then its source page as CSV):

    ncu --section SourceCounters --section WarpStateStats --import-source no \\
        -k regex:KERNEL -c 1 -o rep BUILD/tessel run --kernel NAME --m 4096 --n 4096 --k 4096 --iters 1
    ncu -i rep.ncu-rep --page source --csv --print-source sass > src.csv

Here (no GPU needed; gzipped files are read as they are):

    scripts/ncu_source_stalls.py src.csv [--top 6] [--reasons 6]

The offsets match `cuobjdump -sass` of the same build, so a hot spot can be
read in its context (scripts/sass_stalls.py reads the same listing).
"""
import argparse
import csv
import gzip
import sys


def number(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def read_rows(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if header_at is None:
        sys.exit(f"{path}: no 'Address' header: not the CSV of ncu's source page (--page source --csv)")
    header = rows[header_at]
    return header, [r for r in rows[header_at + 1:] if len(r) == len(header)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output (.gz allowed)")
    ap.add_argument("--top", type=int, default=6, help="instructions listed per reason")
    ap.add_argument("--reasons", type=int, default=6, help="reasons listed, largest first")
    args = ap.parse_args()

    header, rows = read_rows(args.csv)
    col = {name: i for i, name in enumerate(header)}
    # One column per reason (all samples); the "(Not Issued)" twins are left out.
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    if not reasons or "Source" not in col:
        sys.exit(f"{args.csv}: no stall_* columns: profile with --section SourceCounters --section WarpStateStats")
    base = int(rows[0][col["Address"]], 16)
    totals = {r: sum(number(row[col[r]]) for row in rows) for r in reasons}
    samples = sum(totals.values())
    print(f"{len(rows)} instructions, {samples:.0f} samples")
    for reason, total in sorted(totals.items(), key=lambda kv: -kv[1]):
        if total > 0:
            print(f"  {reason[6:]:<20} {total:>10.0f}  {100 * total / samples:5.1f}%")
    # "selected" is issuing and "not_selected" the other warp issuing: the rest are waits.
    waits = [r for r in sorted(reasons, key=lambda r: -totals[r]) if r not in ("stall_selected", "stall_not_selected")]
    for reason in waits[: args.reasons]:
        if totals[reason] <= 0:
            continue
        print(f"\n{reason[6:]} ({totals[reason]:.0f} samples): where")
        hot = sorted(rows, key=lambda row: -number(row[col[reason]]))[: args.top]
        for row in hot:
            n = number(row[col[reason]])
            if n <= 0:
                break
            offset = int(row[col["Address"]], 16) - base
            print(f"  {offset:06x}  {n:>8.0f}  {100 * n / totals[reason]:5.1f}%  {row[col['Source']].strip()}")


if __name__ == "__main__":
    main()
