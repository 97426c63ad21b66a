#!/usr/bin/env python3
"""Compares two `cuobjdump -sass` listings function by function: which kernels
kept the same instructions, and how far the others moved.

    cuobjdump -sass before.o > a.sass; cuobjdump -sass after.o > b.sass
    scripts/sass_diff.py a.sass b.sass [--name PART]

Per function present in either listing: SAME (the same instruction text in
the same order: addresses, encodings and comments left out), REGS (the same
once register numbers are left out too: only the allocation moved) or DIFF
with the two instruction counts and how many runs of instructions differ.
Names are matched after removing the per-file hash of anonymous namespaces
(`_GLOBAL__N__<hash>_..._cu_<hash>_<n>`), so the objects of two commits
compare. --name keeps the functions whose name contains PART. No GPU is
needed (see scripts/sass_stalls.py for where to get cuobjdump). This is how a
refactor is checked to leave a kernel as it was, and how a change that
should not move a kernel's schedule is caught doing so (docs/ladder.md,
"Two k-steps for 128x128; more stages").
"""
import argparse
import difflib
import re

ANON = re.compile(r'_GLOBAL__N__[0-9a-f]+_\d+_\w+?_cu_[0-9a-f]+_\d+')
INST = re.compile(r'\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;')


def functions(path: str) -> dict:
    funcs, current = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'\s*Function : (\S+)', line)
            if m:
                current = funcs.setdefault(ANON.sub('ANON', m.group(1)), [])
                continue
            m = INST.match(line)
            if m and current is not None:
                current.append(re.sub(r'\s+', ' ', m.group(1)))
    return funcs


def without_registers(insts: list) -> list:
    return [re.sub(r'\bR\d+\b', 'R', i) for i in insts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('before')
    ap.add_argument('after')
    ap.add_argument('--name', default='', help='only functions whose name contains this')
    args = ap.parse_args()
    a, b = functions(args.before), functions(args.after)
    for name in sorted(set(a) | set(b)):
        if args.name not in name:
            continue
        x, y = a.get(name), b.get(name)
        if x is None or y is None:
            print(f'{"ONLY-AFTER" if x is None else "ONLY-BEFORE":11s} {name}')
        elif x == y:
            print(f'{"SAME":11s} {len(x):6d} {name}')
        elif without_registers(x) == without_registers(y):
            print(f'{"REGS":11s} {len(x):6d} {name}')
        else:
            runs = sum(1 for op in difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes() if op[0] != 'equal')
            print(f'{"DIFF":11s} {len(x):6d} -> {len(y)} instructions, {runs} runs differ: {name}')


if __name__ == '__main__':
    main()
