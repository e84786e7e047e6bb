// MemorySink: a RowSink that keeps the rows in a TraceData, with the ids and child rows a trace file would give
// them, so that code reading a TraceData cannot tell it from one loaded from disk (engine `--stats`, tests).
#pragma once

#include "store/row_sink.h"

namespace traces {

class MemorySink : public RowSink {
public:
    /// Which artifact payloads the sink keeps: all, or only what the loaded model holds (modelPayload), which
    /// spares the memory of the rest when the rows are only going to be loaded (`cwb open LOG`).
    enum class Payloads { All, ModelOnly };
    explicit MemorySink(Payloads payloads = Payloads::All) : payloads_(payloads) {}

    RowId addSession(const Session& session) override;
    void updateSession(const Session& session) override;
    void addImportIssue(const ImportIssue& issue) override;
    void addInternedString(RowId sessionId, int64_t index, std::string_view text) override;
    RowId addCompileSite(const CompileSite& site) override;
    RowId addCompile(const Compile& compile) override;
    using RowSink::updateCompile;
    void updateCompile(const Compile& compile) override;
    using RowSink::addGraph;
    RowId addGraph(const Graph& graph) override;
    void addGuards(RowId compileId, const std::vector<Guard>& guards) override;
    void addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) override;
    RowId addGraphBreak(const GraphBreak& graphBreak) override;
    using RowSink::addOutputCode;
    RowId addOutputCode(const OutputCode& code) override;
    using RowSink::addArtifact;
    /// Keeps the payload with the row (a trace file keeps it on disk until asked for), or as much as `Payloads` says.
    RowId addArtifact(const Artifact& artifact, std::string_view payloadMd5) override;
    RowId addSpan(const Span& span) override;
    RowId addRecordWithoutCompileId(const RecordWithoutCompileId& record) override;
    void commit() override {}

    const TraceData& data() const { return data_; }
    /// Hands the rows over; the sink is empty afterwards.
    TraceData take() { return std::move(data_); }

private:
    TraceData data_;
    Payloads payloads_;
    RowId nextKernelId_ = 1;
};

}  // namespace traces
