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

tessel_install_deps > /dev/null
tessel_find_nvcc
tessel_build "$build" -DTESSEL_CUDA_ARCHITECTURES="${TESSEL_CUDA_ARCHITECTURES:-80;90a}" > /dev/null
exec "$build/tessel" bench "$@"
