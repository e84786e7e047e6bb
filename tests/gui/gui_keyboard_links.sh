#!/usr/bin/env bash
# Following links from the keyboard, as a user who reads the key hints: from a compile site, G opens its graph and
# C its generated code; Alt+Left and Alt+Right go back and forward through those places, as in a browser.
# Drives a live window with real X key events (xdotool); what it shows comes from its SIGUSR1 snapshots.
# Run by ctest inside xvfb-run; exits 77 (skip) without an X display or xdotool.
# Usage: gui_keyboard_links.sh CWB DATA_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cwb=$1 data=$2 work=$3
source "$here/live_window.sh"
prepare_live_test
log="$data/torch_traces/training_cuda"

"$cwb" open "$log" --view sites --select 0/0 --snapshot-on-sigusr1 "$work/snapshot" >"$work/cwb.out" 2>"$work/cwb.err" &
cwb_pid=$!
trap 'kill "$cwb_pid" 2>/dev/null || true' EXIT
window=$(timeout 60 xdotool search --sync --pid "$cwb_pid" --name "cwb - Compile Workbench" | head -1)
# press KEYS: a quick tap, which the window must not miss even when press and release come between two frames.
press() { xdotool key --window "$window" "$1" sleep 0.3; }
# expect LINE...: the last snapshot shows each line (fixed strings, from their start).
expect() {
  for line in "$@"; do grep -qxF -- "$line" "$work/snapshot.txt" || fail "the window does not show: $line"; done
}

wait_for "view: sites (Compile sites)" sites
# The selected compile's links carry their keys.
wait_for "history: back: none (0), forward: none (0)" no_history
# The window takes the keyboard once clicked (the status bar: nothing there to select).
xdotool mousemove --window "$window" 700 890 click 1 sleep 0.3

press g
wait_for "view: graph (Graph)" graph_by_key
expect "history: back: sites 0/0 (1), forward: none (0)"
press alt+Left
wait_for "view: sites (Compile sites)" back_to_sites
expect "history: back: none (0), forward: graph 0/0 (1)"
press c
wait_for "view: code (Code)" code_by_key
# A new place drops the way forward, as in a browser.
expect "history: back: sites 0/0 (1), forward: none (0)"
press alt+Left
wait_for "view: sites (Compile sites)" back_again
press alt+Right
wait_for "view: code (Code)" forward_to_code
expect "history: back: sites 0/0 (1), forward: none (0)"
kill -0 "$cwb_pid" || fail "the window ended"
echo "PASS: G and C followed the compile's links, Alt+Left and Alt+Right went back and forward"
