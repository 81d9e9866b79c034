#!/usr/bin/env bash
# Checks that every tracked C/C++/CUDA file is formatted as .clang-format says (clang-format 14,
# the Debian 12 version). Prints the files that are not and exits 1; exits 0 when all are clean.
# Fix with: clang-format -i FILE...
# usage: packaging/check-format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
cf="${1:-${CLANG_FORMAT:-clang-format}}"
command -v "$cf" >/dev/null || { echo "check-format: $cf not found" >&2; exit 2; }
# One clang-format process for all files (xargs batches them): one a file took 48 s of CI.
status=0
out=$(git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh' |
  xargs -0 -r "$cf" --dry-run --Werror 2>&1 >/dev/null) || status=$?
mapfile -t bad < <(printf '%s\n' "$out" |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not clang-format clean (run clang-format -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
if [ "$status" -ne 0 ]; then # failed without naming a file: say why
  echo "check-format: $cf failed:" >&2
  printf '%s\n' "$out" | head -20 >&2
  exit 2
fi
echo "check-format: all files clean"
