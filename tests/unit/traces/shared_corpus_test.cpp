// The team's shared corpus (../shared next to the checkout): example programs' real traces with torch's ground
// truth, and real logs of other projects. Skipped when ../shared is absent (as in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "importers/import_path.h"
#include "report/summary.h"
#include "test_support.h"

using namespace traces;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path kShared = CWB_SHARED_DIR;

std::vector<fs::path> filesIn(const fs::path& dir, const std::string& extension) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(SharedCorpus, ExampleTracesMatchTorchGroundTruth) {
    auto examples = filesIn(kShared / "examples", ".json");
    if (examples.empty()) GTEST_SKIP() << "no ../shared/examples here";
    int checked = 0;
    for (const fs::path& file : examples) {
        json truth = json::parse(testsupport::readFile(file.string()));
        for (const char* device : {"cpu", "cuda"}) {
            fs::path traceDir = kShared / "examples" / "traces" / (file.stem().string() + "__" + device);
            if (!fs::is_directory(traceDir)) continue;
            SCOPED_TRACE(traceDir.filename().string());
            const json& run = truth.at(device);
            const json& summary = run.at("trace_summary");
            TraceData t = openAsTrace(traceDir.string());
            ASSERT_EQ(t.sessions.size(), 1u);
            EXPECT_EQ(t.sessions[0].malformedRecords, 0);
            EXPECT_EQ(t.sessions[0].records, summary.at("records").get<int64_t>());
            SessionSummary s = summarizeTrace(t).at(0);
            auto event = [&](const char* name) { return summary.at("events").value(name, int64_t{0}); };
            EXPECT_EQ(s.counts.compiles, event("dynamo_start"));
            EXPECT_EQ(s.counts.graphs, event("dynamo_output_graph"));
            EXPECT_EQ(s.counts.outputCode, event("inductor_output_code"));
            EXPECT_EQ(s.counts.graphBreaks, summary.at("artifacts").value("dynamo_graph_break_reason", int64_t{0}));
            EXPECT_EQ(s.counts.recompiles, summary.at("recompilations").get<int64_t>());
            EXPECT_EQ(s.counts.recompiles, run.at("logs").at("recompile_count").get<int64_t>());
            int64_t failed = 0;
            for (const json& m : summary.at("compilation_metrics"))
                failed += m.contains("fail_type") && !m.at("fail_type").is_null();
            EXPECT_EQ(s.counts.failedCompiles, failed);
            int64_t breaks = 0;
            const json& counters = run.at("counters");
            if (counters.contains("graph_break"))
                for (const auto& [reason, n] : counters.at("graph_break").items()) breaks += n.get<int64_t>();
            EXPECT_EQ(s.counts.graphBreaks, breaks);
            EXPECT_EQ(s.uniqueGraphs, run.at("counters").at("stats").at("unique_graphs").get<int64_t>());
            ++checked;
        }
    }
    EXPECT_GT(checked, 0);
}

TEST(SharedCorpus, SampleLogsOfOtherProjectsImportCleanly) {
    auto samples = filesIn(kShared / "samples" / "tlparse", ".log");
    for (const fs::path& p : filesIn(kShared / "samples" / "tlparse", ".txt")) samples.push_back(p);
    if (samples.empty()) GTEST_SKIP() << "no ../shared/samples here";
    for (const fs::path& sample : samples) {
        SCOPED_TRACE(sample.filename().string());
        TraceData t = openAsTrace(sample.string());
        ASSERT_EQ(t.sessions.size(), 1u);
        // Every header line is a record, and all of them are kept.
        std::istringstream lines(testsupport::readFile(sample.string()));
        int64_t headers = 0;
        for (std::string line; std::getline(lines, line);) headers += !line.empty() && line[0] != '\t';
        EXPECT_EQ(t.sessions[0].records, headers);
        // These logs are as PyTorch wrote them; the only damage PyTorch itself leaves is an occasional payload
        // whose md5 it computed over different text (list payloads of the 2025-08 rank-0 log).
        for (const ImportIssue& issue : t.issues) EXPECT_EQ(issue.kind, "md5_mismatch") << issue.message;
        EXPECT_FALSE(t.compiles.empty());
        summarizeTrace(t);
    }
}

TEST(SharedCorpus, CompileFailureSampleKeepsFailTypeAndReason) {
    fs::path sample = kShared / "samples" / "tlparse" / "comp_failure.log";
    if (!fs::exists(sample)) GTEST_SKIP() << "no ../shared/samples here";
    TraceData t = openAsTrace(sample.string());
    int failed = 0;
    for (const Compile& c : t.compiles) {
        if (c.failType.empty()) continue;
        ++failed;
        EXPECT_EQ(c.failType, "BackendCompilerFailed");
        EXPECT_NE(c.failReason.find("broken backend"), std::string::npos);
        EXPECT_EQ(c.status, CompileStatus::Failed);
    }
    EXPECT_EQ(failed, 1);
}

TEST(SharedCorpus, OldLogsWithRestartsListTheirBreakReasons) {
    fs::path sample = kShared / "samples" / "tlparse" / "comp_metrics.log";
    if (!fs::exists(sample)) GTEST_SKIP() << "no ../shared/samples here";
    TraceData t = openAsTrace(sample.string());
    SessionSummary s = summarizeTrace(t).at(0);
    EXPECT_EQ(s.counts.graphBreaks, 0);  // no dynamo_graph_break_reason artifacts in 2024-04 logs
    EXPECT_TRUE(s.breakReasonsFromRestarts);
    EXPECT_FALSE(s.breakReasons.empty());
    EXPECT_FALSE(t.guards.empty());  // the legacy dynamo_guards JSON list
}
