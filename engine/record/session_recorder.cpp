// SessionRecorder (see session_recorder.h): the importer's row semantics applied to the engine's events.
#include "record/session_recorder.h"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "parse/graph_break_text.h"

namespace eng::record {
namespace {

using traces::Compile;
using traces::CompileKey;

traces::RecordContext contextOf(const CompileKey& key) {
    return traces::RecordContext{key.autogradId, key.frameId, key.frameCompileId, key.attempt};
}

/// The envelope keys a TORCH_TRACE record of this compile carries ("frame_id", ...), as JSON members.
void addContextKeys(nlohmann::ordered_json& envelope, const CompileKey& key) {
    if (key.autogradId) envelope["compiled_autograd_id"] = *key.autogradId;
    if (key.frameId) envelope["frame_id"] = *key.frameId;
    if (key.frameCompileId) envelope["frame_compile_id"] = *key.frameCompileId;
    envelope["attempt"] = key.attempt;
}

template <typename T>
nlohmann::ordered_json orNull(const std::optional<T>& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

/// Dynamo's dynamo_graph_break_reason payload for a break, so the row's text reads like an imported one.
std::string graphBreakArtifactText(const traces::GraphBreak& graphBreak) {
    std::string text = "Graph break in user code at " + graphBreak.userFile + ":" +
                       std::to_string(graphBreak.userLine) + "\nGraph Break Reason: " + graphBreak.reason + "\n";
    if (graphBreak.userStack.empty()) return text;
    text += "User code traceback:\n";
    for (const traces::Frame& frame : graphBreak.userStack) {
        text += "  File \"" + frame.file + "\", line " + std::to_string(frame.line) + ", in " + frame.function + "\n";
        if (!frame.source.empty()) text += "    " + frame.source + "\n";
    }
    return text;
}

}  // namespace

std::string startedAtNow() {
    timeval now{};
    gettimeofday(&now, nullptr);
    std::tm local{};
    localtime_r(&now.tv_sec, &local);
    char text[32];
    std::snprintf(text, sizeof text, "%02d-%02d %02d:%02d:%02d.%03d", local.tm_mon + 1, local.tm_mday, local.tm_hour,
                  local.tm_min, local.tm_sec, static_cast<int>(now.tv_usec / 1000));
    return text;
}

std::string metricsJsonOf(const Compile& compile) {
    nlohmann::ordered_json metrics;
    metrics["compile_id"] = compile.key.str();
    metrics["co_name"] = compile.function;
    metrics["co_filename"] = compile.file;
    metrics["co_firstlineno"] = compile.firstLine;
    metrics["cache_size"] = orNull(compile.cacheSize);
    metrics["accumulated_cache_size"] = orNull(compile.accumulatedCacheSize);
    metrics["guard_count"] = orNull(compile.guardCount);
    metrics["shape_env_guard_count"] = orNull(compile.shapeEnvGuardCount);
    metrics["graph_op_count"] = orNull(compile.opCount);
    metrics["graph_node_count"] = orNull(compile.nodeCount);
    metrics["graph_input_count"] = orNull(compile.inputCount);
    metrics["start_time"] = orNull(compile.startTime);
    for (const traces::PhaseTime& phase : compile.phases) metrics[phase.phase + "_time_s"] = phase.seconds;
    auto textOrNull = [](const std::string& text) {
        return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
    };
    metrics["fail_type"] = textOrNull(compile.failType);
    metrics["fail_reason"] = textOrNull(compile.failReason);
    metrics["fail_user_frame_filename"] = textOrNull(compile.failUserFile);
    metrics["fail_user_frame_lineno"] = compile.failUserLine > 0 ? nlohmann::ordered_json(compile.failUserLine)
                                                                 : nlohmann::ordered_json(nullptr);
    metrics["restart_reasons"] = compile.restartReasons;
    // The record's envelope, as the importer stores compilation_metrics.
    nlohmann::ordered_json envelope;
    envelope["compilation_metrics"] = std::move(metrics);
    addContextKeys(envelope, compile.key);
    return envelope.dump();
}

SessionRecorder::SessionRecorder(std::unique_ptr<traces::RowSink> target, const RunInfo& run) : target_(std::move(target)) {
    session_.kind = traces::SessionKind::EngineRun;
    session_.sourceFile = std::filesystem::path(run.scriptPath).filename().string();
    session_.sourcePath = run.scriptPath;
    session_.torchVersion = run.engineVersion;
    session_.processId = static_cast<int64_t>(getpid());
    session_.startedAt = startedAtNow();
    session_.id = target_->addSession(session_);
    tracker_.emplace(*target_, session_.id);
    sites_.emplace(*target_, session_.id);
    // The session exists on disk from the start: a run that crashes before its first compile still says so.
    target_->commit();
}

Compile& SessionRecorder::rowFor(const CompileKey& key) {
    seenKeys_.insert(key);
    return *tracker_->rowFor(contextOf(key), 0);
}

void SessionRecorder::settle() {
    target_->updateSession(session_);
    target_->commit();
}

void SessionRecorder::compileStarted(const Compile& compile, const traces::Stack& userStack) {
    ++session_.records;
    if (!hasCompileId(compile.key)) return;  // nothing to key the rows by
    seenKeys_.insert(compile.key);
    Compile* row = nullptr;
    if (compile.key.attempt > 0) {
        // Dynamo logs dynamo_start once per compile id: a restarted attempt continues that compile.
        row = tracker_->rowFor(contextOf(compile.key), 0);
    } else {
        traces::Stack stack = userStack;
        // A compile always has a site in the workbench's tree: with no stack, the compiled frame stands alone.
        if (stack.empty()) stack.push_back(traces::Frame{compile.file, compile.firstLine, compile.function, ""});
        row = &tracker_->start(contextOf(compile.key), 0, sites_->siteFor(stack));
    }
    if (!compile.function.empty()) {
        row->function = compile.function;
        row->file = compile.file;
        row->firstLine = compile.firstLine;
    }
    if (compile.startTime) row->startTime = compile.startTime;
    if (compile.cacheSize) row->cacheSize = compile.cacheSize;
    if (compile.accumulatedCacheSize) row->accumulatedCacheSize = compile.accumulatedCacheSize;
    tracker_->save(*row);
    // Durable now, so that a crash inside this compile leaves it in the trace with status unknown.
    settle();
}

void SessionRecorder::recompileReasons(const CompileKey& key, const std::vector<traces::GuardFailure>& failures) {
    ++session_.records;
    if (!hasCompileId(key)) return;
    seenKeys_.insert(key);
    // Dynamo logs the reasons before dynamo_start, for the compile about to begin (or refused by the limit).
    Compile& row = tracker_->upcoming(contextOf(key), 0);
    std::vector<traces::GuardFailure> rows;
    row.recompileReasons.clear();
    for (const traces::GuardFailure& failure : failures) {
        traces::GuardFailure copy = failure;
        copy.compileId = row.id;
        copy.index = static_cast<int>(rows.size());
        rows.push_back(copy);
        row.recompileReasons.push_back(failure.failedCompile.empty() ? failure.reason
                                                                     : failure.failedCompile + ": " + failure.reason);
    }
    target_->addGuardFailures(row.id, rows);
    tracker_->save(row);
}

template <typename Row>
void SessionRecorder::placeInSession(Row& row, const CompileKey& key) {
    row.sessionId = session_.id;
    if (hasCompileId(key)) row.compileId = rowFor(key).id;
    row.seq = nextSeq_++;
    row.line = 0;
}

void SessionRecorder::graphCaptured(const CompileKey& key, const traces::Graph& graph) {
    ++session_.records;
    traces::Graph row = graph;
    placeInSession(row, key);
    if (row.name.empty()) row.name = row.kind == traces::GraphKind::Dynamo ? "dynamo_output_graph" : toString(row.kind);
    target_->addGraph(row);
}

void SessionRecorder::guardsInstalled(const CompileKey& key, const std::vector<traces::Guard>& guards) {
    ++session_.records;
    if (!hasCompileId(key)) return;
    RowId compileId = rowFor(key).id;
    std::vector<traces::Guard> rows = guards;
    for (size_t i = 0; i < rows.size(); ++i) {
        rows[i].compileId = compileId;
        rows[i].index = static_cast<int>(i);
    }
    target_->addGuards(compileId, rows);
}

void SessionRecorder::addGraphBreakRow(traces::GraphBreak row, const char* origin, std::optional<RowId> compileId) {
    row.sessionId = session_.id;
    row.compileId = compileId;
    row.seq = nextSeq_++;
    row.line = 0;
    row.origin = origin;
    if (row.breakType.empty()) row.breakType = traces::graphBreakType(row.reason);
    if (row.userFile.empty() && !row.userStack.empty()) {
        row.userFile = row.userStack.back().file;
        row.userLine = row.userStack.back().line;
    }
    if (row.dedupKey.empty()) {
        traces::ParsedGraphBreak parsed{row.reason, row.breakType, row.userFile, row.userLine, row.userStack};
        row.dedupKey = traces::graphBreakDedupKey(parsed);
    }
    if (row.text.empty()) row.text = origin == std::string_view("artifact") ? graphBreakArtifactText(row) : row.reason;
    target_->addGraphBreak(row);
}

void SessionRecorder::graphBreak(const CompileKey& key, const traces::GraphBreak& graphBreak) {
    ++session_.records;
    std::optional<RowId> compileId;
    if (hasCompileId(key)) compileId = rowFor(key).id;
    // Breaks the engine reports are what Dynamo logs as dynamo_graph_break_reason artifacts.
    addGraphBreakRow(graphBreak, "artifact", compileId);
}

void SessionRecorder::outputCode(const CompileKey& key, const traces::OutputCode& code) {
    ++session_.records;
    traces::OutputCode row = code;
    placeInSession(row, key);
    if (row.event.empty()) row.event = "engine";
    target_->addOutputCode(row);
}

void SessionRecorder::cacheLookup(const CompileKey& key, const std::string& artifactName, const std::string& payload) {
    addArtifactRow(key, artifactName, "json", payload);
}

void SessionRecorder::warning(const CompileKey& key, const std::string& text) {
    addArtifactRow(key, "dynamo_warning", "string", text);
}

void SessionRecorder::addArtifactRow(const CompileKey& key, const std::string& name, const std::string& encoding,
                                     const std::string& payload) {
    ++session_.records;
    traces::Artifact row;
    row.sessionId = session_.id;
    // Only a compile already seen gets the row: the limit warning names a compile that never starts.
    if (seenKeys_.contains(key)) row.compileId = rowFor(key).id;
    row.seq = nextSeq_++;
    row.event = "artifact";
    row.name = name;
    row.encoding = encoding;
    nlohmann::ordered_json envelope;
    envelope["artifact"] = {{"name", row.name}, {"encoding", row.encoding}};
    addContextKeys(envelope, key);
    row.metadata = envelope.dump();
    row.payload = payload;
    target_->addArtifact(row);
}

void SessionRecorder::compileFinished(const Compile& compile) {
    ++session_.records;
    if (!hasCompileId(compile.key)) return;
    Compile& row = rowFor(compile.key);
    if (!compile.function.empty()) {
        row.function = compile.function;
        row.file = compile.file;
        row.firstLine = compile.firstLine;
    }
    row.failType = compile.failType;
    row.failReason = compile.failReason;
    row.failUserFile = compile.failUserFile;
    row.failUserLine = compile.failUserLine;
    // As for compilation_metrics: a fail_type makes it failed; otherwise the compile produced code.
    if (!row.failType.empty()) row.status = traces::CompileStatus::Failed;
    else if (compile.status == traces::CompileStatus::Unknown) row.status = traces::CompileStatus::Ok;
    else row.status = compile.status;
    if (compile.cacheSize) row.cacheSize = compile.cacheSize;
    if (compile.accumulatedCacheSize) row.accumulatedCacheSize = compile.accumulatedCacheSize;
    if (compile.startTime) row.startTime = compile.startTime;
    row.guardCount = compile.guardCount;
    row.shapeEnvGuardCount = compile.shapeEnvGuardCount;
    row.opCount = compile.opCount;
    row.nodeCount = compile.nodeCount;
    row.inputCount = compile.inputCount;
    row.restartReasons = compile.restartReasons;
    row.phases = compile.phases;
    row.metricsJson = compile.metricsJson.empty() ? metricsJsonOf(row) : compile.metricsJson;
    std::vector<std::string> restartReasons = row.restartReasons;
    RowId compileId = row.id;
    tracker_->finish(row);
    // The importer turns compilation_metrics' restart_reasons into "restart" breaks; so does an engine run.
    for (const std::string& reason : restartReasons) {
        traces::ParsedGraphBreak parsed = traces::parseRestartReason(reason);
        traces::GraphBreak restart;
        restart.reason = parsed.reason;
        restart.breakType = parsed.breakType;
        restart.text = reason;
        addGraphBreakRow(restart, "restart", compileId);
    }
    settle();
}

void SessionRecorder::close() { settle(); }

}  // namespace eng::record
