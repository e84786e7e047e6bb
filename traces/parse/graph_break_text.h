// Parsers for Dynamo's graph-break reports: the dynamo_graph_break_reason artifact and the free-text
// restart reasons of compilation_metrics.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/trace_model.h"

namespace traces {

struct ParsedGraphBreak {
    std::string reason;     ///< the Graph Break Reason text, all its lines, trailing blank lines dropped
    std::string breakType;  ///< the reason's headline ("Failed to trace builtin operator")
    std::string userFile;   ///< where the break happened in user code (the header, else the innermost frame)
    int userLine = 0;
    Stack userStack;        ///< "User code traceback:" frames, outermost first; torch/_dynamo frames dropped
};

/// Reads the artifact payload:
///   Graph break in user code at {file}:{line}            (or "Graph break (user stack suppressed due to
///   Graph Break Reason: {reason, possibly many lines}      duplicate graph break) in user code at ...")
///   User code traceback:
///     File "{file}", line {n}, in {fn}
///       {source line}
/// followed by an internal "Traceback (most recent call last):" section that is ignored. Text without the
/// header is taken as a bare reason. Never throws.
ParsedGraphBreak parseGraphBreakText(std::string_view text);

/// A compilation_metrics restart_reasons entry; fills reason (outer quotes removed) and breakType only.
ParsedGraphBreak parseRestartReason(std::string_view text);

/// The headline of a reason: the graph-break type line of current PyTorch (after the "Encountered graph
/// break when attempting to trace ..." preface), "skip function graph_break" for "'skip function
/// graph_break in file ...'", "X" for "<class '...X'>", otherwise the first line.
std::string graphBreakType(std::string_view reason);

/// The key PyTorch counts the break under in counters["graph_break"]: the reason without the leading
/// "Encountered graph break when attempting to trace ...:" paragraph, trailing blank lines dropped.
std::string graphBreakCounterKey(std::string_view reason);

/// breakType + "@" + file + ":" + line of the innermost user frame; the same break met again (a loop, a
/// recompile) gets the same key.
std::string graphBreakDedupKey(const ParsedGraphBreak& graphBreak);

/// One `  File "x.py", line 7, in f` line of a Python traceback; nullopt for anything else.
std::optional<Frame> parseTracebackFileLine(std::string_view line);

}  // namespace traces
