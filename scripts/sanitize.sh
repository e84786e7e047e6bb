#!/usr/bin/env bash
# Builds the unit tests of the text parsers, the trace store and importer, and the front end with
# AddressSanitizer + UndefinedBehaviorSanitizer (-DCWB_SANITIZE=ON) into build-sanitize/ and runs them; any
# report fails. Usage: scripts/sanitize.sh [gtest filter]   (CI runs it after scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(traces_parse_tests traces_store_tests engine_frontend_tests)
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
# -O1 keeps the instrumented build and its tests fast; the checks are the same at any level.
cmake -S . -B build-sanitize "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCWB_SANITIZE=ON >/dev/null
export CCACHE_NOHASHDIR=1
start=$(date +%s)
cmake --build build-sanitize -j "$(nproc)" --target "${targets[@]}"
echo "sanitize: built ${targets[*]} in $(( $(date +%s) - start )) s"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for target in "${targets[@]}"; do
  binary=$(find build-sanitize/tests -maxdepth 1 -name "$target" -type f)
  echo "sanitize: $target"
  "$binary" --gtest_brief=1 ${1:+--gtest_filter="$1"} || failed+=("$target")
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}"
  exit 1
fi
echo "sanitize: clean"
