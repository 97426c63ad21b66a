#!/usr/bin/env bash
# Final check on the GPU, part 2 (after final.sh on the same machine): bench auto on the bar and stream-K shapes.
set -u
mkdir -p $OUT
build-gpu/tessel bench --kernel auto --sizes 1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000,2560,3328,3584,3072x3072x1024,2304x4608x2048,4352,5632,6912,7424,1536x8192x1024 --ops NN,NT,TN,TT --repeat 20 --json $OUT/bar.json --csv $OUT/bar.csv > $OUT/bar.txt 2>&1
python3 scripts/results_md.py $OUT/bar.json > $OUT/bar.md
python3 - <<'PY'
import json,os
j=json.load(open(os.environ['OUT']+'/bar.json'))
for x in j['results']:
  print(x['opA']+x['opB'], f"{x['m']}x{x['n']}x{x['k']}", x.get('ran',''), f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
PY
