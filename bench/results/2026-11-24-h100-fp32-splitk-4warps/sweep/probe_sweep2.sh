#!/usr/bin/env bash
# The FP32 ladder, steps 01-08 and auto, NN 256...8192 step 256, against cuBLAS (binary built from main at 28ebfe1).
set -u
mkdir -p $OUT/sweep
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/head.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/sweep/gpu.txt
/tmp/t bench --kernel naive,coalesced,smem,blocktile_1d,blocktile_2d,vectorized,warptile,pipelined,pipelined_128x256,auto --dtype f32 --sizes 256:8192:256 --repeat 10 --csv $OUT/sweep/sweep.csv --json $OUT/sweep/sweep.json > $OUT/sweep/sweep.txt 2>&1
python3 scripts/results_md.py $OUT/sweep/sweep.json > $OUT/sweep/sweep.md
python3 scripts/plot_bench.py $OUT/sweep/sweep.csv $OUT/sweep/sweep.png --title "tessel FP32 ladder vs cuBLAS, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
python3 - <<'PY' | tee $OUT/sweep/summary.md
import json,collections
j=json.load(open('$OUT/sweep/sweep.json'.replace('$OUT',__import__('os').environ['OUT'])))
d=collections.defaultdict(dict)
for x in j['results']:
  d[x['kernel']][x['m']]=100*x['ratio']
print('| kernel | op | at 4096³ | best (size) | worst from 2048³ up (size) | worst (size) |')
print('|---|---|---:|---:|---:|---:|')
for k,v in d.items():
  b=max(v,key=v.get); w=min(v,key=v.get); w2=min((s for s in v if s>=2048),key=v.get)
  print(f"| {k} | NN | {v.get(4096,0):.1f} | {v[b]:.1f} ({b}) | {v[w2]:.1f} ({w2}) | {v[w]:.1f} ({w}) |")
PY
