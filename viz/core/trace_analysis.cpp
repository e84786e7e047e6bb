// Builds the per-trace precomputation the views read every frame (see trace_analysis.h).
#include "core/trace_analysis.h"

namespace viz {

std::string sessionLabel(const traces::Session& session) {
    std::string name = session.sourceFile.empty() ? "session " + std::to_string(session.id) : session.sourceFile;
    if (session.rank) return "rank " + std::to_string(*session.rank) + " \xC2\xB7 " + name;
    return name;
}

TraceAnalysis::TraceAnalysis(std::shared_ptr<const traces::TraceData> trace)
    : trace_(std::move(trace)), index_(*trace_) {
    for (const traces::Graph& graph : trace_->graphs) graphs_[graph.id] = &graph;
    for (const traces::OutputCode& code : trace_->outputCode) {
        outputCode_[code.id] = &code;
        for (const traces::Kernel& kernel : code.kernels) kernels_[kernel.id] = {&code, &kernel};
    }
    for (const traces::Session& session : trace_->sessions) {
        auto analysis = std::make_unique<SessionAnalysis>();
        analysis->session = &session;
        analysis->label = sessionLabel(session);
        analysis->summary = traces::summarizeSession(index_, session);
        analysis->sites = buildSiteTrie(index_, session.id);
        analysis->functions = buildFunctionHistories(index_, analysis->summary, session.id);
        analysis->breaks = groupBreaks(analysis->summary);
        analysis->metrics = buildSessionMetrics(index_, analysis->summary, session.id, analysis->sites.root().counts);
        sessions_.push_back(std::move(analysis));
    }
}

const SessionAnalysis* TraceAnalysis::session(traces::RowId sessionId) const {
    for (const auto& analysis : sessions_)
        if (analysis->session->id == sessionId) return analysis.get();
    return nullptr;
}

const traces::Graph* TraceAnalysis::graph(traces::RowId graphId) const {
    auto it = graphs_.find(graphId);
    return it == graphs_.end() ? nullptr : it->second;
}

const traces::OutputCode* TraceAnalysis::outputCode(traces::RowId outputCodeId) const {
    auto it = outputCode_.find(outputCodeId);
    return it == outputCode_.end() ? nullptr : it->second;
}

KernelRef TraceAnalysis::kernel(traces::RowId kernelId) const {
    auto it = kernels_.find(kernelId);
    return it == kernels_.end() ? KernelRef{} : it->second;
}

const traces::Compile* TraceAnalysis::findCompile(const traces::CompileKey& key, traces::RowId sessionId) const {
    for (const traces::Compile& compile : trace_->compiles) {
        if (sessionId != 0 && compile.sessionId != sessionId) continue;
        if (compile.key == key) return &compile;
    }
    return nullptr;
}

}  // namespace viz
