// TraceWriter: prepared INSERTs inside batched transactions (see trace_writer.h).
#include "store/trace_writer.h"

#include <unordered_map>

#include "schema/schema.h"
#include "store/json_columns.h"
#include "store/md5.h"
#include "store/sqlite_db.h"

namespace traces {
namespace {

// A batch ends after this many bytes or rows: large enough to amortise commits, small enough that a crash
// mid-import loses little and memory stays flat.
constexpr size_t kBatchBytes = 64u << 20;
constexpr size_t kBatchRows = 50000;

const char* sessionKindName(SessionKind kind) {
    return kind == SessionKind::EngineRun ? "engine_run" : "imported_log";
}

}  // namespace

struct TraceWriter::Impl {
    std::unique_ptr<Database> db;
    bool inTransaction = false;
    size_t batchBytes = 0;
    size_t batchRows = 0;
    std::unordered_map<std::string, RowId> payloadIdsByMd5;

    Statement insertSession, updateSession, insertIssue, insertString, insertSite, insertCompile, updateCompile,
        deletePhases, insertPhase, insertGraph, insertNode, insertGuard, insertFailure, insertBreak, insertOutput,
        insertKernel, insertPayload, insertArtifact, insertSpan;

    explicit Impl(std::unique_ptr<Database> database)
        : db(std::move(database)),
          insertSession(db->prepare(
              "INSERT INTO sessions(kind, source_file, source_path, rank, torch_version, process_id, started_at, "
              "bytes, records, malformed_records) VALUES (?,?,?,?,?,?,?,?,?,?)")),
          updateSession(db->prepare(
              "UPDATE sessions SET kind=?, source_file=?, source_path=?, rank=?, torch_version=?, process_id=?, "
              "started_at=?, bytes=?, records=?, malformed_records=? WHERE id=?")),
          insertIssue(db->prepare(
              "INSERT INTO import_issues(session_id, line, col, kind, message) VALUES (?,?,?,?,?)")),
          insertString(db->prepare(
              "INSERT OR REPLACE INTO interned_strings(session_id, idx, text) VALUES (?,?,?)")),
          insertSite(db->prepare(
              "INSERT INTO compile_sites(session_id, function, file, line, user_stack) VALUES (?,?,?,?,?)")),
          insertCompile(db->prepare(
              "INSERT INTO compiles(session_id, site_id, autograd_id, frame_id, frame_compile_id, attempt, "
              "compile_key, seq, line, started, status, function, file, first_line, fail_type, fail_reason, "
              "fail_user_file, fail_user_line, restart_reasons, recompile_reasons, cache_size, "
              "accumulated_cache_size, guard_count, shape_env_guard_count, op_count, node_count, input_count, "
              "start_time, metrics_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
          updateCompile(db->prepare(
              "UPDATE compiles SET session_id=?, site_id=?, autograd_id=?, frame_id=?, frame_compile_id=?, "
              "attempt=?, compile_key=?, seq=?, line=?, started=?, status=?, function=?, file=?, first_line=?, "
              "fail_type=?, fail_reason=?, fail_user_file=?, fail_user_line=?, restart_reasons=?, "
              "recompile_reasons=?, cache_size=?, accumulated_cache_size=?, guard_count=?, "
              "shape_env_guard_count=?, op_count=?, node_count=?, input_count=?, start_time=?, "
              "metrics_json=CASE WHEN ?29 = '' THEN metrics_json ELSE ?29 END WHERE id=?30")),
          deletePhases(db->prepare("DELETE FROM compile_phases WHERE compile_id=?")),
          insertPhase(db->prepare(
              "INSERT OR REPLACE INTO compile_phases(compile_id, phase, seconds) VALUES (?,?,?)")),
          insertGraph(db->prepare(
              "INSERT INTO graphs(session_id, compile_id, seq, line, kind, name, text) VALUES (?,?,?,?,?,?,?)")),
          insertNode(db->prepare(
              "INSERT INTO graph_nodes(graph_id, idx, name, op, target, args, inputs, shape, dtype, stride, "
              "device, source_file, source_line, source_function, source_code) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
          insertGuard(db->prepare(
              "INSERT INTO guards(compile_id, idx, kind, source, text, checks, user_code, depth) "
              "VALUES (?,?,?,?,?,?,?,?)")),
          insertFailure(db->prepare(
              "INSERT INTO guard_failures(compile_id, idx, failed_compile, reason) VALUES (?,?,?,?)")),
          insertBreak(db->prepare(
              "INSERT INTO graph_breaks(session_id, compile_id, seq, line, origin, reason, break_type, "
              "user_file, user_line, user_stack, dedup_key, text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")),
          insertOutput(db->prepare(
              "INSERT INTO output_code(session_id, compile_id, seq, line, event, filename, language, source) "
              "VALUES (?,?,?,?,?,?,?,?)")),
          insertKernel(db->prepare(
              "INSERT INTO kernels(output_code_id, compile_id, idx, name, language, source, launch_config, "
              "compile_seconds) VALUES (?,?,?,?,?,?,?,?)")),
          insertPayload(db->prepare("INSERT INTO payloads(md5, text) VALUES (?,?)")),
          insertArtifact(db->prepare(
              "INSERT INTO artifacts(session_id, compile_id, seq, line, event, name, encoding, metadata, "
              "payload_id, payload_intact) VALUES (?,?,?,?,?,?,?,?,?,?)")),
          insertSpan(db->prepare(
              "INSERT INTO spans(session_id, compile_id, compile_key, name, category, start_us, duration_us, "
              "thread_id, args) VALUES (?,?,?,?,?,?,?,?,?)")) {
        auto q = db->prepare("SELECT id, md5 FROM payloads");
        while (q.step()) payloadIdsByMd5.emplace(q.text(1), q.int64(0));
    }

    void wrote(size_t bytes) {
        if (!inTransaction) {
            db->exec("BEGIN");
            inTransaction = true;
        }
        batchBytes += bytes;
        if (++batchRows >= kBatchRows || batchBytes >= kBatchBytes) commit();
    }

    void commit() {
        if (!inTransaction) return;
        db->exec("COMMIT");
        inTransaction = false;
        batchBytes = 0;
        batchRows = 0;
    }

    void bindSession(Statement& s, const Session& v) {
        s.bind(1, sessionKindName(v.kind)).bind(2, v.sourceFile).bind(3, v.sourcePath).bind(4, v.rank);
        s.bind(5, v.torchVersion).bind(6, v.processId).bind(7, v.startedAt).bind(8, v.bytes);
        s.bind(9, v.records).bind(10, v.malformedRecords);
    }

    void bindCompile(Statement& s, const Compile& c) {
        s.bind(1, c.sessionId).bind(2, c.siteId).bind(3, c.key.autogradId).bind(4, c.key.frameId);
        s.bind(5, c.key.frameCompileId).bind(6, c.key.attempt).bind(7, c.key.str()).bind(8, c.seq);
        s.bind(9, c.line).bind(10, c.started ? 1 : 0).bind(11, toString(c.status)).bind(12, c.function);
        s.bind(13, c.file).bind(14, c.firstLine).bind(15, c.failType).bind(16, c.failReason);
        s.bind(17, c.failUserFile).bind(18, c.failUserLine).bind(19, stringsToJson(c.restartReasons));
        s.bind(20, stringsToJson(c.recompileReasons)).bind(21, c.cacheSize).bind(22, c.accumulatedCacheSize);
        s.bind(23, c.guardCount).bind(24, c.shapeEnvGuardCount).bind(25, c.opCount).bind(26, c.nodeCount);
        s.bind(27, c.inputCount).bind(28, c.startTime).bind(29, c.metricsJson);
    }

    void writePhases(const Compile& c) {
        for (const PhaseTime& p : c.phases) {
            insertPhase.bind(1, c.id).bind(2, p.phase).bind(3, p.seconds).run();
            wrote(32);
        }
    }

    RowId payloadId(std::string_view text, std::string_view knownMd5) {
        std::string md5 = knownMd5.empty() ? md5Hex(text) : std::string(knownMd5);
        auto it = payloadIdsByMd5.find(md5);
        if (it != payloadIdsByMd5.end()) return it->second;
        insertPayload.bind(1, md5).bind(2, text).run();
        RowId id = db->lastInsertId();
        payloadIdsByMd5.emplace(std::move(md5), id);
        wrote(text.size());
        return id;
    }
};

TraceWriter::TraceWriter(const std::string& path, Open mode)
    : impl_(std::make_unique<Impl>(mode == Open::CreateNew ? createTraceDatabase(path)
                                                           : openTraceDatabaseForWriting(path))) {}

TraceWriter::~TraceWriter() {
    try {
        impl_->commit();
    } catch (const DbError&) {
        // A destructor must not throw; the batch is lost but earlier commits stay readable.
    }
}

void TraceWriter::commit() { impl_->commit(); }

RowId TraceWriter::addSession(const Session& session) {
    impl_->bindSession(impl_->insertSession, session);
    impl_->insertSession.run();
    RowId id = impl_->db->lastInsertId();
    impl_->wrote(64);
    return id;
}

void TraceWriter::updateSession(const Session& session) {
    impl_->bindSession(impl_->updateSession, session);
    impl_->updateSession.bind(11, session.id).run();
    impl_->wrote(64);
}

void TraceWriter::addImportIssue(const ImportIssue& issue) {
    impl_->insertIssue.bind(1, issue.sessionId).bind(2, issue.line).bind(3, issue.column).bind(4, issue.kind);
    impl_->insertIssue.bind(5, issue.message).run();
    impl_->wrote(issue.message.size());
}

void TraceWriter::addInternedString(RowId sessionId, int64_t index, std::string_view text) {
    impl_->insertString.bind(1, sessionId).bind(2, index).bind(3, text).run();
    impl_->wrote(text.size());
}

RowId TraceWriter::addCompileSite(const CompileSite& site) {
    auto& s = impl_->insertSite;
    s.bind(1, site.sessionId).bind(2, site.function).bind(3, site.file).bind(4, site.line);
    s.bind(5, stackToJson(site.userStack)).run();
    impl_->wrote(256);
    return impl_->db->lastInsertId();
}

RowId TraceWriter::addCompile(const Compile& compile) {
    impl_->bindCompile(impl_->insertCompile, compile);
    impl_->insertCompile.run();
    Compile withId = compile;
    withId.id = impl_->db->lastInsertId();
    impl_->wrote(256 + compile.metricsJson.size());
    impl_->writePhases(withId);
    return withId.id;
}

void TraceWriter::updateCompile(const Compile& compile) {
    impl_->bindCompile(impl_->updateCompile, compile);
    impl_->updateCompile.bind(30, compile.id).run();
    impl_->deletePhases.bind(1, compile.id).run();
    impl_->wrote(256 + compile.metricsJson.size());
    impl_->writePhases(compile);
}

RowId TraceWriter::addGraph(const Graph& graph) {
    auto& g = impl_->insertGraph;
    g.bind(1, graph.sessionId).bind(2, graph.compileId).bind(3, graph.seq).bind(4, graph.line);
    g.bind(5, toString(graph.kind)).bind(6, graph.name).bind(7, graph.text).run();
    RowId id = impl_->db->lastInsertId();
    impl_->wrote(graph.text.size());
    auto& n = impl_->insertNode;
    for (const GraphNode& node : graph.nodes) {
        n.bind(1, id).bind(2, node.index).bind(3, node.name).bind(4, node.op).bind(5, node.target);
        n.bind(6, node.args).bind(7, stringsToJson(node.inputs)).bind(8, node.shape).bind(9, node.dtype);
        n.bind(10, node.stride).bind(11, node.device).bind(12, node.sourceFile).bind(13, node.sourceLine);
        n.bind(14, node.sourceFunction).bind(15, node.sourceCode).run();
        impl_->wrote(128 + node.args.size());
    }
    return id;
}

void TraceWriter::addGuards(RowId compileId, const std::vector<Guard>& guards) {
    auto& s = impl_->insertGuard;
    for (const Guard& g : guards) {
        s.bind(1, compileId).bind(2, g.index).bind(3, g.kind).bind(4, g.source).bind(5, g.text);
        s.bind(6, g.checks).bind(7, g.userCode).bind(8, g.depth).run();
        impl_->wrote(64 + g.text.size());
    }
}

void TraceWriter::addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) {
    auto& s = impl_->insertFailure;
    for (const GuardFailure& f : failures) {
        s.bind(1, compileId).bind(2, f.index).bind(3, f.failedCompile).bind(4, f.reason).run();
        impl_->wrote(64 + f.reason.size());
    }
}

RowId TraceWriter::addGraphBreak(const GraphBreak& b) {
    auto& s = impl_->insertBreak;
    s.bind(1, b.sessionId).bind(2, b.compileId).bind(3, b.seq).bind(4, b.line).bind(5, b.origin);
    s.bind(6, b.reason).bind(7, b.breakType).bind(8, b.userFile).bind(9, b.userLine);
    s.bind(10, stackToJson(b.userStack)).bind(11, b.dedupKey).bind(12, b.text).run();
    impl_->wrote(b.text.size() + b.reason.size());
    return impl_->db->lastInsertId();
}

RowId TraceWriter::addOutputCode(const OutputCode& code) {
    auto& s = impl_->insertOutput;
    s.bind(1, code.sessionId).bind(2, code.compileId).bind(3, code.seq).bind(4, code.line).bind(5, code.event);
    s.bind(6, code.filename).bind(7, code.language).bind(8, code.source).run();
    RowId id = impl_->db->lastInsertId();
    impl_->wrote(code.source.size());
    auto& k = impl_->insertKernel;
    for (const Kernel& kernel : code.kernels) {
        k.bind(1, id).bind(2, code.compileId).bind(3, kernel.index).bind(4, kernel.name).bind(5, kernel.language);
        k.bind(6, kernel.source).bind(7, kernel.launchConfig).bind(8, kernel.compileSeconds).run();
        impl_->wrote(kernel.source.size());
    }
    return id;
}

RowId TraceWriter::addArtifact(const Artifact& a, std::string_view payloadMd5) {
    std::optional<RowId> payload;
    if (!a.payload.empty()) payload = impl_->payloadId(a.payload, a.payloadIntact ? payloadMd5 : std::string_view());
    auto& s = impl_->insertArtifact;
    s.bind(1, a.sessionId).bind(2, a.compileId).bind(3, a.seq).bind(4, a.line).bind(5, a.event).bind(6, a.name);
    s.bind(7, a.encoding).bind(8, a.metadata).bind(9, payload).bind(10, a.payloadIntact ? 1 : 0).run();
    impl_->wrote(64 + a.metadata.size());
    return impl_->db->lastInsertId();
}

RowId TraceWriter::addSpan(const Span& span) {
    auto& s = impl_->insertSpan;
    s.bind(1, span.sessionId).bind(2, span.compileId).bind(3, span.compileKey).bind(4, span.name);
    s.bind(5, span.category).bind(6, span.startUs).bind(7, span.durationUs).bind(8, span.threadId);
    s.bind(9, span.args).run();
    impl_->wrote(64 + span.args.size());
    return impl_->db->lastInsertId();
}

}  // namespace traces
