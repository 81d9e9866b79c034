#!/usr/bin/env bash
# usage: install_test.sh BUILD_DIR PREFIX VERSION LIBDIR PYTHONDIR PYTHON_MODULE(ON|OFF)
# Installs the build tree's `app`, `sdk` and `python` components into PREFIX with cmake
# --install, then checks the layout and runs the installed programs from there: xtrace --version,
# record-demo + info, xtview --version (offscreen), and the Python package (when its module is
# built) on the demo run. PREFIX is then used by the SDK consumer and desktop tests.
set -euo pipefail
build=$1 prefix=$2 version=$3 libdir=$4 pydir=$5 pymodule=$6
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" --component app >/dev/null
cmake --install "$build" --prefix "$prefix" --component sdk >/dev/null
cmake --install "$build" --prefix "$prefix" --component python >/dev/null

for f in bin/xtrace bin/xtview include/xtrecorder/xt_recorder.h \
         "$libdir/libxtrecorder.so.$version" "$libdir/pkgconfig/xtrecorder.pc" \
         "$libdir/cmake/XtRecorder/XtRecorderConfig.cmake" \
         "$libdir/cmake/XtRecorder/XtRecorderConfigVersion.cmake" \
         share/applications/xtview.desktop share/metainfo/io.github.xtview.xtview.metainfo.xml \
         share/mime/packages/xtview.xml share/icons/hicolor/scalable/apps/xtview.svg \
         "$pydir/xtview/__init__.py" "$pydir/xtview/recorder.py" "$pydir/xtview/dask.py" \
         "$pydir/xtview/_core.pyi" "$pydir/xtview/py.typed" "$pydir/xtview/_install_paths.py" \
         "$pydir/xtrecorder/__init__.py"; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for s in 16 32 48 64 128 256; do
  [ -s "$prefix/share/icons/hicolor/${s}x${s}/apps/xtview.png" ] || fail "no ${s}px icon"
done

# The shared library: versioned file, SONAME = major version, the two links.
major=${version%%.*}
soname=$(readelf -d "$prefix/$libdir/libxtrecorder.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libxtrecorder.so.$major" ] || fail "SONAME is '$soname'"
[ "$(readlink "$prefix/$libdir/libxtrecorder.so.$major")" = "libxtrecorder.so.$version" ] || fail "so.$major link"
[ "$(readlink "$prefix/$libdir/libxtrecorder.so")" = "libxtrecorder.so.$major" ] || fail "so link"
# Only the C API is exported: every strong symbol is xt_*, and nothing of namespace xt:: (the
# weak ones left are libstdc++ template instances such as std::bad_variant_access's typeinfo).
syms=$(nm -D --defined-only "$prefix/$libdir/libxtrecorder.so.$version")
strong=$(awk '$2 ~ /^[TDBR]$/ && $3 !~ /^xt_/ {print $3}' <<<"$syms")
[ -z "$strong" ] || fail "libxtrecorder exports strong non-xt_ symbols: $strong"
if grep -q '_ZN2xt' <<<"$syms"; then fail "libxtrecorder exports xt:: C++ symbols"; fi
grep -q ' T xt_recorder_open$' <<<"$syms" || fail "xt_recorder_open not exported"

# Installed executables carry no build-tree RPATH and resolve every library.
for exe in "$prefix/bin/xtrace" "$prefix/bin/xtview"; do
  if grep -qE 'R(UN)?PATH' <<<"$(readelf -d "$exe")"; then fail "$exe has an RPATH"; fi
  deps=$(ldd "$exe")
  if grep -q 'not found' <<<"$deps"; then echo "$deps"; fail "$exe: missing libraries"; fi
done

# Run them from the prefix, in an empty directory, with the build tree out of PATH.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$prefix/bin/xtrace" --version > version.txt
[ "$(head -1 version.txt)" = "xtrace $version" ] || fail "xtrace --version: $(head -1 version.txt)"
for fact in "git commit:" "build type:" "compiler:" "protobuf:" "HDF5:" "CUDA device:"; do
  grep -q "  $fact" version.txt || fail "xtrace --version lacks '$fact'"
done
"$prefix/bin/xtrace" record-demo demo --ranks 2 --steps 12 > /dev/null
"$prefix/bin/xtrace" info demo --json > info.json
/usr/bin/python3 - info.json <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 1, runs
r = runs[0]
assert r["records"] == 24, r["records"]
assert r["gstep"] == [0, 11], r["gstep"]
names = [k["name"] for k in r["keys"]]
assert "fc1/weight" in names and "loss" in names, names
PY
QT_QPA_PLATFORM=offscreen "$prefix/bin/xtview" --version > xtview.txt
[ "$(head -1 xtview.txt)" = "xtview $version" ] || fail "xtview --version: $(head -1 xtview.txt)"
grep -q "  Qt (run time):" xtview.txt || fail "xtview --version lacks the Qt run-time version"

# The Python package from the prefix: the extension module resolves its libraries, loads no
# protobuf runtime, and reads the demo run into a DataFrame.
if [ "$pymodule" = ON ]; then
  core=$(ls "$prefix/$pydir"/xtview/_core.*.so) || fail "no xtview/_core module installed"
  if grep -qE 'R(UN)?PATH' <<<"$(readelf -d "$core")"; then fail "$core has an RPATH"; fi
  if grep -q protobuf <<<"$(readelf -d "$core")"; then fail "$core needs libprotobuf"; fi
  deps=$(ldd "$core")
  if grep -q 'not found' <<<"$deps"; then echo "$deps"; fail "$core: missing libraries"; fi
  PYTHONPATH="$prefix/$pydir" /usr/bin/python3 - demo "$prefix/$pydir" <<'PY'
import os, sys
import xtview
assert os.path.realpath(xtview.__file__).startswith(os.path.realpath(sys.argv[2])), xtview.__file__
run = xtview.open(sys.argv[1], summary_dir="summaries")
stats = run.stats()
assert run.ranks == [0, 1] and len(stats) > 0 and stats["count"].min() > 0, stats
assert "libprotobuf" not in open("/proc/self/maps").read()
PY
fi
echo "install test: OK ($prefix)"
