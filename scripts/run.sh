#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs dependencies, builds cwb, imports the bundled real
# TORCH_TRACE log and writes explain reports of it (HTML and Markdown) under build/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p build/demo
sample=tests/data/torch_traces/recompiles_cpu
build/app/cwb import "$sample" -o build/demo/trace.db
build/app/cwb report build/demo/trace.db --format html -o build/demo/report.html
build/app/cwb report build/demo/trace.db --format md -o build/demo/report.md
echo "open build/demo/report.html in a browser, or read build/demo/report.md"
