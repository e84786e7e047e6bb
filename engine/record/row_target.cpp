// TraceDataTarget (see row_target.h): the in-memory twin of a trace file, for counting a run without one.
#include "record/row_target.h"

namespace eng::record {
namespace {

/// Appends `row` to `rows` with the next id (ids start at 1, as SQLite's would) and returns that id.
template <typename Row>
RowId append(std::vector<Row>& rows, const Row& row) {
    rows.push_back(row);
    rows.back().id = static_cast<RowId>(rows.size());
    return rows.back().id;
}

}  // namespace

RowId TraceDataTarget::addSession(const traces::Session& session) { return append(data_.sessions, session); }

void TraceDataTarget::updateSession(const traces::Session& session) {
    for (traces::Session& row : data_.sessions)
        if (row.id == session.id) row = session;
}

RowId TraceDataTarget::addCompileSite(const traces::CompileSite& site) { return append(data_.sites, site); }

RowId TraceDataTarget::addCompile(const traces::Compile& compile) {
    RowId id = append(data_.compiles, compile);
    compilePositions_[id] = data_.compiles.size() - 1;
    return id;
}

void TraceDataTarget::updateCompile(const traces::Compile& compile) {
    auto it = compilePositions_.find(compile.id);
    if (it == compilePositions_.end()) return;
    traces::Compile& row = data_.compiles[it->second];
    std::string keptMetrics = compile.metricsJson.empty() ? row.metricsJson : compile.metricsJson;
    row = compile;
    row.metricsJson = std::move(keptMetrics);
}

RowId TraceDataTarget::addGraph(const traces::Graph& graph) { return append(data_.graphs, graph); }

void TraceDataTarget::addGuards(RowId compileId, const std::vector<traces::Guard>& guards) {
    for (traces::Guard guard : guards) {
        guard.compileId = compileId;
        append(data_.guards, guard);
    }
}

void TraceDataTarget::addGuardFailures(RowId compileId, const std::vector<traces::GuardFailure>& failures) {
    for (traces::GuardFailure failure : failures) {
        failure.compileId = compileId;
        append(data_.guardFailures, failure);
    }
}

RowId TraceDataTarget::addGraphBreak(const traces::GraphBreak& graphBreak) {
    return append(data_.graphBreaks, graphBreak);
}

RowId TraceDataTarget::addOutputCode(const traces::OutputCode& code) { return append(data_.outputCode, code); }

RowId TraceDataTarget::addArtifact(const traces::Artifact& artifact) { return append(data_.artifacts, artifact); }

}  // namespace eng::record
