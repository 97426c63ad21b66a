#!/usr/bin/env bash
# Configures (if needed) and builds for the GPU machine, from dependencies
# unpacked under DEPS_PREFIX (see scripts/fetch-deps.sh), with all cores.
#   scripts/gpu-build.sh BUILD_DIR [DEPS_PREFIX]     (quiet; prints the tail of errors)
# Source it instead to also get LD_LIBRARY_PATH for the unpacked libraries.
build=${1:?usage: scripts/gpu-build.sh BUILD_DIR [DEPS_PREFIX]}
prefix=${2:-}
cfg=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSEL_CUDA_ARCHITECTURES="${TESSEL_CUDA_ARCHITECTURES:-90a}")
if [ -n "$prefix" ]; then
  prefix=$(cd "$prefix" && pwd)
  cfg+=(-DCMAKE_PREFIX_PATH="$prefix")
  export LD_LIBRARY_PATH="$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
command -v nvcc > /dev/null || export PATH=$PATH:/usr/local/cuda/bin
log=$(mktemp)
if ! { cmake "${cfg[@]}" && cmake --build "$build" -j"$(nproc)"; } > "$log" 2>&1; then
  tail -40 "$log"
  false
fi
