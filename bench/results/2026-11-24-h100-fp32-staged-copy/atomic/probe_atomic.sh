#!/usr/bin/env bash
# 127x4097x1000 (C unaligned): split-k parts to a workspace + sum kernel (main) against atomics into C
# (TESSEL_PROBE_ATOMIC=1, C scaled first), auto; and the unaligned kernels by name. Two rounds.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/new.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TESSEL_PROBE_ATOMIC=1 /tmp/t verify --kernel auto,pipelined_any_splitk,pipelined_any_128x128_splitk --dtype f32 --sizes 127x4097x1000,255x33x1024,1000x1001x1000,513x1025x4096 > /tmp/v.log 2>&1; echo "verify atomic: $(tail -1 /tmp/v.log)"
S=127x4097x1000,255x33x1024,33x4097x4000,513x1025x4096,1000x1001x1000
for r in 1 2; do
  for a in 0 1; do
    TESSEL_PROBE_ATOMIC=$a /tmp/t bench --kernel auto --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/a${a}_$r.json > /dev/null 2>&1
  done
done
/tmp/t bench --kernel pipelined_any_splitk,pipelined_any_128x128_splitk,pipelined_any_64x64,pipelined_any --sizes 127x4097x1000 --ops NT,TT --repeat 20 --json /tmp/named.json > /dev/null 2>&1
cd /tmp && tar czf $OUT/atomic.tgz a?_?.json named.json v.log
python3 - <<'PY' | tee $OUT/atomic.txt
import json,collections
d=collections.defaultdict(dict)
for r in (1,2):
  for v in (0,1):
    for x in json.load(open(f'/tmp/a{v}_{r}.json'))['results']:
      d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'],x['ran'].replace('pipelined_',''))].setdefault(v,[]).append((x['median_ms']*1e3,100*x['ratio']))
for key in sorted(d):
  print(*key,' | '.join(f"{'atomic' if v else 'parts'}: {sum(t[0] for t in d[key][v])/2:.1f}us ({' '.join(f'{t[0]:.1f}' for t in d[key][v])}) {sum(t[1] for t in d[key][v])/2:.1f}%" for v in (0,1)))
for x in json.load(open('/tmp/named.json'))['results']:
  print('named', x['kernel'], x['opA']+x['opB'], f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
PY
