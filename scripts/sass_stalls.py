#!/usr/bin/env python3
# Static scheduling of one kernel's SASS: reads `cuobjdump -sass` output on stdin and, for the first
# function whose (mangled) name contains every NAME_PART, prints its opcode counts and, per opcode, the
# histogram of the stall counts ptxas wrote into the instructions' control bits (bits 41-44 of each
# instruction's high 64-bit word: cycles the warp waits before its next instruction), and how many FFMAs
# use the operand-reuse cache.
# With --loop, the same for the body of its hottest loop only (the backward branch that encloses the most
# FFMAs): its instructions, their summed stall counts (a lower bound on one warp's cycles per iteration),
# where its barriers sit (as a fraction of the body) and the cycles each opcode waits beyond one.
#   cuobjdump -sass OBJECT | python3 scripts/sass_stalls.py [--loop] NAME_PART...
# No GPU is needed. Where the CUDA toolkit here lacks cuobjdump, NVIDIA's wheels carry it:
#   pip download --no-deps nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm, unzip both, put their bin/ on PATH.
# cuBLAS's kernels can be read the same way: `cuobjdump -xelf all libcublasLt.so.N` writes its cubins,
# `cuobjdump -sass CUBIN` disassembles one (grep the cubins for the kernel's name first).
import collections
import re
import sys

args = sys.argv[1:]
loop_only = '--loop' in args
parts = [a for a in args if a != '--loop']
if not parts:
    sys.exit('usage: cuobjdump -sass OBJECT | sass_stalls.py [--loop] NAME_PART...')

func, insts, pending = None, [], None  # insts: (address, text, stall, yield, reuse bits)
for line in sys.stdin.read().split('\n'):
    m = re.match(r'\s*Function : (\S+)', line)
    if m:
        if func is not None and insts:
            break
        func = m.group(1) if all(p in m.group(1) for p in parts) else None
        continue
    if func is None:
        continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/', line)
    if m:
        pending = (int(m.group(1), 16), m.group(2).strip())
        continue
    m = re.match(r'\s*/\* (0x[0-9a-f]+) \*/', line)
    if m and pending:
        ctrl = int(m.group(1), 16) >> 41
        insts.append((pending[0], pending[1], ctrl & 0xf, (ctrl >> 4) & 1, (ctrl >> 17) & 0xf))
        pending = None
if not insts:
    sys.exit('no function whose name contains ' + ' and '.join(parts))


def opcode(text):
    return re.sub(r'^@!?U?P\w+\s+', '', text).split()[0]


print('function:', func[:160], 'instructions:', len(insts))
if loop_only:
    at = {a: i for i, (a, *_) in enumerate(insts)}
    best = None
    for i, (a, text, *_) in enumerate(insts):
        m = re.search(r'BRA (0x[0-9a-f]+)', text)
        if m and int(m.group(1), 16) < a and int(m.group(1), 16) in at:
            j = at[int(m.group(1), 16)]
            ffma = sum(opcode(t).startswith('FFMA') for _, t, *_ in insts[j:i + 1])
            if ffma and (best is None or ffma > best[2]):
                best = (j, i, ffma)
    if best is None:
        sys.exit('no loop with FFMAs')
    j, i, ffma = best
    insts = insts[j:i + 1]
    cycles = sum(s for _, _, s, _, _ in insts)
    bars = [round(k / len(insts), 2) for k, (_, t, *_) in enumerate(insts) if 'BAR.SYNC' in t]
    print(f'hottest loop: {len(insts)} instructions, {ffma} FFMA, summed stall counts {cycles} '
          f'({ffma / cycles:.3f} FFMA a cycle), BAR.SYNC at {bars} of the body')

ops = collections.Counter()
hist = collections.defaultdict(collections.Counter)
reuse = collections.Counter()
for _, text, stall, _, r in insts:
    op = opcode(text)
    ops[op] += 1
    hist[op.split('.')[0]][stall] += 1
    if op.startswith('FFMA') and r:
        reuse['ffma_with_reuse'] += 1
for op, n in ops.most_common(25):
    print(f'{op:28s} {n}')
for op in ['FFMA', 'LDS', 'STS', 'LDG', 'BAR', 'IMAD', 'IADD3', 'MOV', 'LDGSTS']:
    if op in hist:
        print(op, 'stall histogram', dict(sorted(hist[op].items())))
print(dict(reuse))
# total issue-slot cycles implied by stall counts, and the cycles beyond one per instruction, by opcode
total, extra = collections.Counter(), collections.Counter()
for _, text, stall, _, _ in insts:
    op = opcode(text).split('.')[0]
    total[op] += stall
    extra[op] += max(0, stall - 1)
print('sum of stall counts by opcode', dict(total.most_common(10)))
print('cycles beyond one, by opcode', dict((k, v) for k, v in extra.most_common(12) if v))
