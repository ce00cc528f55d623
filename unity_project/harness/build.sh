#!/usr/bin/env bash
# Build the C# harness: Gcv.Core (the Unity project's engine-free simulation port) + Main.cs,
# compiled with Mono's mcs. Usage: harness/build.sh [OUT_DIR]   (default: harness/bin, git-ignored)
# Run:   mono OUT_DIR/gcv-unity-harness.exe -gcvRequest request.json
# Needs: mcs and mono (Debian: apt-get install -y mono-mcs mono-runtime).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/bin}"
mkdir -p "$out"
command -v mcs >/dev/null 2>&1 || { echo "build.sh: mcs not found (apt-get install -y mono-mcs)" >&2; exit 127; }
shopt -s nullglob
sources=("$here"/../Assets/Gcv/Core/*.cs "$here"/Main.cs)
mcs -langversion:6 -optimize+ -target:exe -nologo -warnaserror+ -out:"$out/gcv-unity-harness.exe" "${sources[@]}"
echo "$out/gcv-unity-harness.exe"
