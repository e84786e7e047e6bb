# The FX graph cache across runs: `cwb run PROGRAM` twice with one TORCHINDUCTOR_CACHE_DIR. The first run misses
# and writes entries under fxgraph/, the second hits every lookup the first missed and gives the same outputs; both
# traces hold the outcomes as TORCH_TRACE's fx_graph_cache_miss / _hit artifacts (the report's `caches`). With
# TORCHINDUCTOR_FX_GRAPH_CACHE=0 nothing is looked up and no cache file is written. Both runs log ir_post_fusion,
# every kernel's IR after fusion: the schedule read from the cache must print as the one the scheduler made. Run by ctest with -P;
# arguments: CWB, DATA (tests/data), PROGRAM (examples/18_softmax.py), WORK.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run_program name cache_dir)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TORCHINDUCTOR_CACHE_DIR=${cache_dir} TORCH_LOGS=ir_post_fusion ${ARGN}
                          "${CWB}" run "${DATA}/${PROGRAM}" --outputs "${WORK}/${name}.json" --trace "${WORK}/${name}.db"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cwb run ${PROGRAM} (${name}) exited ${rc}\n${out}\n${err}")
  endif()
  execute_process(COMMAND "${CWB}" report "${WORK}/${name}.db" --format json -o "${WORK}/${name}_report.json"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE report_out ERROR_VARIABLE report_err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cwb report (${name}) exited ${rc}\n${report_out}\n${report_err}")
  endif()
  set(${name}_log "${err}" PARENT_SCOPE)
  file(READ "${WORK}/${name}_report.json" report)
  # Cache outcomes of the report's compiles: {"cache": "fx_graph", "result": "hit", ...}.
  string(REGEX MATCHALL "\"cache\":[ \n]*\"fx_graph\",[ \n]*\"result\":[ \n]*\"[a-z]+\"" outcomes "${report}")
  set(${name}_outcomes "${outcomes}" PARENT_SCOPE)
endfunction()

function(count_matching list pattern out)
  set(n 0)
  foreach(item ${list})
    if(item MATCHES "${pattern}")
      math(EXPR n "${n} + 1")
    endif()
  endforeach()
  set(${out} ${n} PARENT_SCOPE)
endfunction()

run_program(first "${WORK}/cache")
file(GLOB entries "${WORK}/cache/fxgraph/*.fxgraph")
list(LENGTH entries entry_count)
count_matching("${first_outcomes}" "miss" first_misses)
count_matching("${first_outcomes}" "hit" first_hits)
if(first_misses EQUAL 0 OR NOT first_hits EQUAL 0 OR NOT entry_count EQUAL first_misses)
  message(FATAL_ERROR "first run: ${first_misses} misses, ${first_hits} hits, ${entry_count} entries written "
                      "(expected misses only, one entry each)\n${first_outcomes}")
endif()

run_program(second "${WORK}/cache")
count_matching("${second_outcomes}" "hit" second_hits)
count_matching("${second_outcomes}" "miss" second_misses)
if(NOT second_hits EQUAL first_misses OR NOT second_misses EQUAL 0)
  message(FATAL_ERROR "second run: ${second_hits} hits and ${second_misses} misses, expected ${first_misses} hits\n${second_outcomes}")
endif()
if(NOT first_log STREQUAL second_log)
  file(WRITE "${WORK}/first_ir_post_fusion.txt" "${first_log}")
  file(WRITE "${WORK}/second_ir_post_fusion.txt" "${second_log}")
  message(FATAL_ERROR "the kernels read from the cache differ from those the scheduler made (see ${WORK}/*_ir_post_fusion.txt)")
endif()
file(READ "${WORK}/first.json" first_outputs)
file(READ "${WORK}/second.json" second_outputs)
if(NOT first_outputs STREQUAL second_outputs)
  message(FATAL_ERROR "outputs differ between the run that compiled and the run that read the cache")
endif()

run_program(disabled "${WORK}/cache_off" TORCHINDUCTOR_FX_GRAPH_CACHE=0)
if(EXISTS "${WORK}/cache_off")
  message(FATAL_ERROR "TORCHINDUCTOR_FX_GRAPH_CACHE=0 wrote ${WORK}/cache_off")
endif()
if(NOT disabled_outcomes STREQUAL "")
  message(FATAL_ERROR "TORCHINDUCTOR_FX_GRAPH_CACHE=0 still looked up the cache: ${disabled_outcomes}")
endif()
file(READ "${WORK}/disabled.json" disabled_outputs)
if(NOT first_outputs STREQUAL disabled_outputs)
  message(FATAL_ERROR "outputs differ with the cache off")
endif()
