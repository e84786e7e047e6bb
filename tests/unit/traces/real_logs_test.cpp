// Real TORCH_TRACE logs written by torch 2.11 (tests/data/torch_traces, made by make_traces.py on a GPU
// machine): the report's counts, break reasons and recompile messages must equal what PyTorch itself reported
// in the same run (its counters and its TORCH_LOGS output, stored in pytorch_counters.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "importers/import_path.h"
#include "report/summary.h"
#include "test_support.h"

using namespace traces;
using nlohmann::json;

namespace {

const std::filesystem::path kDataDir = std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces";

struct Scenario {
    std::string name;
    json expected;
    TraceData trace;
    std::vector<SessionSummary> summaries;
};

Scenario load(const std::string& name) {
    Scenario s;
    s.name = name;
    s.expected = json::parse(testsupport::readFile((kDataDir / name / "pytorch_counters.json").string()));
    s.trace = openAsTrace((kDataDir / name).string());
    s.summaries = summarizeTrace(s.trace);
    return s;
}

std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

class RealLogs : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(RealLogs, CountsEqualPyTorchsOwn) {
    Scenario s = load(GetParam());
    const json& processes = s.expected.at("processes");
    ASSERT_EQ(s.trace.sessions.size(), processes.size());
    for (size_t i = 0; i < processes.size(); ++i) {
        const json& process = processes[i];
        std::string logFile = std::filesystem::path(process.at("log_file").get<std::string>()).filename();
        const json& traceCounts = s.expected.at("trace_counts").at(logFile);
        const Session& session = s.trace.sessions[i];
        SCOPED_TRACE(logFile);
        ASSERT_EQ(session.sourceFile, logFile);
        EXPECT_EQ(session.malformedRecords, 0);
        EXPECT_EQ(session.records, traceCounts.at("records").get<int64_t>());
        EXPECT_EQ(session.torchVersion, s.expected.at("torch_version").get<std::string>());
        if (!process.at("rank").is_null()) {
            EXPECT_EQ(session.rank, process.at("rank").get<int>());
        }

        const SummaryCounts& counts = s.summaries[i].counts;
        const json& counters = process.at("counters");
        int64_t pytorchBreaks = 0;
        if (counters.contains("graph_break"))
            for (const auto& [reason, n] : counters.at("graph_break").items()) pytorchBreaks += n.get<int64_t>();
        EXPECT_EQ(counts.graphBreaks, pytorchBreaks);
        EXPECT_EQ(counts.graphBreaks, static_cast<int64_t>(process.at("logs").at("graph_breaks").size()));
        EXPECT_EQ(counts.recompiles, static_cast<int64_t>(process.at("logs").at("recompiles").size()));
        EXPECT_EQ(s.summaries[i].uniqueGraphs, counters.at("stats").at("unique_graphs").get<int64_t>());
        EXPECT_EQ(counts.compiles, traceCounts.at("dynamo_start").get<int64_t>());
        EXPECT_EQ(counts.graphs, traceCounts.at("dynamo_output_graph").get<int64_t>());
        EXPECT_EQ(counts.failedCompiles, traceCounts.at("failed_compiles").get<int64_t>());
        EXPECT_EQ(counts.outputCode, traceCounts.at("inductor_output_code").get<int64_t>());
    }
}

TEST_P(RealLogs, BreakReasonsMatchPyTorchsGraphBreakCounter) {
    Scenario s = load(GetParam());
    for (size_t i = 0; i < s.summaries.size(); ++i) {
        std::map<std::string, int64_t> ours, pytorch;
        for (const BreakReasonSummary& r : s.summaries[i].breakReasons) ours[r.breakType] += r.count;
        const json& counters = s.expected.at("processes")[i].at("counters");
        if (counters.contains("graph_break"))
            for (const auto& [reason, n] : counters.at("graph_break").items())
                pytorch[firstLine(reason)] += n.get<int64_t>();
        EXPECT_EQ(ours, pytorch);
        for (const BreakReasonSummary& r : s.summaries[i].breakReasons) {
            EXPECT_FALSE(r.userFile.empty()) << r.breakType;
            EXPECT_GT(r.userLine, 0) << r.breakType;
        }
    }
}

TEST_P(RealLogs, RecompileMessagesUseDynamosWording) {
    Scenario s = load(GetParam());
    for (size_t i = 0; i < s.summaries.size(); ++i) {
        // PyTorch's messages in log order, against ours in compile order.
        std::vector<const RecompileEvent*> events;
        std::vector<const FunctionRecompiles*> owners;
        for (const FunctionRecompiles& f : s.summaries[i].recompiledFunctions)
            for (const RecompileEvent& e : f.recompiles) events.push_back(&e), owners.push_back(&f);
        const json& messages = s.expected.at("processes")[i].at("logs").at("recompiles");
        ASSERT_EQ(events.size(), messages.size());
        std::map<std::string, const json*> byCompile;
        for (const json& m : messages) byCompile[m.at("compile_id").get<std::string>()] = &m;
        for (size_t e = 0; e < events.size(); ++e) {
            SCOPED_TRACE(events[e]->compile.display);
            auto it = byCompile.find(events[e]->compile.display);
            ASSERT_NE(it, byCompile.end());
            const json& m = *it->second;
            EXPECT_EQ(owners[e]->function, m.at("function").get<std::string>());
            EXPECT_EQ(owners[e]->firstLine, m.at("line").get<int>());
            std::vector<std::string> ourEntries;
            for (const GuardFailureText& g : events[e]->guardFailures)
                ourEntries.push_back("- " + g.failedCompile + ": " + firstLine(g.reason));
            std::vector<std::string> theirEntries;
            for (const json& line : m.at("failed_entries")) theirEntries.push_back(firstLine(line.get<std::string>()));
            EXPECT_EQ(ourEntries, theirEntries);
            EXPECT_EQ(firstLine(events[e]->message), firstLine(m.at("lines")[0].get<std::string>()));
        }
    }
}

TEST_P(RealLogs, RecompileLimitWarningIsDynamosOwn) {
    Scenario s = load(GetParam());
    for (size_t i = 0; i < s.summaries.size(); ++i) {
        std::vector<std::string> ours;
        for (const FunctionRecompiles& f : s.summaries[i].recompiledFunctions)
            if (f.recompileLimit && f.recompileLimit->hit) ours.push_back(f.recompileLimit->warning);
        std::vector<std::string> theirs;
        for (const json& w : s.expected.at("processes")[i].at("logs").at("recompile_limit_warnings")) {
            std::string text;
            for (const json& line : w.at("lines")) text += (text.empty() ? "" : "\n") + line.get<std::string>();
            theirs.push_back(text);
        }
        EXPECT_EQ(ours, theirs);
    }
}

INSTANTIATE_TEST_SUITE_P(TorchTraces, RealLogs,
                         ::testing::Values("breaks_cpu", "recompiles_cpu", "failures_cpu", "training_cuda",
                                           "ranks_cpu"));

TEST(RealLogsDetail, TrainingLogHasAotGraphsAndTritonKernels) {
    TraceData t = openAsTrace((kDataDir / "training_cuda").string());
    std::map<GraphKind, int> kinds;
    for (const Graph& g : t.graphs) ++kinds[g.kind];
    EXPECT_EQ(kinds[GraphKind::AotJoint], 2);
    EXPECT_EQ(kinds[GraphKind::AotForward], 2);
    EXPECT_EQ(kinds[GraphKind::AotBackward], 2);
    int triton = 0;
    for (const OutputCode& o : t.outputCode)
        for (const Kernel& k : o.kernels) triton += k.language == "triton";
    EXPECT_GT(triton, 0);
    for (const Graph& g : t.graphs) EXPECT_FALSE(g.nodes.empty()) << g.name;
}

TEST(RealLogsDetail, FailuresLogRecordsFailTypesAndReusedCompileIds) {
    TraceData t = openAsTrace((kDataDir / "failures_cpu").string());
    std::vector<std::string> failTypes;
    int zeroZero = 0;
    for (const Compile& c : t.compiles) {
        if (!c.failType.empty()) failTypes.push_back(c.failType);
        zeroZero += c.started && c.key.str() == "0/0";
    }
    EXPECT_EQ(failTypes, (std::vector<std::string>{"Unsupported", "BackendCompilerFailed"}));
    EXPECT_EQ(zeroZero, 2);
}
