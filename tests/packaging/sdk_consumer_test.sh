#!/usr/bin/env bash
# usage: sdk_consumer_test.sh PREFIX CONSUMER_SRC WORK_DIR VERSION LIBDIR PYTHONDIR
# Uses the installed SDK the three documented ways and reads each trace back with the installed
# xtrace: CMake (find_package(XtRecorder), XtRecorder::xtrecorder), pkg-config + cc, and the
# Python module (finding the installed libxtrecorder.so without XT_RECORDER_LIB).
set -euo pipefail
prefix=$1 src=$2 work=$3 version=$4 libdir=$5 pydir=$6
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
export LC_ALL=C

# check_run DIR KEYS RECORDS: the installed xtrace reads DIR as one run with these keys.
check_run() {
  "$prefix/bin/xtrace" info "$1" --json > "$1.json" || fail "xtrace info $1"
  /usr/bin/python3 - "$1.json" "$2" "$3" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 1, runs
r = runs[0]
names = sorted(k["name"] for k in r["keys"])
assert names == sorted(sys.argv[2].split(",")), names
assert r["records"] == int(sys.argv[3]), r["records"]
PY
}

# 1. CMake package.
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$src" -B "$work/cmake" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
      -DXT_EXPECT_VERSION="$version" > "$work/cmake.log" || { cat "$work/cmake.log"; fail "configure"; }
cmake --build "$work/cmake" > "$work/build.log" || { cat "$work/build.log"; fail "build"; }
deps=$(ldd "$work/cmake/record")
grep -q "libxtrecorder.so.${version%%.*} => $prefix/$libdir/" <<<"$deps" \
  || { echo "$deps"; fail "consumer does not load the installed library"; }
"$work/cmake/record" "$work/run-cmake"
check_run "$work/run-cmake" "w,loss,config" 5

# 2. pkg-config.
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --modversion xtrecorder)" = "$version" ] || fail "pkg-config version"
inc=$(pkg-config --variable=includedir xtrecorder)
[ "$(cd "$inc" && pwd -P)" = "$(cd "$prefix/include" && pwd -P)" ] || fail "includedir $inc"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Werror "$src/record.c" $(pkg-config --cflags --libs xtrecorder) -o "$work/record-pc"
LD_LIBRARY_PATH="$prefix/$libdir" "$work/record-pc" "$work/run-pc"
check_run "$work/run-pc" "w,loss,config" 5

# 3. Python (Debian's python3 with numpy), library found from the installed package.
env -u XT_RECORDER_LIB PYTHONPATH="$prefix/$pydir" /usr/bin/python3 - "$work/run-py" "$prefix" <<'PY'
import os, sys
import numpy as np
import xtrecorder
lib = xtrecorder.load_library()
assert os.path.realpath(lib._name).startswith(os.path.realpath(sys.argv[2])), lib._name
rec = xtrecorder.Recorder(sys.argv[1])
for step in range(7):
    rec.trace("act", np.full((4,), step, dtype=np.float32))
    rec.commit_step(step)
rec.close()
PY
check_run "$work/run-py" "act" 7
echo "sdk consumer test: OK"
