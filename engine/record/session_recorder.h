// Turns the capture engine's compile events into the rows of one engine-run session, the way the TORCH_TRACE
// importer turns a log into rows (shared CompileTracker and CompileSiteTable), so that `cwb report` and the
// workbench read an engine run like an imported log. The rows go to a traces::RowSink: a trace file or memory.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "capture/compile_events.h"
#include "importers/torch_trace/compile_tracker.h"
#include "store/row_sink.h"

namespace eng::record {

using traces::RowId;

/// What the session row says about the run.
struct RunInfo {
    std::string scriptPath;     ///< as given on the command line
    std::string engineVersion;  ///< "cwb 0.1.0", stored where an imported log keeps its torch version
};

class SessionRecorder : public capture::CompileEventSink {
public:
    SessionRecorder(std::unique_ptr<traces::RowSink> target, const RunInfo& run);

    void compileStarted(const traces::Compile& compile, const traces::Stack& userStack) override;
    void recompileReasons(const traces::CompileKey& key, const std::vector<traces::GuardFailure>& failures) override;
    void graphCaptured(const traces::CompileKey& key, const traces::Graph& graph) override;
    void guardsInstalled(const traces::CompileKey& key, const std::vector<traces::Guard>& guards) override;
    void graphBreak(const traces::CompileKey& key, const traces::GraphBreak& graphBreak) override;
    void outputCode(const traces::CompileKey& key, const traces::OutputCode& code) override;
    void cacheLookup(const traces::CompileKey& key, const std::string& artifactName, const std::string& payload) override;
    void warning(const traces::CompileKey& key, const std::string& text) override;
    void compileFinished(const traces::Compile& compile) override;

    /// Writes the session's final counts and commits; later events are still recorded.
    void close();

    const traces::Session& session() const { return session_; }

protected:
    traces::RowSink& target() { return *target_; }
    const traces::RowSink& target() const { return *target_; }

private:
    /// The row of `key`'s attempt, created on first sight (as a record of an unseen compile id would be).
    /// `key` must name a compile (hasCompileId).
    traces::Compile& rowFor(const traces::CompileKey& key);
    static bool hasCompileId(const traces::CompileKey& key) { return key.frameId || key.autogradId; }
    /// Counts one event and saves the session row and everything before it durably.
    void settle();
    void addGraphBreakRow(traces::GraphBreak graphBreak, const char* origin, std::optional<RowId> compileId);
    /// What every graph and output-code row gets alike: this session, the compile of `key` (when it has a
    /// compile id), the next place in the session's order, and no input line (engine rows come from no log).
    template <typename Row>
    void placeInSession(Row& row, const traces::CompileKey& key);
    /// One artifact row (cache lookups, warnings) placed in the compile the key names when it was seen.
    void addArtifactRow(const traces::CompileKey& key, const std::string& name, const std::string& encoding,
                        const std::string& payload);

    std::unique_ptr<traces::RowSink> target_;
    traces::Session session_;
    std::optional<traces::CompileTracker> tracker_;
    std::optional<traces::CompileSiteTable> sites_;
    int64_t nextSeq_ = 0;  // order of graphs, breaks, output code and artifacts in the session
    std::set<traces::CompileKey> seenKeys_;  // keys some event named, so a warning never invents a compile
};

/// The session's startedAt for a run beginning now: local time as glog stamps TORCH_TRACE records
/// ("MM-DD HH:MM:SS.mmm"), so engine runs and imported logs read alike.
std::string startedAtNow();

/// The compilation_metrics-like JSON an engine compile is stored with, from the Compile row's own fields
/// (compile_id, co_name, fail_type, graph_op_count, restart_reasons, <phase>_time_s, ...).
std::string metricsJsonOf(const traces::Compile& compile);

}  // namespace eng::record
