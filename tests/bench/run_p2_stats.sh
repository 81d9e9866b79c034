#!/bin/sh
# P2 (docs/BENCHMARKS.md): `xtrace stats` over float32 trace data as a ratio to a plain numpy +
# python protobuf reader of the same files, both from the page cache, in one invocation.
#   tests/bench/run_p2_stats.sh XTRACE [MB] [DIR]     (defaults: 400 MB under /tmp)
set -eu
XTRACE=$1
MB=${2:-400}
DIR=${3:-/tmp/xt_bench_p2}
PY=/usr/bin/python3
HERE=$(dirname "$0")
if [ ! -d "$DIR" ]; then
  $PY "$HERE/numpy_stats_reader.py" write "$DIR" "$MB"
fi
BYTES=$(cat "$DIR"/train.bench.0.* | wc -c)
cat "$DIR"/* > /dev/null # page cache
best=""
for i in 1 2 3; do
  t0=$(date +%s.%N)
  "$XTRACE" stats --backend cpu "$DIR" > /dev/null
  t1=$(date +%s.%N)
  t=$(echo "$t1 - $t0" | bc -l)
  if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
done
echo "xtrace stats: $BYTES bytes, best of 3: ${best} s = $(echo "$BYTES / $best / 1000000000" | bc -l | cut -c1-5) GB/s"
np_out=$($PY "$HERE/numpy_stats_reader.py" read "$DIR")
echo "$np_out"
np_s=$(echo "$np_out" | sed -n 's/.* in \([0-9.]*\) s .*/\1/p')
echo "ratio (numpy time / xtrace time): $(echo "$np_s / $best" | bc -l | cut -c1-6)"
