#!/usr/bin/env bash
# Unaligned split-k configurations for small outputs (probe_* kernels) against main's pipelined_any_splitk.
set -u
mkdir -p $OUT
export LD_LIBRARY_PATH=$PWD/.probe-lib
gunzip -c .probe-bin/small.gz > /tmp/t; chmod +x /tmp/t
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
K=pipelined_any_splitk,probe_w4k16,probe_w4k8,probe_128x64,probe_w2k8
/tmp/t verify --kernel $K --dtype f32 --sizes 127x4097x1000,255x33x1024,1,7,33,127,257,1000x1001x1000 > /tmp/v.log 2>&1; echo "verify: $(tail -1 /tmp/v.log)"
S=127x4097x1000,255x33x1024,257x257x1000,511x129x2048,1000x1001x1000,513x1025x4096,33x4097x4000
for r in 1 2; do
  /tmp/t bench --kernel $K --sizes $S --ops NN,NT,TN,TT --repeat 20 --json /tmp/b_$r.json > /dev/null 2>&1
done
M="gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_not_selected,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_sample_count"
ncu --clock-control none --metrics $M -k regex:"pipelined|xmma|sum_parts" /tmp/t bench --kernel $K --sizes 127x4097x1000 --ops TT --repeat 1 > /tmp/ncu.log 2>&1
cd /tmp && tar czf $OUT/small.tgz b_?.json v.log ncu.log
python3 - <<'PY' | tee $OUT/small.txt
import json,collections
d=collections.defaultdict(lambda: collections.defaultdict(list)); ks=[]
for r in (1,2):
  for x in json.load(open(f'/tmp/b_{r}.json'))['results']:
    k=x['kernel']; ks.append(k) if k not in ks else None
    d[(f"{x['m']}x{x['n']}x{x['k']}",x['opA']+x['opB'])][k].append((x['median_ms']*1e3,100*x['ratio']))
print('shape op | '+' | '.join(ks))
for key in sorted(d):
  print(*key,'|',' | '.join(f"{sum(t[0] for t in d[key][k])/len(d[key][k]):.1f}us {sum(t[1] for t in d[key][k])/len(d[key][k]):.1f}%" for k in ks))
PY
grep -E "^  [a-z].*\(|^\s+[a-z_]+__" /tmp/ncu.log | sed 's/ \{2,\}/ /g' | sed 's/(tessel::SgemmArgs.*//' | cut -c1-150
