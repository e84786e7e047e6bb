// The SQLite row sink: stores the rows that the TORCH_TRACE importer and the engine's recorders hand to a RowSink
// in a trace file. Writes are batched into large transactions; each commit leaves a complete, readable file (WAL).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/row_sink.h"

namespace traces {

class TraceWriter : public RowSink {
public:
    /// CreateNew: a new file that readers may follow while it is written (WAL). CreateNewExclusive: a new file
    /// nobody reads until the writer is done, as an import writes (see WriteAccess in schema.h). Append: an
    /// existing trace, written like CreateNew.
    enum class Open { CreateNew, CreateNewExclusive, Append };
    explicit TraceWriter(const std::string& path, Open mode = Open::CreateNew);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    RowId addSession(const Session& session) override;
    void updateSession(const Session& session) override;
    void addImportIssue(const ImportIssue& issue) override;
    void addInternedString(RowId sessionId, int64_t index, std::string_view text) override;
    RowId addCompileSite(const CompileSite& site) override;
    RowId addCompile(const Compile& compile) override;
    void updateCompile(const Compile& compile) override;
    RowId addGraph(const Graph& graph) override;
    void addGuards(RowId compileId, const std::vector<Guard>& guards) override;
    void addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) override;
    RowId addGraphBreak(const GraphBreak& graphBreak) override;
    RowId addOutputCode(const OutputCode& code) override;
    using RowSink::addArtifact;
    RowId addArtifact(const Artifact& artifact, std::string_view payloadMd5) override;
    RowId addSpan(const Span& span) override;
    RowId addRecordWithoutCompileId(const RecordWithoutCompileId& record) override;
    void updateCompile(Compile&& compile) override;
    RowId addGraph(Graph&& graph) override;
    bool storesEncodedGraphNodes() const override { return true; }
    RowId addGraph(Graph&& graph, std::string&& nodesJson) override;
    RowId addOutputCode(OutputCode&& code) override;
    RowId addArtifact(Artifact&& artifact, std::string_view payloadMd5) override;
    /// Ends the current batch so that everything written so far is durable and visible to readers.
    void commit() override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace traces
