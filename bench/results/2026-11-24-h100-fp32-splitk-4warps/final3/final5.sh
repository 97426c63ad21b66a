#!/usr/bin/env bash
# GPU check of the working tree: build there, ctest, verify all,auto f32 (logs in final5.tgz).
set -u
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader | tee $OUT/gpu.txt
source scripts/gpu-build.sh build-gpu $PWD/.deps/root/usr > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
(cd build-gpu && ctest -j12 --output-on-failure > /tmp/tests.log 2>&1); grep -E "tests passed|tests failed" /tmp/tests.log; grep -E "\(Failed\)|\(Timeout\)" /tmp/tests.log | head
build-gpu/tessel verify --kernel all,auto --dtype f32 > /tmp/verify.log 2>&1; tail -1 /tmp/verify.log
cd /tmp && tar czf $OUT/final5.tgz tests.log verify.log build.log
