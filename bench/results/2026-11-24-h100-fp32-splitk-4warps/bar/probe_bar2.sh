#!/usr/bin/env bash
# The bar on main's final code (binary built here at HEAD, carried): auto on issue 3's shapes, every op pair, twice.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/final.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
S=1024,2048,3072,4096,5120,6144,7168,8192,4096x4096x1024,8192x1024x8192,1024x8192x8192,127x4097x1000
for r in 1 2; do /tmp/t bench --kernel auto --sizes $S --ops NN,NT,TN,TT --repeat 20 --json $OUT/bar$r.json --csv $OUT/bar$r.csv > /dev/null 2>&1; done
python3 scripts/results_md.py $OUT/bar1.json > $OUT/bar1.md
python3 - <<'PY' | tee $OUT/bar.txt
import json,os,collections
d=collections.defaultdict(list)
for r in (1,2):
  for x in json.load(open(os.environ['OUT']+f'/bar{r}.json'))['results']:
    d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'],x['ran'])].append(f"{x['median_ms']*1e3:.1f}us {100*x['ratio']:.1f}%")
for k,v in d.items(): print(*k,'|',' | '.join(v))
PY
