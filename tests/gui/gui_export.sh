#!/usr/bin/env bash
# The export buttons as a user clicks them: drives a live workbench window with real X input events (xdotool)
# through File > Export report... (HTML by the default name, Markdown by a typed name, JSON picked in the Format
# list) and the graph view's Export... (DOT, SVG, PNG), then checks every file: each report equals
# `cwb report` of the same log, the DOT and SVG parse, the PNG is a picture of the graph. Where to click comes
# from the window itself: on SIGUSR1 it writes a snapshot (PNG and UI dump with "item: LABEL at X Y" lines).
# Run by ctest inside xvfb-run; exits 77 (skip) without an X display or xdotool.
# Usage: gui_export.sh CWB PNG_CHECK DATA_DIR WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

cwb=$1 png_check=$2 data=$3 work=$4
if [ -z "${DISPLAY:-}" ] || ! command -v xdotool >/dev/null; then
  echo "SKIP: needs an X display and xdotool (xvfb-run runs this test; apt-get install xdotool)"
  exit 77
fi
for tool in dot xmllint; do
  command -v "$tool" >/dev/null || { echo "SKIP: needs $tool to check the exports"; exit 77; }
done
rm -rf "$work" && mkdir -p "$work/config" "$work/out" "$work/snapshots"
export XDG_CONFIG_HOME="$work/config"
log=$(ls "$data"/torch_traces/recompiles_cpu/dedicated_log_torch_trace_*.log)
stem=$(basename "$log" .log)
out="$work/out"

# The file dialog starts in the working directory, and the graph export's default name is relative to it.
cd "$out"
"$cwb" open "$log" --view graph --select 0/0 --snapshot-on-sigusr1 "$work/snapshot" >"$work/cwb.out" 2>"$work/cwb.err" &
cwb_pid=$!
trap 'kill "$cwb_pid" 2>/dev/null || true' EXIT
# Its SIGUSR1 handler is in place once the window is up; a signal before that would end the process.
window=$(timeout 60 xdotool search --sync --pid "$cwb_pid" --name "cwb - Compile Workbench" | head -1)
source "$here/live_window.sh"

# click LABEL: clicks the item the last snapshot placed at "item: LABEL at X Y". What a click opens (a menu, a
# list) is waited for with wait_for, never assumed drawn after a fixed delay: under load a frame takes longer.
click() {
  local where
  where=$(grep -F -- "item: $1 at " "$work/snapshot.txt" | tail -1 | sed 's/.* at //')
  [ -n "$where" ] || fail "the window shows no '$1' to click"
  # shellcheck disable=SC2086
  xdotool mousemove --window "$window" $where sleep 0.3 click 1 sleep 0.3
}

# press KEYS: a quick tap (xdotool key sends the press and the release at once), which the window must not miss
# even when both arrive between two frames.
press() { xdotool key "$1" sleep 0.3; }

# open_export_dialog: File > Export report..., until the dialog shows.
open_export_dialog() {
  snapshot menu_closed
  click "File"
  wait_for "item: Export report... at " file_menu
  click "Export report..."
  wait_for "dialog: Export report in $out" export_dialog
}

wait_for "canvas: " graph_laid_out

# 1. HTML: the dialog's default name and format, straight to Save.
open_export_dialog
grep -qF "file-name: ${stem}_report.html" "$work/snapshot.txt" || fail "the dialog does not offer ${stem}_report.html"
click "Save"
wait_for "status: Wrote report to $out/${stem}_report.html" html_written

# 2. Markdown: a typed file name whose extension picks the format.
open_export_dialog
click "File name"
press ctrl+a
xdotool type --delay 30 "typed_report.md"
press Return
wait_for "status: Wrote report to $out/typed_report.md" md_written

# 3. JSON: picked in the Format list, which renames the file.
open_export_dialog
click "Format"
wait_for "item: JSON report at " format_list
click "JSON report"
wait_for "file-name: ${stem}_report.json" json_picked
click "Save"
wait_for "status: Wrote report to $out/${stem}_report.json" json_written

# 4. The graph view's Export...: DOT, SVG and PNG of the shown graph.
snapshot graph_before_export
click "Export..."
wait_for "item: PNG at " export_popup
for format in DOT SVG PNG; do
  click "$format"
  wait_for "^export: Saved $out/graph-[^ ]*\.${format,,} " "graph_${format}_saved" -E
done

failures=0
check() { if ! "$@"; then echo "FAIL: $*"; failures=$((failures + 1)); fi; }
for format in html md json; do
  "$cwb" report "$log" --format "$format" >"$work/cli_report.$format" 2>/dev/null
done
# Equal but for the line that says what made each: the workbench's export, or `cwb report`.
same_report() { cmp <(grep -v -e '"produced_by": ' -e 'Made by ' "$1") <(grep -v -e '"produced_by": ' -e 'Made by ' "$2"); }
check same_report "$out/${stem}_report.html" "$work/cli_report.html"
check same_report "$out/typed_report.md" "$work/cli_report.md"
check same_report "$out/${stem}_report.json" "$work/cli_report.json"
check grep -qF '"produced_by": "cwb ' "$work/cli_report.json"
dot_file=$(ls "$out"/graph-*.dot) svg_file=$(ls "$out"/graph-*.svg) png_file=$(ls "$out"/graph-*.png)
check dot -Tcanon -o /dev/null "$dot_file"
check xmllint --noout "$svg_file"
# The SVG draws the graph of the DOT file: as many nodes, and each node's name.
dot_nodes=$(dot -Tcanon "$dot_file" | grep -E '^\s+[A-Za-z0-9_"]+\s+\[' | grep -cvE '^\s+(graph|node|edge)\s' || true)
svg_nodes=$(grep -c 'class="node"' "$svg_file" || true)
check test "$dot_nodes" -gt 0
check test "$dot_nodes" -eq "$svg_nodes"
for name in $(grep -o 'label="[^"\\]*' "$dot_file" | sed 's/^label="//' | grep -v '^$'); do
  check grep -qF ">$name</text>" "$svg_file"
done
check "$png_check" "$png_file" --min-size 200 200 --min-lit 0.02 --min-colours 16
if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed; files in $out, snapshots in $work/snapshots"
  exit 1
fi
# Ctrl+Q quits cleanly (the pointer is over the window, which has the keyboard focus without a window manager).
press ctrl+q
for _ in $(seq 1 100); do kill -0 "$cwb_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$cwb_pid" 2>/dev/null && fail "Ctrl+Q did not quit"
echo "every export button wrote the right file (files in $out, snapshots in $work/snapshots)"
