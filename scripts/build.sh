#!/usr/bin/env bash
# Configures and builds cwb into build/ (Ninja and ccache when present). Usage: scripts/build.sh [cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
else
  cmake -S . -B build "$@" >/dev/null
fi
# ccache shares hits across build directories only when it ignores the directory name.
export CCACHE_NOHASHDIR=1
cmake --build build -j "$(nproc)"
