// TraceWriter: row ids are assigned at once on the caller's thread, and the INSERTs run on a writer thread in
// batched transactions, so that parsing a log and writing SQLite overlap (see trace_writer.h).
#include "store/trace_writer.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <unordered_map>

#include "schema/schema.h"
#include "store/json_columns.h"
#include "store/md5.h"
#include "store/sqlite_db.h"

namespace traces {
namespace {

// A batch ends after this many bytes or rows: large enough to amortise commits, small enough that a crash
// mid-import loses little.
constexpr size_t kBatchBytes = 64u << 20;
constexpr size_t kBatchRows = 50000;
// The caller waits while this much is queued for the writer thread, so memory stays flat on huge logs.
// Each job is charged its text sizes plus kJobOverhead for the row struct and the closure around it.
constexpr size_t kMaxQueuedBytes = 8u << 20;
constexpr size_t kJobOverhead = 512;

const char* sessionKindName(SessionKind kind) {
    return kind == SessionKind::EngineRun ? "engine_run" : "imported_log";
}

/// Hands out ids for one table, continuing after the largest id already in the file.
class IdCounter {
public:
    IdCounter(Database& db, const char* table) {
        auto q = db.prepare(std::string("SELECT coalesce(max(id), 0) FROM ") + table);
        if (q.step()) next_ = q.int64(0) + 1;
    }
    RowId take() { return next_++; }

private:
    RowId next_ = 1;
};

}  // namespace

struct TraceWriter::Impl {
    std::unique_ptr<Database> db;
    IdCounter sessionIds, issueIds, siteIds, compileIds, graphIds, guardIds, failureIds, breakIds, outputIds,
        kernelIds, payloadIds, artifactIds, spanIds, noCompileIds;
    std::unordered_map<std::string, RowId> payloadIdsByMd5;

    // Touched only on the writer thread once it runs.
    bool inTransaction = false;
    size_t batchBytes = 0;
    size_t batchRows = 0;
    Statement insertSession, updateSession, insertIssue, insertString, insertSite, insertCompile, updateCompile,
        deletePhases, insertPhase, insertGraph, insertNode, insertGuard, insertFailure, insertBreak, insertOutput,
        insertKernel, insertPayload, insertArtifact, insertSpan, insertNoCompile;

    // The queue between the caller and the writer thread.
    struct Job {
        std::function<void()> run;
        size_t bytes;
    };
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Job> jobs;
    size_t queuedBytes = 0;
    bool busy = false;
    bool stopping = false;
    bool writerWaiting = false;
    bool producerWaiting = false;
    std::exception_ptr failure;
    std::thread thread;

    explicit Impl(std::unique_ptr<Database> database)
        : db(std::move(database)),
          sessionIds(*db, "sessions"), issueIds(*db, "import_issues"), siteIds(*db, "compile_sites"),
          compileIds(*db, "compiles"), graphIds(*db, "graphs"), guardIds(*db, "guards"),
          failureIds(*db, "guard_failures"), breakIds(*db, "graph_breaks"), outputIds(*db, "output_code"),
          kernelIds(*db, "kernels"), payloadIds(*db, "payloads"), artifactIds(*db, "artifacts"),
          spanIds(*db, "spans"), noCompileIds(*db, "records_without_compile_id"),
          insertSession(db->prepare(
              "INSERT INTO sessions(kind, source_file, source_path, rank, torch_version, process_id, started_at, "
              "bytes, records, malformed_records, id) VALUES (?,?,?,?,?,?,?,?,?,?,?)")),
          updateSession(db->prepare(
              "UPDATE sessions SET kind=?, source_file=?, source_path=?, rank=?, torch_version=?, process_id=?, "
              "started_at=?, bytes=?, records=?, malformed_records=? WHERE id=?")),
          insertIssue(db->prepare(
              "INSERT INTO import_issues(id, session_id, line, col, kind, message) VALUES (?,?,?,?,?,?)")),
          insertString(db->prepare(
              "INSERT OR REPLACE INTO interned_strings(session_id, idx, text) VALUES (?,?,?)")),
          insertSite(db->prepare(
              "INSERT INTO compile_sites(id, session_id, function, file, line, user_stack) VALUES (?,?,?,?,?,?)")),
          insertCompile(db->prepare(
              "INSERT INTO compiles(session_id, site_id, autograd_id, frame_id, frame_compile_id, attempt, "
              "compile_key, seq, line, started, status, function, file, first_line, fail_type, fail_reason, "
              "fail_user_file, fail_user_line, restart_reasons, recompile_reasons, cache_size, "
              "accumulated_cache_size, guard_count, shape_env_guard_count, op_count, node_count, input_count, "
              "start_time, metrics_json, id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
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
              "INSERT INTO graphs(id, session_id, compile_id, seq, line, kind, name, text) VALUES (?,?,?,?,?,?,?,?)")),
          insertNode(db->prepare(
              "INSERT INTO graph_nodes(graph_id, idx, name, op, target, args, inputs, shape, dtype, stride, "
              "device, source_file, source_line, source_function, source_code) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")),
          insertGuard(db->prepare(
              "INSERT INTO guards(id, compile_id, idx, kind, source, text, checks, user_code, depth) "
              "VALUES (?,?,?,?,?,?,?,?,?)")),
          insertFailure(db->prepare(
              "INSERT INTO guard_failures(id, compile_id, idx, failed_compile, reason) VALUES (?,?,?,?,?)")),
          insertBreak(db->prepare(
              "INSERT INTO graph_breaks(id, session_id, compile_id, seq, line, origin, reason, break_type, "
              "user_file, user_line, user_stack, dedup_key, text) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")),
          insertOutput(db->prepare(
              "INSERT INTO output_code(id, session_id, compile_id, seq, line, event, filename, language, source) "
              "VALUES (?,?,?,?,?,?,?,?,?)")),
          insertKernel(db->prepare(
              "INSERT INTO kernels(id, output_code_id, compile_id, idx, name, language, source, launch_config, "
              "compile_seconds, source_nodes, post_grad_nodes) VALUES (?,?,?,?,?,?,?,?,?,?,?)")),
          insertPayload(db->prepare("INSERT INTO payloads(id, md5, text) VALUES (?,?,?)")),
          insertArtifact(db->prepare(
              "INSERT INTO artifacts(id, session_id, compile_id, seq, line, event, name, encoding, metadata, "
              "payload_id, payload_intact) VALUES (?,?,?,?,?,?,?,?,?,?,?)")),
          insertSpan(db->prepare(
              "INSERT INTO spans(id, session_id, compile_id, compile_key, name, category, start_us, duration_us, "
              "thread_id, args) VALUES (?,?,?,?,?,?,?,?,?,?)")),
          insertNoCompile(db->prepare(
              "INSERT INTO records_without_compile_id(id, session_id, seq, line, event, name, compile_id, stack) "
              "VALUES (?,?,?,?,?,?,?,?)")) {
        auto q = db->prepare("SELECT id, md5 FROM payloads");
        while (q.step()) payloadIdsByMd5.emplace(q.text(1), q.int64(0));
        thread = std::thread([this] {
            pthread_setname_np(pthread_self(), "cwb-db-writer");
            writerLoop();
        });
    }

    ~Impl() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        changed.notify_all();
        thread.join();
    }

    // --- caller side -------------------------------------------------------------------------------------

    void rethrowFailure() {
        if (failure) std::rethrow_exception(failure);
    }

    void enqueue(size_t bytes, std::function<void()> run) {
        std::unique_lock lock(mutex);
        rethrowFailure();
        if (queuedBytes >= kMaxQueuedBytes) {
            producerWaiting = true;
            changed.wait(lock, [&] { return queuedBytes < kMaxQueuedBytes / 2 || failure; });
            producerWaiting = false;
            rethrowFailure();
        }
        bytes += kJobOverhead;
        queuedBytes += bytes;
        jobs.push_back(Job{std::move(run), bytes});
        // Waking the writer for every row would cost a futex call per row: wake it only when it sleeps.
        if (writerWaiting) changed.notify_all();
    }

    /// Waits until every queued job ran, then commits.
    void drainAndCommit() {
        enqueue(0, [this] { commitBatch(); });
        std::unique_lock lock(mutex);
        producerWaiting = true;
        changed.notify_all();
        changed.wait(lock, [&] { return (jobs.empty() && !busy) || failure; });
        producerWaiting = false;
        rethrowFailure();
    }

    // --- writer side ------------------------------------------------------------------------------------

    void writerLoop() {
        std::deque<Job> batch;
        for (;;) {
            {
                std::unique_lock lock(mutex);
                writerWaiting = true;
                changed.wait(lock, [&] { return !jobs.empty() || stopping; });
                writerWaiting = false;
                if (jobs.empty()) break;
                batch.swap(jobs);  // take everything queued in one go
                busy = true;
            }
            size_t doneBytes = 0;
            for (Job& job : batch) {
                try {
                    if (!failure) job.run();
                } catch (...) {
                    std::lock_guard lock(mutex);
                    failure = std::current_exception();
                }
                doneBytes += job.bytes;
            }
            batch.clear();
            bool wake = false;
            {
                std::lock_guard lock(mutex);
                queuedBytes -= doneBytes;
                busy = false;
                wake = producerWaiting;
            }
            if (wake) changed.notify_all();
        }
        try {
            if (!failure) commitBatch();
            // Leave one self-contained file: readers then need no -wal/-shm files beside it (and read-only
            // readers could not remove them). The next writer switches back to WAL.
            db->exec("PRAGMA journal_mode = DELETE");
        } catch (...) {
            // The destructor cannot report it; everything committed before stays readable.
        }
    }

    void wrote(size_t bytes) {
        if (!inTransaction) {
            db->exec("BEGIN");
            inTransaction = true;
        }
        batchBytes += bytes;
        if (++batchRows >= kBatchRows || batchBytes >= kBatchBytes) commitBatch();
    }

    void commitBatch() {
        if (!inTransaction) return;
        db->exec("COMMIT");
        inTransaction = false;
        batchBytes = 0;
        batchRows = 0;
    }

    void bindSession(Statement& s, const Session& v) {
        s.bind(1, sessionKindName(v.kind)).bind(2, v.sourceFile).bind(3, v.sourcePath).bind(4, v.rank);
        s.bind(5, v.torchVersion).bind(6, v.processId).bind(7, v.startedAt).bind(8, v.bytes);
        s.bind(9, v.records).bind(10, v.malformedRecords).bind(11, v.id);
    }

    void bindCompile(Statement& s, const Compile& c) {
        s.bind(1, c.sessionId).bind(2, c.siteId).bind(3, c.key.autogradId).bind(4, c.key.frameId);
        s.bind(5, c.key.frameCompileId).bind(6, c.key.attempt).bind(7, c.key.str()).bind(8, c.seq);
        s.bind(9, c.line).bind(10, c.started ? 1 : 0).bind(11, toString(c.status)).bind(12, c.function);
        s.bind(13, c.file).bind(14, c.firstLine).bind(15, c.failType).bind(16, c.failReason);
        s.bind(17, c.failUserFile).bind(18, c.failUserLine).bind(19, stringsToJson(c.restartReasons));
        s.bind(20, stringsToJson(c.recompileReasons)).bind(21, c.cacheSize).bind(22, c.accumulatedCacheSize);
        s.bind(23, c.guardCount).bind(24, c.shapeEnvGuardCount).bind(25, c.opCount).bind(26, c.nodeCount);
        s.bind(27, c.inputCount).bind(28, c.startTime).bind(29, c.metricsJson).bind(30, c.id);
    }

    void writePhases(const Compile& c) {
        for (const PhaseTime& p : c.phases) {
            insertPhase.bind(1, c.id).bind(2, p.phase).bind(3, p.seconds).run();
            wrote(32);
        }
    }
};

TraceWriter::TraceWriter(const std::string& path, Open mode)
    : impl_(std::make_unique<Impl>(mode == Open::CreateNew ? createTraceDatabase(path)
                                                           : openTraceDatabaseForWriting(path))) {}

TraceWriter::~TraceWriter() = default;

void TraceWriter::commit() { impl_->drainAndCommit(); }

RowId TraceWriter::addSession(const Session& session) {
    Session row = session;
    row.id = impl_->sessionIds.take();
    impl_->enqueue(256, [impl = impl_.get(), row] {
        impl->bindSession(impl->insertSession, row);
        impl->insertSession.run();
        impl->wrote(64);
    });
    return row.id;
}

void TraceWriter::updateSession(const Session& session) {
    impl_->enqueue(256, [impl = impl_.get(), session] {
        impl->bindSession(impl->updateSession, session);
        impl->updateSession.run();
        impl->wrote(64);
    });
}

void TraceWriter::addImportIssue(const ImportIssue& issue) {
    RowId id = impl_->issueIds.take();
    impl_->enqueue(issue.message.size(), [impl = impl_.get(), id, issue] {
        auto& s = impl->insertIssue;
        s.bind(1, id).bind(2, issue.sessionId).bind(3, issue.line).bind(4, issue.column).bind(5, issue.kind);
        s.bind(6, issue.message).run();
        impl->wrote(issue.message.size());
    });
}

void TraceWriter::addInternedString(RowId sessionId, int64_t index, std::string_view text) {
    impl_->enqueue(text.size(), [impl = impl_.get(), sessionId, index, copy = std::string(text)] {
        impl->insertString.bind(1, sessionId).bind(2, index).bind(3, copy).run();
        impl->wrote(copy.size());
    });
}

RowId TraceWriter::addCompileSite(const CompileSite& site) {
    CompileSite row = site;
    row.id = impl_->siteIds.take();
    impl_->enqueue(256, [impl = impl_.get(), row] {
        auto& s = impl->insertSite;
        s.bind(1, row.id).bind(2, row.sessionId).bind(3, row.function).bind(4, row.file).bind(5, row.line);
        s.bind(6, stackToJson(row.userStack)).run();
        impl->wrote(256);
    });
    return row.id;
}

RowId TraceWriter::addCompile(const Compile& compile) {
    Compile row = compile;
    row.id = impl_->compileIds.take();
    impl_->enqueue(256 + row.metricsJson.size(), [impl = impl_.get(), row] {
        impl->bindCompile(impl->insertCompile, row);
        impl->insertCompile.run();
        impl->wrote(256 + row.metricsJson.size());
        impl->writePhases(row);
    });
    return row.id;
}

void TraceWriter::updateCompile(const Compile& compile) {
    impl_->enqueue(256 + compile.metricsJson.size(), [impl = impl_.get(), compile] {
        impl->bindCompile(impl->updateCompile, compile);
        impl->updateCompile.run();
        impl->deletePhases.bind(1, compile.id).run();
        impl->wrote(256 + compile.metricsJson.size());
        impl->writePhases(compile);
    });
}

RowId TraceWriter::addGraph(const Graph& graph) {
    Graph row = graph;
    row.id = impl_->graphIds.take();
    RowId id = row.id;
    size_t bytes = row.text.size() + 128 * row.nodes.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row)] {
        auto& g = impl->insertGraph;
        g.bind(1, row.id).bind(2, row.sessionId).bind(3, row.compileId).bind(4, row.seq).bind(5, row.line);
        g.bind(6, toString(row.kind)).bind(7, row.name).bind(8, row.text).run();
        impl->wrote(row.text.size());
        auto& n = impl->insertNode;
        for (const GraphNode& node : row.nodes) {
            n.bind(1, row.id).bind(2, node.index).bind(3, node.name).bind(4, node.op).bind(5, node.target);
            n.bind(6, node.args).bind(7, stringsToJson(node.inputs)).bind(8, node.shape).bind(9, node.dtype);
            n.bind(10, node.stride).bind(11, node.device).bind(12, node.sourceFile).bind(13, node.sourceLine);
            n.bind(14, node.sourceFunction).bind(15, node.sourceCode).run();
            impl->wrote(128 + node.args.size());
        }
    });
    return id;
}

void TraceWriter::addGuards(RowId compileId, const std::vector<Guard>& guards) {
    std::vector<Guard> rows = guards;
    size_t bytes = 0;
    for (Guard& g : rows) {
        g.id = impl_->guardIds.take();
        bytes += 64 + g.text.size();
    }
    impl_->enqueue(bytes, [impl = impl_.get(), compileId, rows = std::move(rows)] {
        auto& s = impl->insertGuard;
        for (const Guard& g : rows) {
            s.bind(1, g.id).bind(2, compileId).bind(3, g.index).bind(4, g.kind).bind(5, g.source).bind(6, g.text);
            s.bind(7, g.checks).bind(8, g.userCode).bind(9, g.depth).run();
            impl->wrote(64 + g.text.size());
        }
    });
}

void TraceWriter::addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) {
    std::vector<GuardFailure> rows = failures;
    for (GuardFailure& f : rows) f.id = impl_->failureIds.take();
    impl_->enqueue(64 * rows.size(), [impl = impl_.get(), compileId, rows = std::move(rows)] {
        auto& s = impl->insertFailure;
        for (const GuardFailure& f : rows) {
            s.bind(1, f.id).bind(2, compileId).bind(3, f.index).bind(4, f.failedCompile).bind(5, f.reason).run();
            impl->wrote(64 + f.reason.size());
        }
    });
}

RowId TraceWriter::addGraphBreak(const GraphBreak& graphBreak) {
    GraphBreak b = graphBreak;
    b.id = impl_->breakIds.take();
    impl_->enqueue(b.text.size() + b.reason.size(), [impl = impl_.get(), b] {
        auto& s = impl->insertBreak;
        s.bind(1, b.id).bind(2, b.sessionId).bind(3, b.compileId).bind(4, b.seq).bind(5, b.line).bind(6, b.origin);
        s.bind(7, b.reason).bind(8, b.breakType).bind(9, b.userFile).bind(10, b.userLine);
        s.bind(11, stackToJson(b.userStack)).bind(12, b.dedupKey).bind(13, b.text).run();
        impl->wrote(b.text.size() + b.reason.size());
    });
    return b.id;
}

RowId TraceWriter::addOutputCode(const OutputCode& code) {
    OutputCode row = code;
    row.id = impl_->outputIds.take();
    size_t bytes = row.source.size();
    for (Kernel& k : row.kernels) {
        k.id = impl_->kernelIds.take();
        k.outputCodeId = row.id;
        bytes += k.source.size();
    }
    RowId id = row.id;
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row)] {
        auto& s = impl->insertOutput;
        s.bind(1, row.id).bind(2, row.sessionId).bind(3, row.compileId).bind(4, row.seq).bind(5, row.line);
        s.bind(6, row.event).bind(7, row.filename).bind(8, row.language).bind(9, row.source).run();
        impl->wrote(row.source.size());
        auto& k = impl->insertKernel;
        for (const Kernel& kernel : row.kernels) {
            k.bind(1, kernel.id).bind(2, row.id).bind(3, row.compileId).bind(4, kernel.index).bind(5, kernel.name);
            k.bind(6, kernel.language).bind(7, kernel.source).bind(8, kernel.launchConfig);
            k.bind(9, kernel.compileSeconds).bind(10, stringsToJson(kernel.sourceNodes));
            k.bind(11, stringsToJson(kernel.postGradNodes)).run();
            impl->wrote(kernel.source.size());
        }
    });
    return id;
}

RowId TraceWriter::addArtifact(const Artifact& artifact, std::string_view payloadMd5) {
    std::optional<RowId> payloadId;
    if (!artifact.payload.empty()) {
        std::string md5 = artifact.payloadIntact && !payloadMd5.empty() ? std::string(payloadMd5)
                                                                         : md5Hex(artifact.payload);
        auto [it, inserted] = impl_->payloadIdsByMd5.try_emplace(md5, 0);
        if (inserted) it->second = impl_->payloadIds.take();
        payloadId = it->second;
        if (inserted) {
            impl_->enqueue(artifact.payload.size(),
                           [impl = impl_.get(), id = *payloadId, md5, text = artifact.payload] {
                               impl->insertPayload.bind(1, id).bind(2, md5).bind(3, text).run();
                               impl->wrote(text.size());
                           });
        }
    }
    // Everything but the payload, which is stored once in `payloads` above.
    Artifact row;
    row.id = impl_->artifactIds.take();
    row.sessionId = artifact.sessionId;
    row.compileId = artifact.compileId;
    row.seq = artifact.seq;
    row.line = artifact.line;
    row.event = artifact.event;
    row.name = artifact.name;
    row.encoding = artifact.encoding;
    row.metadata = artifact.metadata;
    row.payloadIntact = artifact.payloadIntact;
    RowId id = row.id;
    impl_->enqueue(64 + row.metadata.size(), [impl = impl_.get(), row = std::move(row), payloadId] {
        auto& s = impl->insertArtifact;
        s.bind(1, row.id).bind(2, row.sessionId).bind(3, row.compileId).bind(4, row.seq).bind(5, row.line);
        s.bind(6, row.event).bind(7, row.name).bind(8, row.encoding).bind(9, row.metadata).bind(10, payloadId);
        s.bind(11, row.payloadIntact ? 1 : 0).run();
        impl->wrote(64 + row.metadata.size());
    });
    return id;
}

RowId TraceWriter::addSpan(const Span& span) {
    Span row = span;
    row.id = impl_->spanIds.take();
    RowId id = row.id;
    impl_->enqueue(64 + row.args.size(), [impl = impl_.get(), row = std::move(row)] {
        auto& s = impl->insertSpan;
        s.bind(1, row.id).bind(2, row.sessionId).bind(3, row.compileId).bind(4, row.compileKey).bind(5, row.name);
        s.bind(6, row.category).bind(7, row.startUs).bind(8, row.durationUs).bind(9, row.threadId);
        s.bind(10, row.args).run();
        impl->wrote(64 + row.args.size());
    });
    return id;
}

RowId TraceWriter::addRecordWithoutCompileId(const RecordWithoutCompileId& record) {
    RowId id = impl_->noCompileIds.take();
    std::string stack = stackToJson(record.stack);
    impl_->enqueue(64 + stack.size(), [impl = impl_.get(), row = record, id, stack = std::move(stack)] {
        auto& s = impl->insertNoCompile;
        s.bind(1, id).bind(2, row.sessionId).bind(3, row.seq).bind(4, row.line).bind(5, row.event);
        s.bind(6, row.name).bind(7, row.compileId).bind(8, stack).run();
        impl->wrote(64 + stack.size());
    });
    return id;
}

}  // namespace traces
