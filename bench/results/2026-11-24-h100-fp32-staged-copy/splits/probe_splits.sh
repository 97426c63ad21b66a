#!/usr/bin/env bash
# Unaligned 64x64 split-k: parts forced by TESSEL_PROBE_SPLITS (0: the launcher's choice), two rounds.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/new.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 5 6; do TESSEL_PROBE_SPLITS=$s /tmp/t verify --kernel pipelined_any_splitk --dtype f32 --sizes 127x4097x1000,255x33x1024,513x1025x4096 > /tmp/v$s.log 2>&1; echo "verify s=$s: $(tail -1 /tmp/v$s.log)"; done
S=127x4097x1000,255x33x1024,33x4097x4000,513x1025x4096,1000x1001x1000
for r in 1 2; do
  for s in 0 3 4 5 6 8; do
    TESSEL_PROBE_SPLITS=$s /tmp/t bench --kernel pipelined_any_splitk --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/s${s}_$r.json > /dev/null 2>&1
  done
done
cd /tmp && tar czf $OUT/splits.tgz s*_?.json v?.log
python3 - <<'PY' | tee $OUT/splits.txt
import json,collections
d=collections.defaultdict(dict)
V=(0,3,4,5,6,8)
for r in (1,2):
  for v in V:
    for x in json.load(open(f'/tmp/s{v}_{r}.json'))['results']:
      d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])].setdefault(v,[]).append((x['median_ms']*1e3,100*x['ratio']))
for key in sorted(d):
  print(*key,' | '.join(f"s{v}: {sum(t[0] for t in d[key][v])/2:.1f}us {sum(t[1] for t in d[key][v])/2:.1f}%" for v in V))
PY
