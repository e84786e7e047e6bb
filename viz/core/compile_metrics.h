// Numbers for the metrics view: compile time per phase for each compile (nested phases as bars) and the
// counts of each session, computed once per trace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/compile_state.h"
#include "report/summary.h"

namespace traces {
class TraceIndex;
}

namespace viz {

/// One bar of a compile's timing: phases that contain each other get increasing depth.
struct PhaseBar {
    std::string phase;
    double seconds = 0;
    int depth = 0;
};

struct CompileTiming {
    traces::RowId compileId = 0;
    std::string display;     ///< "[0/1]" (attempts as "[0/0_1]")
    std::string function;
    CompileState state = CompileState::Unknown;
    double totalSeconds = 0;             ///< entire_frame_compile, else the longest phase
    std::vector<PhaseBar> nested;        ///< entire_frame_compile > backend_compile > inductor_compile > code_gen
    std::vector<traces::PhaseTime> details;  ///< the other phases (passes, triton_compile, gc, ...)
};

struct SessionMetrics {
    std::vector<CompileTiming> compiles;  ///< compiles that recorded phases, in input order
    double maxTotalSeconds = 0;
    double sumTotalSeconds = 0;
    std::vector<traces::PhaseTime> phaseTotals;  ///< as the summary's, the *_cumulative_compile duplicates left out
    traces::SummaryCounts counts;
    int64_t uniqueGraphs = 0;
    int64_t ops = 0;
    StateCounts states;          ///< compile ids by status
    int functions = 0;           ///< distinct functions (frame ids) compiled
    int recompiledFunctions = 0;
    int breakReasons = 0;        ///< de-duplicated
    int kernels = 0;
};

/// Dynamo logs each phase twice (e.g. "code_gen" and "inductor_code_gen_cumulative_compile"); these repeats
/// are left out of bars and totals.
bool isCumulativePhase(std::string_view phase);

/// `states` are the compile-id counts of the session's site tree (so both views count the same way).
SessionMetrics buildSessionMetrics(const traces::TraceIndex& index, const traces::SessionSummary& summary,
                                   traces::RowId sessionId, const StateCounts& states);

}  // namespace viz
