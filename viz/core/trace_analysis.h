// Everything the workbench's views precompute from one loaded trace, built once (on the loading thread)
// right after the trace loads: index, summaries, site trees, recompile histories, break groups, metrics.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/break_groups.h"
#include "core/compile_metrics.h"
#include "core/recompile_stepper.h"
#include "core/selection_links.h"
#include "core/site_trie.h"
#include "report/summary.h"
#include "report/trace_index.h"

namespace viz {

struct SessionAnalysis {
    const traces::Session* session = nullptr;
    std::string label;  ///< "rank 0 · dedicated_log_torch_trace_rank_0.log"
    traces::SessionSummary summary;
    SiteTrie sites;
    std::vector<FunctionHistory> functions;
    std::vector<BreakGroup> breaks;
    SessionMetrics metrics;
};

class TraceAnalysis {
public:
    explicit TraceAnalysis(std::shared_ptr<const traces::TraceData> trace);
    TraceAnalysis(const TraceAnalysis&) = delete;
    TraceAnalysis& operator=(const TraceAnalysis&) = delete;

    const traces::TraceData& trace() const { return *trace_; }
    const traces::TraceIndex& index() const { return index_; }
    const std::vector<std::unique_ptr<SessionAnalysis>>& sessions() const { return sessions_; }
    const SessionAnalysis* session(traces::RowId sessionId) const;

    const traces::Compile* compile(traces::RowId compileId) const { return index_.compileById(compileId); }
    const traces::Graph* graph(traces::RowId graphId) const;
    const traces::OutputCode* outputCode(traces::RowId outputCodeId) const;
    KernelRef kernel(traces::RowId kernelId) const;

    /// The compile a user means by "0/1" or "[0/1]": the first occurrence in `sessionId` (any session if 0).
    const traces::Compile* findCompile(const traces::CompileKey& key, traces::RowId sessionId = 0) const;

private:
    std::shared_ptr<const traces::TraceData> trace_;
    traces::TraceIndex index_;
    std::vector<std::unique_ptr<SessionAnalysis>> sessions_;
    std::unordered_map<traces::RowId, const traces::Graph*> graphs_;
    std::unordered_map<traces::RowId, const traces::OutputCode*> outputCode_;
    std::unordered_map<traces::RowId, KernelRef> kernels_;
};

/// "rank 0 · file.log", or just the file name when the session has no rank.
std::string sessionLabel(const traces::Session& session);

}  // namespace viz
