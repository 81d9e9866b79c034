#!/usr/bin/env bash
# Builds the release preset (packaging/build.sh: dependencies + build) and makes the Debian
# packages with CPack (packaging/cpack.cmake): xtview (the app component) and
# xtview-recorder-dev (the recorder SDK). Prints the paths of the .deb files on stdout, one a
# line; everything else goes to stderr.
# usage: packaging/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/build.sh release >&2
out="$PWD/build/release/packages"
rm -rf "$out"
cpack --config build/release/CPackConfig.cmake -B "$out" >&2
ls "$out"/*.deb
