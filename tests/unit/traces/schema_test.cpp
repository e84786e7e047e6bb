// The trace file's schema: versioned, refuses newer files and foreign SQLite files with clear messages.
#include <gtest/gtest.h>

#include "schema/schema.h"
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
