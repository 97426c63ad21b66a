#!/usr/bin/env bash
# Step 08's staged copy, part 2 on the side stream (no barrier between the parts): TESSEL_PROBE_STAGE=0 (copy whole
# first) against =1 (staged), auto; then ncu durations of 127x4097x1000 TT (split-k, parts summed).
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/new.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
V=2101x4100x2000,3931x1792x2048,4096,4100x2100x2000
timeout 200 /tmp/t verify --kernel auto,pipelined_128x256 --dtype f32 --sizes $V > /tmp/v.log 2>&1; echo "verify rc=$?: $(tail -1 /tmp/v.log)"
grep -i fail /tmp/v.log | head -5
S=4096,6144,7168,8192,4096x4096x1024,2101x4100x2000
for r in 1 2 3; do
  for s in 0 1; do
    TESSEL_PROBE_STAGE=$s /tmp/t bench --kernel auto --sizes $S --ops NN,NT,TN --repeat 20 --json /tmp/s${s}_$r.json > /dev/null 2>&1
  done
done
timeout 100 ncu --metrics gpu__time_duration.sum,launch__grid_size /tmp/t bench --kernel auto --sizes 127x4097x1000 --ops TT,TN --repeat 1 --warmup 0 > /tmp/ncu.log 2>&1
grep -E "^  [a-z]|gpu__time|grid_size" /tmp/ncu.log | sed 's/(tessel::impl[^)]*)//' | cut -c1-140 | head -40
cd /tmp && tar czf $OUT/stage.tgz s?_*.json v.log ncu.log
python3 - <<'PY' | tee $OUT/stage.txt
import json,collections
d=collections.defaultdict(list)
V=('s0','s1')
for r in (1,2,3):
  for v in V:
    for x in json.load(open(f'/tmp/{v}_{r}.json'))['results']:
      d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])].append((v,x['ran'],x['median_ms']*1e3,100*x['ratio']))
for key in sorted(d):
  out=[]
  for v in V:
    w=[t for t in d[key] if t[0]==v]
    out.append(f"{v}: {w[0][1].replace('pipelined_','')} {sum(t[2] for t in w)/len(w):.1f}us ({' '.join(f'{t[2]:.0f}' for t in w)}) {sum(t[3] for t in w)/len(w):.1f}%")
  print(*key,' | '.join(out))
PY
