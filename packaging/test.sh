#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, and runs every test (ctest).
# usage: packaging/test.sh [release|debug|asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash packaging/build.sh "$preset"
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
ctest --preset "$preset" -j "$(nproc)"
