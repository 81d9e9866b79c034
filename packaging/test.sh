#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, and runs the tests (ctest).
# release / debug / asan: the whole suite (asan: ASan + UBSan, GUI tests offscreen, LSan
# suppressions in tests/sanitizers/lsan.supp). tsan: the tests of the code with threads of its
# own: the recorder and follower, the HDFS mirror poller, the parallel analysis (CPU backend,
# engine, the application's shared backend), opening and summarising parts in parallel, the
# two-thread record index, the HDF5 export, and the job state the GUI shares with its workers (see
# docs/HARDENING.md).
# usage: packaging/test.sh [release|debug|asan|tsan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
if [ "$preset" = tsan ]; then
  bash packaging/install-deps.sh
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j "$(nproc)" \
    --target test_recorder test_follower test_recorder_webhdfs test_recorder_c test_storage \
             test_analysis test_base test_summary test_xdl test_export
else
  bash packaging/build.sh "$preset"
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
# One test more than cores: many tests wait at times (processes starting, the GUI's background
# jobs), and on 2 cores the release suite took 78 s at -j3 against 96 s at -j2 (ASan: 340/364 s).
ctest --preset "$preset" -j "$(($(nproc) + 1))"
