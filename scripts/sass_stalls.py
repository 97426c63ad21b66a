#!/usr/bin/env python3
# Static scheduling of one kernel's SASS: reads `cuobjdump -sass` output on stdin and, for the first
# function whose (mangled) name contains NAME_PART, prints its opcode counts and, per opcode, the histogram
# of the stall counts ptxas wrote into the instructions' control bits (bits 41-44 of each instruction's
# high 64-bit word: cycles the warp waits before its next instruction), and how many FFMAs use the
# operand-reuse cache.
#   cuobjdump -sass -arch sm_90a OBJECT | python3 scripts/sass_stalls.py NAME_PART
import re, sys, collections
want = sys.argv[1]
lines = sys.stdin.read().split('\n')
func = None; insts = []; cur = None
for i, l in enumerate(lines):
    m = re.match(r'\s*Function : (\S+)', l)
    if m:
        if func is not None and insts: break
        func = m.group(1) if want in m.group(1) else None
        continue
    if func is None: continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/', l)
    if m:
        cur = [m.group(2).strip(), int(m.group(3), 16)]
        continue
    m = re.match(r'\s*/\* (0x[0-9a-f]+) \*/', l)
    if m and cur:
        hi = int(m.group(1), 16)
        ctrl = hi >> 41
        stall = ctrl & 0xf; yld = (ctrl >> 4) & 1; reuse = (ctrl >> 17) & 0xf
        insts.append((cur[0], stall, yld, reuse)); cur = None
print("function:", func[:160] if func else None, "instructions:", len(insts))
ops = collections.Counter(); hist = collections.defaultdict(collections.Counter); reuse = collections.Counter()
for text, stall, yld, r in insts:
    op = re.sub(r'^@!?U?P\d+\s+', '', text).split()[0]
    ops[op] += 1; hist[op.split('.')[0]][stall] += 1
    if op.startswith('FFMA') and r: reuse['ffma_with_reuse'] += 1
for op, n in ops.most_common(25): print(f"{op:28s} {n}")
for op in ['FFMA', 'LDS', 'STS', 'LDG', 'BAR', 'IMAD', 'IADD3', 'MOV', 'LDGSTS']:
    if op in hist: print(op, 'stall histogram', dict(sorted(hist[op].items())))
print(dict(reuse))
# total issue-slot cycles implied by stall counts, by opcode
tot = collections.Counter()
for text, stall, yld, r in insts: tot[re.sub(r'^@!?U?P\d+\s+', '', text).split()[0].split('.')[0]] += stall
print('sum of stall counts by opcode', dict(tot.most_common(10)))
