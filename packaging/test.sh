#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, and runs the tests (ctest).
# release / debug / asan: the whole suite (asan: ASan + UBSan, GUI tests offscreen, LSan
# suppressions in tests/sanitizers/lsan.supp). tsan: only the recorder and follower tests, the
# code with threads of its own (see docs/HARDENING.md).
# usage: packaging/test.sh [release|debug|asan|tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [ "$preset" = tsan ]; then
  bash packaging/install-deps.sh
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j "$(nproc)" \
    --target test_recorder test_follower test_recorder_webhdfs test_recorder_c
else
  bash packaging/build.sh "$preset"
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
ctest --preset "$preset" -j "$(nproc)"
