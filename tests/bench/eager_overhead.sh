#!/usr/bin/env bash
# Runs tests/bench/eager_overhead.py under `cwb run` and, where PyTorch is installed, under python3, with one
# thread and with all threads, and prints a Markdown table (microseconds per iteration, lower is better).
# Usage: tests/bench/eager_overhead.sh [CWB_BINARY]   (default build/app/cwb)
set -euo pipefail
cd "$(dirname "$0")/../.."
cwb=${1:-build/app/cwb}
program=tests/bench/eager_overhead.py
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
threads_all=$(nproc)
for threads in 1 "$threads_all"; do
  OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads "$cwb" run "$program" >"$results/cwb_$threads"
  if python3 -c 'import torch' 2>/dev/null; then
    OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads python3 "$program" >"$results/torch_$threads"
  fi
done
echo "| case | threads | cwb µs | PyTorch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo -) µs | cwb / PyTorch |"
echo "| --- | ---: | ---: | ---: | ---: |"
for threads in 1 "$threads_all"; do
  while read -r name ours; do
    theirs=$(awk -v n="$name" '$1 == n {print $2}' "$results/torch_$threads" 2>/dev/null || true)
    ratio=$(awk -v a="$ours" -v b="${theirs:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    echo "| $name | $threads | $ours | ${theirs:--} | $ratio |"
  done <"$results/cwb_$threads"
done
