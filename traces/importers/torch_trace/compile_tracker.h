// Tracks the compile rows of one session: which row a record's compile id belongs to, attempts superseded by
// restarts, compile ids reused after torch._dynamo.reset(), and compile sites de-duplicated by user stack.
// The TORCH_TRACE importer and the engine's recorders (engine/record) share it, so both fill rows alike.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/trace_model.h"
#include "store/row_sink.h"

namespace traces {

/// The compile context of one record's envelope; any part may be missing.
struct RecordContext {
    std::optional<int> autogradId;
    std::optional<int> frameId;
    std::optional<int> frameCompileId;
    std::optional<int> attempt;

    bool hasCompileId() const { return frameId.has_value() || autogradId.has_value(); }
};

class CompileTracker {
public:
    /// Compile rows go to `sink` (not owned; it must outlive the tracker).
    CompileTracker(RowSink& sink, RowId sessionId) : sink_(sink), sessionId_(sessionId) {}

    /// The row for the record's compile id, created on first sight. nullptr for records without one.
    Compile* rowFor(const RecordContext& context, int64_t line);
    /// The row of a compile that is about to start (recompile reasons are logged before dynamo_start): a new
    /// row when the id's current one already finished, as happens after torch._dynamo.reset().
    Compile& upcoming(const RecordContext& context, int64_t line);
    /// The row a dynamo_start opens; a second start of the same id (after reset()) opens a new row.
    Compile& start(const RecordContext& context, int64_t line, std::optional<RowId> siteId);
    /// Writes the current state of `row` to the store.
    void save(const Compile& row) { sink_.updateCompile(row); }
    /// Saves a row whose compilation_metrics arrived and drops its texts from memory: nothing rewrites a
    /// finished compile, and keeping them would grow memory with the log's size.
    void finish(Compile& row);

private:
    using Base = std::tuple<std::optional<int>, std::optional<int>, std::optional<int>>;
    CompileKey keyFor(const RecordContext& context) const;
    Compile& create(const CompileKey& key, int64_t line);
    void markEarlierAttemptsRestarted(const CompileKey& key);

    RowSink& sink_;
    RowId sessionId_;
    int64_t nextSeq_ = 0;
    bool isFinished(const Compile& row) const;

    std::deque<Compile> rows_;  // every compile of the session; a deque keeps handed-out pointers valid
    std::vector<bool> finished_;  // by position in rows_
    std::map<CompileKey, size_t> current_;       // the live row of each key
    std::map<Base, int> latestAttempt_;
};

/// The compile sites of one session: one per distinct user stack (file, line and function of every frame).
class CompileSiteTable {
public:
    /// Sites go to `sink` (not owned; it must outlive the table).
    CompileSiteTable(RowSink& sink, RowId sessionId) : sink_(sink), sessionId_(sessionId) {}

    /// The site of a compile whose user stack (outermost first) is `stack`, stored on first sight; nullopt
    /// for an empty stack. The site names the innermost frame.
    std::optional<RowId> siteFor(const Stack& stack);

private:
    RowSink& sink_;
    RowId sessionId_;
    std::unordered_map<std::string, RowId> idsByStack_;
};

}  // namespace traces
