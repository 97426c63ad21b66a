#!/usr/bin/env bash
# The FP32 ladder at 4096^3 NN on 66472c2's binary: every step, the TMA kernel and auto, 20 runs, cuBLAS beside.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
xz -dc .probe-bin/tessel.xz > /tmp/tessel && chmod +x /tmp/tessel
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/tessel bench --kernel naive,coalesced,smem,blocktile_1d,blocktile_2d,vectorized,warptile,pipelined,pipelined_128x256,pipelined_128x256_streamk_tma,auto --sizes 4096 --ops NN --repeat 20 --max-seconds 30 --csv $OUT/ladder.csv --json $OUT/ladder.json > $OUT/ladder.log 2>&1
python3 - <<'PY'
import json, os
for x in json.load(open(os.environ['OUT']+'/ladder.json'))['results']:
  print(f"{x['kernel']:32s} {x.get('ran','')[:30]:30s} {x['median_ms']*1e3:10.0f}us {x['tflops']:6.2f} {100*x['ratio']:6.1f}% runs {x['runs']}")
PY
