// Explain-style summary of one session of a trace: the counts torch._dynamo.explain and tlparse show, break
// reasons de-duplicated, recompiles per function in Dynamo's own wording, and compile time per phase.
#pragma once

#include "model/trace_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace traces {

class TraceIndex;

/// The six fixed counts of a session (the JSON report's `summary` object).
struct SummaryCounts {
    int64_t compiles = 0;        ///< Compile rows opened by dynamo_start (started == true)
    int64_t graphs = 0;          ///< Graph rows of kind Dynamo (dynamo_output_graph records)
    int64_t graphBreaks = 0;     ///< GraphBreak rows with origin "artifact" (dynamo_graph_break_reason)
    int64_t recompiles = 0;      ///< occurrences of compile ids above 0 (started or refused by the limit)
    int64_t failedCompiles = 0;  ///< Compile rows with a non-empty failType
    int64_t outputCode = 0;      ///< generated output code: "inductor_output_code" rows and cwb's inductor wrappers
};

/// A Compile row named the way reports link to it.
struct CompileRef {
    RowId compileId = 0;
    std::string display;  ///< "[0/1]"
};

/// Graph breaks that share a dedupKey, with the first one's details.
struct BreakReasonSummary {
    std::string dedupKey;
    std::string origin;      ///< "artifact", or "restart" when the session had no artifact breaks
    std::string breakType;
    std::string reason;
    std::string userFile;
    int userLine = 0;
    std::string userSource;  ///< source text of the innermost user frame, when the log had it
    Stack userStack;
    int64_t count = 0;
    std::vector<CompileRef> compiles;  ///< distinct compiles involved, in first-seen order
    std::vector<RowId> graphBreakIds;  ///< every GraphBreak row folded into this entry
};

/// One guard failure that triggered a recompile: `failedCompile` is the cache entry ("0/0") that rejected.
struct GuardFailureText {
    std::string failedCompile;
    std::string reason;
};

struct RecompileEvent {
    CompileRef compile;
    std::vector<GuardFailureText> guardFailures;  ///< in logged order (newest cache entry first)
    std::string message;  ///< Dynamo's "Recompiling function ..." block, exactly as it logs it
};

/// Dynamo's recompile limit as it applies to one function.
struct RecompileLimitStatus {
    std::string limitType = "recompile_limit";  ///< or the pre-rename "cache_size_limit"
    int64_t limit = 8;
    bool reached = false;  ///< the function has `limit` or more cache entries
    bool hit = false;      ///< the log shows a compile that was refused for hitting the limit
    std::string warning;   ///< Dynamo's "torch._dynamo hit config..." warning; only when `hit`
};

/// One function (code object: session + autograd id + frame id) that Dynamo compiled more than once.
struct FunctionRecompiles {
    std::string function;
    std::string file;
    int firstLine = 0;
    std::optional<int> autogradId;
    std::optional<int> frameId;
    int64_t compileCount = 0;  ///< started compiles of this function, the first one included
    std::vector<RecompileEvent> recompiles;
    std::optional<RecompileLimitStatus> recompileLimit;  ///< set once compileCount reaches the limit
};

struct CompilePhaseTimes {
    CompileRef compile;
    std::vector<PhaseTime> phases;
};

struct SessionSummary {
    RowId sessionId = 0;
    SummaryCounts counts;
    /// Graphs Dynamo kept, as PyTorch's counters["stats"]["unique_graphs"]: the Dynamo graph of each compile's
    /// last attempt, failed compiles excluded (a restart or a failing backend still logs the graph).
    int64_t uniqueGraphs = 0;
    /// Ops in Dynamo graphs: the compile's graph_op_count (Dynamo's count of call_function, call_method and
    /// call_module nodes) when recorded, else the graph's call_* nodes counted. explain()'s op_count counts
    /// call_function nodes only, so it can be smaller.
    int64_t ops = 0;
    int64_t opsGraphsFromMetrics = 0;  ///< Dynamo graphs whose ops came from graph_op_count
    int64_t opsGraphsFromNodes = 0;    ///< Dynamo graphs whose ops were counted from their nodes
    std::vector<BreakReasonSummary> breakReasons;
    bool breakReasonsFromRestarts = false;  ///< old log: the list was built from restart_reasons rows
    std::vector<FunctionRecompiles> recompiledFunctions;
    std::vector<PhaseTime> phaseTotals;  ///< summed by phase name over the session, first-seen order
    std::vector<CompilePhaseTimes> compilePhases;  ///< compiles that recorded any phase, input order
};

/// Whether Dynamo counts this reported break in counters["graph_break"]: every break it reported, except one at a
/// data-dependent jump (`if tensor:`), which Dynamo logs but counts under counters["unimplemented"] only (its
/// Unsupported never passes through the CALL handlers' break_graph_if_unsupported, which moves the count).
bool countedAsGraphBreak(const GraphBreak& graphBreak);
/// An occurrence of a compile id above 0, started or not (a call the recompile limit refused is one too).
bool isRecompile(const TraceIndex& index, const Compile& compile);
SessionSummary summarizeSession(const TraceIndex& index, const Session& session);
std::vector<SessionSummary> summarizeTrace(const TraceData& trace);

/// Dynamo's recompile log block (torch/_dynamo/guards.py): a header line, then every non-blank line of the
/// failures prefixed "    - ", so multi-line reasons (with "User stack trace:") keep Dynamo's shape.
std::string formatRecompileMessage(const std::string& function, const std::string& file, int firstLine,
                                   const std::vector<GuardFailureText>& failures);

/// Dynamo's recompile-limit warning (torch/_dynamo/convert_frame.py); `lastReason` is "0/0: ..." or empty.
std::string formatRecompileLimitWarning(const std::string& limitType, int64_t limit, const std::string& function,
                                        const std::string& file, int firstLine, const std::string& lastReason);

}  // namespace traces
