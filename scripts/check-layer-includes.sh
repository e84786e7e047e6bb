#!/usr/bin/env bash
# The graph layer and the backends (engine/fx, engine/inductor, engine/aot) include nothing from the front end
# (engine/frontend), directly or through the headers they include (the VM's among them), followed to the end.
# The include roots refuse it at compile time too (the VM links the front end privately); this check names the
# chain. Every other layer boundary is the include roots' (scripts/cmake/layer_headers.cmake). Run by ctest
# (layer_includes).
set -euo pipefail
cd "$(dirname "$0")/.."

# The project headers a file includes, as paths from the repository root ("vm/value.h" -> engine/vm/value.h).
project_includes() {
  grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/' | while IFS= read -r inc; do
    if [ -f "engine/$inc" ]; then echo "engine/$inc"; elif [ -f "$inc" ]; then echo "$inc"; fi
  done
}

declare -A reached_from  # header -> the file that first included it (the chain back to a backend file)
status=0
queue=()
while IFS= read -r -d '' file; do queue+=("$file"); reached_from["$file"]=""; done \
  < <(git ls-files -z -- 'engine/fx/*' 'engine/inductor/*' 'engine/aot/*')
while [ "${#queue[@]}" -gt 0 ]; do
  file=${queue[0]}
  queue=("${queue[@]:1}")
  while IFS= read -r header; do
    [ -n "$header" ] || continue
    [ -z "${reached_from[$header]+set}" ] || continue
    reached_from["$header"]=$file
    if [[ $header == engine/frontend/* ]]; then
      chain=$header
      at=$file
      while [ -n "$at" ]; do chain="$at -> $chain"; at=${reached_from[$at]}; done
      echo "$chain: the graph layer and the backends must not include the front end (engine/frontend)"
      status=1
      continue
    fi
    queue+=("$header")
  done < <(project_includes "$file")
done
exit "$status"
