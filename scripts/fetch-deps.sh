#!/usr/bin/env bash
# Downloads the Debian packages of tessel's C++ dependencies and unpacks them
# (without installing) into a prefix folder, for building on a machine that
# has the CUDA toolkit, CMake and a compiler but no network and no apt.
#   scripts/fetch-deps.sh [PREFIX_DIR]     (default: .deps)
# Then build there with: scripts/gpu.sh check OUT_DIR PREFIX_DIR/root/usr
set -euo pipefail
dest=${1:-.deps}
pkgs=(libcli11-dev libfmt-dev libfmt9 nlohmann-json3-dev libgtest-dev libgmock-dev googletest)
mkdir -p "$dest/debs" "$dest/root"
(cd "$dest/debs" && apt-get download "${pkgs[@]}")
for deb in "$dest"/debs/*.deb; do dpkg -x "$deb" "$dest/root"; done
echo "unpacked ${#pkgs[@]} packages under $dest/root/usr"
