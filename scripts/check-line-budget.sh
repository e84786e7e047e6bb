#!/usr/bin/env bash
# Fails when a tracked source file is longer than the line budget (600 lines), unless scripts/line_budget_allow.txt
# lists it: today's long files, to be split rather than joined by new ones. Run by ctest (line_budget).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=600
allow=scripts/line_budget_allow.txt
status=0
while IFS= read -r -d '' file; do
  lines=$(wc -l < "$file")
  if [ "$lines" -gt "$budget" ] && ! grep -qxF "$file" "$allow"; then
    echo "$file: $lines lines, over the budget of $budget: split it by purpose (or, if it must stay whole, list it in $allow)"
    status=1
  fi
done < <(git ls-files -z -- '*.cpp' '*.h' '*.def' '*.py' '*.sh' '*.cmake' '*CMakeLists.txt')
# A listed file that shrank below the budget leaves the list, so the list only ever gets shorter.
while IFS= read -r file; do
  case "$file" in ''|'#'*) continue ;; esac
  if [ -f "$file" ] && [ "$(wc -l < "$file")" -le "$budget" ]; then
    echo "$allow: $file is within the budget now: remove it from the list"
    status=1
  fi
done < "$allow"
exit "$status"
