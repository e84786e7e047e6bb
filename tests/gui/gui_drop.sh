#!/usr/bin/env bash
# Drag and drop as a user does it: drops real TORCH_TRACE logs on a live workbench window through the X11 XDND
# protocol (cwb_xdnd_drop plays the file manager), then asks the window for snapshots (SIGUSR1) and checks that
# each log was imported and is shown: on an empty window, and side by side in the pane it was dropped on.
# Run by ctest inside xvfb-run; exits 77 (skip) when there is no X display.
# Usage: gui_drop.sh CWB XDND_DROP PNG_CHECK DATA_DIR WORK_DIR
set -euo pipefail

cwb=$1 xdnd_drop=$2 png_check=$3 data=$4 work=$5
if [ -z "${DISPLAY:-}" ] || ! command -v xdotool >/dev/null; then
  echo "SKIP: needs an X display and xdotool (xvfb-run runs this test; apt-get install xdotool)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
title="cwb - Compile Workbench"
log_of() { ls "$data/torch_traces/$1"/dedicated_log_torch_trace_*.log; }
recompiles=$(log_of recompiles_cpu) breaks=$(log_of breaks_cpu) training=$(log_of training_cuda)
failures=0
cwb_pid=
trap '[ -n "$cwb_pid" ] && kill "$cwb_pid" 2>/dev/null || true' EXIT

# start NAME PATH...: a live window with a fresh config (no layout or recent files of the user or an earlier run).
start() {
  local name=$1
  shift
  mkdir -p "$work/$name/config"
  XDG_CONFIG_HOME="$work/$name/config" "$cwb" open "$@" --snapshot-on-sigusr1 "$work/$name/snapshot" \
    >"$work/$name/cwb.out" 2>"$work/$name/cwb.err" &
  cwb_pid=$!
  # Its SIGUSR1 handler is in place once the window is up; a signal before that would end the process.
  timeout 60 xdotool search --sync --pid "$cwb_pid" --name "$title" >/dev/null
}

stop() { kill "$cwb_pid" && wait "$cwb_pid" 2>/dev/null || true; cwb_pid=; }

# snapshot_until NAME LINE: snapshots the window until it shows LINE (a fixed string), for up to a minute.
snapshot_until() {
  local snapshot="$work/$1/snapshot.txt"
  for _ in $(seq 1 120); do
    rm -f "$snapshot"
    kill -USR1 "$cwb_pid"
    for _ in $(seq 1 50); do [ -f "$snapshot" ] && break; sleep 0.1; done
    [ -f "$snapshot" ] || { echo "FAIL $1: the window wrote no snapshot"; cat "$work/$1/cwb.err"; exit 1; }
    grep -qF -- "$2" "$snapshot" && return 0
    if grep -q "^trace: .* error" "$snapshot"; then echo "FAIL $1: a log did not load"; cat "$snapshot"; exit 1; fi
    sleep 0.5
  done
  echo "FAIL $1: the window never showed: $2"; cat "$snapshot"; exit 1
}

# expect NAME LINE...: the last snapshot of NAME shows every LINE.
source "$(dirname "$0")/expect_lines.sh"
expect() { local name=$1; shift; expect_lines "$work/$name/snapshot.txt" "$name" "$@"; }

# 1. An empty window takes a dropped log. A copy under a name with a space and a '#': the drop's file:// URI
#    must be percent-decoded by the window.
dropped="$work/dropped logs/run #1.log"
mkdir -p "$(dirname "$dropped")" && cp "$recompiles" "$dropped"
start empty
"$xdnd_drop" "$title" "$dropped" --timeout 60 || { echo "FAIL: the window did not take the drop"; exit 1; }
snapshot_until empty "trace: run #1.log loaded"
expect empty "view: sites" "status: Loaded $dropped" "pane: 0 run #1.log" \
  "counts: ok 5, graph break 0, failed 1, recompiled 11, empty graph 0, unknown 0" "row: programs/recompiles_cpu.py:33 in by_const"
# ok green and recompiled amber chips of the dropped trace's compile sites.
if ! "$png_check" "$work/empty/snapshot.png" --min-size 1000 700 --min-lit 0.05 --min-colours 1000 \
  --expect-colour 46 160 67 150 --expect-colour 240 150 30 150; then
  echo "FAIL empty: the snapshot after the drop lacks the trace's content"; failures=$((failures + 1))
fi
stop

# 2. Side by side (two logs on the command line), a log dropped on the right pane opens there; the left keeps
#    its trace. The window is 1440 pixels wide by default: x 1300 is well inside the right pane.
start split "$recompiles" "$breaks"
snapshot_until split "pane: 1 $(basename "$breaks")"
"$xdnd_drop" "$title" "$training" --at 1300 450 --timeout 60 || { echo "FAIL: the split window did not take the drop"; exit 1; }
snapshot_until split "trace: $(basename "$training") loaded"
snapshot_until split "pane: 1 $(basename "$training")"
expect split "pane: 0 $(basename "$recompiles")"
stop

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed; the snapshots are in $work"
  exit 1
fi
echo "dropped logs were imported and shown where they were dropped (snapshots in $work)"
