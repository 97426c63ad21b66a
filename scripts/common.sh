# Sourced by the scripts: installs what tessel needs on Debian/Ubuntu and
# configures + builds it. Expects the CUDA toolkit (nvcc) to be installed.

tessel_install_deps() {
  local pkgs=(cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev python3-dev python3-venv)
  if dpkg -s "${pkgs[@]}" > /dev/null 2>&1; then return 0; fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${pkgs[@]}"
}

tessel_find_nvcc() {
  if ! command -v nvcc > /dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  fi
  command -v nvcc > /dev/null 2>&1 || { echo "error: nvcc not found: install the CUDA toolkit" >&2; return 1; }
}

# tessel_build BUILD_DIR [extra cmake args...]
tessel_build() {
  local build=$1
  shift
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build" -j"$(nproc)"
}

# tessel_python_env DIR: a virtual environment with what the Python extension's
# build and tests need (nanobind, pytest, numpy; from PyPI).
tessel_python_env() {
  local env=$1
  [ -x "$env/bin/python" ] || python3 -m venv "$env"
  "$env/bin/python" -m pip install -q --disable-pip-version-check nanobind pytest numpy
}
