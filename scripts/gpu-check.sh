#!/usr/bin/env bash
# Configure, build, run the GPU tests and the benchmark in one go, on a GPU
# machine with the CUDA toolkit, CMake and a compiler (no network needed).
#   scripts/gpu-check.sh OUT_DIR [DEPS_PREFIX] [BENCH_SIZES]
# DEPS_PREFIX: where CLI11, fmt, nlohmann-json and GoogleTest are installed or
# unpacked (scripts/fetch-deps.sh makes .deps/root/usr); omit it when they are
# installed system-wide. Logs, CSV and JSON go to OUT_DIR (six files:
# build.log, tests.log, verify.log, bench.txt, bench.csv, bench.json),
# and the console gets a summary.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUT_DIR [DEPS_PREFIX] [BENCH_SIZES]}
prefix=${2:-}
sizes=${3:-1024,2048,4096}
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=${BUILD_DIR:-build-gpu}

status=0
step() { echo "== $*"; }
step "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv || true
step "configure and build"
source scripts/gpu-build.sh "$build" "$prefix" > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }

step "tests"
(cd "$build" && ctest -j4 --output-on-failure) > "$out/tests.log" 2>&1 || { status=1; tail -30 "$out/tests.log"; }
grep -E "tests passed|tests failed|Total Test time" "$out/tests.log"
grep -cE "\(Skipped\)" "$out/tests.log" | sed 's/^/skipped: /'
grep -E "\(Failed\)|\(Timeout\)" "$out/tests.log" | head -20

step "example against the installed package"
{ cmake --install "$build" --prefix "$build/install" &&
  cmake -S examples/basic -B "$build/example" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$build/install" &&
  cmake --build "$build/example"; } >> "$out/build.log" 2>&1 && "$build/example/tessel_example" | tail -1 || status=1

step "info"
"$build"/tessel info

step "verify (CLI)"
"$build"/tessel verify --kernel all,auto > "$out/verify.log" 2>&1 || status=1
tail -1 "$out/verify.log"

step "bench"
"$build"/tessel bench --kernel all --sizes "$sizes" --csv "$out/bench.csv" --json "$out/bench.json" \
  > "$out/bench.txt" 2>&1 || status=1
step "GPU after the benchmark"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv || true
cat "$out/bench.txt"
exit $status
