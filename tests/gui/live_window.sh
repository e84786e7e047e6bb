# Helpers for tests that drive a live workbench window started with --snapshot-on-sigusr1 "$work/snapshot":
# the caller sets `work` (the test's folder) before prepare_live_test, and `cwb_pid` before the others.
# Sourced by gui_export.sh, gui_follow.sh, gui_trace_follow.sh and gui_keyboard_links.sh.

snapshot_count=0

# prepare_live_test [FOLDER...]: skips the test (exit 77) without an X display or xdotool, else makes a fresh
# `work` with its config/ (XDG_CONFIG_HOME: the test's recent files never touch the user's), snapshots/ and FOLDERs.
prepare_live_test() {
  if [ -z "${DISPLAY:-}" ] || ! command -v xdotool >/dev/null; then
    echo "SKIP: needs an X display and xdotool (xvfb-run runs this test; apt-get install xdotool)"
    exit 77
  fi
  rm -rf "$work" && mkdir -p "$work/config" "$work/snapshots"
  for folder in "$@"; do mkdir -p "$work/$folder"; done
  export XDG_CONFIG_HOME="$work/config"
}

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
