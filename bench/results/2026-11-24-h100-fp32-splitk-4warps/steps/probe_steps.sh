#!/usr/bin/env bash
# 4-warp split-k kernels: k-steps per loop iteration on the register path (16 = whole slice, main; 2, 4, 8), by name.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/steps.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/t verify --kernel probe_s2,probe_s4,probe_s8,probe_a4 --dtype f32 --sizes 1,7,33,127x4097x1000,704,1200x1200x400 > /tmp/v.log 2>&1; echo "verify: $(tail -1 /tmp/v.log)"
U=127x4097x1000,255x33x1024,127x127x4096,2047x129x4096,513x1025x4096,1001x1001x300
A=256,704,896,1200x1200x400,3072x256x768,300x300x5000,4096x64x8192
for r in 1 2; do
  /tmp/t bench --kernel pipelined_any_splitk,probe_s2,probe_s4,probe_s8 --sizes $U --ops NN,NT,TT --repeat 20 --json /tmp/u_$r.json > /dev/null 2>&1
  /tmp/t bench --kernel probe_a16,probe_a4 --sizes $A --ops NN,NT,TT --repeat 20 --json /tmp/a_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/steps.tgz u_?.json a_?.json v.log
python3 - <<'PY' | tee $OUT/steps.txt
import json,collections
for g in 'ua':
  d=collections.defaultdict(lambda: collections.defaultdict(list)); ks=[]
  for r in (1,2):
    for x in json.load(open(f'/tmp/{g}_{r}.json'))['results']:
      k=x['kernel']; ks.append(k) if k not in ks else None
      d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])][k].append(x['median_ms']*1e3)
  print('##',' | '.join(ks),'(us, round 1 / round 2)')
  for key in d: print(*key,'|',' | '.join('/'.join(f"{t:.1f}" for t in d[key][k]) for k in ks))
PY
