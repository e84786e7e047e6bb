#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/libfuzzer with clang (ASan + UBSan) into build-fuzz/ and runs each
# for FUZZ_SECONDS (default 30) from a seed corpus of real logs, a trace file and our programs. A crash fails
# the run and leaves its input in build-fuzz/crashes/TARGET/: keep it in tests/fuzz/crashers/TARGET/ (replayed by
# ctest) with the fix. Usage: scripts/fuzz.sh [TARGET...]   (CI runs it after scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(text_parsers frontend log_importer trace_reader)
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
# Warnings stay warnings here: -Werror is for the GCC build the project is developed with.
CC=clang CXX=clang++ cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCWB_LIBFUZZER=ON -DCWB_WERROR=OFF >/dev/null
export CCACHE_NOHASHDIR=1
start=$(date +%s)
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")
echo "fuzz: built in $(( $(date +%s) - start )) s"

corpus=build-fuzz/corpus
rm -rf "$corpus" build-fuzz/crashes
logs=(tests/data/torch_traces/*/*.log)
# text_parsers: each payload of the real logs, behind the byte that picks its parser (code % 10).
mkdir -p "$corpus/text_parsers"
for log in "${logs[@]}"; do
  awk -v dir="$corpus/text_parsers" -v base="$(basename "$log")" '
    function flush() { if (payload != "") { n++; printf "%s%s", sel, payload > (dir "/" base "_" n); close(dir "/" base "_" n) } payload = "" }
    /^\t/ { payload = payload substr($0, 2) "\n"; next }
    { flush(); sel = "K"
      if ($0 ~ /"(dynamo_output_graph|aot_[a-z_]*graph|inductor_post_grad_graph|graph_dump)"/) sel = "P"
      else if ($0 ~ /dynamo_cpp_guards_str/) sel = "G"
      else if ($0 ~ /"dynamo_guards"/) sel = "H"
      else if ($0 ~ /inductor_output_code/) sel = "I"
      else if ($0 ~ /recompile/) sel = "M" }
    END { flush() }' "$log"
done
# frontend: every program of ours (and the shared examples and conformance programs when present).
mkdir -p "$corpus/frontend"
program_dirs=(tests/data tests/fuzz/regressions tests/bench)
for shared in ../shared/examples ../shared/conformance; do [ -d "$shared" ] && program_dirs+=("$shared"); done
find "${program_dirs[@]}" -name '*.py' -size -64k |
  while read -r f; do cp "$f" "$corpus/frontend/$(echo "$f" | tr / _)"; done
# log_importer: the logs cut into pieces of 40 lines (libFuzzer mutates small inputs best).
mkdir -p "$corpus/log_importer"
for log in "${logs[@]}"; do split -l 40 "$log" "$corpus/log_importer/$(basename "$log")_"; done
# trace_reader: a real trace file, and its first bytes cut at several places.
mkdir -p "$corpus/trace_reader"
if [ -x build/app/cwb ]; then
  build/app/cwb import tests/data/torch_traces/failures_cpu/*.log -o "$corpus/trace_reader/failures.db" >/dev/null
  for cut in 100 4096 16384 65536; do head -c "$cut" "$corpus/trace_reader/failures.db" > "$corpus/trace_reader/cut_$cut.db"; done
fi
cp tests/data/torch_traces/ranks_cpu/*.log "$corpus/trace_reader/" 

failed=()
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in "${targets[@]}"; do
  mkdir -p "build-fuzz/crashes/$target"
  max_len=65536
  [ "$target" = trace_reader ] && max_len=1048576
  echo "fuzz: $target for $seconds s ($(ls "$corpus/$target" | wc -l) seeds)"
  if ! build-fuzz/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -max_len="$max_len" -artifact_prefix="build-fuzz/crashes/$target/" -print_final_stats=1 \
       "$corpus/$target" 2>"build-fuzz/fuzz_$target.log"; then
    tail -n 40 "build-fuzz/fuzz_$target.log"
    failed+=("$target")
  else
    grep -E "stat::number_of_executed_units|Done" "build-fuzz/fuzz_$target.log" | tail -n 2
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in build-fuzz/crashes/)"
  exit 1
fi
echo "fuzz: no crash"
