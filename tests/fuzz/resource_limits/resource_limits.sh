#!/usr/bin/env bash
# Programs that recurse or allocate without end must end with Python's error, quickly, never a hang or an
# out-of-memory kill. Usage: resource_limits.sh CWB
set -uo pipefail
cwb="$1"
here="$(cd "$(dirname "$0")" && pwd)"
failures=0
expect() {  # PROGRAM LAST_LINE
  local out rc
  out=$(CWB_MEMORY_LIMIT_MB=2048 timeout 120 "$cwb" run "$here/$1" 2>&1)
  rc=$?
  local last=$(printf '%s\n' "$out" | grep -v '^$' | grep -v "^Set TORCHDYNAMO_VERBOSE" | tail -n 1)
  if [ $rc -ne 1 ] || [ "$last" != "$2" ]; then
    echo "FAIL: $1: status $rc, last line: $last (expected status 1 and: $2)"
    failures=$((failures + 1))
  else
    echo "ok: $1: $last"
  fi
}
expect recurse_forever.py "RecursionError: maximum recursion depth exceeded"
expect recurse_forever_compiled.py "RecursionError: maximum recursion depth exceeded"
expect grow_list_forever.py "MemoryError"
expect grow_tensors_forever.py "RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 40000000 bytes."
exit $(( failures > 0 ))
