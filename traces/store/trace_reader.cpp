// Loading a trace file into TraceData (see trace_reader.h). Child rows (nodes, phases, kernels) are attached
// to their parents through id maps built as the parents load, so every table is read once, in order.
#include "store/trace_reader.h"

#include <unordered_map>

#include "schema/schema.h"
#include "store/json_columns.h"
#include "store/sqlite_db.h"

namespace traces {

std::string LoadProgress::stage() const {
    std::lock_guard lock(mutex_);
    return stage_;
}

void LoadProgress::report(float fraction, std::string stage) {
    fraction_ = fraction;
    std::lock_guard lock(mutex_);
    stage_ = std::move(stage);
}

namespace {

class Loader {
public:
    Loader(Database& db, LoadProgress* progress) : db_(db), progress_(progress) {
        for (const char* table : {"sessions", "compile_sites", "compiles", "compile_phases", "graphs", "graph_nodes",
                                  "guards", "guard_failures", "graph_breaks", "output_code", "kernels", "artifacts",
                                  "spans", "records_without_compile_id", "import_issues"}) {
            auto q = db_.prepare(std::string("SELECT count(*) FROM ") + table);
            if (q.step()) totalRows_ += q.int64(0);
        }
    }

    // Called per row; checks cancellation and reports progress every few thousand rows.
    void tick(const char* stage) {
        if ((++rowsDone_ & 4095) != 0) return;
        if (progress_) {
            if (progress_->cancelRequested()) throw LoadCancelled();
            progress_->report(totalRows_ ? static_cast<float>(rowsDone_) / static_cast<float>(totalRows_) : 1.f,
                              stage);
        }
    }

    void stage(const char* name) {
        if (!progress_) return;
        if (progress_->cancelRequested()) throw LoadCancelled();
        progress_->report(totalRows_ ? static_cast<float>(rowsDone_) / static_cast<float>(totalRows_) : 1.f, name);
    }

    void load(TraceData& t) {
        stage("sessions");
        loadSessions(t);
        stage("compile sites");
        loadSites(t);
        stage("compiles");
        loadCompiles(t);
        stage("graphs");
        loadGraphs(t);
        stage("guards");
        loadGuards(t);
        stage("graph breaks");
        loadBreaks(t);
        stage("generated code");
        loadOutputCode(t);
        stage("artifacts");
        loadArtifacts(t);
        stage("spans");
        loadSpans(t);
        loadRecordsWithoutCompileId(t);
        stage("import issues");
        loadIssues(t);
        loadInternedStrings(t);
        if (progress_) progress_->report(1.f, "done");
    }

private:
    Database& db_;
    LoadProgress* progress_;
    int64_t totalRows_ = 0;
    int64_t rowsDone_ = 0;

    static std::optional<int> optInt(const Statement& q, int col) {
        auto v = q.optInt64(col);
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    }

    void loadSessions(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, kind, source_file, source_path, rank, torch_version, process_id, started_at, bytes, "
            "records, malformed_records FROM sessions ORDER BY id");
        while (q.step()) {
            tick("sessions");
            Session s;
            s.id = q.int64(0);
            s.kind = q.text(1) == "engine_run" ? SessionKind::EngineRun : SessionKind::ImportedLog;
            s.sourceFile = q.text(2);
            s.sourcePath = q.text(3);
            s.rank = optInt(q, 4);
            s.torchVersion = q.text(5);
            s.processId = q.int64(6);
            s.startedAt = q.text(7);
            s.bytes = q.int64(8);
            s.records = q.int64(9);
            s.malformedRecords = q.int64(10);
            t.sessions.push_back(std::move(s));
        }
    }

    void loadSites(TraceData& t) {
        auto q = db_.prepare("SELECT id, session_id, function, file, line, user_stack FROM compile_sites ORDER BY id");
        while (q.step()) {
            tick("compile sites");
            t.sites.push_back(CompileSite{q.int64(0), q.int64(1), q.text(2), q.text(3), q.int32(4),
                                          stackFromJson(q.text(5))});
        }
    }

    void loadCompiles(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, session_id, site_id, autograd_id, frame_id, frame_compile_id, attempt, seq, line, started, "
            "status, function, file, first_line, fail_type, fail_reason, fail_user_file, fail_user_line, "
            "restart_reasons, recompile_reasons, cache_size, accumulated_cache_size, guard_count, "
            "shape_env_guard_count, op_count, node_count, input_count, start_time, metrics_json "
            "FROM compiles ORDER BY session_id, seq, id");
        std::unordered_map<RowId, size_t> indexById;
        while (q.step()) {
            tick("compiles");
            Compile c;
            c.id = q.int64(0);
            c.sessionId = q.int64(1);
            c.siteId = q.optInt64(2);
            c.key.autogradId = optInt(q, 3);
            c.key.frameId = optInt(q, 4);
            c.key.frameCompileId = optInt(q, 5);
            c.key.attempt = q.int32(6);
            c.seq = q.int64(7);
            c.line = q.int64(8);
            c.started = q.int64(9) != 0;
            c.status = compileStatusFromString(q.text(10)).value_or(CompileStatus::Unknown);
            c.function = q.text(11);
            c.file = q.text(12);
            c.firstLine = q.int32(13);
            c.failType = q.text(14);
            c.failReason = q.text(15);
            c.failUserFile = q.text(16);
            c.failUserLine = q.int32(17);
            c.restartReasons = stringsFromJson(q.text(18));
            c.recompileReasons = stringsFromJson(q.text(19));
            c.cacheSize = q.optInt64(20);
            c.accumulatedCacheSize = q.optInt64(21);
            c.guardCount = q.optInt64(22);
            c.shapeEnvGuardCount = q.optInt64(23);
            c.opCount = q.optInt64(24);
            c.nodeCount = q.optInt64(25);
            c.inputCount = q.optInt64(26);
            c.startTime = q.optReal(27);
            c.metricsJson = q.text(28);
            indexById.emplace(c.id, t.compiles.size());
            t.compiles.push_back(std::move(c));
        }
        auto p = db_.prepare("SELECT compile_id, phase, seconds FROM compile_phases ORDER BY compile_id, rowid");
        while (p.step()) {
            tick("compile phases");
            auto it = indexById.find(p.int64(0));
            if (it != indexById.end()) t.compiles[it->second].phases.push_back(PhaseTime{p.text(1), p.real(2)});
        }
    }

    void loadGraphs(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, session_id, compile_id, seq, line, kind, name, text FROM graphs ORDER BY session_id, seq, id");
        std::unordered_map<RowId, size_t> indexById;
        while (q.step()) {
            tick("graphs");
            Graph g;
            g.id = q.int64(0);
            g.sessionId = q.int64(1);
            g.compileId = q.optInt64(2);
            g.seq = q.int64(3);
            g.line = q.int64(4);
            g.kind = graphKindFromString(q.text(5)).value_or(GraphKind::Other);
            g.name = q.text(6);
            g.text = q.text(7);
            indexById.emplace(g.id, t.graphs.size());
            t.graphs.push_back(std::move(g));
        }
        auto n = db_.prepare(
            "SELECT graph_id, idx, name, op, target, args, inputs, shape, dtype, stride, device, source_file, "
            "source_line, source_function, source_code FROM graph_nodes ORDER BY graph_id, idx");
        while (n.step()) {
            tick("graph nodes");
            auto it = indexById.find(n.int64(0));
            if (it == indexById.end()) continue;
            GraphNode node;
            node.index = n.int32(1);
            node.name = n.text(2);
            node.op = n.text(3);
            node.target = n.text(4);
            node.args = n.text(5);
            node.inputs = stringsFromJson(n.text(6));
            node.shape = n.text(7);
            node.dtype = n.text(8);
            node.stride = n.text(9);
            node.device = n.text(10);
            node.sourceFile = n.text(11);
            node.sourceLine = n.int32(12);
            node.sourceFunction = n.text(13);
            node.sourceCode = n.text(14);
            t.graphs[it->second].nodes.push_back(std::move(node));
        }
    }

    void loadGuards(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, compile_id, idx, kind, source, text, checks, user_code, depth FROM guards "
            "ORDER BY compile_id, idx");
        while (q.step()) {
            tick("guards");
            t.guards.push_back(Guard{q.int64(0), q.int64(1), q.int32(2), q.text(3), q.text(4), q.text(5), q.text(6),
                                     q.text(7), q.int32(8)});
        }
        auto f = db_.prepare(
            "SELECT id, compile_id, idx, failed_compile, reason FROM guard_failures ORDER BY compile_id, idx");
        while (f.step()) {
            tick("guard failures");
            t.guardFailures.push_back(GuardFailure{f.int64(0), f.int64(1), f.int32(2), f.text(3), f.text(4)});
        }
    }

    void loadBreaks(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, session_id, compile_id, seq, line, origin, reason, break_type, user_file, user_line, "
            "user_stack, dedup_key, text FROM graph_breaks ORDER BY session_id, seq, id");
        while (q.step()) {
            tick("graph breaks");
            GraphBreak b;
            b.id = q.int64(0);
            b.sessionId = q.int64(1);
            b.compileId = q.optInt64(2);
            b.seq = q.int64(3);
            b.line = q.int64(4);
            b.origin = q.text(5);
            b.reason = q.text(6);
            b.breakType = q.text(7);
            b.userFile = q.text(8);
            b.userLine = q.int32(9);
            b.userStack = stackFromJson(q.text(10));
            b.dedupKey = q.text(11);
            b.text = q.text(12);
            t.graphBreaks.push_back(std::move(b));
        }
    }

    void loadOutputCode(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, session_id, compile_id, seq, line, event, filename, language, source FROM output_code "
            "ORDER BY session_id, seq, id");
        std::unordered_map<RowId, size_t> indexById;
        while (q.step()) {
            tick("generated code");
            OutputCode o;
            o.id = q.int64(0);
            o.sessionId = q.int64(1);
            o.compileId = q.optInt64(2);
            o.seq = q.int64(3);
            o.line = q.int64(4);
            o.event = q.text(5);
            o.filename = q.text(6);
            o.language = q.text(7);
            o.source = q.text(8);
            indexById.emplace(o.id, t.outputCode.size());
            t.outputCode.push_back(std::move(o));
        }
        auto k = db_.prepare(
            "SELECT id, output_code_id, compile_id, idx, name, language, source, launch_config, compile_seconds, "
            "source_nodes, post_grad_nodes FROM kernels ORDER BY output_code_id, idx");
        while (k.step()) {
            tick("kernels");
            auto it = indexById.find(k.int64(1));
            if (it == indexById.end()) continue;
            Kernel kernel;
            kernel.id = k.int64(0);
            kernel.outputCodeId = k.int64(1);
            kernel.compileId = k.optInt64(2);
            kernel.index = k.int32(3);
            kernel.name = k.text(4);
            kernel.language = k.text(5);
            kernel.source = k.text(6);
            kernel.launchConfig = k.text(7);
            kernel.compileSeconds = k.optReal(8);
            kernel.sourceNodes = stringsFromJson(k.text(9));
            kernel.postGradNodes = stringsFromJson(k.text(10));
            t.outputCode[it->second].kernels.push_back(std::move(kernel));
        }
    }

    void loadArtifacts(TraceData& t) {
        auto q = db_.prepare(
            // Payloads the views and reports read come along; others stay on disk. Warnings, collective schedules
            // and provenance node mappings (which graph nodes each kernel call computed) are short. Cache decisions
            // are JSON whose `components` (the cache-key dump, tens of KB) nobody shows.
            "SELECT a.id, a.session_id, a.compile_id, a.seq, a.line, a.event, a.name, a.encoding, a.metadata, a.payload_intact, "
            "CASE WHEN a.name IN ('dynamo_warning', 'inductor_collective_schedule', "
            "'inductor_provenance_tracking_node_mappings') THEN p.text "
            "WHEN (a.name GLOB '*_cache_hit' OR a.name GLOB '*_cache_miss' OR a.name GLOB '*_cache_bypass') "
            "AND json_valid(p.text) THEN json_remove(p.text, '$.components') ELSE '' END "
            "FROM artifacts a LEFT JOIN payloads p ON p.id = a.payload_id ORDER BY a.session_id, a.seq, a.id");
        while (q.step()) {
            tick("artifacts");
            Artifact a;
            a.id = q.int64(0);
            a.sessionId = q.int64(1);
            a.compileId = q.optInt64(2);
            a.seq = q.int64(3);
            a.line = q.int64(4);
            a.event = q.text(5);
            a.name = q.text(6);
            a.encoding = q.text(7);
            a.metadata = q.text(8);
            a.payloadIntact = q.int64(9) != 0;
            a.payload = q.text(10);
            t.artifacts.push_back(std::move(a));
        }
    }

    void loadSpans(TraceData& t) {
        auto q = db_.prepare(
            "SELECT id, session_id, compile_id, compile_key, name, category, start_us, duration_us, thread_id, args "
            "FROM spans ORDER BY session_id, start_us, id");
        while (q.step()) {
            tick("spans");
            Span s;
            s.id = q.int64(0);
            s.sessionId = q.int64(1);
            s.compileId = q.optInt64(2);
            s.compileKey = q.text(3);
            s.name = q.text(4);
            s.category = q.text(5);
            s.startUs = q.real(6);
            s.durationUs = q.optReal(7);
            s.threadId = q.int64(8);
            s.args = q.text(9);
            t.spans.push_back(std::move(s));
        }
    }

    void loadRecordsWithoutCompileId(TraceData& t) {
        auto q = db_.prepare("SELECT id, session_id, seq, line, event, name, compile_id, stack "
                             "FROM records_without_compile_id ORDER BY session_id, seq, id");
        while (q.step()) {
            tick("records without a compile id");
            RecordWithoutCompileId r;
            r.id = q.int64(0);
            r.sessionId = q.int64(1);
            r.seq = q.int64(2);
            r.line = q.int64(3);
            r.event = q.text(4);
            r.name = q.text(5);
            r.compileId = q.optInt64(6);
            r.stack = stackFromJson(q.text(7));
            t.recordsWithoutCompileId.push_back(std::move(r));
        }
    }

    void loadInternedStrings(TraceData& t) {
        auto q = db_.prepare("SELECT session_id, idx, text FROM interned_strings ORDER BY session_id, idx");
        while (q.step()) {
            std::vector<std::string>& strings = t.internedStrings[q.int64(0)];
            auto index = static_cast<size_t>(q.int64(1));
            if (strings.size() <= index) strings.resize(index + 1);
            strings[index] = q.text(2);
        }
    }

    void loadIssues(TraceData& t) {
        auto q = db_.prepare("SELECT session_id, line, col, kind, message FROM import_issues ORDER BY session_id, id");
        while (q.step()) {
            tick("import issues");
            t.issues.push_back(ImportIssue{q.int64(0), q.int64(1), q.int32(2), q.text(3), q.text(4)});
        }
    }
};

}  // namespace

TraceData loadTrace(const std::string& path, LoadProgress* progress) {
    int version = 0;
    auto db = openTraceDatabaseForReading(path, &version);
    if (version < kSchemaVersion) {
        db.reset();
        openTraceDatabaseForWriting(path);  // migrates in place
        db = openTraceDatabaseForReading(path, &version);
    }
    TraceData trace;
    trace.path = path;
    trace.schemaVersion = version;
    db->exec("BEGIN");  // one read snapshot, even while a writer is still appending
    Loader(*db, progress).load(trace);
    db->exec("COMMIT");
    return trace;
}

std::future<TraceData> loadTraceAsync(const std::string& path, std::shared_ptr<LoadProgress> progress) {
    return std::async(std::launch::async, [path, progress] { return loadTrace(path, progress.get()); });
}

std::string loadArtifactPayload(const std::string& path, RowId artifactId) {
    auto db = openTraceDatabaseForReading(path);
    auto q = db->prepare(
        "SELECT p.text FROM artifacts a JOIN payloads p ON p.id = a.payload_id WHERE a.id = ?");
    q.bind(1, artifactId);
    return q.step() ? q.text(0) : std::string();
}

}  // namespace traces
