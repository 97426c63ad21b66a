#!/usr/bin/env bash
# Aligned split-k: 4-warp blocks up to 6 two-warp blocks an SM where an operand is transposed (binary c)
# against main (4 an SM for every op pair, binary a): auto, two rounds alternating.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/head.gz > /tmp/a; gunzip -c .probe-bin/cand.gz > /tmp/c; chmod +x /tmp/a /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
S=768x768x400,896x896x300,896x896x512,896,896x896x2048,1216x1216x300,1216x1216x768,1200x1200x400,3072x256x768,1152,704
/tmp/c verify --kernel pipelined_splitk --dtype f32 --sizes $S > /tmp/v.log 2>&1; echo "verify c: $(tail -1 /tmp/v.log)"
for r in 1 2; do
  /tmp/a bench --kernel auto --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/a_$r.json > /dev/null 2>&1
  /tmp/c bench --kernel auto --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/c_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/band.tgz a_?.json c_?.json v.log
python3 - <<'PY' | tee $OUT/band.txt
import json,collections
def load(v):
  d=collections.defaultdict(list); ran={}
  for r in (1,2):
    for x in json.load(open(f'/tmp/{v}_{r}.json'))['results']:
      key=(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])
      d[key].append((x['median_ms']*1e3,100*x['ratio'],x['ref_median_ms']*1e3)); ran[key]=x.get('ran','')
  return d,ran
A,ra=load('a'); C,rc=load('c')
print('shape op | main: round1 round2 (cuBLAS) | 6/SM when transposing: round1 round2 (cuBLAS)')
for key in A:
  f=lambda v:' '.join(f"{t[0]:.1f}" for t in v)+' ('+' '.join(f"{t[2]:.1f}" for t in v)+')'
  print(*key,'|',f(A[key]),'|',f(C[key]),'|',ra[key],'->',rc[key])
PY
