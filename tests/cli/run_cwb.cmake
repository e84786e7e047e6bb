# run_cwb(ARGS...): runs the cwb binary under test (-DCWB=...) and fails the test with its output unless it
# exits 0; its standard output is left in `last_output`. Included by the cli_*_test.cmake scripts.
function(run_cwb)
  execute_process(COMMAND "${CWB}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cwb ${ARGN} exited ${rc}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
