#!/usr/bin/env bash
# Crash safety of trace files: kills `cwb run --trace` and `cwb import` with SIGKILL at random points and checks
# that the trace opens and holds what was committed before the kill; damaged and truncated copies of a trace must
# give a clear error, never a crash. Usage: kill_during_writes.sh CWB DATA_DIR WORK_DIR [ROUNDS]
set -uo pipefail
cwb="$1" data="$2" work="$3" rounds="${4:-12}"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
RANDOM=20261125  # a fixed sequence of kill times
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Opens a trace with `cwb report`: status 0, or 1 with a message; a signal or other status is a crash.
open_trace() {
  "$cwb" report "$1" --format json -o "$1.json" 2>"$1.err"
  local rc=$?
  if [ $rc -ne 0 ] && { [ $rc -ne 1 ] || [ ! -s "$1.err" ]; }; then
    fail "$1: cwb report ended with status $rc: $(head -c 300 "$1.err")"
    return 2
  fi
  return $rc
}
keys() { grep -o '"key": "[^"]*"' "$1" | sort -u; }

# 1. cwb run --trace, killed while it compiles: every call printed as done must be in the trace as an ok compile.
"$cwb" run "$here/many_compiles.py" --trace full_run.db >/dev/null || fail "the full run failed"
open_trace full_run.db || fail "the full run's trace does not open"
# Milliseconds a command takes here (kills are spread over that time, start-up included).
duration_ms() {
  local start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  echo $(( ($(date +%s%N) - start) / 1000000 + 20 ))
}
total_ms=$(duration_ms "$cwb" run "$here/many_compiles.py" --trace timing.db)
for round in $(seq "$rounds"); do
  delay=$((RANDOM % total_ms))
  rm -f killed_run.db*
  stdbuf -oL "$cwb" run "$here/many_compiles.py" --trace killed_run.db >killed_run.out 2>&1 &
  pid=$!
  sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  done_calls=$(grep -c "^compiled call .* done" killed_run.out)
  [ -e killed_run.db ] || { [ "$done_calls" -eq 0 ] || fail "run killed after $delay ms: no trace file"; continue; }
  open_trace killed_run.db
  rc=$?
  if [ $rc -eq 1 ]; then
    [ "$done_calls" -eq 0 ] || fail "run killed after $delay ms ($done_calls calls done): $(cat killed_run.db.err)"
    continue
  fi
  [ $rc -eq 0 ] || continue
  ok=$(grep -o '"status": "ok"' killed_run.db.json | wc -l)
  [ "$ok" -ge "$done_calls" ] || fail "run killed after $delay ms: $done_calls calls done but $ok ok compiles in the trace"
  extra=$(comm -13 <(keys full_run.db.json) <(keys killed_run.db.json))
  [ -z "$extra" ] || fail "run killed after $delay ms: compiles the full run does not have: $extra"
  echo "run killed after $delay ms: $done_calls calls done, $ok ok compiles in the trace"
done

# 2. cwb import of a large log, killed part way: the trace opens and holds only compiles of the full import.
for i in $(seq 40); do cat "$data"/torch_traces/recompiles_cpu/*.log; done > big.log
"$cwb" import big.log -o full_import.db >/dev/null 2>&1 || fail "the full import failed"
open_trace full_import.db || fail "the full import does not open"
total_ms=$(duration_ms "$cwb" import big.log -o timing_import.db)
for round in $(seq "$rounds"); do
  delay=$((RANDOM % total_ms))
  rm -f killed_import.db*
  "$cwb" import big.log -o killed_import.db >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v ms="$delay" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -e killed_import.db ] || { echo "import killed after $delay ms: no trace file yet"; continue; }
  open_trace killed_import.db
  [ $? -eq 0 ] || continue
  extra=$(comm -13 <(keys full_import.db.json) <(keys killed_import.db.json))
  [ -z "$extra" ] || fail "import killed after $delay ms: compiles the full import does not have: $extra"
  echo "import killed after $delay ms: $(keys killed_import.db.json | wc -l) compile keys in the trace"
done

# 3. Damaged copies of a trace: cut at several lengths, or bytes overwritten; each opens or says why.
"$cwb" import "$data"/torch_traces/failures_cpu/*.log -o good.db >/dev/null 2>&1 || fail "import of failures_cpu"
size=$(stat -c %s good.db)
for cut in 0 1 50 100 512 4096 $((size / 3)) $((size / 2)) $((size - 1)); do
  head -c "$cut" good.db > "cut_$cut.db"
  open_trace "cut_$cut.db"
done
for round in $(seq "$rounds"); do
  cp good.db "damaged_$round.db"
  offset=$(( (RANDOM * 32768 + RANDOM) % size ))
  printf "damage%05d%05d%05d" "$RANDOM" "$RANDOM" "$RANDOM" | dd of="damaged_$round.db" bs=1 seek="$offset" conv=notrunc status=none
  open_trace "damaged_$round.db"
done
echo "damaged and truncated traces: every one opened or was refused with a message"

[ $failures -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "crash safety: ok"
