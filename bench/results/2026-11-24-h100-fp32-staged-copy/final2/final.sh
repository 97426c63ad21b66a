#!/usr/bin/env bash
# Final check on the GPU, part 1: build there, ctest, verify all,auto f32; few-tile shapes auto/split-k/stream-K.
set -u
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
source scripts/gpu-build.sh build-gpu $PWD/.deps/root/usr > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
(cd build-gpu && ctest -j12 --output-on-failure > $OUT/tests.log 2>&1); grep -E "tests passed|tests failed" $OUT/tests.log; grep -E "\(Failed\)|\(Timeout\)" $OUT/tests.log | head
build-gpu/tessel verify --kernel all,auto --dtype f32 > $OUT/verify.log 2>&1; tail -1 $OUT/verify.log
build-gpu/tessel bench --kernel auto --sizes 101x101x8192,127x127x4096,33x255x2048,255x33x1024,257x257x1000,201x301x3000,127x4097x1000 --ops NN,NT,TN,TT --repeat 20 --json $OUT/few.json > $OUT/few.txt 2>&1
python3 - <<'PY'
import json,os
j=json.load(open(os.environ['OUT']+'/few.json'))
for x in j['results']:
  print(x['opA']+x['opB'], f"{x['m']}x{x['n']}x{x['k']}", x['kernel'], x.get('ran',''), f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
PY
