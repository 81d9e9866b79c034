#!/bin/bash
# The CUDA backend's checks, for a machine with an NVIDIA GPU (CI has none; docs/BENCHMARKS.md
# records what they gave). BIN holds test_analysis, bench_analysis, xtrace and xt_gen_run of a
# build with CUDA enabled (CMAKE_CUDA_ARCHITECTURES covering the device); logs go to OUT.
#   1. the analysis tests (the CUDA typed cases run instead of skipping);
#   2. the CUDA cases again under compute-sanitizer memcheck and racecheck;
#   3. P3: bench_analysis's CUDA cases over 1e9 float32 (each first checked against the CPU);
#   4. `xtrace stats` and `xtrace hist` on a generated 2 GB run: cuda against cpu (python3 with
#      numpy compares them: counts exactly, floating values to 1e-9 relative), with their times
#      (XT_RUN_BYTES sets the run's size).
#
#   tests/bench/run_cuda.sh BIN OUT
set -u
B=$1
O=$2
mkdir -p "$O"
fail=0
step() { echo "== $*"; }

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv

step "1. test_analysis"
timeout 300 "$B/test_analysis" >"$O/tests.log" 2>&1 || fail=1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure" "$O/tests.log" | head -30

if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        step "2. compute-sanitizer $tool"
        filter='BackendTest/2.*'
        [ "$tool" = racecheck ] && filter='BackendTest/2.*-*WideSlices*'
        timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 3 \
            "$B/test_analysis" --gtest_filter="$filter" >"$O/sanitizer-$tool.log" 2>&1
        echo "exit $? ($(grep -c '^\[       OK' "$O/sanitizer-$tool.log") tests ok)"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAILED  \]" "$O/sanitizer-$tool.log" | head -5
    done
fi

step "3. bench_analysis (P3), 1e9 float32"
XT_BENCH_ELEMENTS=1000000000 timeout 300 "$B/bench_analysis" --benchmark_filter=Cuda \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>&1 |
    tee "$O/bench.log" | grep -E "median|ERROR"

step "4. xtrace stats/hist, cuda against cpu"
run=$(mktemp -d)/run
timeout 120 "$B/xt_gen_run" "$run" --ranks 2 --bytes "${XT_RUN_BYTES:-2000000000}" --record-bytes 1000000 >/dev/null
for be in cpu cuda; do
    for i in 1 2 3; do # the last of three runs (page cache warm)
        XDG_CACHE_HOME=$(mktemp -d) /usr/bin/time -f "stats $be: %e s, max RSS %M KB" \
            timeout 120 "$B/xtrace" stats --backend "$be" "$run" >"$O/stats-$be.jsonl" \
            2>"$O/stats-$be.err"
    done
    grep -v "^stats $be:" "$O/stats-$be.err" | head -3 # a fallback to the CPU would say so here
    tail -1 "$O/stats-$be.err"
    XDG_CACHE_HOME=$(mktemp -d) /usr/bin/time -f "hist $be: %e s" timeout 120 "$B/xtrace" hist \
        "$run" --key fc1/weight --bins 4096 --json --backend "$be" >"$O/hist-$be.json" \
        2>"$O/hist-$be.err"
    tail -1 "$O/hist-$be.err"
done
python3 - "$O" <<'EOF' || fail=1
import json, math, sys
o = sys.argv[1]
rows = {}
for be in ("cpu", "cuda"):
    rows[be] = [json.loads(l) for l in open(f"{o}/stats-{be}.jsonl")]
assert len(rows["cpu"]) == len(rows["cuda"]) > 0, (len(rows["cpu"]), len(rows["cuda"]))
worst = 0.0
for a, b in zip(rows["cpu"], rows["cuda"]):
    assert list(a) == list(b), (a, b)
    for f, v in a.items():
        if f in ("mean", "std", "l2"):
            scale = max(abs(a["min"]), abs(a["max"])) * 1e-3 if f == "mean" else 0
            err = abs(v - b[f]) / max(abs(v), scale, 1e-300)
            worst = max(worst, err)
            assert err <= 1e-9, (a, b, f)
        else:
            assert v == b[f], (a, b, f)
h = [json.load(open(f"{o}/hist-{be}.json")) for be in ("cpu", "cuda")]
assert h[0] == h[1], "histograms differ"
print(f"stats: {len(rows['cpu'])} rows equal (largest relative difference {worst:.2e}); "
      f"hist: {len(h[0]['histograms'])} rank(s) x {len(h[0]['histograms'][0]['steps'])} steps equal")
EOF
rm -rf "$(dirname "$run")"
[ $fail = 0 ] && echo "run_cuda: all checks passed" || echo "run_cuda: FAILED"
exit $fail
