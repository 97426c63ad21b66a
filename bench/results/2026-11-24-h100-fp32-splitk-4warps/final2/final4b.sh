#!/usr/bin/env bash
# After final4.sh on the same machine (build-gpu there): auto of this build against main's e588754 (carried
# binary) on aligned small and mid shapes, two rounds alternating.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:$PWD/.probe-lib
gunzip -c .probe-bin/main.gz > /tmp/a; chmod +x /tmp/a
AS=256,320,384,448,512,576,640,704,768,832,896,960,1024,1152,1024x1024x300,1200x1200x400,1536x1536x256,4096x64x300,64x4096x300,512x512x256,256x256x4096,300x300x5000,2048x128x2048,1000x1000x1000,4096x64x8192,513x513x2000
for r in 1 2; do
  /tmp/a bench --kernel auto,pipelined_splitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/a_$r.json > /dev/null 2>&1
  build-gpu/tessel bench --kernel auto,pipelined_splitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/n_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/final4b.tgz a_?.json n_?.json tests.log verify.log memcheck.log
python3 - <<'PY' | tee $OUT/final4b.txt
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
PY
