#!/usr/bin/env bash
# Opening a run with and without summaries (P2/P9): the same run twice, once with the summaries
# the recorder wrote beside its parts, once without (parts and metas only); `xtrace stats`,
# `info` and `hist` on both (outputs compared), then `xtrace index` on the copy without.
#
#   tests/bench/run_summaries.sh BUILD_DIR [RANKS] [STEPS]   (files under $XT_BENCH_DIR or /tmp)
#
# Each record holds one 1 MiB float32 tensor and a scalar; RANKS x STEPS MiB in all (4 x 256).
set -euo pipefail
build=$(cd "$1" && pwd)
ranks=${2:-4}
steps=${3:-256}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${XT_BENCH_DIR:-/tmp}/xt_bench_summaries
xtrace=$build/app/xtrace/xtrace
rm -rf "$work" && mkdir -p "$work"
export XDG_CACHE_HOME=$work/cache XT_RECORDER_LIB=$build/core/recorder/libxtrecorder.so
export PYTHONPATH=$src/python

/usr/bin/python3 - "$work/with" "$ranks" "$steps" <<'EOF'
import sys, numpy as np, xtrecorder
out, ranks, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
w = np.random.default_rng(0).standard_normal(1 << 18).astype(np.float32)
for r in range(ranks):
    with xtrecorder.Recorder(out, rank=r, max_file_mb=100) as rec:
        for s in range(steps):
            rec.trace("layer/weight", w + np.float32(s))
            rec.trace("loss", np.float32(1.0 / (s + 1)))
            rec.commit_step(s)
EOF
mkdir "$work/without"
cp "$work"/with/*[0-9] "$work"/with/*.meta "$work/without/"
cat "$work"/with/* "$work"/without/* > /dev/null # both in the page cache
echo "run: $(du -sh --exclude='*.xts' "$work/with" | cut -f1), summaries $(du -ch "$work"/with/*.xts | tail -1 | cut -f1); $(uptime)"

t() { /usr/bin/time -f "%e s wall, %U s user, %M KB max RSS" "$@"; }
for i in 1 2 3; do
  for run in without with; do
    echo -n "stats $run: "; t "$xtrace" stats "$work/$run" --backend cpu 2>&1 > "$work/stats.$run"
  done
done
cmp "$work/stats.without" "$work/stats.with" && echo "stats outputs identical"
for run in without with; do
  echo -n "info $run: "; t "$xtrace" info "$work/$run" 2>&1 > /dev/null
  echo -n "hist $run: "; t "$xtrace" hist "$work/$run" --key layer/weight --json --backend cpu \
    2>&1 > "$work/hist.$run"
done
diff <(sed 1,5d "$work/hist.without") <(sed 1,5d "$work/hist.with") > /dev/null &&
  echo "hist outputs identical (but for the run's name)"
echo -n "index (2 jobs): "; t "$xtrace" index "$work/without" --jobs 2 2>&1 | tail -2 | tr '\n' ' '
echo
rm -rf "$work"
