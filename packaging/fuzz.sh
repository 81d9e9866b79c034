#!/usr/bin/env bash
# Builds the `fuzz` preset (clang-14, ASan + UBSan + libFuzzer) and runs every fuzz target for
# SECONDS seconds each (default 30; as many at once as there are cores), starting from the
# generated seeds, the committed regression inputs and, for the Chrome importer, the shared
# corpus (../shared/corpus/chrome, read in place). Fails on any crash, leak, UB report, timeout
# or out-of-memory; the failing input is left in build/fuzz/findings/<target>/ (see
# docs/HARDENING.md).
# usage: packaging/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(xdl_record run_discovery chrome_json step_stats webhdfs_response summary)
fi
command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 is needed (apt-get install clang-14)"; exit 1; }

build=build/fuzz
cmake --preset fuzz >/dev/null
cmake --build "$build" -j "$(nproc)" --target xt_fuzz_seeds $(printf 'fuzz_%s ' "${targets[@]}")
rm -rf "$build/seeds"
"$build/tests/fuzz/xt_fuzz_seeds" "$build/seeds"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# One target: its log in $build/fuzz_$t.log, its exit status in $build/fuzz_$t.rc.
fuzz_one() {
  local t=$1 corpus="$build/corpus/$1" findings="$build/findings/$1" max_len=65536 rc=0
  mkdir -p "$corpus" "$findings"  # corpus: what the fuzzer learns; kept, never committed
  local dirs=("$corpus" "$build/seeds/$t")
  [ -d "tests/fuzz/regressions/$t" ] && dirs+=("tests/fuzz/regressions/$t")
  case "$t" in
    chrome_json)
      max_len=262144
      # Small real traces only: libFuzzer reads every seed whole.
      if [ -d ../shared/corpus/chrome ]; then
        mkdir -p "$build/seeds/chrome_corpus"
        find ../shared/corpus/chrome -type f -size -256k ! -name MANIFEST.tsv \
          -exec ln -sf "$PWD/{}" "$build/seeds/chrome_corpus/" \; 2>/dev/null || true
        dirs+=("$build/seeds/chrome_corpus")
      fi ;;
    run_discovery) max_len=16384 ;;
  esac
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len="$max_len" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$findings/" "${dirs[@]}" >"$build/fuzz_$t.log" 2>&1 || rc=$?
  echo "$rc" >"$build/fuzz_$t.rc"
}

# As many targets at a time as there are cores (each fuzzer runs on one), then each one's
# outcome in order.
jobs=$(nproc)
rm -f "$build"/fuzz_*.rc
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "== fuzz_$t: ${seconds}s"
  fuzz_one "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
  rc=$(cat "$build/fuzz_$t.rc" 2>/dev/null || echo 1)
  echo "== fuzz_$t"
  grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)" \
    "$build/fuzz_$t.log" || true
  if [ "$rc" -ne 0 ]; then
    tail -n 40 "$build/fuzz_$t.log"
    echo "fuzz.sh: fuzz_$t FAILED (exit $rc); input in $build/findings/$t/," \
      "log in $build/fuzz_$t.log"
    status=1
  fi
done
exit $status
