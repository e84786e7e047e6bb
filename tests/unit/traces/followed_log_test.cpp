// Follow mode's import: a real log written in random parts, imported after each part, gives exactly the rows of
// importing the whole log at once; a truncated or replaced log is imported anew.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "importers/followed_log.h"
#include "importers/import_path.h"
#include "test_support.h"
#include "trace_equality.h"

using namespace traces;
namespace fs = std::filesystem;

namespace {

/// Real logs of a few sizes, those present: the repository's and the real model logs beside the checkout.
std::vector<std::string> followedLogs() {
    std::vector<std::string> logs;
    for (const char* dir : {CWB_TEST_DATA_DIR "/torch_traces/recompiles_cpu", CWB_TEST_DATA_DIR "/torch_traces/breaks_cpu",
                            CWB_TEST_DATA_DIR "/torch_traces/training_cuda", CWB_REAL_LOGS_DIR "/gpt2_dynamic_cuda/log",
                            CWB_REAL_LOGS_DIR "/breaks_profile_cpu/log", CWB_REAL_LOGS_DIR "/ddp_gloo_2ranks/log"}) {
        std::error_code error;
        if (!fs::is_directory(dir, error)) continue;
        for (const std::string& log : listTraceLogs(dir)) logs.push_back(log);
    }
    return logs;
}

TraceData importedAtOnce(const std::string& log) {
    MemorySink sink;
    importTorchTraceLog(log, sink);
    return loadTrace(sink.take());
}

void append(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << bytes;
}

}  // namespace

TEST(FollowedLog, RandomPartsGiveTheRowsOfOneImport) {
    std::vector<std::string> logs = followedLogs();
    ASSERT_FALSE(logs.empty());
    std::mt19937 random(19);
    testsupport::TempDir dir;
    for (const std::string& log : logs) {
        SCOPED_TRACE(log);
        std::string text = testsupport::readFile(log);
        TraceData expected = importedAtOnce(log);
        for (int parts : {2, 7, 40}) {
            SCOPED_TRACE(parts);
            std::string copy = dir.file(fs::path(log).filename().string());
            fs::remove(copy);
            testsupport::writeFile(copy, "");
            MemorySink sink;
            FollowedLog followed(copy, sink);
            std::vector<size_t> cuts;
            for (int i = 0; i + 1 < parts; ++i) cuts.push_back(std::uniform_int_distribution<size_t>(0, text.size())(random));
            cuts.push_back(text.size());
            std::sort(cuts.begin(), cuts.end());
            size_t written = 0, appended = 0;
            for (size_t cut : cuts) {
                append(copy, std::string_view(text).substr(written, cut - written));
                written = cut;
                FollowedLog::Update update = followed.update();
                ASSERT_NE(update, FollowedLog::Update::Restart);
                if (update == FollowedLog::Update::Appended) ++appended;
            }
            followed.finish();
            TraceData imported = loadTrace(sink.take());
            // The copy has another path; everything else must be the same.
            for (Session& session : imported.sessions) session.sourcePath = expected.sessions.at(0).sourcePath;
            EXPECT_EQ(testsupport::firstTraceDifference(expected, imported), "");
            if (parts >= 7) {
                EXPECT_GE(appended, 2u) << "the log was not imported in parts";
            }
        }
    }
}

TEST(FollowedLog, AQuietLogShowsItsLastRecordAndStartsOverWhenThatRecordGoesOn) {
    std::string log = std::string(CWB_TEST_DATA_DIR) + "/torch_traces/recompiles_cpu";
    log = listTraceLogs(log).at(0);
    std::string text = testsupport::readFile(log);
    testsupport::TempDir dir;
    std::string copy = dir.file("dedicated_log_torch_trace_follow.log");
    // Up to the end of the first payload line of the last record that has a payload of several lines.
    size_t lastRecord = text.rfind("\nV");
    size_t payloadRecord = text.rfind("\n\t", lastRecord);
    size_t recordStart = text.rfind("\nV", payloadRecord) + 1;
    size_t firstPayloadLineEnd = text.find('\n', text.find("\n\t", recordStart) + 1) + 1;
    ASSERT_LT(firstPayloadLineEnd, text.size());
    testsupport::writeFile(copy, text.substr(0, firstPayloadLineEnd));

    FollowedPath followed(copy);
    EXPECT_TRUE(followed.update());  // everything before the record being written
    EXPECT_EQ(followed.bytesImported(), recordStart);
    EXPECT_TRUE(followed.update());  // quiet since: the record is taken as written
    EXPECT_EQ(followed.bytesImported(), firstPayloadLineEnd);
    EXPECT_FALSE(followed.update());
    // The record goes on after all: the import starts over and ends as one import of the whole log.
    append(copy, std::string_view(text).substr(firstPayloadLineEnd));
    EXPECT_TRUE(followed.update());
    EXPECT_TRUE(followed.update());
    TraceData expected = importedAtOnce(log);
    TraceData imported = followed.load();
    ASSERT_EQ(imported.sessions.size(), 1u);
    imported.sessions[0].sourcePath = expected.sessions[0].sourcePath;
    imported.sessions[0].sourceFile = expected.sessions[0].sourceFile;
    // A followed log never ends: its never-closed spans and end-of-file problems are not there.
    expected.spans.erase(std::remove_if(expected.spans.begin(), expected.spans.end(),
                                        [](const Span& s) { return !s.durationUs; }),
                         expected.spans.end());
    imported.path = expected.path;
    EXPECT_EQ(testsupport::firstTraceDifference(expected, imported), "");
}

TEST(FollowedLog, ATruncatedLogIsImportedAnew) {
    std::string log = listTraceLogs(std::string(CWB_TEST_DATA_DIR) + "/torch_traces/recompiles_cpu").at(0);
    std::string text = testsupport::readFile(log);
    testsupport::TempDir dir;
    std::string copy = dir.file("dedicated_log_torch_trace_rotated.log");
    testsupport::writeFile(copy, text);
    FollowedPath followed(copy);
    followed.update();
    followed.update();
    size_t compiles = followed.load().compiles.size();
    ASSERT_GT(compiles, 1u);
    // The log is rotated: a new, shorter one under the same name.
    size_t secondStart = text.find("\"dynamo_start\"", text.find("\"dynamo_start\"") + 1);
    testsupport::writeFile(copy, text.substr(0, text.rfind("\nV", secondStart) + 1));
    EXPECT_TRUE(followed.update());
    followed.update();
    TraceData rotated = followed.load();
    EXPECT_LT(rotated.compiles.size(), compiles);
    EXPECT_EQ(rotated.compiles.size(), importedAtOnce(copy).compiles.size());
    EXPECT_EQ(rotated.sessions.size(), 1u);
}

TEST(FollowedLog, ALogReplacedByALongerOneIsImportedAnew) {
    // Rotation by rename: another log takes the name and is already longer than the first, so only the file's
    // identity says that its bytes are not the first log's continuation.
    std::string first = listTraceLogs(std::string(CWB_TEST_DATA_DIR) + "/torch_traces/breaks_cpu").at(0);
    std::string second = listTraceLogs(std::string(CWB_TEST_DATA_DIR) + "/torch_traces/recompiles_cpu").at(0);
    std::string secondText = testsupport::readFile(second);
    ASSERT_GT(secondText.size(), testsupport::readFile(first).size());
    testsupport::TempDir dir;
    std::string followedName = dir.file("dedicated_log_torch_trace_rotated.log");
    testsupport::writeFile(followedName, testsupport::readFile(first));
    FollowedPath followed(followedName);
    followed.update();
    followed.update();
    std::string replacement = dir.file("incoming.tmp");
    testsupport::writeFile(replacement, secondText);
    fs::rename(replacement, followedName);
    EXPECT_TRUE(followed.update());
    followed.update();
    EXPECT_EQ(testsupport::firstTraceDifference(importedAtOnce(followedName), followed.load()), "");
}
