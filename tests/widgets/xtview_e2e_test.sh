#!/bin/sh
# End to end: xtview under xvfb-run opens the demo run (written by xtrace record-demo), waits
# until it is loaded and plotted, saves a screenshot; xtrace plot renders through xtview.
# With a third argument (a Chrome trace of the shared corpus), xtview also opens it in a timeline
# tab and saves a screenshot once it is loaded; that part is skipped, saying so, when the file
# is absent (a clone of the repository alone). Then, at 1600x1000: a run of 128 ranks with one
# diverging (aggregated, with the ranks x steps heatmap), the welcome page, and a session file
# written by hand after docs/SESSIONS.md (a timeline with cursors A and B and a note; a compare
# tab with a note of its run). XT_E2E_SHOTS=DIR keeps the screenshots there.
# Usage: xtview_e2e_test.sh XTVIEW XTRACE [TIMELINE]. Exit 77 (skipped) without xvfb-run.
set -eu
XTVIEW=$1
XTRACE=$2
TIMELINE=${3:-}
command -v xvfb-run >/dev/null 2>&1 || { echo "xvfb-run not found: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$XTRACE" record-demo "$TMP/run" >/dev/null
xvfb-run -a -s "-screen 0 1600x1000x24" "$XTVIEW" --settings "$TMP/settings.ini" \
    --screenshot "$TMP/shot.png" --key gradient/fc2/weight "$TMP/run"
check_file() { # FILE MAGIC MIN_BYTES
    [ -s "$1" ] || { echo "missing $1"; exit 1; }
    head -c 8 "$1" | grep -q "$2" || { echo "$1: bad magic"; exit 1; }
    size=$(wc -c < "$1")
    [ "$size" -ge "$3" ] || { echo "$1: only $size bytes"; exit 1; }
}
check_file "$TMP/shot.png" PNG 30000
"$XTRACE" plot "$TMP/run" --key fc1/weight --stat mean,min,max --out "$TMP/p.svg"
check_file "$TMP/p.svg" "<?xml" 5000
"$XTRACE" plot "$TMP/run" --key loss --out "$TMP/p.pdf"
check_file "$TMP/p.pdf" "%PDF" 2000
if [ -n "$TIMELINE" ] && [ ! -f "$TIMELINE" ]; then
    echo "$TIMELINE is absent (the shared corpus): timeline screenshot skipped"
    TIMELINE=
fi
if [ -n "$TIMELINE" ]; then
    xvfb-run -a -s "-screen 0 1600x1000x24" "$XTVIEW" --settings "$TMP/settings.ini" \
        --screenshot "$TMP/timeline.png" "$TIMELINE"
    check_file "$TMP/timeline.png" PNG 30000
fi
shot() { # NAME XTVIEW-ARGS...: a 1600x1000 screenshot of xtview opening ARGS
    name=$1
    shift
    xvfb-run -a -s "-screen 0 1600x1000x24" "$XTVIEW" --settings "$TMP/settings-$name.ini" \
        --size 1600x1000 --screenshot "$TMP/$name" "$@"
    check_file "$TMP/$name" PNG 30000
    if [ -n "${XT_E2E_SHOTS:-}" ]; then cp "$TMP/$name" "$XT_E2E_SHOTS/"; fi
}
"$XTRACE" record-demo "$TMP/ranks" --ranks 128 --steps 60 --diverge-rank 77 >/dev/null
shot ranks.png --key gradient/fc2/weight "$TMP/ranks"
shot welcome.png
"$XTRACE" convert "$TMP/run" --chrome "$TMP/steps.json" >/dev/null
T0=1700000000160000000 # the demo run's first record, in ns
session() { # FILE CURRENT_TAB
    cat >"$1" <<EOF
{"format": "xtview-session", "version": 1,
 "runs": [{"path": "$TMP/ranks"}],
 "tabs": [
  {"kind": "timeline", "files": [{"path": "$TMP/steps.json"}],
   "cursorA": $((T0 + 2000000000)), "cursorB": $((T0 + 6000000000))},
  {"kind": "compare", "runA": "$TMP/ranks/train.trace", "rankA": 0,
   "runB": "$TMP/ranks/train.trace", "rankB": 77, "key": "gradient/fc2/weight",
   "cursorStep": 45}],
 "currentTab": $2,
 "notes": [
  {"target": "$TMP/steps.json", "on": "timeline", "kind": "time",
   "begin": $((T0 + 8000000000)), "end": $((T0 + 10000000000)), "text": "slow steps",
   "colour": "#d02828"},
  {"target": "$TMP/ranks/train.trace", "on": "run", "kind": "step", "begin": 30, "end": 30,
   "text": "rank 77 drifts", "colour": "#2ca02c"}]}
EOF
}
session "$TMP/timeline.xtview" 0
shot session-timeline.png "$TMP/timeline.xtview"
session "$TMP/compare.xtview" 1
shot session-compare.png "$TMP/compare.xtview"
if "$XTRACE" plot "$TMP/run" --key no/such/key --out "$TMP/x.png" 2>/dev/null; then
    echo "a missing key must fail"; exit 1
fi
# XT_XTVIEW names the renderer: a copy of xtrace with no xtview beside it finds none without it.
mkdir "$TMP/alone"
cp "$XTRACE" "$TMP/alone/xtrace"
if "$TMP/alone/xtrace" plot "$TMP/run" --key loss --out "$TMP/y.svg" 2>/dev/null; then
    echo "xtrace plot found an xtview that is not there"; exit 1
fi
XT_XTVIEW="$XTVIEW" "$TMP/alone/xtrace" plot "$TMP/run" --key loss --out "$TMP/y.svg"
check_file "$TMP/y.svg" "<?xml" 2000
echo "ok"
