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
#include "store/trace_tables.h"

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

// Bind indexes of the columns that rows do not hold themselves.
constexpr int kIssueIdColumn = columnNumber(tables::kImportIssues, "id");
constexpr int kPhaseCompileIdColumn = columnNumber(tables::kCompilePhases, "compile_id");
constexpr int kArtifactPayloadIdColumn = columnNumber(tables::kArtifacts, "payload_id");
constexpr int kGraphNodesColumn = columnNumber(tables::kGraphs, "nodes");

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
        deletePhases, insertPhase, insertGraph, insertGuard, insertFailure, insertBreak, insertOutput,
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
          sessionIds(*db, tables::kSessions.name), issueIds(*db, tables::kImportIssues.name),
          siteIds(*db, tables::kCompileSites.name), compileIds(*db, tables::kCompiles.name),
          graphIds(*db, tables::kGraphs.name), guardIds(*db, tables::kGuards.name),
          failureIds(*db, tables::kGuardFailures.name), breakIds(*db, tables::kGraphBreaks.name),
          outputIds(*db, tables::kOutputCode.name), kernelIds(*db, tables::kKernels.name),
          payloadIds(*db, tables::kPayloads.name), artifactIds(*db, tables::kArtifacts.name),
          spanIds(*db, tables::kSpans.name), noCompileIds(*db, tables::kRecordsWithoutCompileId.name),
          insertSession(db->prepare(insertSql(tables::kSessions))),
          updateSession(db->prepare(updateByIdSql(tables::kSessions))),
          insertIssue(db->prepare(insertSql(tables::kImportIssues))),
          insertString(db->prepare(insertSql(tables::kInternedStrings, "INSERT OR REPLACE"))),
          insertSite(db->prepare(insertSql(tables::kCompileSites))),
          insertCompile(db->prepare(insertSql(tables::kCompiles))),
          updateCompile(db->prepare(updateByIdSql(tables::kCompiles))),
          deletePhases(db->prepare("DELETE FROM compile_phases WHERE compile_id=?")),
          insertPhase(db->prepare(insertSql(tables::kCompilePhases, "INSERT OR REPLACE"))),
          insertGraph(db->prepare(insertSql(tables::kGraphs))),
          insertGuard(db->prepare(insertSql(tables::kGuards))),
          insertFailure(db->prepare(insertSql(tables::kGuardFailures))),
          insertBreak(db->prepare(insertSql(tables::kGraphBreaks))),
          insertOutput(db->prepare(insertSql(tables::kOutputCode))),
          insertKernel(db->prepare(insertSql(tables::kKernels))),
          insertPayload(db->prepare(insertSql(tables::kPayloads))),
          insertArtifact(db->prepare(insertSql(tables::kArtifacts))),
          insertSpan(db->prepare(insertSql(tables::kSpans))),
          insertNoCompile(db->prepare(insertSql(tables::kRecordsWithoutCompileId))) {
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

    /// Binds `row` to `statement` through `table`, runs it, and counts `bytes` towards the batch.
    template <class Row, size_t N>
    void write(Statement& statement, const Table<Row, N>& table, const Row& row, size_t bytes) {
        bindRow(statement, table, row);
        statement.run();
        wrote(bytes);
    }

    void writePhases(const Compile& c) {
        for (const PhaseTime& p : c.phases) {
            insertPhase.bind(kPhaseCompileIdColumn, c.id);
            write(insertPhase, tables::kCompilePhases, p, 32);
        }
    }
};

TraceWriter::TraceWriter(const std::string& path, Open mode)
    : impl_(std::make_unique<Impl>(
          mode == Open::Append ? openTraceDatabaseForWriting(path)
                               : createTraceDatabase(path, kSchemaVersion,
                                                     mode == Open::CreateNewExclusive ? WriteAccess::Exclusive
                                                                                      : WriteAccess::Shared))) {}

TraceWriter::~TraceWriter() = default;

void TraceWriter::commit() { impl_->drainAndCommit(); }

RowId TraceWriter::addSession(const Session& session) {
    Session row = session;
    row.id = impl_->sessionIds.take();
    impl_->enqueue(256, [impl = impl_.get(), row] { impl->write(impl->insertSession, tables::kSessions, row, 64); });
    return row.id;
}

void TraceWriter::updateSession(const Session& session) {
    impl_->enqueue(256, [impl = impl_.get(), session] {
        impl->write(impl->updateSession, tables::kSessions, session, 64);
    });
}

void TraceWriter::addImportIssue(const ImportIssue& issue) {
    RowId id = impl_->issueIds.take();
    impl_->enqueue(issue.message.size(), [impl = impl_.get(), id, issue] {
        impl->insertIssue.bind(kIssueIdColumn, id);
        impl->write(impl->insertIssue, tables::kImportIssues, issue, issue.message.size());
    });
}

void TraceWriter::addInternedString(RowId sessionId, int64_t index, std::string_view text) {
    impl_->enqueue(text.size(), [impl = impl_.get(), row = InternedString{sessionId, index, std::string(text)}] {
        impl->write(impl->insertString, tables::kInternedStrings, row, row.text.size());
    });
}

RowId TraceWriter::addCompileSite(const CompileSite& site) {
    CompileSite row = site;
    row.id = impl_->siteIds.take();
    impl_->enqueue(256, [impl = impl_.get(), row] { impl->write(impl->insertSite, tables::kCompileSites, row, 256); });
    return row.id;
}

RowId TraceWriter::addCompile(const Compile& compile) {
    Compile row = compile;
    row.id = impl_->compileIds.take();
    impl_->enqueue(256 + row.metricsJson.size(), [impl = impl_.get(), row] {
        impl->write(impl->insertCompile, tables::kCompiles, row, 256 + row.metricsJson.size());
        impl->writePhases(row);
    });
    return row.id;
}

void TraceWriter::updateCompile(const Compile& compile) { updateCompile(Compile(compile)); }

void TraceWriter::updateCompile(Compile&& compile) {
    size_t bytes = 256 + compile.metricsJson.size();  // before the row moves into the job (arguments are unordered)
    impl_->enqueue(bytes, [impl = impl_.get(), compile = std::move(compile)] {
        impl->write(impl->updateCompile, tables::kCompiles, compile, 256 + compile.metricsJson.size());
        impl->deletePhases.bind(1, compile.id).run();
        impl->writePhases(compile);
    });
}

RowId TraceWriter::addGraph(const Graph& graph) { return addGraph(Graph(graph)); }

RowId TraceWriter::addGraph(Graph&& graph) {
    Graph row = std::move(graph);
    row.id = impl_->graphIds.take();
    RowId id = row.id;
    size_t bytes = row.text.size() + 128 * row.nodes.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row), bytes] {
        impl->write(impl->insertGraph, tables::kGraphs, row, bytes);
    });
    return id;
}

RowId TraceWriter::addGraph(Graph&& graph, std::string&& nodesJson) {
    Graph row = std::move(graph);
    row.id = impl_->graphIds.take();
    RowId id = row.id;
    size_t bytes = row.text.size() + nodesJson.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row), json = std::move(nodesJson), bytes] {
        // The row's own nodes are empty: the encoding made on the parsing thread replaces their "[]".
        bindRow(impl->insertGraph, tables::kGraphs, row);
        impl->insertGraph.bindUncopied(kGraphNodesColumn, json);
        impl->insertGraph.run();
        impl->wrote(bytes);
    });
    return id;
}

void TraceWriter::addGuards(RowId compileId, const std::vector<Guard>& guards) {
    std::vector<Guard> rows = guards;
    size_t bytes = 0;
    for (Guard& g : rows) {
        g.id = impl_->guardIds.take();
        g.compileId = compileId;
        bytes += 64 + g.text.size();
    }
    impl_->enqueue(bytes, [impl = impl_.get(), rows = std::move(rows)] {
        for (const Guard& g : rows) impl->write(impl->insertGuard, tables::kGuards, g, 64 + g.text.size());
    });
}

void TraceWriter::addGuardFailures(RowId compileId, const std::vector<GuardFailure>& failures) {
    std::vector<GuardFailure> rows = failures;
    for (GuardFailure& f : rows) {
        f.id = impl_->failureIds.take();
        f.compileId = compileId;
    }
    size_t bytes = 64 * rows.size();
    impl_->enqueue(bytes, [impl = impl_.get(), rows = std::move(rows)] {
        for (const GuardFailure& f : rows)
            impl->write(impl->insertFailure, tables::kGuardFailures, f, 64 + f.reason.size());
    });
}

RowId TraceWriter::addGraphBreak(const GraphBreak& graphBreak) {
    GraphBreak b = graphBreak;
    b.id = impl_->breakIds.take();
    impl_->enqueue(b.text.size() + b.reason.size(), [impl = impl_.get(), b] {
        impl->write(impl->insertBreak, tables::kGraphBreaks, b, b.text.size() + b.reason.size());
    });
    return b.id;
}

RowId TraceWriter::addOutputCode(const OutputCode& code) { return addOutputCode(OutputCode(code)); }

RowId TraceWriter::addOutputCode(OutputCode&& code) {
    OutputCode row = std::move(code);
    row.id = impl_->outputIds.take();
    size_t bytes = row.source.size();
    for (Kernel& k : row.kernels) {
        k.id = impl_->kernelIds.take();
        k.outputCodeId = row.id;
        k.compileId = row.compileId;
        bytes += k.source.size();
    }
    RowId id = row.id;
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row)] {
        impl->write(impl->insertOutput, tables::kOutputCode, row, row.source.size());
        for (const Kernel& kernel : row.kernels)
            impl->write(impl->insertKernel, tables::kKernels, kernel, kernel.source.size());
    });
    return id;
}

RowId TraceWriter::addArtifact(const Artifact& artifact, std::string_view payloadMd5) {
    return addArtifact(Artifact(artifact), payloadMd5);
}

RowId TraceWriter::addArtifact(Artifact&& artifact, std::string_view payloadMd5) {
    std::optional<RowId> payloadId;
    if (!artifact.payload.empty()) {
        std::string md5 = artifact.payloadIntact && !payloadMd5.empty() ? std::string(payloadMd5)
                                                                         : md5Hex(artifact.payload);
        auto [it, inserted] = impl_->payloadIdsByMd5.try_emplace(md5, 0);
        if (inserted) it->second = impl_->payloadIds.take();
        payloadId = it->second;
        if (inserted) {
            size_t bytes = artifact.payload.size();  // before the payload moves into the job
            impl_->enqueue(bytes, [impl = impl_.get(),
                                                     row = StoredPayload{*payloadId, md5, std::move(artifact.payload)}] {
                impl->write(impl->insertPayload, tables::kPayloads, row, row.text.size());
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
    row.event = std::move(artifact.event);
    row.name = std::move(artifact.name);
    row.encoding = std::move(artifact.encoding);
    row.metadata = std::move(artifact.metadata);
    row.payloadIntact = artifact.payloadIntact;
    RowId id = row.id;
    size_t bytes = 64 + row.metadata.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row), payloadId] {
        impl->insertArtifact.bind(kArtifactPayloadIdColumn, payloadId);
        impl->write(impl->insertArtifact, tables::kArtifacts, row, 64 + row.metadata.size());
    });
    return id;
}

RowId TraceWriter::addSpan(const Span& span) {
    Span row = span;
    row.id = impl_->spanIds.take();
    RowId id = row.id;
    size_t bytes = 64 + row.args.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row)] {
        impl->write(impl->insertSpan, tables::kSpans, row, 64 + row.args.size());
    });
    return id;
}

RowId TraceWriter::addRecordWithoutCompileId(const RecordWithoutCompileId& record) {
    RecordWithoutCompileId row = record;
    row.id = impl_->noCompileIds.take();
    RowId id = row.id;
    size_t bytes = 64 + 128 * row.stack.size();
    impl_->enqueue(bytes, [impl = impl_.get(), row = std::move(row)] {
        impl->write(impl->insertNoCompile, tables::kRecordsWithoutCompileId, row, 64 + 128 * row.stack.size());
    });
    return id;
}

}  // namespace traces
