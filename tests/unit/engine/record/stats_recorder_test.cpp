// The --stats JSON and its counting rules: checked on the real TORCH_TRACE logs of tests/data/torch_traces,
// whose runs stored PyTorch's own counters beside them, so the rules are PyTorch's and not just our own.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "../../traces/test_support.h"
#include "compile_event_scripts.h"
#include "importers/import_path.h"
#include "parse/graph_break_text.h"
#include "record/stats_recorder.h"

using namespace traces;
using nlohmann::json;

namespace {

const std::filesystem::path kTraces = std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces";

class StatsOnRealLogs : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(StatsOnRealLogs, EqualPyTorchsCounters) {
    json expected = json::parse(testsupport::readFile((kTraces / GetParam() / "pytorch_counters.json").string()));
    TraceData trace = openAsTrace((kTraces / GetParam()).string());
    const json& processes = expected.at("processes");
    ASSERT_EQ(trace.sessions.size(), processes.size());
    for (size_t i = 0; i < processes.size(); ++i) {
        SCOPED_TRACE(trace.sessions[i].sourceFile);
        eng::record::RunStats stats = eng::record::statsOfSession(trace, trace.sessions[i]);
        const json& counters = processes[i].at("counters");
        EXPECT_EQ(stats.uniqueGraphs, counters.at("stats").at("unique_graphs").get<int64_t>());
        std::map<std::string, int64_t> ours, pytorchs;
        int64_t pytorchBreaks = 0;
        for (const auto& [reason, count] : stats.graphBreakReasons) ours[reason] += count;
        if (counters.contains("graph_break")) {
            for (const auto& [reason, count] : counters.at("graph_break").items()) {
                pytorchs[reason] = count.get<int64_t>();
                pytorchBreaks += count.get<int64_t>();
            }
        }
        EXPECT_EQ(ours, pytorchs);  // the exact keys of counters["graph_break"]
        EXPECT_EQ(stats.graphBreaks, pytorchBreaks);
        // Compile ids above 0 that compiled: every "Recompiling function" message but those of calls the
        // recompile limit then refused (each followed by its limit warning), which get no compile of their own.
        const json& logs = processes[i].at("logs");
        int64_t refused = static_cast<int64_t>(logs.value("recompile_limit_warnings", json::array()).size());
        EXPECT_EQ(stats.recompiles, static_cast<int64_t>(logs.at("recompiles").size()) - refused);
    }
}

INSTANTIATE_TEST_SUITE_P(TorchTraces, StatsOnRealLogs,
                         ::testing::Values("breaks_cpu", "recompiles_cpu", "failures_cpu", "training_cuda",
                                           "ranks_cpu"));

TEST(StatsJson, HasTheIssuesShape) {
    eng::record::RunStats stats{3, 2, 1, {{"Failed to trace builtin operator\n  Explanation: x", 2}}};
    json parsed = json::parse(eng::record::statsJson(stats));
    EXPECT_EQ(parsed, json::parse(R"({"unique_graphs": 3, "graph_breaks": 2, "recompiles": 1,
        "graph_break_reasons": {"Failed to trace builtin operator\n  Explanation: x": 2}})"));
    EXPECT_EQ(json::parse(eng::record::statsJson({})).at("graph_break_reasons"), json::object());
}

TEST(StatsRecorder, WritesTheJsonFile) {
    testsupport::TempDir dir;
    eng::record::StatsRecorder recorder({"programs/demo.py", "cwb 0.1.0"});
    recordtest::playBreakWithResume(recorder);
    recordtest::playRecompile(recorder);
    recorder.writeJson(dir.file("stats.json"));
    json written = json::parse(testsupport::readFile(dir.file("stats.json")));
    EXPECT_EQ(written.at("unique_graphs"), 4);
    EXPECT_EQ(written.at("graph_breaks"), 1);
    EXPECT_EQ(written.at("recompiles"), 1);
    EXPECT_EQ(written.at("graph_break_reasons").at(recordtest::kPrintBreakMessage), 1);
    EXPECT_THROW(recorder.writeJson(dir.file("no/such/dir/stats.json")), std::runtime_error);
}

TEST(GraphBreakCounterKey, DropsDynamosPrefaceOnly) {
    EXPECT_EQ(graphBreakCounterKey("Encountered graph break when attempting to trace CALL: a function call:\n\n"
                                   "Failed to trace builtin operator\n  Explanation: x\n\n"),
              "Failed to trace builtin operator\n  Explanation: x");
    EXPECT_EQ(graphBreakCounterKey("Unsupported Tensor.item() call\n  Hint: y"),
              "Unsupported Tensor.item() call\n  Hint: y");
    EXPECT_EQ(graphBreakCounterKey("Encountered graph break when attempting to trace CALL"),
              "Encountered graph break when attempting to trace CALL");
    EXPECT_EQ(graphBreakCounterKey("  \n"), "");
}
