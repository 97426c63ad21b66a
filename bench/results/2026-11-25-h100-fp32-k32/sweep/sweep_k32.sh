#!/usr/bin/env bash
# Sweep on 66472c2's binary: auto, pipelined_128x256 and the TMA kernel, NN, 256..8192 step 256, 10 runs.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
xz -dc .probe-bin/tessel.xz > /tmp/tessel && chmod +x /tmp/tessel
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/tessel bench --kernel auto,pipelined_128x256,pipelined_128x256_streamk_tma --sizes 256:8192:256 --ops NN --repeat 10 --csv $OUT/sweep.csv --json $OUT/sweep.json > $OUT/sweep.log 2>&1
python3 scripts/plot_bench.py $OUT/sweep.csv $OUT/sweep.png --title "H100, FP32 NN: step 08's 128x256 on the 32-deep TMA loop (10 runs)" > /dev/null 2>&1 || echo plot failed
python3 - <<'PY'
import json, os
rs=json.load(open(os.environ['OUT']+'/sweep.json'))['results']
a=[x for x in rs if x['kernel']=='auto']
print('auto worst', min((round(100*x['ratio'],1), x['m']) for x in a))
for x in rs:
  if x['m'] in (2048,4096,8192): print(x['kernel'], x['m'], f"{x['median_ms']*1e3:.0f}us {100*x['ratio']:.1f}%")
PY
