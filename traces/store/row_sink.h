// The one row sink contract: the TORCH_TRACE importer, the compile tracker and the engine's recorders hand the rows
// of a trace to a RowSink. TraceWriter stores them in a SQLite trace file, MemorySink keeps them in a TraceData.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/trace_model.h"
#include "store/json_columns.h"

namespace traces {

/// Receives rows with their ids left 0 and hands out the ids they get (1, 2, ... per table in a new trace).
class RowSink {
public:
    virtual ~RowSink() = default;

    virtual RowId addSession(const Session& session) = 0;
    /// Rewrites the row `session.id`.
    virtual void updateSession(const Session& session) = 0;
    virtual void addImportIssue(const ImportIssue& issue) = 0;
    virtual void addInternedString(RowId sessionId, int64_t index, std::string_view text) = 0;

    virtual RowId addCompileSite(const CompileSite& site) = 0;
    virtual RowId addCompile(const Compile& compile) = 0;
    /// Rewrites the columns and phase times of the row `compile.id`; an empty `metricsJson` keeps the stored one,
    /// so callers need not keep the large metrics text around.
    virtual void updateCompile(const Compile& compile) = 0;

    virtual RowId addGraph(const Graph& graph) = 0;
    virtual void addGuards(RowId compileId, const std::vector<Guard>& guards) = 0;
    virtual void addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) = 0;
    virtual RowId addGraphBreak(const GraphBreak& graphBreak) = 0;
    virtual RowId addOutputCode(const OutputCode& code) = 0;
    /// Stores the payload once per distinct content; `payloadMd5` may be passed when already known.
    virtual RowId addArtifact(const Artifact& artifact, std::string_view payloadMd5) = 0;
    RowId addArtifact(const Artifact& artifact) { return addArtifact(artifact, {}); }
    virtual RowId addSpan(const Span& span) = 0;
    virtual RowId addRecordWithoutCompileId(const RecordWithoutCompileId& record) = 0;

    /// The same, for a caller that hands its row over: a sink may then keep the row's large texts (graph text,
    /// output code, payloads, metrics) without copying them. By default they are copied like any row.
    virtual void updateCompile(Compile&& compile) { updateCompile(static_cast<const Compile&>(compile)); }
    virtual RowId addGraph(Graph&& graph) { return addGraph(static_cast<const Graph&>(graph)); }
    virtual RowId addOutputCode(OutputCode&& code) { return addOutputCode(static_cast<const OutputCode&>(code)); }
    virtual RowId addArtifact(Artifact&& artifact, std::string_view payloadMd5) {
        return addArtifact(static_cast<const Artifact&>(artifact), payloadMd5);
    }

    /// True for a sink that stores a graph's nodes as their JSON (graphNodesToJson): the importer then encodes
    /// them on its parsing thread, where they were just made and are still in cache, frees them there, and hands
    /// over the text with addGraph(graph, nodesJson).
    virtual bool storesEncodedGraphNodes() const { return false; }
    /// `graph` without its nodes, and `nodesJson`, their encoding. By default decoded into `graph.nodes`.
    virtual RowId addGraph(Graph&& graph, std::string&& nodesJson) {
        graph.nodes = graphNodesFromJson(nodesJson);
        return addGraph(std::move(graph));
    }

    /// Makes everything written so far durable and visible to readers (a no-op in memory).
    virtual void commit() = 0;
};

}  // namespace traces
