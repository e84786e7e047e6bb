// The runtime join on a real run: torch.profiler's "Torch-Compiled Region" events of 20 profiled calls of a
// function with 5 graph breaks, joined with the same run's TORCH_TRACE log (tests/data/torch_traces/insights).
#include <gtest/gtest.h>

#include <map>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "importers/import_path.h"
#include "report/runtime_join.h"
#include "test_support.h"

using namespace traces;
using nlohmann::json;

namespace {

const std::filesystem::path kDir = std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces" / "insights";

}  // namespace

TEST(RuntimeJoin, HitsAndTimePerCompiledFrameEqualTheProfilesOwnCounts) {
    TraceData trace = openAsTrace((kDir / "breaks_profile").string());
    RuntimeJoin join = joinRuntime(trace, (kDir / "breaks_profile" / "profile.json").string());
    json expected = json::parse(testsupport::readFile((kDir / "expected_counts.json").string()))
                        .at("breaks_profile").at("profile.json").at("regions");
    ASSERT_EQ(join.frames.size(), expected.size());
    for (const CompiledFrameRuntime& f : join.frames) {
        SCOPED_TRACE(f.compileId);
        EXPECT_EQ(f.hits, expected.at(f.compileId).at("hits").get<int64_t>());
        EXPECT_NEAR(f.totalUs, expected.at(f.compileId).at("total_us").get<double>(), 1e-6);
        EXPECT_NEAR(f.eagerUs, expected.at(f.compileId).at("eager_us").get<double>(), 1e-6);
        EXPECT_EQ(f.compileUs, 0);  // profiled after every compile
        EXPECT_GT(f.eagerUs, 0);
        EXPECT_EQ(f.function.empty(), false);
    }
    EXPECT_EQ(join.frames.front().compileId, "0/1");  // the longest in total: 20 hits, 3.7 ms
    EXPECT_EQ(join.frames.front().function, "f");
    ASSERT_FALSE(join.gaps.empty());
    int64_t gapCount = 0;
    for (const EagerGap& g : join.gaps) {
        gapCount += g.count;
        EXPECT_GT(g.totalUs, 0);
    }
    // 20 calls of f: each is one top-level region ([0/1]); the resume functions' 40 regions nest in it.
    EXPECT_EQ(gapCount, 20 - 1);

    // Breaks are ranked by the eager time in the frames that broke; each comes with a remedy.
    ASSERT_FALSE(join.fixFirst.empty());
    for (size_t i = 1; i < join.fixFirst.size(); ++i) EXPECT_GE(join.fixFirst[i - 1].costUs, join.fixFirst[i].costUs);
    bool sawItem = false, sawPrint = false;
    for (const FixFirstItem& item : join.fixFirst) {
        EXPECT_FALSE(item.remedy.empty());
        if (item.kind != "graph_break") continue;
        EXPECT_EQ(item.costBasis, "eager time in the breaking frames (profile)");
        sawItem |= item.remedy.find("capture_scalar_outputs") != std::string::npos;
        sawPrint |= item.remedy.find("reorderable_logging_functions") != std::string::npos;
    }
    EXPECT_TRUE(sawItem);
    EXPECT_TRUE(sawPrint);
}

// A real GPT-2 training run (transformers, 12 layers, H100) profiled while its sequence length grew: the
// recompiles of the frames after the logging break ran inside the outer frame's region. Their compile time is
// compiling, not the eager time of that break (which read 65 s before), and fix-first ranks the recompile first.
TEST(RuntimeJoin, CompilingInsideARegionIsNotEagerTime) {
    const std::filesystem::path dir = kDir / "gpt2_train_profile";
    TraceData trace = openAsTrace(dir.string());
    RuntimeJoin join = joinRuntime(trace, (dir / "profile.json").string());
    json expected = json::parse(testsupport::readFile((kDir / "expected_counts.json").string()))
                        .at("gpt2_train_profile").at("profile.json").at("regions");
    ASSERT_EQ(join.frames.size(), expected.size());
    double compiling = 0;
    for (const CompiledFrameRuntime& f : join.frames) {
        SCOPED_TRACE(f.compileId);
        const json& counted = expected.at(f.compileId);
        EXPECT_EQ(f.hits, counted.at("hits").get<int64_t>());
        // Timestamps are ~5e12 us, so sums of differences keep about 1e-3 us.
        EXPECT_NEAR(f.totalUs, counted.at("total_us").get<double>(), 0.01);
        EXPECT_NEAR(f.eagerUs, counted.at("eager_us").get<double>(), 0.01);
        EXPECT_NEAR(f.compileUs, counted.at("compile_us").get<double>(), 0.01);
        EXPECT_GE(f.eagerUs, 0);
        compiling += f.compileUs;
    }
    EXPECT_GT(compiling, 60e6);
    ASSERT_FALSE(join.fixFirst.empty());
    EXPECT_EQ(join.fixFirst.front().kind, "recompile");
    EXPECT_NE(join.fixFirst.front().what.find("forward"), std::string::npos);
    for (const FixFirstItem& item : join.fixFirst) {
        if (item.kind != "graph_break") continue;
        EXPECT_LT(item.costUs, 1e6) << item.what;  // eager: milliseconds, not 65 s
    }
}

TEST(RuntimeJoin, WithoutAProfileBreaksAndRecompilesRankByCompileTime) {
    TraceData trace = openAsTrace((kDir / "breaks_profile").string());
    RuntimeJoin join = joinRuntime(trace, "");
    EXPECT_TRUE(join.frames.empty());
    ASSERT_FALSE(join.fixFirst.empty());
    bool sawSizeRecompile = false;
    for (const FixFirstItem& item : join.fixFirst) {
        EXPECT_GT(item.costUs, 0) << item.what;
        if (item.kind == "graph_break") {
            EXPECT_EQ(item.costBasis, "compile time");
        }
        // f recompiled because x's size changed: the remedy is mark_dynamic.
        if (item.kind == "recompile" && item.what.find("size mismatch") != std::string::npos) {
            sawSizeRecompile = true;
            EXPECT_NE(item.remedy.find("mark_dynamic"), std::string::npos) << item.what;
        }
    }
    EXPECT_TRUE(sawSizeRecompile);
    std::ostringstream out;
    writeRuntimeJoin(join, ReportFormat::Json, "cwb test", out);
    json report = json::parse(out.str());
    EXPECT_EQ(report.at("format"), "cwb-runtime");
    EXPECT_EQ(report.at("fix_first").size(), join.fixFirst.size());
    EXPECT_THROW(joinRuntime(trace, (kDir / "no_such_profile.json").string()), std::runtime_error);
}

TEST(RuntimeJoin, EachRankOfADistributedRunGetsItsOwnFixFirstList) {
    // DDP over gloo: rank 1 grows its batch and recompiles [0/1] (its log's one recompile_reasons artifact); rank 0
    // never recompiles. Both break in DDP's forward (3 dynamo_graph_break_reason artifacts on rank 0, 4 on rank 1).
    TraceData trace = openAsTrace((kDir / "ddp_gloo_2ranks").string());
    ASSERT_EQ(trace.sessions.size(), 2u);
    std::vector<RuntimeJoin> joins;
    for (const Session& session : trace.sessions) joins.push_back(joinRuntime(trace, "", session.id));
    auto kinds = [](const RuntimeJoin& join) {
        std::map<std::string, int> count;
        for (const FixFirstItem& item : join.fixFirst) ++count[item.kind];
        return count;
    };
    EXPECT_EQ(joins[0].rank, 0);
    EXPECT_EQ(joins[1].rank, 1);
    EXPECT_EQ(kinds(joins[0]), (std::map<std::string, int>{{"graph_break", 2}}));
    EXPECT_EQ(kinds(joins[1]), (std::map<std::string, int>{{"graph_break", 2}, {"recompile", 1}}));
    for (const FixFirstItem& item : joins[1].fixFirst)
        if (item.kind == "recompile") {
            EXPECT_EQ(item.compileIds, "[0/1]");
        }

    std::ostringstream out;
    writeRuntimeJoins(joins, ReportFormat::Json, "cwb test", out);
    json report = json::parse(out.str());
    ASSERT_EQ(report.at("sessions").size(), 2u);
    EXPECT_EQ(report.at("sessions")[1].at("rank"), 1);
    EXPECT_EQ(report.at("sessions")[1].at("fix_first").size(), 3u);
    EXPECT_EQ(report.at("fix_first"), report.at("sessions")[0].at("fix_first"));  // one session's fields, as before
}
