#!/usr/bin/env bash
# Final check on the GPU: build there, ctest, verify all,auto f32, memcheck of the 64x64 split-k kernels;
# then auto of this build against main's e588754 (carried binary) on aligned small and mid shapes, two rounds
# alternating; the bar's shapes.
set -u
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
source scripts/gpu-build.sh build-gpu $PWD/.deps/root/usr > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
(cd build-gpu && ctest -j12 --output-on-failure > /tmp/tests.log 2>&1); grep -E "tests passed|tests failed" /tmp/tests.log; grep -E "\(Failed\)|\(Timeout\)" /tmp/tests.log | head
build-gpu/tessel verify --kernel all,auto --dtype f32 > /tmp/verify.log 2>&1; tail -1 /tmp/verify.log
compute-sanitizer --tool memcheck build-gpu/tessel verify --kernel pipelined_splitk,pipelined_any_splitk --dtype f32 --sizes 1,7,33,256,704x700x5000,127x4097x1000,2100x2100x300 > /tmp/memcheck.log 2>&1; grep -E "ERROR SUMMARY|passed" /tmp/memcheck.log | tail -2
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.probe-lib
gunzip -c .probe-bin/main.gz > /tmp/a; chmod +x /tmp/a
AS=256,320,384,448,512,576,640,704,768,832,896,960,1024,1152,1024x1024x300,1200x1200x400,1536x1536x256,4096x64x300,64x4096x300,512x512x256,256x256x4096,300x300x5000,2048x128x2048,1000x1000x1000,4096x64x8192,513x513x2000
for r in 1 2; do
  /tmp/a bench --kernel auto,pipelined_splitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/a_$r.json > /dev/null 2>&1
  build-gpu/tessel bench --kernel auto,pipelined_splitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/n_$r.json > /dev/null 2>&1
done
build-gpu/tessel bench --kernel auto --sizes 1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000 --ops NN,NT,TN,TT --repeat 20 --json /tmp/bar.json --csv /tmp/bar.csv > /tmp/bar.txt 2>&1
python3 scripts/results_md.py /tmp/bar.json > /tmp/bar.md
cd /tmp && tar czf $OUT/final4.tgz a_?.json n_?.json bar.* tests.log verify.log memcheck.log build.log
python3 - <<'PY' | tee $OUT/final4.txt
import json,collections
def load(files):
  d=collections.defaultdict(list); ran={}
  for f in files:
    for x in json.load(open(f))['results']:
      key=(x['kernel'],f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])
      d[key].append((x['median_ms']*1e3,100*x['ratio'])); ran[key]=x.get('ran','')
  return d,ran
A,ra=load(['/tmp/a_1.json','/tmp/a_2.json']); N,rn=load(['/tmp/n_1.json','/tmp/n_2.json'])
avg=lambda v:(sum(t[0] for t in v)/len(v),sum(t[1] for t in v)/len(v))
print('## auto main (e588754) | auto new | pipelined_splitk main | pipelined_splitk new')
for key in A:
  if key[0]!='auto': continue
  k2=('pipelined_splitk',)+key[1:]
  r=[avg(A[key]),avg(N[key]),avg(A[k2]),avg(N[k2])]
  print(key[1],key[2],'|',' | '.join(f"{t:.1f}us {p:.1f}%" for t,p in r),'|',ra[key],'->',rn[key])
print('## bar (new)')
for x in json.load(open('/tmp/bar.json'))['results']:
  print(x['opA']+x['opB'], f"{x['m']}x{x['n']}x{x['k']}", x.get('ran',''), f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
PY
