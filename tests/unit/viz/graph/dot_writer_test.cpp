// Tests for the DOT writer: statements, clusters, escaping, and the layout (label-free) flavour.
#include "graph/dot_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace viz {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

LayoutGraph twoKernels() {
    LayoutGraph graph;
    graph.title = "post-grad \"forward\"";
    graph.nodes = {{"n0", {"primals_1", "f32[64, 32]"}, 90, 38, -1, 0xcfe2f3, false},
                   {"n1", {"mul", "aten.mul.Tensor"}, 120, 38, 0, 0xffcc99, false},
                   {"n2", {"layers", "12 nodes"}, 70, 38, -1, 0xd9d2e9, true}};
    graph.edges = {{0, 1, 1}, {1, 2, 4}};
    graph.clusters = {{"triton_poi_fused_gelu_0", 0xfff0e0}};
    return graph;
}

TEST(DotWriter, ExportHasLabelsColoursClustersAndEdges) {
    std::string dot = writeDot(twoKernels());
    EXPECT_THAT(dot, StartsWith("digraph \"post-grad \\\"forward\\\"\" {\n"));
    EXPECT_THAT(dot, HasSubstr("  n0 [width=1.250, height=0.528, label=\"primals_1\\nf32[64, 32]\", "
                               "fillcolor=\"#cfe2f3\"];\n"));
    EXPECT_THAT(dot, HasSubstr("  subgraph cluster_0 {\n    label=\"triton_poi_fused_gelu_0\";"));
    EXPECT_THAT(dot, HasSubstr("    n1 [width=1.667, height=0.528, label=\"mul\\naten.mul.Tensor\""));
    EXPECT_THAT(dot, HasSubstr("shape=box3d"));
    EXPECT_THAT(dot, HasSubstr("  n0 -> n1 [id=\"e0\"];\n"));
    EXPECT_THAT(dot, HasSubstr("  n1 -> n2 [id=\"e1\", penwidth=3.0];\n"));
    EXPECT_EQ(dot.back(), '\n');
    EXPECT_EQ(dot[dot.size() - 2], '}');
}

TEST(DotWriter, LayoutFlavourFixesSizesAndDropsText) {
    DotOptions options;
    options.labels = false;
    options.graphAttributes = {{"nslimit", "0.2"}};
    std::string dot = writeDot(twoKernels(), options);
    EXPECT_THAT(dot, HasSubstr("fontsize=11, nslimit=0.2];"));
    EXPECT_THAT(dot, HasSubstr("  n0 [width=1.250, height=0.528, label=\"\", fixedsize=true];\n"));
    EXPECT_THAT(dot, Not(HasSubstr("primals_1")));
    EXPECT_THAT(dot, Not(HasSubstr("penwidth")));
}

TEST(DotWriter, NestedClusters) {
    LayoutGraph graph = twoKernels();
    graph.clusters = {{"layers", 0xf4f1fa, -1}, {"layers.0", 0xf4f1fa, 0}};
    graph.nodes[1].cluster = 1;
    std::string dot = writeDot(graph);
    EXPECT_THAT(dot, HasSubstr("  subgraph cluster_0 {\n    label=\"layers\";"));
    EXPECT_THAT(dot, HasSubstr("    subgraph cluster_1 {\n      label=\"layers.0\";"));
    EXPECT_THAT(dot, HasSubstr("      n1 [width"));
    EXPECT_THAT(dot, HasSubstr("    }\n  }\n"));
}

TEST(DotWriter, QuotesEscapesAndSkipsBrokenEdges) {
    EXPECT_EQ(dotQuoted("a\"b\\c\nd"), "\"a\\\"b\\\\c d\"");
    LayoutGraph graph;
    graph.nodes = {{"n0", {"x"}, 50, 24, 5, 0, false}};  // a cluster index that does not exist: top level
    graph.edges = {{0, 3, 1}};
    std::string dot = writeDot(graph);
    EXPECT_THAT(dot, StartsWith("digraph \"graph\" {"));
    EXPECT_THAT(dot, HasSubstr("  n0 [width"));
    EXPECT_THAT(dot, Not(HasSubstr("->")));
}

}  // namespace
}  // namespace viz
