# `cwb run PROGRAM --stats --trace` on one example program: the stats must equal real torch 2.11's counters for
# the same program, break reasons included word for word (tests/data/examples/expected_stats.json), and `cwb report` of the trace must agree with them.
# Run by ctest with -P; arguments: CWB, DATA (tests/data), PROGRAM (e.g. 03_break_print.py), WORK.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND "${CWB}" run "${DATA}/examples/${PROGRAM}" --stats "${WORK}/stats.json"
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
file(READ "${DATA}/examples/expected_stats.json" expected_all)
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
if(our_reason_count GREATER 0)
  math(EXPR last "${our_reason_count} - 1")
  foreach(i RANGE ${last})
    string(JSON reason MEMBER "${stats}" graph_break_reasons ${i})
    string(JSON ours GET "${stats}" graph_break_reasons "${reason}")
    string(JSON theirs ERROR_VARIABLE missing GET "${expected}" graph_break_reasons "${reason}")
    if(missing OR NOT ours EQUAL theirs)
      string(APPEND problems "graph break reason counted ${ours} time(s) by cwb, not so by torch:\n${reason}\n")
    endif()
  endforeach()
endif()

# The report's summary of the recorded trace counts the same breaks and recompiles as --stats.
foreach(count graph_breaks recompiles)
  string(JSON ours GET "${stats}" ${count})
  string(JSON reported GET "${report}" sessions 0 summary ${count})
  if(NOT ours EQUAL reported)
    string(APPEND problems "report summary ${count} ${reported} != stats ${ours}\n")
  endif()
endforeach()
string(JSON kind GET "${report}" sessions 0 kind)
if(NOT kind STREQUAL "engine_run")
  string(APPEND problems "session kind ${kind}, expected engine_run\n")
endif()

if(problems)
  message(FATAL_ERROR "${PROGRAM}:\n${problems}")
endif()
