#!/usr/bin/env bash
# Final check on the GPU: build there, ctest, verify all,auto f32, memcheck of the unaligned split-k kernel,
# auto on the few-tile shapes and on the bar's shapes.
set -u
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
source scripts/gpu-build.sh build-gpu $PWD/.deps/root/usr > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
(cd build-gpu && ctest -j12 --output-on-failure > $OUT/tests.log 2>&1); grep -E "tests passed|tests failed" $OUT/tests.log; grep -E "\(Failed\)|\(Timeout\)" $OUT/tests.log | head
build-gpu/tessel verify --kernel all,auto --dtype f32 > $OUT/verify.log 2>&1; tail -1 $OUT/verify.log
compute-sanitizer --tool memcheck build-gpu/tessel verify --kernel pipelined_any_splitk --dtype f32 --sizes 1,7,33,127x4097x1000,255x33x1024,1001x1001x300 > $OUT/memcheck.log 2>&1; grep -E "ERROR SUMMARY|passed" $OUT/memcheck.log | tail -2
build-gpu/tessel bench --kernel auto --sizes 101x101x8192,127x127x4096,33x255x2048,255x33x1024,257x257x1000,201x301x3000,511x129x2048,2047x129x4096,1001x1001x300,513x1025x4096 --ops NN,NT,TN,TT --repeat 20 --json $OUT/few.json > $OUT/few.txt 2>&1
build-gpu/tessel bench --kernel auto --sizes 1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000 --ops NN,NT,TN,TT --repeat 20 --json $OUT/bar.json --csv $OUT/bar.csv > $OUT/bar.txt 2>&1
python3 scripts/results_md.py $OUT/bar.json > $OUT/bar.md
python3 - <<'PY'
import json,os
for f in ('few','bar'):
  j=json.load(open(os.environ['OUT']+f'/{f}.json'))
  for x in j['results']:
    print(f, x['opA']+x['opB'], f"{x['m']}x{x['n']}x{x['k']}", x.get('ran',''), f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
PY
