#!/usr/bin/env bash
# The graph layer and the backends include nothing from the front end. Their include roots cannot refuse it alone:
# the VM's headers carry the front end's code objects, so engine/fx, engine/inductor and engine/aot see
# frontend/ through the VM they link. Every other layer boundary is the include roots' (scripts/cmake/
# layer_headers.cmake). Run by ctest (layer_includes).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r -d '' file; do
  while IFS= read -r hit; do
    echo "$file:$hit: the graph layer and the backends must not include the front end (engine/frontend)"
    status=1
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"frontend/' "$file" | cut -d: -f1)
done < <(git ls-files -z -- 'engine/fx/*' 'engine/inductor/*' 'engine/aot/*')
exit "$status"
