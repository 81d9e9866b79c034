#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, writes the built-in demo run with the
# recorder and opens it in xtview. Without a display, renders screenshots and a plot to
# build/screenshots/ instead (under Xvfb). With --live the demo run is written in real time
# (10 steps/s per rank, one minute) and xtview follows it as it trains; without a display the
# loss rows are printed as they arrive (`xtrace stats --follow`).
# usage: packaging/demo.sh [--live] [DEMO_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
live=0
if [ "${1:-}" = "--live" ]; then
    live=1
    shift
fi
demo="${1:-build/demo-run}"
bash packaging/build.sh release
bin=build/release/app
if [ "$live" = 1 ]; then
    rm -rf "$demo"
    "$bin/xtrace/xtrace" record-demo "$demo" --live &
    recorder=$!
    trap 'kill $recorder 2>/dev/null || true' EXIT
    until [ -e "$demo/train.trace.0.1" ]; do sleep 0.1; done
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        "$bin/xtview/xtview" "$demo"
    else
        "$bin/xtrace/xtrace" stats "$demo" --follow --key '^loss$' --format csv
    fi
    exit 0
fi
"$bin/xtrace/xtrace" record-demo "$demo"
"$bin/xtrace/xtrace" info "$demo"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/xtview/xtview" "$demo"
fi
out=build/screenshots
mkdir -p "$out"
shot() {
    xvfb-run -a -s "-screen 0 1600x1000x24" "$bin/xtview/xtview" --settings "$out/settings.ini" \
        --size 1600x1000 --screenshot "$@"
}
shot "$out/xtview-demo.png" "$demo"
shot "$out/xtview-nan.png" --key gradient/fc2/weight "$demo"
"$bin/xtrace/xtrace" plot "$demo" --key fc1/weight --out "$out/fc1_weight.svg"
echo "no display: screenshots written to $out/ (xtview-demo.png, xtview-nan.png, fc1_weight.svg)"
