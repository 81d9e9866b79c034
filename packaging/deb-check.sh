#!/usr/bin/env bash
# Installs the given .deb files with apt-get, runs the installed programs from /usr/bin (xtrace
# --version, record-demo + info, xtview --version offscreen), uses the SDK from the system paths
# (pkg-config, CMake package file), imports the Python package from dist-packages (DataFrames of
# the demo run, a recording through xtrecorder), then removes the packages again, also on
# failure. Run as root or with sudo. Used by .ci/run after packaging/package.sh.
# usage: packaging/deb-check.sh DEB...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 DEB..." >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
debs=() names=()
for d in "$@"; do
  debs+=("$(realpath "$d")")
  names+=("$(dpkg-deb -f "$d" Package)")
done
work=$(mktemp -d)
cleanup() {
  $SUDO apt-get remove --purge -y -q "${names[@]}" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "deb-check: installing ${names[*]}"
$SUDO apt-get install -y -q --no-install-recommends "${debs[@]}"
for n in "${names[@]}"; do dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$n"; done

# The Debian triggers registered the MIME type and the .desktop file's MIME associations.
if [[ " ${names[*]} " == *" xtview "* ]]; then
  grep -q '^[0-9]*:application/x-xdl-trace:train\.\*' /usr/share/mime/globs2
  if [ -f /usr/share/applications/mimeinfo.cache ]; then
    grep -q '^application/x-xdl-trace=.*xtview.desktop' /usr/share/applications/mimeinfo.cache
  fi
fi

PATH=/usr/bin:/bin
xtrace --version
xtrace record-demo "$work/x"
xtrace info "$work/x" > "$work/info.txt"
head -5 "$work/info.txt"
QT_QPA_PLATFORM=offscreen xtview --version

if [[ " ${names[*]} " == *" xtview-recorder-dev "* ]]; then
  echo "deb-check: SDK from the system paths"
  pkg-config --modversion xtrecorder
  [ -f /usr/include/xtrecorder/xt_recorder.h ]
  files=$(dpkg -L xtview-recorder-dev)
  grep -q '/cmake/XtRecorder/XtRecorderConfig.cmake$' <<<"$files"
  # shellcheck disable=SC2046
  cc -x c - $(pkg-config --cflags --libs xtrecorder) -o "$work/c_api" <<'C'
#include <xtrecorder/xt_recorder.h>
#include <stdio.h>
int main(void) { puts(xt_status_name(XT_NO_SPACE)); return 0; }
C
  "$work/c_api"
fi

if [[ " ${names[*]} " == *" python3-xtview "* ]]; then
  echo "deb-check: the Python package from dist-packages"
  dpkg -L python3-xtview | grep -q '^/usr/lib/python3/dist-packages/xtview/_core\..*\.so$'
  /usr/bin/python3 - "$work/x" <<'PY'
import sys
import xtview
assert xtview.__file__.startswith("/usr/lib/python3/dist-packages/xtview/"), xtview.__file__
run = xtview.open(sys.argv[1])
df = run.stats()
assert list(df.columns) == ["rank", "key", "gstep", "lstep", "timestamp", "count", "nan", "inf",
                            "zeros", "min", "max", "mean", "std", "l2"], df.columns
assert len(df) > 0 and set(df["rank"]) == set(run.ranks), df
assert "libprotobuf" not in open("/proc/self/maps").read(), "xtview loaded a protobuf runtime"
try:
    import xtview.dask  # noqa: F401  (needs python3-dask and python3-distributed)
except ImportError as e:
    print("xtview.dask not importable here:", e)
print("python package:", xtview.__file__, f"{len(df)} stats rows of {run.label}")
PY
  if [[ " ${names[*]} " == *" xtview-recorder-dev "* ]]; then
    /usr/bin/python3 - "$work/py" <<'PY'
import sys
import numpy as np
import xtrecorder
import xtview
rec = xtrecorder.Recorder(sys.argv[1])
for step in range(3):
    rec.trace("w", np.arange(4, dtype=np.float32) * step)
    rec.commit_step(step)
rec.close()
print("python module:", xtrecorder.__file__, "library:", xtrecorder.load_library()._name)
assert len(xtview.open(sys.argv[1]).stats()) == 3
PY
    xtrace info "$work/py" > "$work/py.txt"
    grep -q "3 record(s)" "$work/py.txt" || { cat "$work/py.txt"; exit 1; }
  fi
fi

echo "deb-check: removing ${names[*]}"
$SUDO apt-get remove --purge -y -q "${names[@]}"
trap 'rm -rf "$work"' EXIT
for n in "${names[@]}"; do
  if dpkg-query -W -f='${Status}' "$n" 2>/dev/null | grep -q installed; then
    echo "deb-check: $n still installed" >&2; exit 1
  fi
done
for f in /usr/bin/xtrace /usr/bin/xtview /usr/lib/python3/dist-packages/xtview; do
  [ ! -e "$f" ] || { echo "deb-check: $f still there after removal" >&2; exit 1; }
done
echo "deb-check: OK"
