#!/usr/bin/env bash
# The main job: installs the dependencies, builds tessel and runs
# `tessel bench` on this machine's GPU (arguments go to tessel bench;
# default: every kernel at 1024, 2048 and 4096 against cuBLAS).
#   scripts/bench.sh [--sizes 1024:4096:1024] [--csv out.csv] ...
# Without a GPU it says so in one line and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
build=${BUILD_DIR:-build}

echo "tessel: installing the build dependencies (apt)" >&2
tessel_install_deps > /dev/null
tessel_find_nvcc
echo "tessel: building in $build/ (five to ten minutes on 2 cores the first time)" >&2
mkdir -p "$build"
log=$build/build.log
# The build's progress on one line; the whole log in $log.
if ! tessel_build "$build" -DTESSEL_CUDA_ARCHITECTURES="${TESSEL_CUDA_ARCHITECTURES:-80;90a}" 2>&1 | tee "$log" |
  { grep --line-buffered -oE '^\[[0-9]+/[0-9]+\]' || true; } | while read -r p; do printf '\r  %s compiled' "$p" >&2; done; then
  echo >&2; tail -30 "$log" >&2; exit 1
fi
echo >&2
exec "$build/tessel" bench "$@"
