#!/usr/bin/env bash
# Programs that recurse or allocate without end must end with Python's error, quickly, never a hang or an
# out-of-memory kill; a long compiled graph must compile within the same small memory cap. Usage:
# resource_limits.sh CWB
set -uo pipefail
cwb="$1"
here="$(cd "$(dirname "$0")" && pwd)"
failures=0
expect() {  # PROGRAM LAST_LINE [STATUS]
  local out rc want=${3:-1}
  out=$(CWB_MEMORY_LIMIT_MB=384 timeout 120 "$cwb" run "$here/$1" 2>&1)
  rc=$?
  local last=$(printf '%s\n' "$out" | grep -v '^$' | grep -v "^Set TORCHDYNAMO_VERBOSE" | tail -n 1)
  if [ $rc -ne "$want" ] || [ "$last" != "$2" ]; then
    echo "FAIL: $1: status $rc, last line: $last (expected status $want and: $2)"
    failures=$((failures + 1))
  else
    echo "ok: $1: $last"
  fi
}
expect recurse_forever.py "RecursionError: maximum recursion depth exceeded"
expect recurse_forever_compiled.py "RecursionError: maximum recursion depth exceeded"
expect grow_list_forever.py "MemoryError"
expect grow_tensors_forever.py "RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 40000000 bytes."
expect long_compiled_chain.py "tensor([10000., 10000., 10000., 10000.])" 0
expect million_node_graph.py "tensor([1000000., 1000000., 1000000., 1000000.])" 0
exit $(( failures > 0 ))
