#!/bin/sh
# End to end: xtview under xvfb-run opens the demo run (written by xtrace record-demo), waits
# until it is loaded and plotted, saves a screenshot; xtrace plot renders through xtview.
# With a third argument (a Chrome trace of the shared corpus), xtview also opens it in a timeline
# tab and saves a screenshot once it is loaded; that part is skipped, saying so, when the file
# is absent (a clone of the repository alone).
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
