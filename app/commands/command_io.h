// What the report-like commands share: opening a trace, log or log directory with a progress line, and writing
// their result to standard output or to a file with every write checked.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "model/trace_model.h"

namespace cwb {

/// Opens PATH as a trace (importing a log into a temporary trace), drawing "LABEL" progress while it imports.
traces::TraceData openTraceWithProgress(const std::string& path, const std::string& label = "importing");

/// Calls write with standard output when output is empty or "-", else with OUTPUT opened for writing; throws
/// "OUTPUT: cannot write the WHAT" or "OUTPUT: writing the WHAT failed". Returns whether a file was written.
bool writeCommandOutput(const std::string& output, const std::string& what,
                        const std::function<void(std::ostream&)>& write);

}  // namespace cwb
