// Builds the metrics view's per-compile phase bars and per-session counts (see compile_metrics.h).
#include "core/compile_metrics.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

#include "report/trace_index.h"

namespace viz {
namespace {

// Dynamo's phases that strictly contain each other, outermost first (torch/_dynamo/utils.py's timers).
constexpr std::array<std::string_view, 4> kNestedPhases = {"entire_frame_compile", "backend_compile",
                                                           "inductor_compile", "code_gen"};

CompileTiming timingOf(const traces::TraceIndex& index, const traces::Compile& compile) {
    CompileTiming timing;
    timing.compileId = compile.id;
    timing.display = compile.key.display();
    timing.function = compile.function;
    timing.state = compileStateOf(index, *index.occurrenceHead(compile));
    for (const traces::PhaseTime& phase : compile.phases) {
        if (isCumulativePhase(phase.phase)) continue;
        timing.totalSeconds = std::max(timing.totalSeconds, phase.seconds);
        auto nested = std::find(kNestedPhases.begin(), kNestedPhases.end(), phase.phase);
        if (nested == kNestedPhases.end()) {
            timing.details.push_back(phase);
            continue;
        }
        timing.nested.push_back({phase.phase, phase.seconds, static_cast<int>(nested - kNestedPhases.begin())});
    }
    std::stable_sort(timing.nested.begin(), timing.nested.end(),
                     [](const PhaseBar& a, const PhaseBar& b) { return a.depth < b.depth; });
    // Depths are positions among the phases present, so a compile without backend_compile still nests tightly.
    for (size_t i = 0; i < timing.nested.size(); ++i) timing.nested[i].depth = static_cast<int>(i);
    if (!timing.nested.empty() && timing.nested.front().phase == kNestedPhases.front())
        timing.totalSeconds = timing.nested.front().seconds;
    return timing;
}

}  // namespace

bool isCumulativePhase(std::string_view phase) { return phase.ends_with("_cumulative_compile"); }

SessionMetrics buildSessionMetrics(const traces::TraceIndex& index, const traces::SessionSummary& summary,
                                   traces::RowId sessionId, const StateCounts& states) {
    SessionMetrics metrics;
    metrics.counts = summary.counts;
    metrics.uniqueGraphs = summary.uniqueGraphs;
    metrics.ops = summary.ops;
    metrics.states = states;
    metrics.recompiledFunctions = static_cast<int>(summary.recompiledFunctions.size());
    metrics.breakReasons = static_cast<int>(summary.breakReasons.size());
    for (const traces::PhaseTime& total : summary.phaseTotals)
        if (!isCumulativePhase(total.phase)) metrics.phaseTotals.push_back(total);

    const traces::SessionRows& rows = index.session(sessionId);
    // A compile refused before dynamo_start has no name of its own; its frame's other compiles do.
    std::map<std::tuple<std::optional<int>, std::optional<int>>, std::string> functionOfFrame;
    for (const traces::Compile* compile : rows.compiles)
        if (!compile->function.empty())
            functionOfFrame.try_emplace({compile->key.autogradId, compile->key.frameId}, compile->function);
    for (const traces::Compile* compile : rows.compiles) {
        if (compile->phases.empty()) continue;
        CompileTiming timing = timingOf(index, *compile);
        if (timing.function.empty()) {
            auto named = functionOfFrame.find({compile->key.autogradId, compile->key.frameId});
            if (named != functionOfFrame.end()) timing.function = named->second;
        }
        metrics.maxTotalSeconds = std::max(metrics.maxTotalSeconds, timing.totalSeconds);
        metrics.sumTotalSeconds += timing.totalSeconds;
        metrics.compiles.push_back(std::move(timing));
    }
    std::set<std::tuple<std::optional<int>, std::optional<int>>> functions;
    for (const traces::Compile* compile : rows.compiles) functions.insert({compile->key.autogradId, compile->key.frameId});
    metrics.functions = static_cast<int>(functions.size());
    for (const traces::OutputCode* code : rows.outputCode) metrics.kernels += static_cast<int>(code->kernels.size());
    return metrics;
}

}  // namespace viz
