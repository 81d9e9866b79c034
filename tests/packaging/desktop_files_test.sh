#!/usr/bin/env bash
# usage: desktop_files_test.sh PREFIX
# The installed desktop integration: .desktop (desktop-file-validate), AppStream metainfo
# (well-formed; appstreamcli validate when installed), the MIME type (update-mime-database
# builds a database in which XDL part and .meta names map to application/x-xdl-trace), and
# the PNG icons have the size of their hicolor directory.
set -euo pipefail
prefix=$1
share="$prefix/share"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

desktop="$share/applications/xtview.desktop"
if command -v desktop-file-validate >/dev/null; then
  out=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate: $out"
  [ -z "$out" ] || fail "desktop-file-validate: $out"
else
  echo "desktop-file-validate not installed (package desktop-file-utils): skipped that check"
fi
grep -qx 'MimeType=application/x-xdl-trace;application/json;' "$desktop" || fail "MimeType"
exe=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ -x "$prefix/bin/$exe" ] || fail "Exec=$exe is not an installed program"
icon=$(sed -n 's/^Icon=//p' "$desktop")
[ -f "$share/icons/hicolor/scalable/apps/$icon.svg" ] || fail "Icon=$icon not installed"

/usr/bin/python3 - "$share" <<'PY'
import os, struct, sys, xml.etree.ElementTree as ET
share = sys.argv[1]
meta = ET.parse(os.path.join(share, "metainfo/io.github.xtview.xtview.metainfo.xml")).getroot()
assert meta.tag == "component" and meta.get("type") == "desktop-application"
assert meta.findtext("id") == "io.github.xtview.xtview"
assert meta.find("launchable").text == "xtview.desktop"
assert meta.find("releases/release").get("version")
ET.parse(os.path.join(share, "mime/packages/xtview.xml"))
ET.parse(os.path.join(share, "icons/hicolor/scalable/apps/xtview.svg"))
for size in (16, 32, 48, 64, 128, 256):
    with open(os.path.join(share, f"icons/hicolor/{size}x{size}/apps/xtview.png"), "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", size
    w, h = struct.unpack(">II", head[16:24])
    assert (w, h) == (size, size), (size, w, h)
PY
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$share/metainfo/io.github.xtview.xtview.metainfo.xml" \
    || fail "appstreamcli validate"
fi

# The MIME database built from our package file alone.
if command -v update-mime-database >/dev/null; then
  mkdir -p "$work/mime/packages"
  cp "$share/mime/packages/xtview.xml" "$work/mime/packages/"
  update-mime-database "$work/mime"
  for name in train.trace.0.1 test.predict.trace.3.12 train.trace.0.1.meta; do
    /usr/bin/python3 - "$work/mime/globs2" "$name" <<'PY' || fail "$name is not application/x-xdl-trace"
import fnmatch, sys
name = sys.argv[2]
best = None
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    weight, mime, glob = line.rstrip("\n").split(":")[:3]
    if fnmatch.fnmatchcase(name, glob) and (best is None or int(weight) > best[0]):
        best = (int(weight), mime)
assert best and best[1] == "application/x-xdl-trace", best
PY
  done
else
  echo "update-mime-database not installed (package shared-mime-info): skipped that check"
fi
echo "desktop files test: OK"
