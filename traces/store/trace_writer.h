// The one writer API of the trace store: the TORCH_TRACE importer and the engine both record through it.
// Writes are batched into large transactions; each commit leaves a complete, readable file (WAL mode).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

class TraceWriter {
public:
    enum class Open { CreateNew, Append };
    explicit TraceWriter(const std::string& path, Open mode = Open::CreateNew);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    RowId addSession(const Session& session);
    void updateSession(const Session& session);
    void addImportIssue(const ImportIssue& issue);
    void addInternedString(RowId sessionId, int64_t index, std::string_view text);

    RowId addCompileSite(const CompileSite& site);
    RowId addCompile(const Compile& compile);
    /// Rewrites the columns and phase times of an existing compile row (`compile.id`); `metricsJson` is
    /// written only when non-empty, so callers need not keep the large metrics text around.
    void updateCompile(const Compile& compile);

    RowId addGraph(const Graph& graph);
    void addGuards(RowId compileId, const std::vector<Guard>& guards);
    void addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures);
    RowId addGraphBreak(const GraphBreak& graphBreak);
    RowId addOutputCode(const OutputCode& code);
    /// Stores the payload once per distinct content; `payloadMd5` may be passed when already known.
    RowId addArtifact(const Artifact& artifact, std::string_view payloadMd5 = {});
    RowId addSpan(const Span& span);
    RowId addRecordWithoutCompileId(const RecordWithoutCompileId& record);

    /// Ends the current batch so that everything written so far is durable and visible to readers.
    void commit();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace traces
