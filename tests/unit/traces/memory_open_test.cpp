// Opening a raw log imports it in memory (MemorySink) and loads the model from the sink's rows: that model must
// equal the one loaded from the trace file of the same log, table by table and row by row, on real logs (the
// repository's, ../shared/samples and the real model logs beside the checkout; those absent are skipped).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "importers/import_path.h"
#include "store/memory_sink.h"
#include "test_support.h"
#include "trace_equality.h"

using namespace traces;
namespace fs = std::filesystem;

namespace {

/// Every log folder or file the tests may use, those present only.
std::vector<std::string> realLogPaths() {
    std::vector<std::string> paths;
    auto addFolders = [&](const fs::path& root, const char* sub) {
        std::error_code error;
        if (!fs::is_directory(root, error)) return;
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(root, error)) {
            fs::path candidate = *sub ? entry.path() / sub : entry.path();
            if (fs::is_directory(candidate)) found.push_back(candidate.string());
        }
        std::sort(found.begin(), found.end());
        paths.insert(paths.end(), found.begin(), found.end());
    };
    addFolders(fs::path(CWB_TEST_DATA_DIR) / "torch_traces", "");
    addFolders(CWB_REAL_LOGS_DIR, "log");
    std::error_code error;
    fs::path samples = fs::path(CWB_SHARED_DIR) / "samples" / "tlparse";
    if (fs::is_directory(samples, error))
        for (const auto& entry : fs::directory_iterator(samples, error))
            if (entry.path().extension() == ".log") paths.push_back(entry.path().string());
    return paths;
}

std::vector<std::string> logsWithRecords() {
    std::vector<std::string> paths;
    for (const std::string& path : realLogPaths()) {
        try {
            listTraceLogs(path);
            paths.push_back(path);
        } catch (const std::exception&) {
        }
    }
    return paths;
}

/// Points the temporary directory at a folder that does not exist while alive: a temporary file cannot be made.
class NoTempDir {
public:
    NoTempDir() {
        if (const char* old = ::getenv("TMPDIR")) old_ = old;
        ::setenv("TMPDIR", "/nonexistent/cwb-no-temp-files", 1);
    }
    ~NoTempDir() {
        if (old_) ::setenv("TMPDIR", old_->c_str(), 1);
        else ::unsetenv("TMPDIR");
    }

private:
    std::optional<std::string> old_;
};

}  // namespace

TEST(MemoryOpen, ModelFromTheSinkEqualsTheModelFromTheTraceFile) {
    std::vector<std::string> paths = logsWithRecords();
    if (paths.empty()) GTEST_SKIP() << "no logs";
    testsupport::TempDir dir;
    for (const std::string& path : paths) {
        SCOPED_TRACE(path);
        std::string db = dir.file(fs::path(path).filename().string() + ".db");
        importPath(path, db);
        TraceData fromFile = loadTrace(db);
        for (MemorySink::Payloads payloads : {MemorySink::Payloads::All, MemorySink::Payloads::ModelOnly}) {
            MemorySink sink(payloads);
            importPath(path, sink);
            TraceData fromSink = loadTrace(sink.take());
            EXPECT_EQ(testsupport::firstTraceDifference(fromFile, fromSink), "");
        }
        EXPECT_FALSE(fromFile.compiles.empty() && fromFile.artifacts.empty() && fromFile.issues.empty());
    }
}

TEST(MemoryOpen, OpeningALogWritesNoTemporaryFile) {
    std::string log = std::string(CWB_TEST_DATA_DIR) + "/torch_traces/recompiles_cpu";
    ASSERT_FALSE(isTraceDatabase(log));
    testsupport::TempDir dir;
    std::string db = dir.file("reference.db");
    importPath(log, db);
    TraceData fromFile = loadTrace(db);
    NoTempDir noTemp;
    std::vector<ImportResult> results;
    TraceData opened = openAsTrace(log, &results);
    EXPECT_EQ(opened.path, log);
    ASSERT_EQ(results.size(), fromFile.sessions.size());
    fromFile.path = opened.path;
    EXPECT_EQ(testsupport::firstTraceDifference(fromFile, opened), "");
}
