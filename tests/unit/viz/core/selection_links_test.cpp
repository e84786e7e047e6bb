// Links between views: a compile's graphs, guards and code across its attempts (real logs), and kernel <->
// graph node through the kernel's fused-node lists (a small hand-made trace, since only some logs carry them).
#include "core/selection_links.h"

#include <gtest/gtest.h>

#include "real_traces.h"
#include "report/trace_index.h"

namespace viz {
namespace {

using testing::realTrace;

TEST(SelectionLinks, ACompileIdLinksTheRowsOfAllItsAttempts) {
    const TraceAnalysis& analysis = realTrace("breaks_cpu");
    const traces::Compile* head = analysis.findCompile(*traces::parseCompileKey("0/0"));
    ASSERT_NE(head, nullptr);
    CompileLinks links = linksOfCompile(analysis.index(), *head);
    ASSERT_EQ(links.attempts.size(), 2u);  // restarted, then compiled up to the break
    EXPECT_FALSE(links.guards.empty());
    EXPECT_FALSE(links.outputCode.empty());
    ASSERT_FALSE(links.graphBreaks.empty());
    const traces::Graph* graph = primaryGraph(links);
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->kind, traces::GraphKind::Dynamo);
    // The graph shown is the kept one: the last attempt's.
    EXPECT_EQ(*graph->compileId, links.attempts.back()->id);
}

traces::TraceData fusedTrace() {
    traces::TraceData trace;
    traces::Session session;
    session.id = 1;
    trace.sessions.push_back(session);
    traces::Compile compile;
    compile.id = 10;
    compile.sessionId = 1;
    compile.started = true;
    compile.key.frameId = 0;
    compile.key.frameCompileId = 0;
    trace.compiles.push_back(compile);
    auto makeGraph = [](traces::RowId id, traces::GraphKind kind, std::vector<std::string> names) {
        traces::Graph graph;
        graph.id = id;
        graph.sessionId = 1;
        graph.compileId = 10;
        graph.kind = kind;
        for (auto& name : names) {
            traces::GraphNode node;
            node.name = name;
            graph.nodes.push_back(node);
        }
        return graph;
    };
    trace.graphs.push_back(makeGraph(20, traces::GraphKind::Dynamo, {"l_x_", "mul", "sum_1", "add"}));
    trace.graphs.push_back(makeGraph(21, traces::GraphKind::PostGrad, {"arg0_1", "mul", "sum_1", "mean", "add"}));
    traces::OutputCode code;
    code.id = 30;
    code.sessionId = 1;
    code.compileId = 10;
    traces::Kernel fused;
    fused.id = 40;
    fused.name = "cpp_fused_add_mean_mul_sum_0";
    fused.sourceNodes = {"mul", "sum_1", "add", "not_in_graph"};
    fused.postGradNodes = {"mul", "sum_1", "mean", "add"};
    traces::Kernel other;
    other.id = 41;
    other.name = "cpp_fused_other_1";
    other.postGradNodes = {"mean"};
    code.kernels = {fused, other};
    trace.outputCode.push_back(code);
    return trace;
}

TEST(SelectionLinks, KernelToNodesAndBack) {
    traces::TraceData trace = fusedTrace();
    traces::TraceIndex index(trace);
    const traces::OutputCode& code = trace.outputCode[0];
    std::vector<NodeRef> nodes = nodesOfKernel(index, code, code.kernels[0]);
    // Three source nodes in the Dynamo graph (the unknown one dropped), four post-grad nodes.
    ASSERT_EQ(nodes.size(), 7u);
    EXPECT_EQ(nodes[0].graphId, 20);
    EXPECT_EQ(nodes[0].node, "mul");
    EXPECT_EQ(nodes[3].graphId, 21);

    auto byMean = kernelsOfNode(index, trace.graphs[1], "mean");
    ASSERT_EQ(byMean.size(), 2u);
    EXPECT_EQ(byMean[0].kernel->name, "cpp_fused_add_mean_mul_sum_0");
    EXPECT_EQ(byMean[1].kernel->name, "cpp_fused_other_1");
    // In the Dynamo graph only source-node lists count: the second kernel names no source nodes.
    auto bySum = kernelsOfNode(index, trace.graphs[0], "sum_1");
    ASSERT_EQ(bySum.size(), 1u);
    EXPECT_EQ(bySum[0].code->id, 30);
    EXPECT_TRUE(kernelsOfNode(index, trace.graphs[0], "l_x_").empty());
}

}  // namespace
}  // namespace viz
