#!/usr/bin/env bash
# Issue 3's bar on 66472c2 (binary built from it): auto at the bar shapes, every op pair, 20 runs; auto and pipelined_128x256 at 4096^3, 8192^3.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
xz -dc .probe-bin/tessel.xz > /tmp/tessel && chmod +x /tmp/tessel
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/tessel bench --kernel auto --sizes 1024:8192:1024,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000 --ops NN,NT,TN,TT --repeat 20 --csv $OUT/bar.csv --json $OUT/bar.json > $OUT/bar.log 2>&1
/tmp/tessel bench --kernel auto,pipelined_128x256 --sizes 4096,8192 --ops NN,NT,TN,TT --repeat 20 --csv $OUT/head.csv --json $OUT/head.json > $OUT/head.log 2>&1
python3 - <<'PY'
import json, os
o=os.environ['OUT']
rs=json.load(open(o+'/bar.json'))['results']
print('bar worst', min((100*x['ratio'], f"{x['m']}x{x['n']}x{x['k']} {x['opA']}{x['opB']}") for x in rs))
for x in rs:
  print(f"{x['m']}x{x['n']}x{x['k']} {x['opA']}{x['opB']} {x.get('ran','')[:30]} {x['median_ms']*1e3:.0f}us {100*x['ratio']:.1f}%")
for x in json.load(open(o+'/head.json'))['results']:
  print('head', x['kernel'], x.get('ran','')[:30], x['m'], x['opA']+x['opB'], f"{x['median_ms']*1e3:.0f}us {x.get('tflops',0):.1f} {100*x['ratio']:.1f}%")
PY
