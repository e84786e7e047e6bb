// The CPU programs of tests/data/torch_traces run with the capture engine, checked against the counters and
// TORCH_LOGS lines real torch 2.11 produced for them (pytorch_counters.json): frames, graph breaks (also one
// inside an inlined helper, whose callee then compiles as a frame of its own), recompiles and the limit warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../example_programs.h"
#include "capture_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kTraces = fs::path(CWB_TEST_DATA_DIR) / "torch_traces";

using exampletest::readText;

/// The lines of a TORCH_LOGS stream that carry `artifact`, without the glog prefix (`V1122 ... ] `).
std::vector<std::string> artifactLines(const std::string& text, const std::string& artifact) {
    std::vector<std::string> out;
    for (const std::string& line : capturetest::linesWith(text, artifact)) {
        size_t bracket = line.find("] [");
        out.push_back(bracket != std::string::npos && line[0] != '[' ? line.substr(bracket + 2) : line);
    }
    return out;
}

struct Scenario {
    json process;
    capturetest::CapturedRun run;
};

Scenario runScenario(const std::string& name) {
    json counters = json::parse(readText(kTraces / name / "pytorch_counters.json"));
    std::string program = counters["program"].get<std::string>();
    Scenario s{counters["processes"][0], {}};
    s.run = capturetest::runCaptured(readText(kTraces / program), program, "main", {eng::vm::makeStr("cpu")});
    return s;
}

}  // namespace

TEST(CaptureTorchTraces, BreaksMatchPyTorch) {
    Scenario s = runScenario("breaks_cpu");
    ASSERT_TRUE(s.run.ok) << s.run.error;
    EXPECT_EQ(s.run.out, s.process["stdout"].get<std::string>());
    const json& counters = s.process["counters"];
    EXPECT_EQ(s.run.counters["frames"]["total"], counters["frames"]["total"].get<int64_t>());
    std::map<std::string, int64_t> expected;
    for (const auto& [reason, count] : counters["graph_break"].items()) expected[reason] = count.get<int64_t>();
    EXPECT_EQ(s.run.counters["graph_break"], expected);
    std::vector<std::string> ids;
    for (const auto& c : s.run.events.started) ids.push_back(c.key.str() + " " + c.function);
    ids.resize(std::min<size_t>(ids.size(), 9));
    EXPECT_EQ(ids, (std::vector<std::string>{"0/0 with_print", "1/0 torch_dynamo_resume_in_with_print_at_9", "2/0 with_item",
                                             "3/0 torch_dynamo_resume_in_with_item_at_16", "4/0 with_explicit",
                                             "5/0 torch_dynamo_resume_in_with_explicit_at_26", "6/0 with_nested", "7/0 helper",
                                             "8/0 torch_dynamo_resume_in_helper_at_32"}));
    // PyTorch names the resume after a break inside an inlined call by an earlier line (_at_38, the line before
    // the call); ours names it by the call's line, as for every other break.
    ASSERT_EQ(s.run.events.started.size(), 10u);
    EXPECT_EQ(s.run.events.started[9].function.rfind("torch_dynamo_resume_in_with_nested_at_", 0), 0u);
    // Both the first report of each break site and the duplicate one (user stack suppressed).
    EXPECT_EQ(artifactLines(s.run.logs, "] Graph break"), artifactLines(s.process["stderr"].get<std::string>(), "] Graph break"));
}

TEST(CaptureTorchTraces, RecompilesMatchPyTorch) {
    Scenario s = runScenario("recompiles_cpu");
    ASSERT_TRUE(s.run.ok) << s.run.error;
    const json& counters = s.process["counters"];
    EXPECT_EQ(s.run.counters["frames"]["total"], counters["frames"]["total"].get<int64_t>());
    EXPECT_EQ(s.run.counters["frames"]["ok"], counters["frames"]["ok"].get<int64_t>());
    EXPECT_EQ(s.run.counters["stats"]["unique_graphs"], counters["stats"]["unique_graphs"].get<int64_t>());
    EXPECT_EQ(s.run.uniqueGraphs, counters["stats"]["unique_graphs"].get<int>());
    // Every recompile line (reasons included) and the recompile-limit warning, as PyTorch logged them.
    std::string stderrText = s.process["stderr"].get<std::string>();
    EXPECT_EQ(artifactLines(s.run.logs, "[__recompiles]"), artifactLines(stderrText, "[__recompiles]"));
    std::vector<std::string> warning = artifactLines(stderrText, "[4/8] ");
    std::vector<std::string> ours;
    for (const std::string& line : capturetest::linesWith(s.run.logs, "[4/8] "))
        if (line.find("[__recompiles]") == std::string::npos) ours.push_back(line);
    std::vector<std::string> theirs;
    for (const std::string& line : warning)
        if (line.find("[__recompiles]") == std::string::npos) theirs.push_back(line);
    EXPECT_EQ(ours, theirs);
}
