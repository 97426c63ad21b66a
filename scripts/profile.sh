#!/usr/bin/env bash
# Profiles one kernel with Nsight Compute on a square (or MxNxK) problem and
# prints the metrics the worklog cites: FMA-pipe and issue utilisation,
# achieved occupancy, warp stall reasons, shared-memory bank conflicts.
#   scripts/profile.sh BUILD_DIR KERNEL [M N K] [OPS] [DTYPE]
set -euo pipefail
build=$1 kernel=$2 m=${3:-4096} n=${4:-${3:-4096}} k=${5:-${3:-4096}} ops=${6:-NN} dtype=${7:-}
metrics=(
  gpu__time_duration.sum
  sm__throughput.avg.pct_of_peak_sustained_elapsed
  sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active
  sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
  lts__throughput.avg.pct_of_peak_sustained_elapsed
  smsp__issue_active.avg.pct_of_peak_sustained_active
  sm__warps_active.avg.pct_of_peak_sustained_active
  launch__registers_per_thread
  launch__occupancy_limit_registers
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  smsp__average_warp_latency_issue_stalled_barrier.ratio
  smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
  smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
  smsp__average_warp_latency_issue_stalled_mio_throttle.ratio
  smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio
  smsp__average_warp_latency_issue_stalled_not_selected.ratio
  smsp__average_warp_latency_issue_stalled_selected.ratio
  smsp__average_warp_latency_issue_stalled_wait.ratio
  smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio
  smsp__average_warp_latency_issue_stalled_lg_throttle.ratio
  dram__throughput.avg.pct_of_peak_sustained_elapsed
)
IFS=,
ncu --clock-control none --metrics "${metrics[*]}" -k regex:'_kernel' -c 1 \
  "$build/tessel" run --kernel "$kernel" --m "$m" --n "$n" --k "$k" --ops "$ops" --iters 1 ${dtype:+--dtype "$dtype"} 2>&1 |
  grep -vE '^==PROF==|^\s*$' | sed -n '/Section\|----\|[a-z_]*__/p'
