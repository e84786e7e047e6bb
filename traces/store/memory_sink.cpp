// MemorySink (see memory_sink.h): the in-memory twin of a trace file.
#include "store/memory_sink.h"

#include <string>

#include "store/model_payloads.h"

namespace traces {
namespace {

/// Appends `row` to `rows` with the next id (ids start at 1, as SQLite's would) and returns that id.
template <typename Row>
RowId append(std::vector<Row>& rows, Row row) {
    row.id = static_cast<RowId>(rows.size()) + 1;
    rows.push_back(std::move(row));
    return rows.back().id;
}

/// The row append() gave this id (ids are positions + 1, as a fresh table's rowids), or null.
template <typename Row>
Row* rowWithId(std::vector<Row>& rows, RowId id) {
    if (id < 1 || static_cast<size_t>(id) > rows.size()) return nullptr;
    return &rows[static_cast<size_t>(id) - 1];
}

}  // namespace

RowId MemorySink::addSession(const Session& session) { return append(data_.sessions, session); }

void MemorySink::updateSession(const Session& session) {
    if (Session* row = rowWithId(data_.sessions, session.id)) *row = session;
}

void MemorySink::addImportIssue(const ImportIssue& issue) { data_.issues.push_back(issue); }

void MemorySink::addInternedString(RowId sessionId, int64_t index, std::string_view text) {
    std::vector<std::string>& strings = data_.internedStrings[sessionId];
    auto position = static_cast<size_t>(index);
    if (strings.size() <= position) strings.resize(position + 1);
    strings[position] = std::string(text);
}

RowId MemorySink::addCompileSite(const CompileSite& site) { return append(data_.sites, site); }

RowId MemorySink::addCompile(const Compile& compile) { return append(data_.compiles, compile); }

void MemorySink::updateCompile(const Compile& compile) {
    Compile* row = rowWithId(data_.compiles, compile.id);
    if (!row) return;
    std::string keptMetrics = compile.metricsJson.empty() ? std::move(row->metricsJson) : compile.metricsJson;
    *row = compile;
    row->metricsJson = std::move(keptMetrics);
}

RowId MemorySink::addGraph(const Graph& graph) { return append(data_.graphs, graph); }

void MemorySink::addGuards(RowId compileId, const std::vector<Guard>& guards) {
    for (Guard guard : guards) {
        guard.compileId = compileId;
        append(data_.guards, std::move(guard));
    }
}

void MemorySink::addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) {
    for (GuardFailure failure : failures) {
        failure.compileId = compileId;
        append(data_.guardFailures, std::move(failure));
    }
}

RowId MemorySink::addGraphBreak(const GraphBreak& graphBreak) { return append(data_.graphBreaks, graphBreak); }

RowId MemorySink::addOutputCode(const OutputCode& code) {
    RowId id = append(data_.outputCode, code);
    for (Kernel& kernel : data_.outputCode.back().kernels) {
        kernel.id = nextKernelId_++;
        kernel.outputCodeId = id;
        kernel.compileId = code.compileId;
    }
    return id;
}

RowId MemorySink::addArtifact(const Artifact& artifact, std::string_view) {
    Artifact row = artifact;
    if (payloads_ == Payloads::ModelOnly) row.payload = modelPayload(row.name, std::move(row.payload));
    return append(data_.artifacts, std::move(row));
}

RowId MemorySink::addSpan(const Span& span) { return append(data_.spans, span); }

RowId MemorySink::addRecordWithoutCompileId(const RecordWithoutCompileId& record) {
    return append(data_.recordsWithoutCompileId, record);
}

}  // namespace traces
