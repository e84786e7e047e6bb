#!/usr/bin/env bash
# `cwb open DIR --follow` while a job writes its TORCH_TRACE log: the window opens on a folder with no log yet,
# the test appends a real log in three parts at record boundaries (as torch does while it compiles), and each
# time the live window must show the grown log (the Metrics view's counts), ending with what `cwb report` counts
# in the whole log. Snapshots come from the window itself on SIGUSR1.
# Run by ctest inside xvfb-run; exits 77 (skip) without an X display or xdotool.
# Usage: gui_follow.sh CWB DATA_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cwb=$1 data=$2 work=$3
source "$here/live_window.sh"
prepare_live_test run
log=$(ls "$data"/torch_traces/recompiles_cpu/dedicated_log_torch_trace_*.log)
growing="$work/run/$(basename "$log")"
summary=$("$cwb" report "$log" --format json | python3 -c '
import json, sys
s = json.load(sys.stdin)["sessions"][0]["summary"]
print(s["compiles"], s["recompiles"])')
read -r all_compiles all_recompiles <<<"$summary"

"$cwb" open "$work/run" --follow --view metrics --snapshot-on-sigusr1 "$work/snapshot" >"$work/cwb.out" 2>"$work/cwb.err" &
cwb_pid=$!
trap 'kill "$cwb_pid" 2>/dev/null || true' EXIT
timeout 60 xdotool search --sync --pid "$cwb_pid" --name "cwb - Compile Workbench" >/dev/null

# append_until LINE: appends the log's lines up to (not including) input line LINE, a record's first line.
written=0
append_until() {
  sed -n "$((written + 1)),$(($1 - 1))p" "$log" >>"$growing"
  written=$(($1 - 1))
}
starts=($(grep -n '"dynamo_start"' "$log" | cut -d: -f1))
[ "${#starts[@]}" -eq "$all_compiles" ] || fail "expected $all_compiles dynamo_start records, found ${#starts[@]}"

wait_for "^trace: run " empty_folder -E
append_until "${starts[1]}"
wait_for "session: .*: compiles 1, " first_compile -E
append_until "${starts[5]}"
wait_for "session: .*: compiles 5, " five_compiles -E
append_until $(($(wc -l <"$log") + 1))
wait_for "session: .*: compiles $all_compiles, recompiles $all_recompiles," whole_log -E
grep -q "^trace: run loaded" "$work/snapshot.txt" || fail "the trace is not shown as loaded"
grep -q "^no compile id: " "$work/snapshot.txt" || fail "the Metrics view lists no records without a compile id"
kill -0 "$cwb_pid" || fail "the window ended"
echo "PASS: the window followed the log from 0 to $all_compiles compiles (snapshots in $work/snapshots)"
