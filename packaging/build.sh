#!/usr/bin/env bash
# Installs the dependencies, then configures and builds a preset (default: release).
# usage: packaging/build.sh [release|debug|asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash packaging/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
