// The Graphviz C headers, marked as system headers: they trip -Wpedantic/-Wshadow warnings of their own.
// Include only from viz/layout/graphviz_layout.cpp, the one file that calls Graphviz.
#pragma once
#pragma GCC system_header

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
