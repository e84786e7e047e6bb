# `cwb run PROGRAM --stats --trace` on one example program: the stats must equal real torch 2.11's counters for
# the same program, break reasons included word for word (SET/expected_stats.json; object addresses such as
# `<function f at 0x7f...>` differ from run to run and are compared as `0x?`), and `cwb report` of the trace must
# agree with them. Run by ctest with -P; arguments: CWB, DATA (tests/data), SET (examples, capture_programs),
# PROGRAM (e.g. 03_break_print.py), WORK.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND "${CWB}" run "${DATA}/${SET}/${PROGRAM}" --stats "${WORK}/stats.json"
                        --trace "${WORK}/trace.db"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cwb run ${PROGRAM} exited ${rc}\n${out}\n${err}")
endif()
execute_process(COMMAND "${CWB}" report "${WORK}/trace.db" --format json -o "${WORK}/report.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cwb report exited ${rc}\n${out}\n${err}")
endif()

file(READ "${WORK}/stats.json" stats)
file(READ "${DATA}/${SET}/expected_stats.json" expected_all)
string(JSON expected GET "${expected_all}" programs "${PROGRAM}")
file(READ "${WORK}/report.json" report)

set(problems "")
foreach(count unique_graphs graph_breaks recompiles)
  string(JSON ours GET "${stats}" ${count})
  string(JSON theirs GET "${expected}" ${count})
  if(NOT ours EQUAL theirs)
    string(APPEND problems "${count}: cwb ${ours}, torch ${theirs}\n")
  endif()
endforeach()

# Reasons must be counters["graph_break"]'s own keys (Dynamo's whole message), each with the same count.
string(JSON our_reason_count LENGTH "${stats}" graph_break_reasons)
string(JSON their_reason_count LENGTH "${expected}" graph_break_reasons)
if(NOT our_reason_count EQUAL their_reason_count)
  string(APPEND problems "graph_break_reasons: cwb has ${our_reason_count} reasons, torch ${their_reason_count}\n")
endif()
# "count: reason" lines with addresses masked, sorted, for each side.
function(reason_lines json out)
  set(lines "")
  string(JSON n LENGTH "${json}" graph_break_reasons)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON reason MEMBER "${json}" graph_break_reasons ${i})
      string(JSON count GET "${json}" graph_break_reasons "${reason}")
      string(REGEX REPLACE "0x[0-9a-f]+" "0x?" masked "${reason}")
      string(REPLACE ";" "," masked "${masked}")
      list(APPEND lines "${count}: ${masked}")
    endforeach()
  endif()
  list(SORT lines)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
reason_lines("${stats}" our_reasons)
reason_lines("${expected}" their_reasons)
if(NOT our_reasons STREQUAL their_reasons)
  string(APPEND problems "graph break reasons differ:\ncwb:   ${our_reasons}\ntorch: ${their_reasons}\n")
endif()

# The report's summary of the recorded trace counts the same breaks as --stats, and the same recompiles plus
# the calls the recompile limit refused (it counts their "Recompiling function" messages; --stats counts
# compile ids, which refused calls do not get).
string(JSON ours GET "${stats}" graph_breaks)
string(JSON reported GET "${report}" sessions 0 summary graph_breaks)
if(NOT ours EQUAL reported)
  string(APPEND problems "report summary graph_breaks ${reported} != stats ${ours}\n")
endif()
string(JSON ours GET "${stats}" recompiles)
string(JSON reported GET "${report}" sessions 0 summary recompiles)
string(REGEX MATCHALL "\"hit\": *true" refusals "${report}")
list(LENGTH refusals refused)
math(EXPR reported_compiled "${reported} - ${refused}")
if(NOT ours EQUAL reported_compiled)
  string(APPEND problems "report summary recompiles ${reported} (${refused} refused) != stats ${ours}\n")
endif()
string(JSON kind GET "${report}" sessions 0 kind)
if(NOT kind STREQUAL "engine_run")
  string(APPEND problems "session kind ${kind}, expected engine_run\n")
endif()

if(problems)
  message(FATAL_ERROR "${PROGRAM}:\n${problems}")
endif()
