#!/usr/bin/env bash
# `cwb trace --follow -- CMD`: CMD (a stand-in for a training job) writes a real TORCH_TRACE log in parts into the
# TORCH_TRACE folder that cwb trace gives it; the workbench opens at once on the Graph view and follows the log.
# It shows the compiles of the first part while the job waits; the user zooms into the first compile's graph and
# drags it aside; the next part of the log must not reset that zoom or move the view. When CMD ends, cwb trace imports the logs into DIR/trace.db, with the counts `cwb report` finds in the whole log.
# Run by ctest inside xvfb-run; exits 77 (skip) without an X display or xdotool.
# Usage: gui_trace_follow.sh CWB DATA_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cwb=$1 data=$2 work=$3
source "$here/live_window.sh"
prepare_live_test
log=$(ls "$data"/torch_traces/recompiles_cpu/dedicated_log_torch_trace_*.log)
all_compiles=$("$cwb" report "$log" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["sessions"][0]["summary"]["compiles"])')

# The job: writes the log up to its second compile, then the rest once the test says so (a file named go).
starts=($(grep -n '"dynamo_start"' "$log" | cut -d: -f1))
cat >"$work/job.sh" <<EOF
set -e
out="\$TORCH_TRACE/$(basename "$log")"
head -n $((starts[1] - 1)) "$log" >"\$out"
while [ ! -f "$work/go" ]; do sleep 0.1; done
tail -n +${starts[1]} "$log" >>"\$out"
EOF

# What the window must show while the job waits: the compiles of the first part, as `cwb report` counts them.
mkdir -p "$work/first_part"
head -n $((starts[1] - 1)) "$log" >"$work/first_part/$(basename "$log")"
first_compiles=$("$cwb" report "$work/first_part" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["sessions"][0]["summary"]["compiles"])')
[ "$first_compiles" -lt "$all_compiles" ] || { echo "FAIL: the first part holds all $all_compiles compiles"; exit 1; }

"$cwb" trace -o "$work/run" --follow --view graph --snapshot-on-sigusr1 "$work/snapshot" -- bash "$work/job.sh" \
  >"$work/cwb.out" 2>"$work/cwb.err" &
trace_pid=$!
cwb_pid=
cleanup() {
  touch "$work/go"
  if [ -n "$cwb_pid" ]; then kill "$cwb_pid" 2>/dev/null || true; fi
  kill "$trace_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 100); do
  cwb_pid=$(pgrep -P "$trace_pid" -x cwb || true)
  [ -n "$cwb_pid" ] && break
  sleep 0.1
done
[ -n "$cwb_pid" ] || { echo "FAIL: cwb trace --follow started no workbench"; cat "$work/cwb.err"; exit 1; }
timeout 60 xdotool search --sync --pid "$cwb_pid" --name "cwb - Compile Workbench" >/dev/null

zoom_of_snapshot() { sed -n 's/^canvas: .*; zoom \([0-9.]*\);.*/\1/p' "$work/snapshot.txt"; }
# The zoom and the graph point at the canvas's middle: where the user looks.
view_of_snapshot() { sed -n 's/^canvas: .*; zoom \([0-9.]*; centre [-0-9]* [-0-9]*\);.*/\1/p' "$work/snapshot.txt"; }

# The first compile's Dynamo graph, as soon as the job has written it, and every compile of the first part.
wait_for "^canvas: " first_graph -E
wait_for "^sidebar-session: .*:  $first_compiles compiles," first_part -E
grep -q "^graph: Dynamo: " "$work/snapshot.txt" || fail "the Graph view does not show the first compile's Dynamo graph"
before=$(zoom_of_snapshot)
# The user zooms in with the wheel over the canvas.
window=$(xdotool search --pid "$cwb_pid" --name "cwb - Compile Workbench" | head -1)
xdotool mousemove --window "$window" 640 500
for _ in 1 2 3; do xdotool click --window "$window" 4; sleep 0.2; done
sleep 0.5
snapshot zoomed
zoomed=$(zoom_of_snapshot)
[ -n "$zoomed" ] && [ "$zoomed" != "$before" ] || fail "the wheel did not zoom the graph ($before -> $zoomed)"
before_drag=$(view_of_snapshot)
# And drags the graph aside with the mouse.
xdotool mousedown --window "$window" 1 sleep 0.2 mousemove --window "$window" 600 440 sleep 0.2 \
  mousemove --window "$window" 560 380 sleep 0.2 mouseup --window "$window" 1
sleep 0.5
snapshot panned
panned=$(view_of_snapshot)
[ -n "$panned" ] && [ "$panned" != "$before_drag" ] || fail "the drag did not move the graph ($before_drag -> $panned)"

# The job writes the rest of the log; the window follows it and keeps the zoom.
touch "$work/go"
wait_for "^sidebar-session: .*:  $all_compiles compiles," whole_log -E
after=$(view_of_snapshot)
[ "$after" = "$panned" ] || fail "the refresh moved the graph's view (zoom; centre: $panned -> $after)"

# The job has ended: cwb trace imported the logs and waits for the window to close.
for _ in $(seq 1 100); do grep -q "imported the logs of" "$work/cwb.err" && break; sleep 0.1; done
grep -q "imported the logs of" "$work/cwb.err" || fail "cwb trace did not import the logs when the job ended"
kill "$cwb_pid"
wait "$trace_pid" || fail "cwb trace exited with status $?"
imported=$("$cwb" report "$work/run/trace.db" --format json | python3 -c '
import json, sys
print(json.load(sys.stdin)["sessions"][0]["summary"]["compiles"])')
[ "$imported" = "$all_compiles" ] || fail "trace.db holds $imported compiles, the log $all_compiles"
echo "PASS: cwb trace --follow showed the job's log as it grew ($first_compiles, then $all_compiles compiles), kept the graph's zoom and place ($panned), imported $imported compiles"
