// The trace file's schema: versioned, refuses newer files and foreign SQLite files with clear messages.
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "schema/schema.h"
#include "store/json_columns.h"
#include "store/trace_reader.h"
#include "store/trace_writer.h"
#include "test_support.h"

using namespace traces;

TEST(Schema, WritesInWalModeAndLeavesOneSelfContainedFile) {
    testsupport::TempDir dir;
    std::string path = dir.file("t.db");
    {
        TraceWriter writer(path);
        writer.addSession(Session{});
        writer.commit();
        Database reader(path, Database::Mode::ReadOnly);
        auto q = reader.prepare("PRAGMA journal_mode");
        ASSERT_TRUE(q.step());
        EXPECT_EQ(q.text(0), "wal");
    }
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    int version = 0;
    auto db = openTraceDatabaseForReading(path, &version);
    EXPECT_EQ(version, kSchemaVersion);
    EXPECT_EQ(loadTrace(path).sessions.size(), 1u);
    db.reset();
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
}

TEST(Schema, RefusesAFileFromANewerCwb) {
    testsupport::TempDir dir;
    std::string path = dir.file("future.db");
    { TraceWriter writer(path); }
    {
        Database db(path, Database::Mode::ReadWrite);
        db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 5));
    }
    try {
        loadTrace(path);
        FAIL() << "a newer schema must be refused";
    } catch (const DbError& e) {
        std::string message = e.what();
        EXPECT_NE(message.find("newer than this cwb understands"), std::string::npos) << message;
        EXPECT_NE(message.find(path), std::string::npos) << message;
    }
    EXPECT_THROW(TraceWriter(path, TraceWriter::Open::Append), DbError);
}

TEST(Schema, RefusesANegativeSchemaVersion) {
    // A damaged trace file (found by fuzzing) with a negative user_version once indexed the migrations with it.
    testsupport::TempDir dir;
    std::string path = dir.file("damaged.db");
    { TraceWriter writer(path); }
    {
        Database db(path, Database::Mode::ReadWrite);
        db.exec("PRAGMA user_version = -12");
    }
    try {
        loadTrace(path);
        FAIL() << "a negative schema version must be refused";
    } catch (const DbError& e) {
        std::string message = e.what();
        EXPECT_NE(message.find("trace schema version -12 is not a version any cwb writes"), std::string::npos) << message;
        EXPECT_NE(message.find(path), std::string::npos) << message;
    }
    EXPECT_THROW(TraceWriter(path, TraceWriter::Open::Append), DbError);
}

TEST(Schema, RefusesForeignSqliteAndNonSqliteFiles) {
    testsupport::TempDir dir;
    std::string foreign = dir.file("other.db");
    {
        Database db(foreign, Database::Mode::Create);
        db.exec("CREATE TABLE t(x); PRAGMA user_version = 3;");
    }
    EXPECT_THROW(loadTrace(foreign), DbError);
    std::string text = dir.file("notes.txt");
    testsupport::writeFile(text, "hello");
    EXPECT_THROW(loadTrace(text), DbError);
    EXPECT_THROW(loadTrace(dir.file("missing.db")), DbError);
}

TEST(Schema, WriterRowsComeBackThroughTheReader) {
    testsupport::TempDir dir;
    std::string path = dir.file("rt.db");
    {
        TraceWriter w(path);
        Session s;
        s.sourceFile = "run.log";
        s.rank = 2;
        RowId sid = w.addSession(s);
        Compile c;
        c.sessionId = sid;
        c.key = CompileKey{std::nullopt, 0, 1, 0};
        c.started = true;
        c.status = CompileStatus::Ok;
        c.phases = {{"entire_frame_compile", 1.5}};
        c.recompileReasons = {"0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"};
        RowId cid = w.addCompile(c);
        Artifact a;
        a.sessionId = sid;
        a.compileId = cid;
        a.event = "artifact";
        a.name = "fx_graph_cache_miss";
        a.payload = "{\"key\": 1}";
        RowId aid = w.addArtifact(a);
        Artifact same = a;  // identical payloads are stored once
        w.addArtifact(same);
        (void)aid;
    }
    TraceData t = loadTrace(path);
    ASSERT_EQ(t.sessions.size(), 1u);
    EXPECT_EQ(t.sessions[0].rank, 2);
    ASSERT_EQ(t.compiles.size(), 1u);
    EXPECT_EQ(t.compiles[0].key.str(), "0/1");
    ASSERT_EQ(t.compiles[0].phases.size(), 1u);
    EXPECT_DOUBLE_EQ(t.compiles[0].phases[0].seconds, 1.5);
    EXPECT_EQ(t.compiles[0].recompileReasons.size(), 1u);
    ASSERT_EQ(t.artifacts.size(), 2u);
    EXPECT_EQ(loadArtifactPayload(path, t.artifacts[1].id), "{\"key\": 1}");
    Database db(path, Database::Mode::ReadOnly);
    auto q = db.prepare("SELECT count(*) FROM payloads");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 1);
}

TEST(Schema, BackgroundLoadReportsProgressAndCanBeCancelled) {
    testsupport::TempDir dir;
    std::string path = dir.file("big.db");
    {
        TraceWriter w(path);
        RowId sid = w.addSession(Session{});
        for (int i = 0; i < 20000; ++i) {
            Span s;
            s.sessionId = sid;
            s.name = "span";
            s.startUs = i;
            w.addSpan(s);
        }
    }
    auto progress = std::make_shared<LoadProgress>();
    TraceData t = loadTraceAsync(path, progress).get();
    EXPECT_EQ(t.spans.size(), 20000u);
    EXPECT_FLOAT_EQ(progress->fraction(), 1.f);
    auto cancelled = std::make_shared<LoadProgress>();
    cancelled->requestCancel();
    EXPECT_THROW(loadTraceAsync(path, cancelled).get(), LoadCancelled);
}

// A file written by a cwb of schema version 1 (before "empty" compiles and records without a compile id): opening
// it migrates in place, migration 2 rebuilds `compiles`, and every row, id and reference survives.
TEST(Schema, UpgradesAVersion1FileWithoutLosingRows) {
    testsupport::TempDir dir;
    std::string path = dir.file("v1.db");
    {
        auto db = createTraceDatabase(path, 1);
        ASSERT_EQ(storedSchemaVersion(*db), 1);
        db->exec(R"sql(
INSERT INTO sessions(id, kind, source_file, source_path, rank, records) VALUES (1, 'imported_log', 'r0.log', 'run/r0.log', 0, 40);
INSERT INTO compile_sites(id, session_id, function, file, line, user_stack) VALUES (1, 1, 'f', 'm.py', 3, '[]');
INSERT INTO compiles(id, session_id, site_id, frame_id, frame_compile_id, attempt, compile_key, seq, line, started,
                     status, function, fail_type, fail_reason, restart_reasons, op_count, metrics_json)
  VALUES (7, 1, 1, 0, 0, 0, '0/0', 0, 5, 1, 'restarted', 'f', '', '', '[]', NULL, ''),
         (8, 1, 1, 0, 0, 1, '0/0_1', 1, 9, 0, 'ok', 'f', '', '', '["graph break"]', 3, '{"compilation_metrics": {}}'),
         (9, 1, NULL, 1, 0, 0, '1/0', 2, 20, 1, 'failed', 'g', 'BackendCompilerFailed', 'boom', '[]', 2, ''),
         (10, 1, NULL, 1, 1, 0, '1/1', 3, 30, 1, 'unknown', '', '', '', '[]', NULL, '');
INSERT INTO compile_phases(compile_id, phase, seconds) VALUES (8, 'entire_frame_compile', 1.25);
INSERT INTO graphs(id, session_id, compile_id, seq, line, kind, name, text) VALUES (3, 1, 8, 4, 12, 'dynamo', 'dynamo_output_graph', 'g');
INSERT INTO guards(id, compile_id, idx, kind, source, text, checks, user_code, depth)
  VALUES (1, 8, 0, 'TENSOR_MATCH', 'L[''x'']', 'check_tensor(L[''x''])', '', '', 0);
INSERT INTO guard_failures(id, compile_id, idx, failed_compile, reason) VALUES (1, 10, 0, '1/0', 'x changed');
INSERT INTO artifacts(id, session_id, compile_id, seq, line, event, name, encoding, metadata, payload_id, payload_intact)
  VALUES (1, 1, 8, 5, 13, 'artifact', 'fx_graph_cache_miss', 'json', '{}', NULL, 1),
         (2, 1, NULL, 6, 35, 'artifact', 'graph_execution', 'json', '{}', NULL, 1);
INSERT INTO spans(id, session_id, compile_id, compile_key, name, category, start_us, duration_us, thread_id, args)
  VALUES (1, 1, 8, '0/0_1', 'dynamo', 'dynamo_timed', 10, 5, 0, '{}'),
         (2, 1, NULL, '', 'CachingAutotuner.benchmark_all_configs', 'dynamo_timed', 40, 2, 0, '{}');
)sql");
    }
    TraceData t = loadTrace(path);
    EXPECT_EQ(t.schemaVersion, kSchemaVersion);
    ASSERT_EQ(t.sessions.size(), 1u);
    EXPECT_EQ(t.sessions[0].records, 40);
    ASSERT_EQ(t.compiles.size(), 4u);
    std::vector<std::pair<RowId, std::string>> rows;
    for (const Compile& c : t.compiles) rows.emplace_back(c.id, c.key.str() + " " + toString(c.status));
    EXPECT_EQ(rows, (std::vector<std::pair<RowId, std::string>>{
                        {7, "0/0 restarted"}, {8, "0/0_1 ok"}, {9, "1/0 failed"}, {10, "1/1 unknown"}}));
    const Compile& ok = t.compiles[1];
    EXPECT_EQ(ok.siteId, 1);
    EXPECT_EQ(ok.opCount, 3);
    EXPECT_EQ(ok.restartReasons, std::vector<std::string>{"graph break"});
    EXPECT_EQ(ok.metricsJson, "{\"compilation_metrics\": {}}");
    ASSERT_EQ(ok.phases.size(), 1u);
    EXPECT_DOUBLE_EQ(ok.phases[0].seconds, 1.25);
    EXPECT_EQ(t.compiles[2].failReason, "boom");
    ASSERT_EQ(t.graphs.size(), 1u);
    EXPECT_EQ(t.graphs[0].compileId, 8);
    ASSERT_EQ(t.guards.size(), 1u);
    EXPECT_EQ(t.guards[0].compileId, 8);
    ASSERT_EQ(t.guardFailures.size(), 1u);
    EXPECT_EQ(t.guardFailures[0].compileId, 10);
    EXPECT_EQ(t.artifacts.size(), 2u);
    EXPECT_EQ(t.spans.size(), 2u);
    // Migration 3 lists the rows the old import left without a compile.
    std::vector<std::string> orphans;
    for (const RecordWithoutCompileId& r : t.recordsWithoutCompileId) orphans.push_back(r.event + ": " + r.name);
    EXPECT_EQ(orphans, (std::vector<std::string>{"chromium_event: CachingAutotuner.benchmark_all_configs",
                                                 "artifact: graph_execution"}));
    // The rebuilt table takes the statuses added since, and the ids go on after the old ones.
    {
        TraceWriter w(path, TraceWriter::Open::Append);
        Compile empty;
        empty.sessionId = 1;
        empty.key = CompileKey{std::nullopt, 2, 0, 0};
        empty.seq = 4;
        empty.status = CompileStatus::Empty;
        EXPECT_EQ(w.addCompile(empty), 11);
    }
    TraceData again = loadTrace(path);
    ASSERT_EQ(again.compiles.size(), 5u);
    EXPECT_EQ(again.compiles.back().status, CompileStatus::Empty);
    Database db(path, Database::Mode::ReadOnly);
    auto q = db.prepare("PRAGMA foreign_key_check");
    EXPECT_FALSE(q.step()) << "a reference lost its row";
}

namespace {

/// Every table's columns (name, type, NOT NULL, default, key position), references and indexes, as SQLite
/// reports them: what a reader and writer of the file can tell apart.
std::string describeSchema(Database& db) {
    std::string out;
    std::vector<std::string> tableNames;
    auto tablesQuery = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (tablesQuery.step()) tableNames.push_back(tablesQuery.text(0));
    for (const std::string& table : tableNames) {
        out += "table " + table + "\n";
        auto columns = db.prepare("SELECT cid, name, type, \"notnull\", coalesce(dflt_value, 'NULL'), pk "
                                  "FROM pragma_table_info('" + table + "')");
        while (columns.step()) {
            out += "  column " + columns.text(0) + " " + columns.text(1) + " " + columns.text(2) + " notnull=" +
                   columns.text(3) + " default=" + columns.text(4) + " pk=" + columns.text(5) + "\n";
        }
        auto references = db.prepare("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list('" + table +
                                     "') ORDER BY \"from\"");
        while (references.step())
            out += "  reference " + references.text(0) + " -> " + references.text(1) + "(" + references.text(2) + ")\n";
        auto indexes = db.prepare("SELECT il.name, il.\"unique\", group_concat(ii.name, ',') FROM pragma_index_list('" +
                                  table + "') il, pragma_index_info(il.name) ii GROUP BY il.name ORDER BY il.name");
        while (indexes.step())
            out += "  index " + indexes.text(0) + " unique=" + indexes.text(1) + " on " + indexes.text(2) + "\n";
        // CHECK constraints appear only in the CREATE statement: compare their text, whitespace aside.
        auto create = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'");
        if (create.step()) {
            std::string sql = create.text(0);
            for (size_t at = sql.find("CHECK"); at != std::string::npos; at = sql.find("CHECK", at + 1)) {
                std::string check;
                int depth = 0;
                for (size_t i = at; i < sql.size(); ++i) {
                    if (sql[i] == '(') ++depth;
                    if (std::isspace(static_cast<unsigned char>(sql[i])) && !check.empty() && check.back() == ' ')
                        continue;
                    check += std::isspace(static_cast<unsigned char>(sql[i])) ? ' ' : sql[i];
                    if (sql[i] == ')' && --depth == 0) break;
                }
                out += "  " + check + "\n";
            }
        }
    }
    return out;
}

}  // namespace

// New files are made from the column tables, older ones by the shipped migrations: both must give the same tables,
// or a file would read differently depending on the cwb version that first wrote it.
TEST(Schema, NewFilesAndMigratedFilesHaveTheSameTables) {
    testsupport::TempDir dir;
    std::string fresh = dir.file("fresh.db");
    createTraceDatabase(fresh);
    Database freshDb(fresh, Database::Mode::ReadOnly);
    std::string expected = describeSchema(freshDb);
    EXPECT_NE(expected.find("column 7 compile_key TEXT notnull=1"), std::string::npos) << expected;
    EXPECT_NE(expected.find("'empty'"), std::string::npos) << expected;
    for (int version = 1; version < kSchemaVersion; ++version) {
        std::string old = dir.file("v" + std::to_string(version) + ".db");
        createTraceDatabase(old, version);
        openTraceDatabaseForWriting(old);  // migrates in place
        Database migrated(old, Database::Mode::ReadOnly);
        EXPECT_EQ(storedSchemaVersion(migrated), kSchemaVersion);
        EXPECT_EQ(describeSchema(migrated), expected) << "migrated from version " << version;
    }
}

TEST(Schema, NodeInputListsAreJsonArraysThatReadBack) {
    // Plain names take a fast path; quotes, backslashes, control bytes and non-ASCII text are escaped as JSON.
    std::vector<std::string> plain = {"add", "l_x_", "getitem_3"};
    EXPECT_EQ(stringsToJson(plain), R"(["add","l_x_","getitem_3"])");
    EXPECT_EQ(stringsToJson({}), "[]");
    std::vector<std::string> odd = {"a\"b", "c\\d", "tab\there", "caf\xc3\xa9", "x"};
    EXPECT_EQ(stringsToJson(odd), R"(["a\"b","c\\d","tab\there","caf)" "\xc3\xa9" R"(","x"])");
    EXPECT_EQ(stringsFromJson(stringsToJson(plain)), plain);
    EXPECT_EQ(stringsFromJson(stringsToJson(odd)), odd);
}

namespace {

GraphNode node(int index, std::string name, std::string args, std::vector<std::string> inputs, std::string code) {
    GraphNode n;
    n.index = index;
    n.name = std::move(name);
    n.op = "call_function";
    n.target = "aten.add.Tensor";
    n.args = std::move(args);
    n.inputs = std::move(inputs);
    n.shape = "[8, s27]";
    n.dtype = "f32";
    n.stride = "[s27, 1]";
    n.device = "cuda:0";
    n.sourceFile = "/home/u/model.py";
    n.sourceLine = 42;
    n.sourceFunction = "forward";
    n.sourceCode = std::move(code);
    return n;
}

}  // namespace

// A graph's nodes are one JSON column: plain text takes a fast path whose text is what nlohmann writes, escapes and
// non-ASCII text read back unchanged, and bytes that are not UTF-8 are replaced rather than losing the graph.
TEST(Schema, GraphNodesAreOneJsonColumnThatReadsBack) {
    std::vector<GraphNode> nodes = {node(0, "x", "", {}, "x = a + b"),
                                    node(1, "add", "x, \"q\\\\\" \t\x01", {"x", "l_\"y_"}, "caf\xc3\xa9 \xe2\x86\x92 y")};
    std::string json = graphNodesToJson(nodes);
    EXPECT_EQ(json.rfind(R"([[0,"x","call_function","aten.add.Tensor","",[],"[8, s27]",)", 0), 0u) << json;
    nlohmann::json same = nlohmann::json::parse(json);
    EXPECT_EQ(same.dump(), json);
    EXPECT_EQ(graphNodesFromJson(json), nodes);
    EXPECT_EQ(graphNodesFromJson(graphNodesToJson({})), std::vector<GraphNode>{});
    EXPECT_TRUE(graphNodesFromJson("not json").empty());
    std::vector<GraphNode> stray = {node(0, "x", "\xff\xfe", {}, "ok")};
    std::vector<GraphNode> back = graphNodesFromJson(graphNodesToJson(stray));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].sourceCode, "ok");
    EXPECT_NE(back[0].args, stray[0].args);
}

// A file of schema version 3 held a row per graph node: migration 4 folds them into their graph's JSON column in
// index order, and the graph_nodes table goes.
TEST(Schema, UpgradesAVersion3FileWithItsGraphNodes) {
    testsupport::TempDir dir;
    std::string path = dir.file("v3.db");
    std::vector<GraphNode> nodes = {node(0, "x", "", {}, "x = a + b"),
                                    node(1, "add", "x, 'q\"'", {"x", "l_y_"}, "caf\xc3\xa9 \xe2\x86\x92 y"),
                                    node(2, "out", "(add,)", {"add"}, "")};
    {
        auto db = createTraceDatabase(path, 3);
        db->exec(R"sql(
INSERT INTO sessions(id, kind, source_file, source_path) VALUES (1, 'imported_log', 'r0.log', 'run/r0.log');
INSERT INTO graphs(id, session_id, compile_id, seq, line, kind, name, text)
  VALUES (3, 1, NULL, 4, 12, 'dynamo', 'dynamo_output_graph', 'g'), (4, 1, NULL, 5, 13, 'dynamo', 'empty', '');
)sql");
        auto insert = db->prepare("INSERT INTO graph_nodes VALUES (3, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (size_t i : {2u, 0u, 1u}) {  // rows out of index order: the migration orders them
            const GraphNode& n = nodes[i];
            insert.bind(1, n.index).bind(2, n.name).bind(3, n.op).bind(4, n.target).bind(5, n.args);
            insert.bind(6, stringsToJson(n.inputs)).bind(7, n.shape).bind(8, n.dtype).bind(9, n.stride);
            insert.bind(10, n.device).bind(11, n.sourceFile).bind(12, n.sourceLine).bind(13, n.sourceFunction);
            insert.bind(14, n.sourceCode).run();
        }
    }
    TraceData t = loadTrace(path);
    EXPECT_EQ(t.schemaVersion, kSchemaVersion);
    ASSERT_EQ(t.graphs.size(), 2u);
    EXPECT_EQ(t.graphs[0].nodes, nodes);
    EXPECT_TRUE(t.graphs[1].nodes.empty());
    Database db(path, Database::Mode::ReadOnly);
    auto q = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'graph_nodes'");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 0);
}
