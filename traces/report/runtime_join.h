// Runtime join: a torch.profiler chrome trace read beside a compile trace. Its "Torch-Compiled Region: F/C"
// events become hit counts and time per compiled frame, the gaps between consecutive regions become eager
// time at each break, and breaks and recompiles are ranked by what they cost, with a concrete remedy.
#pragma once

#include "model/trace_model.h"
#include "report/report.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace traces {

/// The regions of one compiled frame, as PyTorch names them ("0/1": frame 0, its second compile). A region
/// spans the whole call of the frame: its graph ("## Call CompiledFxGraph"), and after a graph break the eager
/// code and the resume functions' own regions, nested in it.
struct CompiledFrameRuntime {
    std::string compileId;
    std::string function;  ///< from the trace's compile of that id, "" when the trace has none
    int64_t hits = 0;
    double totalUs = 0;  ///< the regions' durations, nested regions included
    double eagerUs = 0;  ///< outside the frame's own graph calls, nested regions and compiling: eager at its break
    double compileUs = 0;  ///< compiling inside it (a recompile of a function its eager code called, autotuning)
};

/// Time between the end of one top-level compiled region and the start of the next on the same thread.
struct EagerGap {
    std::string after, before;  ///< compile ids of the regions around the gap
    int64_t count = 0;
    double totalUs = 0;    ///< eager: the gaps less the compiling in them
    double compileUs = 0;  ///< compiling in the gaps (a backward compiled lazily, a compile before the next region)
};

/// One thing to fix, ranked by `costUs` (runtime with a profile, else compile time).
struct FixFirstItem {
    std::string kind;     ///< "graph_break" or "recompile"
    std::string what;     ///< break type at file:line, or the recompiled function
    std::string compileIds;  ///< the compile ids involved, "0/0, 1/0"
    double costUs = 0;
    std::string costBasis;  ///< "eager time after the break (profile)" or "compile time"
    std::string remedy;
};

struct RuntimeJoin {
    std::string session;      ///< the session's title ("rank 1 · dedicated_log_..._rank_1.log")
    std::optional<int> rank;
    std::string profilePath;  ///< "" when no profile was given
    std::vector<CompiledFrameRuntime> frames;  ///< by total time, longest first
    std::vector<EagerGap> gaps;                ///< between top-level regions, by total time, longest first
    std::vector<FixFirstItem> fixFirst;        ///< costliest first
};

/// Joins the profile at `profilePath` (empty: rank by compile time only) with one session of `trace` (the first
/// when `sessionId` is 0). Throws std::runtime_error naming the file when the profile cannot be read.
RuntimeJoin joinRuntime(const TraceData& trace, const std::string& profilePath, RowId sessionId = 0);

/// The remedy for a graph break type or a recompile's guard failure, in PyTorch's own terms.
std::string remedyForBreak(const std::string& breakType, const std::string& reason);
std::string remedyForRecompile(const std::string& guardFailure);

/// One join per session (per rank of a distributed run), each with its own profile. JSON: the first session's
/// join at the top level (as for one session) and every session's under `sessions`; Markdown: a part per session.
void writeRuntimeJoins(const std::vector<RuntimeJoin>& joins, ReportFormat format, const std::string& producedBy,
                       std::ostream& out);
void writeRuntimeJoin(const RuntimeJoin& join, ReportFormat format, const std::string& producedBy, std::ostream& out);

}  // namespace traces
