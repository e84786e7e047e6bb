// Numbered schema migrations for trace files. Never edit a migration that has shipped: add the next one.
// New files get the current tables from their column tables (store/trace_tables.h) instead.
#include "schema/schema.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/trace_tables.h"

namespace traces {
namespace {

// The compiles table as migrations 1 and 2 create it: one column list, `{statuses}` standing for the status values
// each allows (migration 2 adds 'empty'). Shipped: never edit; a later change of compiles is a new migration.
constexpr const char* kCompilesColumns = R"sql(
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  site_id INTEGER REFERENCES compile_sites(id),
  autograd_id INTEGER,
  frame_id INTEGER,
  frame_compile_id INTEGER,
  attempt INTEGER NOT NULL DEFAULT 0,
  compile_key TEXT NOT NULL,          -- PyTorch's form: 0/1, 0/1_2, !0/3/0
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  started INTEGER NOT NULL DEFAULT 0, -- opened by a dynamo_start record
  status TEXT NOT NULL CHECK (status IN ({statuses})),
  function TEXT NOT NULL DEFAULT '',
  file TEXT NOT NULL DEFAULT '',
  first_line INTEGER NOT NULL DEFAULT 0,
  fail_type TEXT NOT NULL DEFAULT '',
  fail_reason TEXT NOT NULL DEFAULT '',
  fail_user_file TEXT NOT NULL DEFAULT '',
  fail_user_line INTEGER NOT NULL DEFAULT 0,
  restart_reasons TEXT NOT NULL DEFAULT '[]',    -- JSON array of strings
  recompile_reasons TEXT NOT NULL DEFAULT '[]',  -- JSON array of strings
  cache_size INTEGER,
  accumulated_cache_size INTEGER,
  guard_count INTEGER,
  shape_env_guard_count INTEGER,
  op_count INTEGER,
  node_count INTEGER,
  input_count INTEGER,
  start_time REAL,
  metrics_json TEXT NOT NULL DEFAULT ''
)sql";

std::string compilesTableSql(const std::string& table, const std::string& statuses) {
    std::string columns = kCompilesColumns;
    columns.replace(columns.find("{statuses}"), std::string("{statuses}").size(), statuses);
    return "CREATE TABLE " + table + " (" + columns + ");\n";
}

// Migration 1: the initial schema. Row order inside a session follows `seq` (input order); `line` is the
// 1-based line of the input log the row came from (0 for engine runs).
constexpr const char* kMigration1Before = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('imported_log', 'engine_run')),
  source_file TEXT NOT NULL,
  source_path TEXT NOT NULL,
  rank INTEGER,
  torch_version TEXT NOT NULL DEFAULT '',
  process_id INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL DEFAULT '',
  bytes INTEGER NOT NULL DEFAULT 0,
  records INTEGER NOT NULL DEFAULT 0,
  malformed_records INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE import_issues (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX import_issues_by_session ON import_issues(session_id, line);

CREATE TABLE interned_strings (
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  idx INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (session_id, idx)
);

CREATE TABLE compile_sites (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  function TEXT NOT NULL,
  file TEXT NOT NULL,
  line INTEGER NOT NULL,
  user_stack TEXT NOT NULL            -- JSON array of {file, line, function, source}
);

)sql";
constexpr const char* kMigration1After = R"sql(CREATE INDEX compiles_by_session ON compiles(session_id, seq);

CREATE TABLE compile_phases (
  compile_id INTEGER NOT NULL REFERENCES compiles(id),
  phase TEXT NOT NULL,
  seconds REAL NOT NULL,
  PRIMARY KEY (compile_id, phase)
);

CREATE TABLE graphs (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  compile_id INTEGER REFERENCES compiles(id),
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  kind TEXT NOT NULL,                 -- dynamo, aot_joint, aot_forward, aot_backward, aot_inference, pre_grad, ...
  name TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX graphs_by_compile ON graphs(compile_id);

CREATE TABLE graph_nodes (
  graph_id INTEGER NOT NULL REFERENCES graphs(id),
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  op TEXT NOT NULL,
  target TEXT NOT NULL,
  args TEXT NOT NULL,
  inputs TEXT NOT NULL,               -- JSON array of node names
  shape TEXT NOT NULL,
  dtype TEXT NOT NULL,
  stride TEXT NOT NULL,
  device TEXT NOT NULL,
  source_file TEXT NOT NULL,
  source_line INTEGER NOT NULL,
  source_function TEXT NOT NULL,
  source_code TEXT NOT NULL,
  PRIMARY KEY (graph_id, idx)
);

CREATE TABLE guards (
  id INTEGER PRIMARY KEY,
  compile_id INTEGER NOT NULL REFERENCES compiles(id),
  idx INTEGER NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  text TEXT NOT NULL,
  checks TEXT NOT NULL,
  user_code TEXT NOT NULL,
  depth INTEGER NOT NULL
);
CREATE INDEX guards_by_compile ON guards(compile_id, idx);

CREATE TABLE guard_failures (
  id INTEGER PRIMARY KEY,
  compile_id INTEGER NOT NULL REFERENCES compiles(id),
  idx INTEGER NOT NULL,
  failed_compile TEXT NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX guard_failures_by_compile ON guard_failures(compile_id, idx);

CREATE TABLE graph_breaks (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  compile_id INTEGER REFERENCES compiles(id),
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('artifact', 'restart')),
  reason TEXT NOT NULL,
  break_type TEXT NOT NULL,
  user_file TEXT NOT NULL,
  user_line INTEGER NOT NULL,
  user_stack TEXT NOT NULL,           -- JSON array of frames
  dedup_key TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX graph_breaks_by_session ON graph_breaks(session_id, dedup_key);

CREATE TABLE output_code (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  compile_id INTEGER REFERENCES compiles(id),
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  event TEXT NOT NULL,
  filename TEXT NOT NULL,
  language TEXT NOT NULL,
  source TEXT NOT NULL
);

CREATE TABLE kernels (
  id INTEGER PRIMARY KEY,
  output_code_id INTEGER NOT NULL REFERENCES output_code(id),
  compile_id INTEGER REFERENCES compiles(id),
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  language TEXT NOT NULL,
  source TEXT NOT NULL,
  launch_config TEXT NOT NULL DEFAULT '',
  compile_seconds REAL,
  source_nodes TEXT NOT NULL DEFAULT '[]',     -- JSON array: Dynamo-graph nodes the kernel computes
  post_grad_nodes TEXT NOT NULL DEFAULT '[]'   -- JSON array: post-grad graph nodes fused into it
);
CREATE INDEX kernels_by_output ON kernels(output_code_id, idx);

CREATE TABLE artifacts (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  compile_id INTEGER REFERENCES compiles(id),
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  event TEXT NOT NULL,
  name TEXT NOT NULL,
  encoding TEXT NOT NULL,
  metadata TEXT NOT NULL,             -- the record's JSON envelope, verbatim
  payload_id INTEGER REFERENCES payloads(id),
  payload_intact INTEGER NOT NULL
);

-- Payload texts, stored once per distinct content: PyTorch logs the same graph under several artifact names.
CREATE TABLE payloads (
  id INTEGER PRIMARY KEY,
  md5 TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX payloads_by_md5 ON payloads(md5);
CREATE INDEX artifacts_by_compile ON artifacts(compile_id, seq);

CREATE TABLE spans (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  compile_id INTEGER REFERENCES compiles(id),
  compile_key TEXT NOT NULL,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  start_us REAL NOT NULL,
  duration_us REAL,
  thread_id INTEGER NOT NULL,
  args TEXT NOT NULL
);
CREATE INDEX spans_by_time ON spans(session_id, start_us);
)sql";

std::string migration1() {
    return kMigration1Before + compilesTableSql("compiles", "'ok', 'failed', 'restarted', 'unknown'") + kMigration1After;
}

// Migration 2: compiles may be "empty" (tlparse's status-empty: finished without a graph). SQLite cannot alter a
// CHECK constraint, so the table is rebuilt (foreign keys are off while writing; references follow the name).
std::string migration2() {
    return compilesTableSql("compiles_v2", "'ok', 'failed', 'restarted', 'unknown', 'empty'") + R"sql(INSERT INTO compiles_v2 SELECT * FROM compiles;
DROP TABLE compiles;
ALTER TABLE compiles_v2 RENAME TO compiles;
CREATE INDEX compiles_by_session ON compiles(session_id, seq);
)sql";
}

// Migration 3: records whose envelope named no compile id get a table of their own (tlparse's `[-/-]` entries and
// unknown stacks). Files imported earlier list the rows their import left without a compile; spans have no line.
constexpr const char* kMigration3 = R"sql(
CREATE TABLE records_without_compile_id (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  line INTEGER NOT NULL,
  event TEXT NOT NULL,                -- the envelope's event key
  name TEXT NOT NULL,                 -- artifact name, chromium event name, or the event key
  compile_id INTEGER REFERENCES compiles(id),  -- the compile its payload names (chromium args.compile_id)
  stack TEXT NOT NULL DEFAULT '[]'    -- JSON array of frames: the envelope's context stack
);
CREATE INDEX records_without_compile_id_by_session ON records_without_compile_id(session_id, seq);
INSERT INTO records_without_compile_id(session_id, seq, line, event, name, compile_id, stack)
  SELECT session_id, seq, line, event, name, NULL, '[]' FROM (
    SELECT session_id, seq, line, event, name FROM artifacts WHERE compile_id IS NULL AND event <> 'str'
    UNION ALL SELECT session_id, seq, line, name, name FROM graphs WHERE compile_id IS NULL
    UNION ALL SELECT session_id, seq, line, event, event FROM output_code WHERE compile_id IS NULL
    UNION ALL SELECT session_id, seq, line, 'artifact', 'dynamo_graph_break_reason' FROM graph_breaks
      WHERE compile_id IS NULL AND origin = 'artifact'
    UNION ALL SELECT session_id, 0, 0, 'chromium_event', name FROM spans WHERE compile_id IS NULL
  ) ORDER BY session_id, seq;
)sql";

// Migration 4: a graph's nodes are one JSON column of its row (json_columns.h: an array per node, its fields in
// graph_nodes' column order), not a row each: node rows were most of an import's rows and of its writing time.
constexpr const char* kMigration4 = R"sql(
ALTER TABLE graphs ADD COLUMN nodes TEXT NOT NULL DEFAULT '[]';
UPDATE graphs SET nodes = (
  SELECT json_group_array(json_array(idx, name, op, target, args,
                                     CASE WHEN json_valid(inputs) THEN json(inputs) ELSE json('[]') END,
                                     shape, dtype, stride, device, source_file, source_line, source_function,
                                     source_code))
  FROM (SELECT * FROM graph_nodes n WHERE n.graph_id = graphs.id ORDER BY n.idx))
WHERE id IN (SELECT graph_id FROM graph_nodes);
DROP TABLE graph_nodes;
)sql";

// Append new migrations here; index i upgrades a file from version i to i + 1.
const std::array<std::string, kSchemaVersion>& migrations() {
    static const std::array<std::string, kSchemaVersion> all = {migration1(), migration2(), kMigration3,
                                                                kMigration4};
    return all;
}

void markAsTrace(Database& db) {
    db.exec(std::string("INSERT INTO meta(key, value) VALUES ('format', '") + kTraceFormatName + "')");
}

void applyMigrations(Database& db, int from, int to = kSchemaVersion) {
    for (int version = from; version < to; ++version) {
        db.exec("BEGIN IMMEDIATE");
        db.exec(migrations()[static_cast<size_t>(version)]);
        db.exec("PRAGMA user_version = " + std::to_string(version + 1));
        if (version == 0) markAsTrace(db);
        db.exec("COMMIT");
    }
}

/// A new file gets the current tables straight from their column tables (trace_tables.h).
void createCurrentSchema(Database& db) {
    db.exec("BEGIN IMMEDIATE");
    db.exec(tables::currentSchemaSql());
    db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    markAsTrace(db);
    db.exec("COMMIT");
}

void configureForWriting(Database& db, WriteAccess access = WriteAccess::Shared) {
    if (access == WriteAccess::Exclusive) {
        db.exec("PRAGMA locking_mode = EXCLUSIVE");
        db.exec("PRAGMA journal_mode = TRUNCATE");
    } else {
        db.exec("PRAGMA journal_mode = WAL");
    }
    // synchronous=OFF with either journal: a crash of cwb (or of the engine run it records) loses nothing
    // committed; only an operating-system crash could, and skipping fsync keeps imports of huge logs I/O-light.
    db.exec("PRAGMA synchronous = OFF");
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("PRAGMA cache_size = -16384");  // 16 MB: writes need little cache, and memory stays flat
}

void checkIsTrace(Database& db, int version) {
    if (version == 0) return;
    bool hasMeta = false;
    {
        auto q = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
        hasMeta = q.step() && q.int64(0) == 1;
    }
    std::string format;
    if (hasMeta) {
        auto q = db.prepare("SELECT value FROM meta WHERE key = 'format'");
        if (q.step()) format = q.text(0);
    }
    if (format != kTraceFormatName) {
        throw DbError(db.path() + ": this SQLite file is not a cwb trace (no 'format = " + kTraceFormatName +
                      "' in its meta table)");
    }
}

void refuseUnknownVersion(Database& db, int version) {
    // user_version is a signed 32-bit field: a damaged or crafted file may hold a negative one.
    if (version < 0)
        throw DbError(db.path() + ": trace schema version " + std::to_string(version) + " is not a version any cwb writes");
    if (version > kSchemaVersion) {
        throw DbError(db.path() + ": trace schema version " + std::to_string(version) +
                      " is newer than this cwb understands (up to version " + std::to_string(kSchemaVersion) +
                      "); open it with a newer cwb");
    }
}

// A writer killed mid-transaction with a rollback journal (WriteAccess::Exclusive) leaves a hot journal, which
// only a read-write connection may roll back: do that first, so the file shows what was committed before.
void rollBackInterruptedWrite(const std::string& path) {
    std::error_code ec;
    auto journalSize = std::filesystem::file_size(path + "-journal", ec);
    if (ec || journalSize == 0) return;
    try {
        Database db(path, Database::Mode::ReadWrite);
        db.prepare("SELECT count(*) FROM sqlite_master").step();
    } catch (const DbError& e) {
        throw DbError(path + ": a write to this trace was interrupted or is still going on, and its journal (" +
                      path + "-journal) could not be rolled back: " + e.what());
    }
}

}  // namespace

int storedSchemaVersion(Database& db) {
    auto q = db.prepare("PRAGMA user_version");
    return q.step() ? q.int32(0) : 0;
}

bool looksLikeSqliteFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[16] = {};
    in.read(magic, sizeof magic);
    return in.gcount() == 16 && std::string_view(magic, 15) == "SQLite format 3";
}

std::unique_ptr<Database> createTraceDatabase(const std::string& path, int schemaVersion, WriteAccess access) {
    if (schemaVersion < 1 || schemaVersion > kSchemaVersion)
        throw DbError(path + ": no trace schema version " + std::to_string(schemaVersion));
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
    auto db = std::make_unique<Database>(path, Database::Mode::Create);
    // Payloads of several KB are the common row; larger pages keep them out of long overflow chains.
    db->exec("PRAGMA page_size = 16384");
    configureForWriting(*db, access);
    if (schemaVersion == kSchemaVersion) createCurrentSchema(*db);
    else applyMigrations(*db, 0, schemaVersion);
    return db;
}

std::unique_ptr<Database> openTraceDatabaseForWriting(const std::string& path) {
    auto db = std::make_unique<Database>(path, Database::Mode::ReadWrite);
    int version = storedSchemaVersion(*db);
    checkIsTrace(*db, version);
    refuseUnknownVersion(*db, version);
    configureForWriting(*db);
    applyMigrations(*db, version);
    return db;
}

std::unique_ptr<Database> openTraceDatabaseForReading(const std::string& path, int* versionOut) {
    if (!std::filesystem::exists(path)) throw DbError(path + ": no such file");
    if (!looksLikeSqliteFile(path)) throw DbError(path + ": not a SQLite trace file");
    rollBackInterruptedWrite(path);
    auto db = std::make_unique<Database>(path, Database::Mode::ReadOnly);
    int version = storedSchemaVersion(*db);
    checkIsTrace(*db, version);
    if (version == 0) throw DbError(path + ": empty SQLite file, not a cwb trace");
    refuseUnknownVersion(*db, version);
    if (versionOut) *versionOut = version;
    return db;
}

}  // namespace traces
