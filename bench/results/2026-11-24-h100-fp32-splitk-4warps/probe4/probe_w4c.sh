#!/usr/bin/env bash
# The aligned split-k kernel on 4 warps of 8x4: auto with main (a), with the 4-warp kernel counting 4 blocks
# an SM as full (b: binary c, TESSEL_PROBE_FILL unset) or 2 (c: TESSEL_PROBE_FILL=2), two rounds alternating.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/main.gz > /tmp/a; gunzip -c .probe-bin/c.gz > /tmp/c; chmod +x /tmp/a /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
TESSEL_PROBE_FILL=2 /tmp/c verify --kernel pipelined_splitk,auto --dtype f32 > /tmp/vc.log 2>&1; echo "verify c (fill 2): $(tail -1 /tmp/vc.log)"
AS=256,320,384,448,512,576,640,704,768,832,896,960,1024,1152,1280,1024x1024x300,1200x1200x400,1536x1536x256,4096x64x300,64x4096x300,512x512x256,256x256x4096,3000x3000x300,1000x1000x1000,2048x2048x512,1536x1536x512,768x768x2048,300x300x5000,2048x128x2048
for r in 1 2; do
  /tmp/a bench --kernel auto --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/a_$r.json > /dev/null 2>&1
  /tmp/c bench --kernel auto --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/b_$r.json > /dev/null 2>&1
  TESSEL_PROBE_FILL=2 /tmp/c bench --kernel auto --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/c_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/w4c.tgz a_?.json b_?.json c_?.json vc.log
python3 - <<'PY' | tee $OUT/w4c.txt
import json,collections
def load(files):
  d=collections.defaultdict(list); ran={}
  for f in files:
    for x in json.load(open(f))['results']:
      key=(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])
      d[key].append((x['median_ms']*1e3,100*x['ratio'])); ran[key]=x.get('ran','')
  return d,ran
R={v:load([f'/tmp/{v}_1.json',f'/tmp/{v}_2.json']) for v in 'abc'}
avg=lambda v:(sum(t[0] for t in v)/len(v),sum(t[1] for t in v)/len(v))
print('## auto: a (main) | b (4 warps, fill 4) | c (4 warps, fill 2)')
for key in R['a'][0]:
  print(*key,'|',' | '.join(f"{avg(R[v][0][key])[0]:.1f}us {avg(R[v][0][key])[1]:.1f}%" for v in 'abc'),'|',' / '.join(R[v][1][key] for v in 'abc'))
PY
