#!/usr/bin/env bash
# The device call that measured this directory: C through TMA loads for beta != 0
export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu
R=${OUT:-/tmp/out}; B=build-gpu
source scripts/gpu-build.sh $B .deps/root/usr > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
for o in $B/CMakeFiles/tessel_sm90.dir/src/kernels/hopper/1[2345]*.o; do echo "$(basename $o): $(cuobjdump -sass $o | grep -c HGMMA) HGMMA $(cuobjdump -sass $o | grep -cE 'LDL|STL') LDL/STL"; done > $R/sass.txt
cat $R/sass.txt
(cd $B && ctest -j8 -R "wgmma_cluster|wgmma_streamk|StreamK|Api" --output-on-failure) > $R/tests.log 2>&1
grep -E "tests passed|tests failed" $R/tests.log; grep -E "\(Failed\)|\(Timeout\)" $R/tests.log | head
$B/tessel verify --kernel all,auto --dtype f16,bf16,bf16:f32,f16:f32,tf32 > $R/verify.log 2>&1; tail -1 $R/verify.log
for d in bf16 f16; do $B/tessel bench --kernel wgmma_cluster_$d,wgmma_streamk_$d,auto --dtype $d --sizes 4096,8192 --beta 1 --repeat 10; done > $R/beta1.txt 2>&1
$B/tessel bench --kernel auto --dtype bf16:f32,tf32 --sizes 4096,8192 --beta 1 --repeat 10 > $R/beta1b.txt 2>&1
$B/tessel bench --kernel auto --dtype bf16,f16 --sizes 1024,4096 --repeat 10 > $R/beta0.txt 2>&1
grep -h -v "^ref\|^$\|^NVIDIA\|^median\|^kernel" $R/beta1.txt $R/beta1b.txt $R/beta0.txt | cut -c1-130
