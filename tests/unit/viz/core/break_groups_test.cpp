// De-duplicated graph breaks as the breaks view lists them, on the real breaks log.
#include "core/break_groups.h"

#include <gtest/gtest.h>

#include "real_traces.h"

namespace viz {
namespace {

using testing::onlySession;
using testing::realTrace;

TEST(BreakGroups, OneGroupPerDistinctBreakWithCountsAndTheUsersLine) {
    const auto& groups = onlySession(realTrace("breaks_cpu")).breaks;
    ASSERT_EQ(groups.size(), 4u);
    EXPECT_EQ(groups[0].title, "Failed to trace builtin operator");
    EXPECT_EQ(groups[0].location, "programs/breaks_cpu.py:9");
    EXPECT_EQ(groups[0].sourceLine, "print(\"with_print: between the two graphs\")");
    EXPECT_EQ(groups[0].reason.count, 1);
    EXPECT_NE(groups[0].explanation.find("Explanation: Dynamo does not know how to trace builtin operator"),
              std::string::npos);
    EXPECT_EQ(groups[1].location, "programs/breaks_cpu.py:16");
    EXPECT_EQ(groups[2].title, "Call to `torch._dynamo.graph_break()`");
    // The print inside the inlined helper breaks both with_nested and helper itself: one group, two breaks.
    EXPECT_EQ(groups[3].location, "programs/breaks_cpu.py:32");
    EXPECT_EQ(groups[3].reason.count, 2);
    ASSERT_EQ(groups[3].reason.compiles.size(), 2u);
    EXPECT_EQ(groups[3].reason.compiles[0].display, "[6/0]");
    EXPECT_EQ(groups[3].reason.userStack.back().function, "helper");
}

TEST(BreakGroups, FilterMatchesReasonLocationSourceAndCompileIds) {
    const auto& groups = onlySession(realTrace("breaks_cpu")).breaks;
    EXPECT_EQ(filterBreaks(groups, "item()"), std::vector<size_t>{1});
    EXPECT_EQ(filterBreaks(groups, "breaks_cpu.py:32"), std::vector<size_t>{3});
    EXPECT_EQ(filterBreaks(groups, "[4/0]"), std::vector<size_t>{2});
    EXPECT_EQ(filterBreaks(groups, "").size(), 4u);
    EXPECT_TRUE(onlySession(realTrace("recompiles_cpu")).breaks.empty());
}

}  // namespace
}  // namespace viz
