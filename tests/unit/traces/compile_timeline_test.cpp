// The compile-time timeline of two real DDP ranks: one lane per rank and compile id, every chromium event once
// (a B/E pair as one span), and the chrome trace JSON that Perfetto reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "importers/import_path.h"
#include "report/compile_timeline.h"
#include "report/report.h"

using namespace traces;

namespace {

// Counted in the two logs with make_insights.py's parser: rank 0 has 29 B/E pairs, rank 1 37 pairs and one
// instant; every event carries the frame id of one of rank 0's 4 compile ids or rank 1's 5.
constexpr size_t kSpansRank0 = 29, kSpansRank1 = 38;

TraceData ranks() {
    return openAsTrace((std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces" / "insights" / "ddp_gloo_2ranks")
                           .string());
}

}  // namespace

TEST(CompileTimeline, OneLanePerRankAndCompileId) {
    TraceData trace = ranks();
    CompileTimeline timeline = buildCompileTimeline(trace);
    ASSERT_EQ(timeline.lanes.size(), 9u);
    std::map<std::string, std::vector<std::string>> keysByRank;
    std::map<std::string, size_t> spansByRank;
    for (const TimelineLane& lane : timeline.lanes) {
        keysByRank[lane.sessionLabel].push_back(lane.compileKey);
        spansByRank[lane.sessionLabel] += lane.spans.size();
        ASSERT_TRUE(lane.compileId.has_value()) << lane.label;
        EXPECT_EQ(lane.label.rfind("[" + lane.compileKey + "]", 0), 0u) << lane.label;
        for (size_t i = 1; i < lane.spans.size(); ++i)
            EXPECT_LE(lane.spans[i - 1].span->startUs, lane.spans[i].span->startUs);
    }
    EXPECT_EQ(keysByRank["rank 0"], (std::vector<std::string>{"0/0", "1/0", "2/0", "3/0"}));
    EXPECT_EQ(keysByRank["rank 1"], (std::vector<std::string>{"0/0", "1/0", "2/0", "3/0", "0/1"}));
    EXPECT_EQ(spansByRank["rank 0"], kSpansRank0);
    EXPECT_EQ(spansByRank["rank 1"], kSpansRank1);
    EXPECT_GT(timeline.lanes[0].depth, 1);  // Dynamo's spans nest (dynamo > entire_frame_compile > ...)
    EXPECT_LT(timeline.startUs, timeline.endUs);
}

TEST(CompileTimeline, PerfettoJsonHasAProcessPerRankAndAThreadPerCompileId) {
    TraceData trace = ranks();
    std::ostringstream out;
    writeReport(trace, *reportFormatFromString("perfetto"), out);
    nlohmann::json root = nlohmann::json::parse(out.str());
    size_t timed = 0;
    std::set<std::string> processes;
    std::map<int, std::set<std::string>> threadsByPid;
    for (const auto& event : root.at("traceEvents")) {
        std::string ph = event.at("ph");
        if (ph == "M" && event.at("name") == "process_name") processes.insert(event.at("args").at("name"));
        if (ph == "M" && event.at("name") == "thread_name")
            threadsByPid[event.at("pid").get<int>()].insert(event.at("args").at("name").get<std::string>().substr(0, 5));
        if (ph == "X" || ph == "i") {
            ++timed;
            EXPECT_TRUE(event.at("args").contains("compile_id"));
            if (ph == "X") {
                EXPECT_GT(event.at("dur").get<double>(), 0);
            }
        }
    }
    EXPECT_EQ(timed, kSpansRank0 + kSpansRank1);
    EXPECT_EQ(processes, (std::set<std::string>{"rank 0", "rank 1"}));
    EXPECT_EQ(threadsByPid[1], (std::set<std::string>{"[0/0]", "[1/0]", "[2/0]", "[3/0]"}));
    EXPECT_TRUE(threadsByPid[2].contains("[0/1]"));
}
