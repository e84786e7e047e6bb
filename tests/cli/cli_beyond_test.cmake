# Drives `cwb diff`, `cwb report --format perfetto`, `cwb runtime` and `cwb trace` as a user would, on the real
# logs of tests/data/torch_traces/insights. Run by ctest with -P.
cmake_minimum_required(VERSION 3.25)
set(insights "${DATA}/torch_traces/insights")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include("${CMAKE_CURRENT_LIST_DIR}/run_cwb.cmake")

# Two runs of one program sharing an Inductor cache: the second hits the FX-graph cache.
run_cwb(diff "${insights}/mlp_cache_cold" "${insights}/mlp_cache_warm" --format json -o "${WORK}/diff.json")
file(READ "${WORK}/diff.json" diff)
string(JSON caches GET "${diff}" sessions 0 compiles_changed 0 caches_b)
if(NOT caches STREQUAL "aotautograd miss, fx_graph hit, inductor hit")
  message(FATAL_ERROR "caches of the warm run: ${caches}")
endif()
string(JSON produced GET "${diff}" produced_by)
if(NOT produced MATCHES "^cwb [0-9.]+ diff ")
  message(FATAL_ERROR "produced_by: ${produced}")
endif()

# The compile-time events of two ranks as a chrome trace: a process per rank.
run_cwb(report "${insights}/ddp_gloo_2ranks" --format perfetto -o "${WORK}/ranks.json")
file(READ "${WORK}/ranks.json" perfetto)
string(JSON first_name GET "${perfetto}" traceEvents 0 args name)
if(NOT first_name STREQUAL "rank 0")
  message(FATAL_ERROR "first process of the perfetto trace: ${first_name}")
endif()

# The profile.json beside the log is found and joined: 4 compiled frames ran.
run_cwb(runtime "${insights}/breaks_profile" --format json)
string(JSON frames LENGTH "${last_output}" compiled_frames)
string(JSON fixes LENGTH "${last_output}" fix_first)
if(NOT frames EQUAL 4 OR fixes LESS 4)
  message(FATAL_ERROR "runtime join: ${frames} compiled frames, ${fixes} things to fix\n${last_output}")
endif()

# `cwb trace` runs a command with TORCH_TRACE set; this one writes a real log there as torch would.
file(GLOB ddp_log "${insights}/ddp_gloo_2ranks/*rank_1_*.log")
run_cwb(trace -o "${WORK}/traced" --report "${WORK}/traced.md" --format md --
        sh -c "cp '${ddp_log}' \"$TORCH_TRACE/\"")
file(READ "${WORK}/traced.md" traced)
if(NOT traced MATCHES "Made by `cwb [0-9.]+ trace sh -c" OR NOT traced MATCHES "Failures and restarts")
  message(FATAL_ERROR "cwb trace report:\n${traced}")
endif()
if(NOT EXISTS "${WORK}/traced/trace.db")
  message(FATAL_ERROR "cwb trace left no trace.db")
endif()
