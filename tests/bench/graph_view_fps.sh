#!/usr/bin/env bash
# Benchmark (not a test): frames per second of the graph view on llvmpipe under Xvfb, drawing a synthetic graph of
# NODES nodes (default 2,000) or a graph of a real log, as the view first shows it (folded graphs as their overview).
# Two scripted runs differing only in frame count: start-up, import and the one-time layout cancel out.
# Usage: tests/bench/graph_view_fps.sh [NODES | LOG [CWB_OPEN_ARGS...]] [BUILD_DIR]
#   e.g. tests/bench/graph_view_fps.sh 10000 build
#        tests/bench/graph_view_fps.sh path/to/gpt2/log "--graph-tab aot_backward" build
#        tests/bench/graph_view_fps.sh path/to/gpt2/log "--view fusion --select 1/0" build
set -euo pipefail
cd "$(dirname "$0")/../.."
source=${1:-2000}
open_args="--view graph --select 0/0"
if [[ ! "$source" =~ ^[0-9]+$ ]]; then
  open_args="${2:-}"
  [[ "$open_args" == *--view* ]] || open_args="--view graph $open_args"  # e.g. "--view fusion --select 1/0"
  shift || true
fi
cwb=${2:-build}/app/cwb
[ -x "$cwb" ] || { echo "build cwb first (scripts/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ "$source" =~ ^[0-9]+$ ]]; then
  python3 tests/bench/make_big_graph_log.py "$work/big.log" --nodes "$source"
  "$cwb" import "$work/big.log" -o "$work/big.db" -q
else
  "$cwb" import "$source" -o "$work/big.db" -q
fi

few=150
many=450
run() {  # frames -> "wall_seconds cpu_seconds"
  /usr/bin/time -f "%e %U %S" -o "$work/time" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$cwb" open "$work/big.db" $open_args \
    --frames "$1" --screenshot "$work/shot.png" --dump-ui > "$work/dump.txt"
  read -r wall user sys < "$work/time"
  echo "$wall $(echo "$user + $sys" | bc)"
}
# Time to the first frame: a run that draws one frame once the graph is laid out, from the process's start to
# its exit (Xvfb's start included); the dump says how soon after the graph was opened its layout was drawn.
read -r first_wall _ < <(run 1)
first_drawn=$(sed -n 's/^canvas: .*; first drawn \(.*\) after the graph was opened/\1/p' "$work/dump.txt")
read -r wall1 cpu1 < <(run $few)
read -r wall2 cpu2 < <(run $many)
grep -E "^(graph|canvas):" "$work/dump.txt"
frames=$((many - few))
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "first frame: the graph drawn $first_drawn after it was opened; cwb open to exit with one frame ${first_wall} s"
echo "steady state over $frames frames: $(echo "scale=1; 1000 * ($wall2 - $wall1) / $frames" | bc) ms/frame wall" \
     "($(echo "scale=1; $frames / ($wall2 - $wall1)" | bc) fps), $(echo "scale=1; 1000 * ($cpu2 - $cpu1) / $frames" | bc)" \
     "ms/frame CPU (all threads: app, llvmpipe, Xvfb)"
