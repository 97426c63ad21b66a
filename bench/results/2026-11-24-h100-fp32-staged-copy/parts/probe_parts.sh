#!/usr/bin/env bash
# Split-k with an unaligned C: parts summed by the last block of each tile (new) against a sum kernel after (old:
# the staged-copy probe binary with TESSEL_PROBE_STAGE=0, main's split-k). Auto and the split-k kernels by name.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/new.gz > /tmp/t; chmod +x /tmp/t
gunzip -c .probe-bin/old.gz > /tmp/o; chmod +x /tmp/o
export TESSEL_PROBE_STAGE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/t verify --kernel auto,pipelined_any_splitk,pipelined_any_128x128_splitk --dtype f32 > /tmp/v1.log 2>&1; echo "verify default sizes: $(tail -1 /tmp/v1.log)"
/tmp/t verify --kernel auto,pipelined_any_splitk,pipelined_any_128x128_splitk --dtype f32 --sizes 127x4097x1000,1000x1001x1000,33x4097x4000,513x1025x4096 > /tmp/v2.log 2>&1; echo "verify split shapes: $(tail -1 /tmp/v2.log)"
/tmp/t verify --kernel auto,pipelined_any_splitk --dtype f32 --sizes 127x4097x1000,255x33x1024 --ld-pad 3 > /tmp/v3.log 2>&1; echo "verify ld-pad 3: $(tail -1 /tmp/v3.log)"
grep -h FAIL /tmp/v?.log | head -5
S=127x4097x1000,1000x1001x1000,33x4097x4000,513x1025x4096,255x33x1024
for r in 1 2; do
  /tmp/o bench --kernel auto,pipelined_any_splitk --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/old_$r.json > /dev/null 2>&1
  /tmp/t bench --kernel auto,pipelined_any_splitk --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/new_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/parts.tgz old_*.json new_*.json v?.log
python3 - <<'PY' | tee $OUT/parts.txt
import json,collections
d=collections.defaultdict(list)
V=('old','new')
for r in (1,2):
  for v in V:
    for x in json.load(open(f'/tmp/{v}_{r}.json'))['results']:
      d[(x['kernel'],f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])].append((v,x['ran'],x['median_ms']*1e3,100*x['ratio']))
for key in sorted(d):
  out=[]
  for v in V:
    w=[t for t in d[key] if t[0]==v]
    out.append(f"{v}: {w[0][1].replace('pipelined_','')} {sum(t[2] for t in w)/len(w):.1f}us ({' '.join(f'{t[2]:.1f}' for t in w)}) {sum(t[3] for t in w)/len(w):.1f}%")
  print(*key,' | '.join(out))
PY
