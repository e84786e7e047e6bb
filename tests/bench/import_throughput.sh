#!/usr/bin/env bash
# Benchmark (not a test): import throughput and peak memory of `cwb import` on a large log made by
# concatenating real TORCH_TRACE logs. Usage: tests/bench/import_throughput.sh [SIZE_MB] [LOG...] (default 500 MB
# of the bundled and ../shared logs; name logs to concatenate those instead, e.g. one real model's log).
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb=${1:-500}
cwb=build/app/cwb
[ -x "$cwb" ] || { echo "build cwb first (scripts/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Real logs: the bundled test logs, plus ../shared's examples and samples when present.
if [ $# -gt 1 ]; then
  logs=("${@:2}")
else
  mapfile -t logs < <(find tests/data/torch_traces ../shared/examples/traces ../shared/samples -name '*.log' \
                        -size +1k 2>/dev/null | grep -v rank_ | sort)
fi
big="$work/dedicated_log_torch_trace_big.log"
: > "$big"
while [ "$(stat -c %s "$big")" -lt $((size_mb * 1000 * 1000)) ]; do
  for f in "${logs[@]}"; do
    cat "$f" >> "$big"
    [ -z "$(tail -c1 "$f")" ] || echo >> "$big"  # a log cut without its last newline must not glue onto the next
  done
done
bytes=$(stat -c %s "$big")
echo "log: $((bytes / 1000000)) MB from ${#logs[@]} real logs; $(nproc) cores"
sync
# Drop nothing from the page cache (we cannot as a user); run once to warm it so that disk speed is not measured.
cat "$big" > /dev/null
# Other jobs on a small machine move wall times: CPU seconds (user + sys, all threads) are printed beside them.
for run in 1 2 3; do
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "cpu: %U s user + %S s sys" "$cwb" import "$big" -o "$work/big.db" -q
  else
    "$cwb" import "$big" -o "$work/big.db" -q
  fi
done
ls -l "$work/big.db" | awk '{printf "trace file: %d MB\n", $5 / 1000000}'
