// Loading a trace file into TraceData (see trace_reader.h). Child rows (nodes, phases, kernels) are attached
// to their parents through id maps built as the parents load, so every table is read once, in order.
#include "store/trace_reader.h"

#include <unordered_map>

#include "schema/schema.h"
#include "store/sqlite_db.h"
#include "store/trace_tables.h"

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
        tables::forEachTable([&](const auto& table) {
            // Payload texts come along with their artifacts, and meta holds no rows of the model.
            std::string_view name = table.name;
            if (name == tables::kPayloads.name || name == tables::kMeta.name) return;
            auto q = db_.prepare(std::string("SELECT count(*) FROM ") + table.name);
            if (q.step()) totalRows_ += q.int64(0);
        });
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

    /// Reads every row of `table` in its reading order, calling `take(row, statement)` for each.
    template <class Row, size_t N, class Take>
    void readAll(const Table<Row, N>& table, const char* stage, Take&& take) {
        auto q = db_.prepare(selectSql(table));
        while (q.step()) {
            tick(stage);
            take(readRow(q, table), q);
        }
    }

    template <class Row, size_t N>
    void readAll(const Table<Row, N>& table, const char* stage, std::vector<Row>& into) {
        readAll(table, stage, [&](Row&& row, const Statement&) { into.push_back(std::move(row)); });
    }

    /// Index of each row by id, for attaching child rows to their parents.
    template <class Row>
    static std::unordered_map<RowId, size_t> positionsById(const std::vector<Row>& rows) {
        std::unordered_map<RowId, size_t> positions;
        positions.reserve(rows.size());
        for (size_t i = 0; i < rows.size(); ++i) positions.emplace(rows[i].id, i);
        return positions;
    }

    /// Appends each row of the child `table` to `childrenOf(parent)` of the parent whose id is in `parentColumn`.
    template <class Row, size_t N, class Parent, class Children>
    void attachChildren(const Table<Row, N>& table, const char* parentColumn, const char* stage,
                        std::vector<Parent>& parents, Children childrenOf) {
        std::unordered_map<RowId, size_t> positions = positionsById(parents);
        int column = columnNumber(table, parentColumn) - 1;
        readAll(table, stage, [&](Row&& row, const Statement& q) {
            auto it = positions.find(q.int64(column));
            if (it != positions.end()) (parents[it->second].*childrenOf).push_back(std::move(row));
        });
    }

    void loadSessions(TraceData& t) { readAll(tables::kSessions, "sessions", t.sessions); }

    void loadSites(TraceData& t) { readAll(tables::kCompileSites, "compile sites", t.sites); }

    void loadCompiles(TraceData& t) {
        readAll(tables::kCompiles, "compiles", t.compiles);
        attachChildren(tables::kCompilePhases, "compile_id", "compile phases", t.compiles, &Compile::phases);
    }

    void loadGraphs(TraceData& t) {
        readAll(tables::kGraphs, "graphs", t.graphs);
        attachChildren(tables::kGraphNodes, "graph_id", "graph nodes", t.graphs, &Graph::nodes);
    }

    void loadGuards(TraceData& t) {
        readAll(tables::kGuards, "guards", t.guards);
        readAll(tables::kGuardFailures, "guard failures", t.guardFailures);
    }

    void loadBreaks(TraceData& t) { readAll(tables::kGraphBreaks, "graph breaks", t.graphBreaks); }

    void loadOutputCode(TraceData& t) {
        readAll(tables::kOutputCode, "generated code", t.outputCode);
        attachChildren(tables::kKernels, "output_code_id", "kernels", t.outputCode, &OutputCode::kernels);
    }

    void loadArtifacts(TraceData& t) {
        const auto& table = tables::kArtifacts;
        auto q = db_.prepare(
            "SELECT " + columnList(table, "a") + ", " +
            // Payloads the views and reports read come along; others stay on disk. Warnings, collective schedules
            // and provenance node mappings (which graph nodes each kernel call computed) are short. Cache decisions
            // are JSON whose `components` (the cache-key dump, tens of KB) nobody shows.
            "CASE WHEN a.name IN ('dynamo_warning', 'inductor_collective_schedule', "
            "'inductor_provenance_tracking_node_mappings') THEN p.text "
            "WHEN (a.name GLOB '*_cache_hit' OR a.name GLOB '*_cache_miss' OR a.name GLOB '*_cache_bypass') "
            "AND json_valid(p.text) THEN json_remove(p.text, '$.components') ELSE '' END "
            "FROM artifacts a LEFT JOIN payloads p ON p.id = a.payload_id ORDER BY a.session_id, a.seq, a.id");
        const int payloadColumn = static_cast<int>(table.columns.size());
        while (q.step()) {
            tick("artifacts");
            Artifact a = readRow(q, table);
            a.payload = q.text(payloadColumn);
            t.artifacts.push_back(std::move(a));
        }
    }

    void loadSpans(TraceData& t) { readAll(tables::kSpans, "spans", t.spans); }

    void loadRecordsWithoutCompileId(TraceData& t) {
        readAll(tables::kRecordsWithoutCompileId, "records without a compile id", t.recordsWithoutCompileId);
    }

    void loadInternedStrings(TraceData& t) {
        readAll(tables::kInternedStrings, "interned strings", [&](InternedString&& row, const Statement&) {
            std::vector<std::string>& strings = t.internedStrings[row.sessionId];
            auto index = static_cast<size_t>(row.index);
            if (strings.size() <= index) strings.resize(index + 1);
            strings[index] = std::move(row.text);
        });
    }

    void loadIssues(TraceData& t) { readAll(tables::kImportIssues, "import issues", t.issues); }
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
