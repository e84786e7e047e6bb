// Where the engine's recorders put the rows of a run: the SQLite trace file (TraceFileTarget) or a TraceData in
// memory (TraceDataTarget, for the --stats counts). Same calls as traces::TraceWriter, so rows come out alike.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/trace_model.h"
#include "store/trace_writer.h"

namespace eng::record {

using traces::RowId;

/// Receives rows with their ids left 0 and hands out the ids they get.
class RowTarget {
public:
    virtual ~RowTarget() = default;
    virtual RowId addSession(const traces::Session& session) = 0;
    virtual void updateSession(const traces::Session& session) = 0;
    virtual RowId addCompileSite(const traces::CompileSite& site) = 0;
    virtual RowId addCompile(const traces::Compile& compile) = 0;
    /// Rewrites the row `compile.id`; an empty metricsJson keeps the stored one (as TraceWriter does).
    virtual void updateCompile(const traces::Compile& compile) = 0;
    virtual RowId addGraph(const traces::Graph& graph) = 0;
    virtual void addGuards(RowId compileId, const std::vector<traces::Guard>& guards) = 0;
    virtual void addGuardFailures(RowId compileId, const std::vector<traces::GuardFailure>& failures) = 0;
    virtual RowId addGraphBreak(const traces::GraphBreak& graphBreak) = 0;
    virtual RowId addOutputCode(const traces::OutputCode& code) = 0;
    virtual RowId addArtifact(const traces::Artifact& artifact) = 0;
    /// Makes everything written so far survive a crash of the process.
    virtual void commit() = 0;
};

/// Rows go to a new trace file at `path` (an existing file is replaced); each commit() is durable.
class TraceFileTarget : public RowTarget {
public:
    explicit TraceFileTarget(const std::string& path) : writer_(path) {}
    RowId addSession(const traces::Session& session) override { return writer_.addSession(session); }
    void updateSession(const traces::Session& session) override { writer_.updateSession(session); }
    RowId addCompileSite(const traces::CompileSite& site) override { return writer_.addCompileSite(site); }
    RowId addCompile(const traces::Compile& compile) override { return writer_.addCompile(compile); }
    void updateCompile(const traces::Compile& compile) override { writer_.updateCompile(compile); }
    RowId addGraph(const traces::Graph& graph) override { return writer_.addGraph(graph); }
    void addGuards(RowId compileId, const std::vector<traces::Guard>& guards) override {
        writer_.addGuards(compileId, guards);
    }
    void addGuardFailures(RowId compileId, const std::vector<traces::GuardFailure>& failures) override {
        writer_.addGuardFailures(compileId, failures);
    }
    RowId addGraphBreak(const traces::GraphBreak& graphBreak) override { return writer_.addGraphBreak(graphBreak); }
    RowId addOutputCode(const traces::OutputCode& code) override { return writer_.addOutputCode(code); }
    RowId addArtifact(const traces::Artifact& artifact) override { return writer_.addArtifact(artifact); }
    void commit() override { writer_.commit(); }

private:
    traces::TraceWriter writer_;
};

/// Rows kept in a TraceData, with ids as a fresh trace file would give them (1, 2, ... per table).
class TraceDataTarget : public RowTarget {
public:
    RowId addSession(const traces::Session& session) override;
    void updateSession(const traces::Session& session) override;
    RowId addCompileSite(const traces::CompileSite& site) override;
    RowId addCompile(const traces::Compile& compile) override;
    void updateCompile(const traces::Compile& compile) override;
    RowId addGraph(const traces::Graph& graph) override;
    void addGuards(RowId compileId, const std::vector<traces::Guard>& guards) override;
    void addGuardFailures(RowId compileId, const std::vector<traces::GuardFailure>& failures) override;
    RowId addGraphBreak(const traces::GraphBreak& graphBreak) override;
    RowId addOutputCode(const traces::OutputCode& code) override;
    RowId addArtifact(const traces::Artifact& artifact) override;
    void commit() override {}

    const traces::TraceData& data() const { return data_; }

private:
    traces::TraceData data_;
    std::unordered_map<RowId, size_t> compilePositions_;  // compile id -> index in data_.compiles
};

}  // namespace eng::record
