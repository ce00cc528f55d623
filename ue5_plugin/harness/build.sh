#!/usr/bin/env bash
# Build the UE5 plugin's simulation core as the console harness gcv-ue5-harness.
#
#   bash ue5_plugin/harness/build.sh [OUT_DIR] [-O0|-O1|-O2|-O3]
#
# OUT_DIR defaults to ue5_plugin/harness/bin (git-ignored); the optimisation level to -O2
# (GCV_HARNESS_OPT overrides the default). The determinism flags are not optional:
# -fno-fast-math and -ffp-contract=off (the core is integer-only, so they are belt and
# braces against a future float creeping in), C++17. The core is built the way Unreal
# builds modules: -fno-exceptions -fno-rtti (bEnableExceptions = false, bUseRTTI = false in
# every Build.cs), so CI fails if the core or the harness ever needs either.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
core="$here/../GcvBridge/Source/GcvSimCore/Public"
out_dir="${1:-$here/bin}"
opt="${2:-${GCV_HARNESS_OPT:--O2}}"
cxx="${CXX:-g++}"

case "$opt" in
  -O0|-O1|-O2|-O3) ;;
  *) echo "build.sh: optimisation level must be -O0, -O1, -O2 or -O3, got '$opt'" >&2; exit 2 ;;
esac
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "build.sh: $cxx (g++) not found; install it (Debian: apt-get install g++)" >&2
  exit 127
fi

mkdir -p "$out_dir"
exe="$out_dir/gcv-ue5-harness"
tmp="$exe.tmp.$$"
set -x
"$cxx" -std=c++17 "$opt" -fno-fast-math -ffp-contract=off -fno-exceptions -fno-rtti -Wall -Wextra \
  -I"$core" -o "$tmp" "$here/main.cpp"
{ set +x; } 2>/dev/null
mv -f "$tmp" "$exe"
echo "built $exe ($opt)"
