#!/usr/bin/env bash
# Installs every build, test and run dependency of xtview from Debian 12 packages.
# Idempotent and non-interactive; used by the README commands and by .ci/run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  clang-14 libclang-rt-14-dev
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqcustomplot-dev libgl1-mesa-dev
  libhdf5-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libcurl4-openssl-dev libtbb-dev libcli11-dev libfmt-dev
  zlib1g-dev libzip-dev
  xvfb xauth
  dpkg-dev desktop-file-utils appstream shared-mime-info
  python3 python3-numpy python3-protobuf python3-h5py
  pybind11-dev python3-dev python3-pandas python3-dask python3-distributed
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
