#!/usr/bin/env bash
# Installs dependencies on a fresh Debian 12 machine, builds cwb and runs every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
