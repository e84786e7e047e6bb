#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs dependencies, builds cwb, imports the bundled real
# TORCH_TRACE log, writes explain reports of it (HTML and Markdown) under build/demo/ and opens it in the workbench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p build/demo
sample=tests/data/torch_traces/recompiles_cpu
build/app/cwb import "$sample" -o build/demo/trace.db
build/app/cwb report build/demo/trace.db --format html -o build/demo/report.html
build/app/cwb report build/demo/trace.db --format md -o build/demo/report.md
echo "reports: build/demo/report.html and build/demo/report.md"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  build/app/cwb open build/demo/trace.db --view recompiles
else
  echo "no display: run 'build/app/cwb open build/demo/trace.db' on a desktop to step through the recompiles"
fi
