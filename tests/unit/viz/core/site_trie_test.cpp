// The compile-site tree on real logs: shape (common prefix stripped, compile ids on the frame where their
// stack ends), status colours and counts, and what the filter keeps.
#include "core/site_trie.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "real_traces.h"

namespace viz {
namespace {

using testing::onlySession;
using testing::realTrace;

std::vector<std::string> childLabels(const SiteTrie& trie, int node) {
    std::vector<std::string> labels;
    for (int child : trie.nodes()[static_cast<size_t>(node)].children)
        labels.push_back(SiteTrie::frameLabel(trie.nodes()[static_cast<size_t>(child)].frame));
    return labels;
}

int childNamed(const SiteTrie& trie, int node, const std::string& label) {
    for (int child : trie.nodes()[static_cast<size_t>(node)].children)
        if (SiteTrie::frameLabel(trie.nodes()[static_cast<size_t>(child)].frame) == label) return child;
    return -1;
}

std::vector<std::string> compilesAt(const SiteTrie& trie, int node) {
    std::vector<std::string> ids;
    for (int c : trie.nodes()[static_cast<size_t>(node)].compiles) ids.push_back(trie.compiles()[static_cast<size_t>(c)].display);
    return ids;
}

TEST(SiteTrie, BreaksLogStripsTheSharedBootFrameAndHangsResumeFunctionsUnderMain) {
    const SiteTrie& trie = onlySession(realTrace("breaks_cpu")).sites;
    ASSERT_EQ(trie.commonPrefix().size(), 1u);
    EXPECT_EQ(trie.commonPrefix()[0].file, "<string>");

    EXPECT_EQ(childLabels(trie, 0),
              (std::vector<std::string>{"programs/breaks_cpu.py:6 in with_print", "programs/breaks_cpu.py:46 in main",
                                        "programs/breaks_cpu.py:13 in with_item", "programs/breaks_cpu.py:23 in with_explicit",
                                        "programs/breaks_cpu.py:36 in with_nested"}));
    int withPrint = childNamed(trie, 0, "programs/breaks_cpu.py:6 in with_print");
    EXPECT_EQ(compilesAt(trie, withPrint), std::vector<std::string>{"[0/0]"});
    EXPECT_EQ(trie.compiles()[static_cast<size_t>(trie.nodes()[static_cast<size_t>(withPrint)].compiles[0])].state,
              CompileState::GraphBreak);
    // [0/0] restarted once: its two attempts are one compile id in the tree.
    EXPECT_EQ(trie.compiles()[static_cast<size_t>(trie.nodes()[static_cast<size_t>(withPrint)].compiles[0])].attempts, 2);

    int main = childNamed(trie, 0, "programs/breaks_cpu.py:46 in main");
    int resume = childNamed(trie, main, "programs/breaks_cpu.py:9 in torch_dynamo_resume_in_with_print_at_9");
    ASSERT_GE(resume, 0);
    EXPECT_EQ(compilesAt(trie, resume), std::vector<std::string>{"[1/0]"});
    EXPECT_EQ(trie.compiles()[static_cast<size_t>(trie.nodes()[static_cast<size_t>(resume)].compiles[0])].state,
              CompileState::Ok);
}

TEST(SiteTrie, ACompileIdWhoseLastAttemptProducedNoGraphIsAnEmptyGraph) {
    // [3/0] restarted, then finished with graph_op_count 0: tlparse's white status-empty, over the restart.
    const SiteTrie& trie = onlySession(realTrace("insights/breaks_profile")).sites;
    std::vector<std::string> empty;
    for (const SiteCompile& compile : trie.compiles())
        if (compile.state == CompileState::Empty) empty.push_back(compile.display);
    EXPECT_EQ(empty, std::vector<std::string>{"[3/0]"});
    EXPECT_EQ(trie.root().counts.count(CompileState::Empty), 1);
    EXPECT_STREQ(compileStateName(CompileState::Empty), "empty graph");
}

TEST(SiteTrie, BreaksLogCountsEveryCompileIdOnceByStatus) {
    const SiteTrie& trie = onlySession(realTrace("breaks_cpu")).sites;
    const StateCounts& counts = trie.root().counts;
    EXPECT_EQ(counts.total(), 10);
    EXPECT_EQ(counts.count(CompileState::GraphBreak), 5);
    EXPECT_EQ(counts.count(CompileState::Ok), 5);
    EXPECT_EQ(counts.count(CompileState::Failed), 0);
    int main = childNamed(trie, 0, "programs/breaks_cpu.py:46 in main");
    // Under main: the five resume functions plus helper's graph-break compile (inlined helper broke too).
    EXPECT_EQ(trie.nodes()[static_cast<size_t>(main)].counts.total(), 6);
}

TEST(SiteTrie, RecompilesLogPutsEveryRecompileOnItsFunctionsFrameWithItsStatus) {
    const SiteTrie& trie = onlySession(realTrace("recompiles_cpu")).sites;
    const StateCounts& counts = trie.root().counts;
    EXPECT_EQ(counts.total(), 17);
    EXPECT_EQ(counts.count(CompileState::Ok), 5);
    EXPECT_EQ(counts.count(CompileState::Recompiled), 11);
    EXPECT_EQ(counts.count(CompileState::Failed), 1);  // [4/8], refused by the recompile limit

    int byConst = childNamed(trie, 0, "programs/recompiles_cpu.py:33 in by_const");
    ASSERT_GE(byConst, 0);
    // [4/8] never reached dynamo_start, so it has no site of its own; it still hangs on by_const.
    EXPECT_EQ(compilesAt(trie, byConst), (std::vector<std::string>{"[4/0]", "[4/1]", "[4/2]", "[4/3]", "[4/4]", "[4/5]",
                                                                    "[4/6]", "[4/7]", "[4/8]"}));
    EXPECT_EQ(trie.compiles()[static_cast<size_t>(trie.nodes()[static_cast<size_t>(byConst)].compiles.back())].state,
              CompileState::Failed);
}

TEST(SiteTrie, FilterByTextKeepsMatchingFramesWithTheirSubtreeAndAncestors) {
    const SiteTrie& trie = onlySession(realTrace("breaks_cpu")).sites;
    SiteFilter filter;
    filter.text = "HELPER";
    SiteFilterResult result = filterSiteTrie(trie, filter);
    // helper's own compile and the resume function named after it (torch_dynamo_resume_in_helper_at_32).
    EXPECT_EQ(result.compilesShown, 2);
    int main = childNamed(trie, 0, "programs/breaks_cpu.py:46 in main");
    EXPECT_TRUE(result.nodeVisible[static_cast<size_t>(main)]);
    EXPECT_FALSE(result.nodeMatched[static_cast<size_t>(main)]);
    int withPrint = childNamed(trie, 0, "programs/breaks_cpu.py:6 in with_print");
    EXPECT_FALSE(result.nodeVisible[static_cast<size_t>(withPrint)]);

    std::vector<SiteRow> rows = visibleSiteRows(trie, result, {});
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.front().node, main);
    EXPECT_EQ(rows.front().depth, 0);
}

TEST(SiteTrie, FilterByCompileIdAndByStatus) {
    const SiteTrie& trie = onlySession(realTrace("recompiles_cpu")).sites;
    SiteFilter byId;
    byId.text = "4/3";
    EXPECT_EQ(filterSiteTrie(trie, byId).compilesShown, 1);

    SiteFilter failedOnly;
    failedOnly.states.fill(false);
    failedOnly.states[static_cast<size_t>(CompileState::Failed)] = true;
    SiteFilterResult failed = filterSiteTrie(trie, failedOnly);
    EXPECT_EQ(failed.compilesShown, 1);
    size_t shownIndex = static_cast<size_t>(std::find(failed.compileVisible.begin(), failed.compileVisible.end(), true) -
                                            failed.compileVisible.begin());
    EXPECT_EQ(trie.compiles()[shownIndex].display, "[4/8]");

    SiteFilter byFunction;
    byFunction.text = "by_const";
    EXPECT_EQ(filterSiteTrie(trie, byFunction).compilesShown, 9);
}

TEST(SiteTrie, CollapsedNodesHideTheirSubtreeOnly) {
    const SiteTrie& trie = onlySession(realTrace("breaks_cpu")).sites;
    SiteFilterResult all = filterSiteTrie(trie, {});
    std::vector<SiteRow> expanded = visibleSiteRows(trie, all, {});
    EXPECT_EQ(expanded.size(), trie.nodes().size() - 1);
    std::vector<bool> collapsed(trie.nodes().size(), false);
    int main = childNamed(trie, 0, "programs/breaks_cpu.py:46 in main");
    collapsed[static_cast<size_t>(main)] = true;
    std::vector<SiteRow> folded = visibleSiteRows(trie, all, collapsed);
    EXPECT_EQ(folded.size(), 5u);  // the five top-level frames
}

TEST(SiteTrie, FindCompileAcceptsAnyAttemptOfACompileId) {
    const TraceAnalysis& analysis = realTrace("breaks_cpu");
    const SiteTrie& trie = onlySession(analysis).sites;
    const traces::Compile* retry = analysis.findCompile(*traces::parseCompileKey("0/0_1"));
    ASSERT_NE(retry, nullptr);
    auto found = trie.findCompile(retry->id);
    ASSERT_TRUE(found);
    EXPECT_EQ(trie.compiles()[static_cast<size_t>(*found)].display, "[0/0]");
}

}  // namespace
}  // namespace viz
