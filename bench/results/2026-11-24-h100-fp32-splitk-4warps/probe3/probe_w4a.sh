#!/usr/bin/env bash
# (1) The aligned split-k kernel (pipelined_splitk) on 4 warps of 8x4 (binary b) against main's 2 warps of 16x4
#     (binary a): auto and the kernel by name, aligned small and mid shapes, two rounds, a and b alternating.
# (2) Split counts forced (TESSEL_PROBE_SPLITS, binary b) for the unaligned split-k kernel on 4 warps.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/main.gz > /tmp/a; gunzip -c .probe-bin/w4a.gz > /tmp/b; chmod +x /tmp/a /tmp/b
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/b verify --kernel pipelined_splitk,auto --dtype f32 > /tmp/vb.log 2>&1; echo "verify b: $(tail -1 /tmp/vb.log)"
for s in 3 5 6; do TESSEL_PROBE_SPLITS=$s /tmp/b verify --kernel pipelined_any_splitk --dtype f32 --sizes 127x4097x1000,1001x1001x300,7 > /tmp/vs$s.log 2>&1; echo "verify s=$s: $(tail -1 /tmp/vs$s.log)"; done
AS=256,320,384,448,512,576,640,704,768,832,896,960,1024,1152,1280,1536,1024x1024x300,1200x1200x400,1536x1536x256,4096x64x300,64x4096x300,512x512x256,256x256x4096,3000x3000x300
for r in 1 2; do
  for v in a b; do /tmp/$v bench --kernel auto,pipelined_splitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/${v}_$r.json > /dev/null 2>&1; done
done
SS=127x4097x1000,513x1025x4096,2047x129x4096,1001x1001x300,255x33x1024,101x101x8192
for r in 1 2; do
  for s in 0 3 5 6 8; do TESSEL_PROBE_SPLITS=$s /tmp/b bench --kernel pipelined_any_splitk --sizes $SS --ops NN,NT,TN,TT --repeat 20 --json /tmp/s${s}_$r.json > /dev/null 2>&1; done
done
cd /tmp && tar czf $OUT/w4a.tgz a_?.json b_?.json s*_?.json v*.log
python3 - <<'PY' | tee $OUT/w4a.txt
import json,collections
def load(files):
  d=collections.defaultdict(list); ran={}
  for f in files:
    for x in json.load(open(f))['results']:
      key=(x['kernel'],f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])
      d[key].append((x['median_ms']*1e3,100*x['ratio'])); ran[key]=x.get('ran','')
  return d,ran
A,ra=load(['/tmp/a_1.json','/tmp/a_2.json']); B,rb=load(['/tmp/b_1.json','/tmp/b_2.json'])
avg=lambda v:(sum(t[0] for t in v)/len(v),sum(t[1] for t in v)/len(v))
print('## aligned: auto a (main) | auto b (4 warps) | pipelined_splitk a | pipelined_splitk b')
for key in A:
  if key[0]!='auto': continue
  k2=('pipelined_splitk',)+key[1:]
  r=[avg(A[key]),avg(B[key]),avg(A[k2]),avg(B[k2])]
  print(key[1],key[2],'|',' | '.join(f"{t:.1f}us {p:.1f}%" for t,p in r),'|',ra[key],'->',rb[key])
print('## unaligned split counts (b): s0 = the launcher\'s choice')
S={s:load([f'/tmp/s{s}_1.json',f'/tmp/s{s}_2.json'])[0] for s in (0,3,5,6,8)}
for key in S[0]:
  print(key[1],key[2],'|',' | '.join(f"s{s}: {avg(S[s][key])[0]:.1f}us" for s in S))
PY
