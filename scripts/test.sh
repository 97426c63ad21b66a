#!/usr/bin/env bash
# Installs the dependencies, builds tessel (device code for sm_80 and sm_90a),
# installs it, builds the example against the installed package, and runs
# the C++ tests and the Python extension's tests (in a virtual environment
# under the build folder). GPU tests report as skipped on a machine without a GPU.
#   scripts/test.sh            (build directory: build/, or $BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/common.sh
build=${BUILD_DIR:-build}

tessel_install_deps
tessel_find_nvcc
mkdir -p "$build"
tessel_python_env "$build/venv"
tessel_build "$build" -DTESSEL_CUDA_ARCHITECTURES="80;90a" -DCMAKE_INSTALL_PREFIX="$PWD/$build/install" \
  -DTESSEL_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PWD/$build/venv/bin/python"
cmake --install "$build" > /dev/null
echo "== example: an outside CMake project built against the installed package"
cmake -S examples/basic -B "$build/example" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$build/install"
cmake --build "$build/example"
echo "== tests"
cd "$build"
set +e
ctest --output-on-failure -j"$(nproc)" 2>&1 | tee ctest.log
rc=${PIPESTATUS[0]}
set -e
# "100% tests passed, 0 tests failed out of 70" (newer CTest: "100% tests passed out of 70")
total=$(sed -n 's/.*% tests passed.* out of \([0-9]*\).*/\1/p' ctest.log | tail -1)
failed=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' ctest.log | tail -1)
failed=${failed:-0}
skipped=$(grep -c '(Skipped)$' ctest.log || true)
[ -n "$total" ] || { echo "error: ctest printed no summary" >&2; exit 1; }
echo "C++ tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
echo "== Python tests (torch tests skip without torch and a GPU)"
cd "$root"
set +e
PYTHONPATH="$PWD/$build/python" "$build/venv/bin/python" -m pytest -q -rs python/tests 2>&1 | tee "$build/pytest.log"
py_rc=${PIPESTATUS[0]}
set -e
echo "Python tests: $(tail -1 "$build/pytest.log")"
[ "$rc" -eq 0 ] && rc=$py_rc
exit "$rc"
