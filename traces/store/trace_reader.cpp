// Loading a trace file into TraceData (see trace_reader.h). Child rows (nodes, phases, kernels) are attached
// to their parents through id maps built as the parents load, so every table is read once, in order.
#include "store/trace_reader.h"

#include <algorithm>
#include <type_traits>
#include <unordered_map>

#include "schema/schema.h"
#include "store/model_payloads.h"
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

/// Rows read from a trace file, table by table in each table's read order.
class FileRows {
public:
    explicit FileRows(Database& db) : db_(db) {}

    int64_t totalRows() {
        int64_t total = 0;
        tables::forEachTable([&](const auto& table) {
            // Payload texts come along with their artifacts, and meta holds no rows of the model.
            std::string_view name = table.name;
            if (name == tables::kPayloads.name || name == tables::kMeta.name) return;
            auto q = db_.prepare(std::string("SELECT count(*) FROM ") + table.name);
            if (q.step()) total += q.int64(0);
        });
        return total;
    }

    /// Reads every row of `table` in its read order into `into`, calling `tick()` per row.
    template <class Row, size_t N, class Tick>
    void rows(const Table<Row, N>& table, std::vector<Row> TraceData::*, std::vector<Row>& into, Tick&& tick) {
        if constexpr (std::is_same_v<Row, Artifact>) {
            // With the payloads the model keeps; the others stay on disk.
            auto q = db_.prepare("SELECT " + columnList(table, "a") + ", CASE WHEN " + modelKeepsPayloadSql("a.name") +
                                 " THEN p.text ELSE '' END FROM artifacts a LEFT JOIN payloads p ON p.id = a.payload_id" +
                                 orderBySql(table, "a"));
            const int payloadColumn = static_cast<int>(table.columns.size());
            while (q.step()) {
                tick();
                Artifact a = readRow(q, table);
                a.payload = modelPayload(a.name, q.text(payloadColumn));
                into.push_back(std::move(a));
            }
        } else {
            readAll(table, tick, [&](Row&& row, const Statement&) { into.push_back(std::move(row)); });
        }
    }

    /// Appends each row of the child `table` to `parent.*children` of the parent whose id is in `parentColumn`.
    template <class Row, size_t N, class Parent, class Tick>
    void children(const Table<Row, N>& table, const char* parentColumn, std::vector<Parent>& parents,
                  std::vector<Row> Parent::*children, Tick&& tick) {
        std::unordered_map<RowId, size_t> positions;
        positions.reserve(parents.size());
        for (size_t i = 0; i < parents.size(); ++i) positions.emplace(parents[i].id, i);
        int column = columnNumber(table, parentColumn) - 1;
        readAll(table, tick, [&](Row&& row, const Statement& q) {
            auto it = positions.find(q.int64(column));
            if (it != positions.end()) (parents[it->second].*children).push_back(std::move(row));
        });
    }

    template <class Tick>
    void internedStrings(std::map<RowId, std::vector<std::string>>& into, Tick&& tick) {
        readAll(tables::kInternedStrings, tick, [&](InternedString&& row, const Statement&) {
            std::vector<std::string>& strings = into[row.sessionId];
            auto index = static_cast<size_t>(row.index);
            if (strings.size() <= index) strings.resize(index + 1);
            strings[index] = std::move(row.text);
        });
    }

private:
    Database& db_;

    template <class Row, size_t N, class Tick, class Take>
    void readAll(const Table<Row, N>& table, Tick& tick, Take&& take) {
        auto q = db_.prepare(selectSql(table));
        while (q.step()) {
            tick();
            take(readRow(q, table), q);
        }
    }
};

/// Counts the rows of the model's tables (child rows aside), for progress.
struct RowCount {
    const TraceData& data;
    int64_t total = 0;
    template <class Table, class Member>
    void rows(const Table&, Member member, const char*) {
        total += static_cast<int64_t>((data.*member).size());
    }
    template <class... Ignored>
    void children(const Ignored&...) {}
};

/// Rows a MemorySink gathered: the same tables, put into the order the file's reader gives them.
class MemoryRows {
public:
    explicit MemoryRows(TraceData rows) : rows_(std::move(rows)) {}

    int64_t totalRows() const {
        RowCount count{rows_};
        tables::forEachModelTable(count);
        return count.total;
    }

    template <class Row, size_t N, class Tick>
    void rows(const Table<Row, N>& table, std::vector<Row> TraceData::*member, std::vector<Row>& into, Tick&& tick) {
        into = std::move(rows_.*member);
        sortInReadOrder(table, into);
        for (Row& row : into) {
            tick();
            if constexpr (std::is_same_v<Row, Artifact>) row.payload = modelPayload(row.name, std::move(row.payload));
        }
    }

    /// The sink attached child rows to their parents already; they only need the read order.
    template <class Row, size_t N, class Parent, class Tick>
    void children(const Table<Row, N>& table, const char*, std::vector<Parent>& parents,
                  std::vector<Row> Parent::*children, Tick&&) {
        for (Parent& parent : parents) sortInReadOrder(table, parent.*children);
    }

    template <class Tick>
    void internedStrings(std::map<RowId, std::vector<std::string>>& into, Tick&&) {
        into = std::move(rows_.internedStrings);
    }

private:
    TraceData rows_;
};

/// Fills a TraceData from either source, table by table, with progress and cancellation.
template <class Source>
class Loader {
public:
    Loader(Source& source, LoadProgress* progress) : source_(source), progress_(progress) {
        if (progress_) totalRows_ = source_.totalRows();
    }

    void load(TraceData& t) {
        target_ = &t;
        tables::forEachModelTable(*this);
        source_.internedStrings(t.internedStrings, tick("interned strings"));
        if (progress_) progress_->report(1.f, "done");
    }

    // forEachModelTable's visit: each table from the source into the target.
    template <class Table, class Member>
    void rows(const Table& table, Member member, const char* stageName) {
        stage(stageName);
        source_.rows(table, member, target_->*member, tick(stageName));
    }
    template <class Table, class Parents, class Children>
    void children(const Table& table, const char* parentColumn, Parents parents, Children children,
                  const char* stageName) {
        source_.children(table, parentColumn, target_->*parents, children, tick(stageName));
    }

private:
    Source& source_;
    LoadProgress* progress_;
    TraceData* target_ = nullptr;
    int64_t totalRows_ = 0;
    int64_t rowsDone_ = 0;

    /// A per-row callback that checks cancellation and reports progress every few thousand rows.
    auto tick(const char* stageName) {
        return [this, stageName] {
            if ((++rowsDone_ & 4095) != 0 || !progress_) return;
            if (progress_->cancelRequested()) throw LoadCancelled();
            progress_->report(fraction(), stageName);
        };
    }

    void stage(const char* name) {
        if (!progress_) return;
        if (progress_->cancelRequested()) throw LoadCancelled();
        progress_->report(fraction(), name);
    }

    float fraction() const {
        return totalRows_ ? std::min(1.f, static_cast<float>(rowsDone_) / static_cast<float>(totalRows_)) : 1.f;
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
    FileRows rows(*db);
    Loader(rows, progress).load(trace);
    db->exec("COMMIT");
    return trace;
}

TraceData loadTrace(TraceData sinkRows, LoadProgress* progress) {
    TraceData trace;
    trace.path = std::move(sinkRows.path);
    trace.schemaVersion = kSchemaVersion;
    MemoryRows rows(std::move(sinkRows));
    Loader(rows, progress).load(trace);
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
