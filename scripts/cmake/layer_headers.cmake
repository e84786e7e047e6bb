# Per-library include roots: a library sees the headers of its own folders and of the libraries it links, nothing
# else. Its root is a folder of the build tree with one link per folder (or header) it owns, named as the sources
# include it (`capture -> engine/capture`), so `#include "capture/tracer.h"` keeps its spelling and an include of a
# layer the library does not link fails to compile.
#
#   cwb_layer_headers(TARGET cwb_engine_capture BASE ${CMAKE_CURRENT_SOURCE_DIR} PATHS capture)
function(cwb_layer_headers)
  cmake_parse_arguments(arg "" "TARGET;BASE" "PATHS" ${ARGN})
  if(NOT arg_BASE)
    set(arg_BASE ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(root ${CMAKE_BINARY_DIR}/include_roots/${arg_TARGET})
  foreach(path ${arg_PATHS})
    if(NOT EXISTS ${arg_BASE}/${path})
      message(FATAL_ERROR "cwb_layer_headers(${arg_TARGET}): ${arg_BASE}/${path} does not exist")
    endif()
    get_filename_component(parent ${root}/${path} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${arg_BASE}/${path} ${root}/${path} SYMBOLIC)
  endforeach()
  get_target_property(type ${arg_TARGET} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${arg_TARGET} INTERFACE ${root})
  elseif(type STREQUAL "EXECUTABLE")
    target_include_directories(${arg_TARGET} PRIVATE ${root})
  else()
    target_include_directories(${arg_TARGET} PUBLIC ${root})
  endif()
endfunction()
