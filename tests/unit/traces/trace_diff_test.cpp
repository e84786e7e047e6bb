// cwb diff: two real runs (cold and warm caches), two real ranks, and a fixture whose graph, guards and
// kernels change, in all three output formats.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "importers/import_path.h"
#include "report/trace_diff.h"
#include "report_fixture.h"

using namespace traces;

namespace {

const std::filesystem::path kInsights = std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces" / "insights";

std::string rankLog(int rank) {
    for (const auto& entry : std::filesystem::directory_iterator(kInsights / "ddp_gloo_2ranks"))
        if (entry.path().filename().string().find("rank_" + std::to_string(rank) + "_") != std::string::npos)
            return entry.path().string();
    return "";
}

/// One session with compile [0/0]: a Dynamo graph of `ops`, guards `guards` and a kernel per name in `kernels`.
TraceData oneCompile(const std::vector<std::string>& ops, const std::vector<std::string>& guards,
                     const std::vector<std::string>& kernels) {
    TraceData t;
    t.sessions.push_back({});
    t.sessions[0].id = 1;
    t.compiles.push_back(report_fixture::makeCompile(1, 1, std::nullopt, 0, 0, 0, true, CompileStatus::Ok, "f", 3));
    std::vector<GraphNode> nodes{report_fixture::makeNode(0, "x", "placeholder", "x")};
    for (const std::string& op : ops)
        nodes.push_back(report_fixture::makeNode(static_cast<int>(nodes.size()), op, "call_function", op));
    Graph graph = report_fixture::makeDynamoGraph(1, 1, 1, nodes);
    for (const std::string& op : ops) graph.text += op + "\n";
    t.graphs.push_back(graph);
    for (const std::string& text : guards)
        t.guards.push_back({0, 1, static_cast<int>(t.guards.size()), "", "", text, "", "", 0});
    OutputCode code;
    code.id = 1;
    code.sessionId = 1;
    code.compileId = 1;
    for (const std::string& name : kernels) {
        Kernel kernel;
        kernel.index = static_cast<int>(code.kernels.size());
        kernel.name = name;
        code.kernels.push_back(kernel);
    }
    t.outputCode.push_back(code);
    return t;
}

}  // namespace

TEST(TraceDiff, WarmRunShowsTheCacheHitsAndNoOtherCompileChange) {
    TraceData cold = openAsTrace((kInsights / "mlp_cache_cold").string());
    TraceData warm = openAsTrace((kInsights / "mlp_cache_warm").string());
    TraceDiff diff = diffTraces(cold, warm);
    ASSERT_EQ(diff.sessions.size(), 1u);
    const SessionDiff& s = diff.sessions[0];
    EXPECT_TRUE(s.compilesAdded.empty());
    EXPECT_TRUE(s.compilesRemoved.empty());
    ASSERT_EQ(s.compiles.size(), 1u);
    EXPECT_EQ(s.compiles[0].compileId, "0/0");
    EXPECT_EQ(s.compiles[0].cachesA, "aotautograd miss, fx_graph miss, inductor miss");
    EXPECT_EQ(s.compiles[0].cachesB, "aotautograd miss, fx_graph hit, inductor hit");
    EXPECT_EQ(s.compiles[0].statusA, s.compiles[0].statusB);
    // The hit skipped Inductor's code generation: the cold run logged 56.0 s of code_gen, the warm run none.
    auto codegen = std::find_if(s.phaseTotals.begin(), s.phaseTotals.end(),
                                [](const PhaseChange& p) { return p.phase == "code_gen"; });
    ASSERT_NE(codegen, s.phaseTotals.end());
    EXPECT_NEAR(codegen->secondsA, 56.022637, 1e-6);
    EXPECT_EQ(codegen->secondsB, 0.0);
}

TEST(TraceDiff, TwoRanksShowTheRecompileOnlyOneOfThemMade) {
    ASSERT_FALSE(rankLog(0).empty());
    TraceDiff diff = diffTraces(openAsTrace(rankLog(0)), openAsTrace(rankLog(1)));
    ASSERT_EQ(diff.sessions.size(), 1u);
    const SessionDiff& s = diff.sessions[0];
    EXPECT_EQ(s.compilesAdded, std::vector<std::string>{"0/1"});
    EXPECT_TRUE(s.compilesRemoved.empty());
    EXPECT_TRUE(s.breaksFixed.empty());
    EXPECT_TRUE(s.breaksNew.empty());
    ASSERT_EQ(s.breaksChanged.size(), 1u);
    EXPECT_EQ(s.breaksChanged[0].breakType, "Unsupported method call");
    EXPECT_EQ(s.breaksChanged[0].countA, 1);
    EXPECT_EQ(s.breaksChanged[0].countB, 2);
}

TEST(TraceDiff, GraphGuardAndKernelChangesAreNamed) {
    TraceData a = oneCompile({"torch.sin", "torch.cos"}, {"L['x'].size()[0] == 8", "___check_type_id(L['x'])"},
                             {"triton_poi_fused_sin_0", "triton_poi_fused_cos_1"});
    TraceData b = oneCompile({"torch.sin", "torch.cos", "torch.cos"}, {"___check_type_id(L['x'])", "2 <= L['x'].size()[0]"},
                             {"triton_poi_fused_cos_sin_0"});
    TraceDiff diff = diffTraces(a, b);
    ASSERT_EQ(diff.sessions.at(0).compiles.size(), 1u);
    const CompileChange& c = diff.sessions[0].compiles[0];
    EXPECT_EQ(c.guardsAdded, std::vector<std::string>{"2 <= L['x'].size()[0]"});
    EXPECT_EQ(c.guardsRemoved, std::vector<std::string>{"L['x'].size()[0] == 8"});
    ASSERT_EQ(c.graphs.size(), 1u);
    EXPECT_EQ(c.graphs[0].kind, "dynamo");
    EXPECT_EQ(c.graphs[0].nodesA, 3);
    EXPECT_EQ(c.graphs[0].nodesB, 4);
    EXPECT_EQ(c.graphs[0].opsAdded, std::vector<std::string>{"torch.cos"});
    EXPECT_TRUE(c.graphs[0].opsRemoved.empty());
    EXPECT_EQ(c.kernelsAdded, std::vector<std::string>{"triton_poi_fused_cos_sin_0"});
    EXPECT_EQ(c.kernelsRemoved, (std::vector<std::string>{"triton_poi_fused_sin_0", "triton_poi_fused_cos_1"}));

    EXPECT_TRUE(diffTraces(a, a).sessions.at(0).compiles.empty());

    std::ostringstream json, md, html;
    writeDiff(diff, ReportFormat::Json, "cwb 1.0 diff a b --format json", json);
    auto parsed = nlohmann::json::parse(json.str());
    EXPECT_EQ(parsed.at("format"), "cwb-diff");
    EXPECT_EQ(parsed.at("produced_by"), "cwb 1.0 diff a b --format json");
    EXPECT_EQ(parsed.at("sessions")[0].at("compiles_changed")[0].at("kernels_added")[0], "triton_poi_fused_cos_sin_0");
    writeDiff(diff, ReportFormat::Markdown, "cwb 1.0 diff a b", md);
    writeDiff(diff, ReportFormat::Html, "cwb 1.0 diff a b", html);
    EXPECT_NE(md.str().find("| guards | removed: `L['x'].size()[0] == 8` | added: `2 <= L['x'].size()[0]` |"),
              std::string::npos) << md.str();
    EXPECT_NE(html.str().find("<code>2 &lt;= L['x'].size()[0]</code>"), std::string::npos);
    EXPECT_NE(html.str().find("Made by <code>cwb 1.0 diff a b</code>"), std::string::npos);
}
