# Helpers for tests that drive a live workbench window started with --snapshot-on-sigusr1 "$work/snapshot":
# the caller sets `work` (the test's folder, with a snapshots/ folder) and `cwb_pid` before using them.
# Sourced by gui_export.sh, gui_follow.sh, gui_trace_follow.sh and gui_keyboard_links.sh.

snapshot_count=0

fail() {
  echo "FAIL: $*"
  [ -f "$work/snapshot.txt" ] && { echo "--- the window's last snapshot:"; cat "$work/snapshot.txt"; }
  echo "--- cwb stderr:"; cat "$work/cwb.err"
  exit 1
}

# snapshot NAME: asks the window for a snapshot and keeps a copy of it under snapshots/NAME.{png,txt}.
snapshot() {
  rm -f "$work/snapshot.txt"
  kill -USR1 "$cwb_pid"
  for _ in $(seq 1 100); do [ -f "$work/snapshot.txt" ] && break; sleep 0.05; done
  [ -f "$work/snapshot.txt" ] || fail "the window wrote no snapshot"
  snapshot_count=$((snapshot_count + 1))
  local name
  name=$(printf '%02d_%s' "$snapshot_count" "$1")
  cp "$work/snapshot.png" "$work/snapshots/$name.png"
  cp "$work/snapshot.txt" "$work/snapshots/$name.txt"
}

# wait_for LINE NAME [GREP_MODE]: snapshots until the window shows LINE (a fixed string; -E: a regular
# expression), for up to a minute.
wait_for() {
  for _ in $(seq 1 120); do
    snapshot "$2"
    grep -q "${3:--F}" -- "$1" "$work/snapshot.txt" && return 0
    sleep 0.5
  done
  fail "the window never showed: $1"
}
