#!/usr/bin/env bash
# 64x64 tiles on 4 warps of 8x4 (probe_w4k16*) against main's 2 warps of 16x4, unaligned and aligned, two rounds.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/small.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
/tmp/t verify --kernel probe_w4k16,probe_w4k16_tiles,probe_w4k16_asplitk,probe_w4k16_a --dtype f32 > /tmp/v.log 2>&1; echo "verify: $(tail -1 /tmp/v.log)"
US=127x4097x1000,255x33x1024,33x255x2048,101x101x8192,127x127x4096,257x257x1000,201x301x3000,511x129x2048,1000x1001x1000,513x1025x4096,33x4097x4000,2047x129x4096,1001x1001x300
UT=1023,2047,3071,4095,1000x1001x1000,777x1999x513
AS=256,384,512,640,768,1024x1024x300,1200x1200x400,896,1152,1536x1536x256,4096x64x300
AT=1000,1024,2048,3000x3000x300
for r in 1 2; do
  /tmp/t bench --kernel auto,pipelined_any_splitk,probe_w4k16 --sizes $US --ops NN,NT,TN,TT --repeat 20 --json /tmp/us_$r.json > /dev/null 2>&1
  /tmp/t bench --kernel pipelined_any_64x64,probe_w4k16_tiles --sizes $UT --ops NN,NT,TN,TT --repeat 20 --json /tmp/ut_$r.json > /dev/null 2>&1
  /tmp/t bench --kernel auto,pipelined_splitk,probe_w4k16_asplitk --sizes $AS --ops NN,NT,TN,TT --repeat 20 --json /tmp/as_$r.json > /dev/null 2>&1
  /tmp/t bench --kernel pipelined_64x64,probe_w4k16_a --sizes $AT --ops NN,NT,TN,TT --repeat 20 --json /tmp/at_$r.json > /dev/null 2>&1
done
cd /tmp && tar czf $OUT/small2.tgz us_?.json ut_?.json as_?.json at_?.json v.log
python3 - <<'PY' | tee $OUT/small2.txt
import json,collections
for g in ('us','ut','as','at'):
  d=collections.defaultdict(lambda: collections.defaultdict(list)); ks=[]; picks={}
  for r in (1,2):
    for x in json.load(open(f'/tmp/{g}_{r}.json'))['results']:
      k=x['kernel']; ks.append(k) if k not in ks else None
      key=(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])
      d[key][k].append((x['median_ms']*1e3,100*x['ratio']))
      if k=='auto': picks[key]=x.get('ran','')
  print('##',g,'| '+' | '.join(ks))
  for key in d:
    print(*key,'|',' | '.join(f"{sum(t[0] for t in d[key][k])/len(d[key][k]):.1f}us {sum(t[1] for t in d[key][k])/len(d[key][k]):.1f}%" for k in ks), picks.get(key,''))
PY
