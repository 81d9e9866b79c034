#!/usr/bin/env bash
# Checks that every tracked C/C++/CUDA file is formatted as .clang-format says (clang-format 14,
# the Debian 12 version). Prints the files that are not and exits 1; exits 0 when all are clean.
# Fix with: clang-format -i FILE...
# usage: packaging/check-format.sh [CLANG_FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
cf="${1:-${CLANG_FORMAT:-clang-format}}"
command -v "$cf" >/dev/null || { echo "check-format: $cf not found" >&2; exit 2; }
bad=()
while IFS= read -r -d '' f; do
  "$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files -z -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not clang-format clean (run clang-format -i on them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: all files clean"
