// CompileTracker (see compile_tracker.h).
#include "importers/torch_trace/compile_tracker.h"

namespace traces {

CompileKey CompileTracker::keyFor(const RecordContext& context) const {
    CompileKey key;
    key.autogradId = context.autogradId;
    key.frameId = context.frameId;
    key.frameCompileId = context.frameCompileId;
    if (context.attempt) {
        key.attempt = *context.attempt;
    } else {
        // Records logged outside a trace context (e.g. compilation_metrics_runtime) carry no attempt:
        // they belong to the latest attempt of that compile id.
        auto it = latestAttempt_.find({key.autogradId, key.frameId, key.frameCompileId});
        key.attempt = it == latestAttempt_.end() ? 0 : it->second;
    }
    return key;
}

Compile& CompileTracker::create(const CompileKey& key, int64_t line) {
    Compile row;
    row.sessionId = sessionId_;
    row.key = key;
    row.seq = nextSeq_++;
    row.line = line;
    row.id = sink_.addCompile(row);
    rows_.push_back(std::move(row));
    finished_.push_back(false);
    current_[key] = rows_.size() - 1;
    int& latest = latestAttempt_[{key.autogradId, key.frameId, key.frameCompileId}];
    if (key.attempt > latest) latest = key.attempt;
    markEarlierAttemptsRestarted(key);
    return rows_.back();
}

void CompileTracker::markEarlierAttemptsRestarted(const CompileKey& key) {
    for (int attempt = 0; attempt < key.attempt; ++attempt) {
        CompileKey earlier = key;
        earlier.attempt = attempt;
        auto it = current_.find(earlier);
        if (it == current_.end()) continue;
        Compile& row = rows_[it->second];
        if (row.status == CompileStatus::Unknown) {
            row.status = CompileStatus::Restarted;
            save(row);
        }
    }
}

Compile* CompileTracker::rowFor(const RecordContext& context, int64_t line) {
    if (!context.hasCompileId()) return nullptr;
    CompileKey key = keyFor(context);
    auto it = current_.find(key);
    if (it != current_.end()) return &rows_[it->second];
    return &create(key, line);
}

bool CompileTracker::isFinished(const Compile& row) const {
    return finished_[static_cast<size_t>(row.seq)];
}

void CompileTracker::finish(Compile& row) {
    finished_[static_cast<size_t>(row.seq)] = true;
    Compile slim;
    slim.id = row.id;
    slim.sessionId = row.sessionId;
    slim.siteId = row.siteId;
    slim.key = row.key;
    slim.seq = row.seq;
    slim.line = row.line;
    slim.started = row.started;
    slim.status = row.status;
    // The full row goes to the sink without a copy of its large texts; the slim one stays.
    sink_.updateCompile(std::move(row));
    // Swap rather than move-assign: a moved-into std::string keeps its old capacity, and that is the memory.
    std::swap(row, slim);
}

Compile& CompileTracker::upcoming(const RecordContext& context, int64_t line) {
    CompileKey key = keyFor(context);
    auto it = current_.find(key);
    if (it != current_.end() && !isFinished(rows_[it->second])) return rows_[it->second];
    if (it != current_.end()) latestAttempt_.erase({key.autogradId, key.frameId, key.frameCompileId});
    return create(key, line);
}

Compile& CompileTracker::start(const RecordContext& context, int64_t line, std::optional<RowId> siteId) {
    CompileKey key = keyFor(context);
    auto it = current_.find(key);
    Compile* row = nullptr;
    if (it != current_.end() && !rows_[it->second].started && !isFinished(rows_[it->second])) {
        row = &rows_[it->second];
    } else {
        if (it != current_.end()) {
            // The same id started again: torch._dynamo.reset() restarted the counters. Later attempts of the
            // old compile must not be confused with the new one.
            latestAttempt_.erase({key.autogradId, key.frameId, key.frameCompileId});
        }
        row = &create(key, line);
    }
    row->started = true;
    row->siteId = siteId;
    save(*row);
    return *row;
}

std::optional<RowId> CompileSiteTable::siteFor(const Stack& stack) {
    if (stack.empty()) return std::nullopt;
    std::string key;
    for (const Frame& f : stack) key += f.file + ":" + std::to_string(f.line) + ":" + f.function + "\n";
    auto it = idsByStack_.find(key);
    if (it == idsByStack_.end()) {
        CompileSite site{0, sessionId_, stack.back().function, stack.back().file, stack.back().line, stack};
        it = idsByStack_.emplace(std::move(key), sink_.addCompileSite(site)).first;
    }
    return it->second;
}

}  // namespace traces
