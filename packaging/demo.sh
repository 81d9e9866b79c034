#!/usr/bin/env bash
# Sets up everything on a fresh Debian 12 machine, builds, writes the built-in demo run with the
# recorder and opens it in xtview. Without a display, renders screenshots and a plot to
# build/screenshots/ instead (under Xvfb).
# usage: packaging/demo.sh [DEMO_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
demo="${1:-build/demo-run}"
bash packaging/build.sh release
bin=build/release/app
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
