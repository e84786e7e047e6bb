#!/usr/bin/env bash
# Programs that recurse or allocate without end must end with Python's error, quickly, never a hang or an
# out-of-memory kill; a long compiled graph must compile within the same small memory cap. Usage:
# resource_limits.sh CWB
set -uo pipefail
cwb="$1"
here="$(cd "$(dirname "$0")" && pwd)"
failures=0
expect() {  # PROGRAM LAST_LINE [STATUS] [DIRECTORY]
  local out rc want=${3:-1} dir=${4:-$here}
  out=$(CWB_MEMORY_LIMIT_MB=384 timeout 120 "$cwb" run "$dir/$1" 2>&1)
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
expect million_node_graph.py "MemoryError"
# A node's size must not depend on the script's path (nodes share one interned copy of each file name): the same
# program from a directory 240 characters deep ends the same way.
deep_root="$(mktemp -d)"
deep="$deep_root/$(printf 'd%.0s' {1..60})/$(printf 'e%.0s' {1..60})/$(printf 'f%.0s' {1..60})/$(printf 'g%.0s' {1..50})"
mkdir -p "$deep" && cp "$here/million_node_graph.py" "$deep/"
expect million_node_graph.py "MemoryError" 1 "$deep"
rm -rf "$deep_root"
exit $(( failures > 0 ))
