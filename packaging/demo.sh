#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, writes the built-in demo run with the
# recorder and shows it.
# usage: packaging/demo.sh [DEMO_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
demo="${1:-build/demo-run}"
bash packaging/build.sh release
bin=build/release/app
"$bin/xtrace/xtrace" record-demo "$demo"
"$bin/xtrace/xtrace" info "$demo"
