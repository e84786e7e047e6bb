#!/usr/bin/env bash
# HiDPI as a user with a 192 dpi screen gets it: Xft.dpi set with xrdb (GLFW's content scale on X11) and the
# --scale override must give a window twice the size with fonts rasterised at twice the size (crisp, not a
# stretched texture), the same rows as at scale 1, and graphs drawn at the scaled size.
# Run by ctest inside xvfb-run with a 3200x2000 screen and -noreset (else the X server drops the xrdb resources
# when xrdb disconnects); exits 77 (skip) without an X display or xrdb.
# Usage: gui_hidpi.sh CWB PNG_CHECK DATA_DIR WORK_DIR
set -euo pipefail

cwb=$1 png_check=$2 data=$3 work=$4
if [ -z "${DISPLAY:-}" ] || ! command -v xrdb >/dev/null; then
  echo "SKIP: needs an X display and xrdb (xvfb-run runs this test; apt-get install x11-xserver-utils)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
recompiles=$(ls "$data"/torch_traces/recompiles_cpu/dedicated_log_torch_trace_*.log)
training=$(ls "$data"/torch_traces/training_cuda/dedicated_log_torch_trace_*.log)
failures=0

# expect NAME LINE...: the dump NAME.txt has every LINE (fixed strings).
source "$(dirname "$0")/expect_lines.sh"
expect() { local name=$1; shift; expect_lines "$work/$name.txt" "$name" "$@"; }

# shot NAME CWB_ARGS...: a scripted screenshot and its UI dump.
shot() {
  local name=$1
  shift
  if ! "$cwb" open "$@" --screenshot "$work/$name.png" --dump-ui >"$work/$name.txt" 2>"$work/$name.err"; then
    echo "FAIL $name: cwb open exited non-zero"; cat "$work/$name.err"; failures=$((failures + 1))
  fi
}

recompile_rows=("step: [4/3] 4 of 9" "guard: changed EQUALS_MATCH L['k'] == 5" "panel: Recompile stepper")

# Scale 1 first (no resources yet), then what a 192 dpi desktop sets.
shot normal "$recompiles" --view recompiles --select 4/3
expect normal "scale: 1, UI font 15 px, code font 14 px, font stretch 1" "${recompile_rows[@]}"
echo "Xft.dpi: 192" | xrdb -nocpp -merge
shot xft_dpi "$recompiles" --view recompiles --select 4/3
expect xft_dpi "scale: 2, UI font 30 px, code font 28 px, font stretch 1" "${recompile_rows[@]}"
"$png_check" "$work/xft_dpi.png" --min-size 2880 1800 --min-lit 0.05 --min-colours 1000 \
  --expect-colour 240 150 30 600 || { echo "FAIL xft_dpi: the screenshot is not a full 2x window"; failures=$((failures + 1)); }

# --scale wins over Xft.dpi, and --scale 2 draws exactly what Xft.dpi 192 does.
shot scale_option "$recompiles" --view recompiles --select 4/3 --scale 2
expect scale_option "scale: 2, UI font 30 px, code font 28 px, font stretch 1"
cmp -s "$work/xft_dpi.png" "$work/scale_option.png" || { echo "FAIL: --scale 2 and Xft.dpi 192 differ"; failures=$((failures + 1)); }
shot scale_back_to_1 "$recompiles" --view recompiles --select 4/3 --scale 1
expect scale_back_to_1 "scale: 1, UI font 15 px" "${recompile_rows[@]}"

# A graph at scale 2 is fitted at twice the zoom of scale 1 (the same size next to the UI), labels drawn.
shot graph_normal "$training" --graph-tab aot_backward --scale 1
shot graph_scaled "$training" --graph-tab aot_backward --scale 2
expect graph_scaled "scale: 2," "graph: AOT backward: 19 nodes, 21 edges" "; labels"
zoom_of() { sed -n 's/^canvas: .*zoom \([0-9.]*\).*/\1/p' "$work/$1.txt"; }
normal_zoom=$(zoom_of graph_normal) scaled_zoom=$(zoom_of graph_scaled)
if ! awk -v a="${normal_zoom:-0}" -v b="${scaled_zoom:-0}" 'BEGIN { exit !(a > 0 && b > 1.9 * a && b < 2.1 * a) }'; then
  echo "FAIL graph_scaled: zoom ${scaled_zoom} at scale 2 is not twice ${normal_zoom} at scale 1"; failures=$((failures + 1))
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed; screenshots and dumps are in $work"
  exit 1
fi
echo "HiDPI scaling looks right (screenshots in $work)"
