// Tests for the Graphviz layout (screen orientation, edges, clusters), the worker's queue and cache, exports,
// and a 2,000-node random DAG (takes a few seconds: dot is slow at that size even with its limits set).
#include "layout/layout_worker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "graph/dot_writer.h"
#include "layout/layered_layout.h"

namespace viz {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;

LayoutNode box(int index, int cluster = -1) {
    return {"n" + std::to_string(index), {"node " + std::to_string(index)}, 60, 30, cluster, 0xffffff, false};
}

/// a -> b -> c, with b and c in one cluster, and a -> c.
std::shared_ptr<LayoutGraph> chain() {
    auto graph = std::make_shared<LayoutGraph>();
    graph->title = "chain";
    graph->nodes = {box(0), box(1, 0), box(2, 0)};
    graph->edges = {{0, 1, 1}, {1, 2, 1}, {0, 2, 1}};
    graph->clusters = {{"kernel", 0xeeeeee}};
    return graph;
}

std::shared_ptr<LayoutGraph> randomDag(int nodes, unsigned seed) {
    auto graph = std::make_shared<LayoutGraph>();
    std::mt19937 random(seed);
    for (int i = 0; i < nodes; ++i) graph->nodes.push_back(box(i));
    for (int to = 1; to < nodes; ++to) {
        int inputs = 1 + static_cast<int>(random() % 2);
        for (int k = 0; k < inputs; ++k) {
            int span = 1 + static_cast<int>(random() % 12);
            graph->edges.push_back({std::max(0, to - span), to, 1});
        }
    }
    return graph;
}

std::shared_ptr<const GraphLayout> layOut(LayoutWorker& worker, std::shared_ptr<const LayoutGraph> graph) {
    uint64_t key = worker.submit(std::move(graph));
    EXPECT_TRUE(worker.waitIdle(120s));
    return worker.result(key);
}

TEST(GraphLayout, DotPlacesEdgesDownwardInScreenCoordinates) {
    LayoutWorker worker;
    auto graph = chain();
    std::shared_ptr<const GraphLayout> layout = layOut(worker, graph);
    ASSERT_NE(layout, nullptr);
    ASSERT_EQ(layout->nodes.size(), 3u);
    // Ranks go down the screen: a above b above c (y grows downward after the flip).
    EXPECT_LT(layout->nodes[0].centre().y, layout->nodes[1].centre().y);
    EXPECT_LT(layout->nodes[1].centre().y, layout->nodes[2].centre().y);
    EXPECT_NEAR(layout->nodes[0].width(), 60.0f, 0.5f);
    EXPECT_NEAR(layout->nodes[0].height(), 30.0f, 0.5f);
    EXPECT_FLOAT_EQ(layout->bounds.minX, 0.0f);
    EXPECT_FLOAT_EQ(layout->bounds.minY, 0.0f);
    for (const Rect& node : layout->nodes) {
        EXPECT_GE(node.minX, layout->bounds.minX - 0.5f);
        EXPECT_LE(node.maxY, layout->bounds.maxY + 0.5f);
    }
    ASSERT_EQ(layout->edges.size(), 3u);
    for (const EdgePath& edge : layout->edges) {
        ASSERT_GE(edge.points.size(), 4u);
        EXPECT_EQ((edge.points.size() - 1) % 3, 0u);
        EXPECT_TRUE(edge.hasArrow);
    }
    // The edge a -> b starts at a's box and its arrow ends at b's box.
    const EdgePath& ab = layout->edges[0];
    EXPECT_NEAR(ab.points.front().y, layout->nodes[0].maxY, 2.0f);
    EXPECT_NEAR(ab.arrowTip.y, layout->nodes[1].minY, 2.0f);
    // The cluster holds b and c.
    ASSERT_EQ(layout->clusters.size(), 1u);
    const Rect& cluster = layout->clusters[0];
    for (size_t i : {1u, 2u}) {
        EXPECT_LE(cluster.minX, layout->nodes[i].minX);
        EXPECT_GE(cluster.maxY, layout->nodes[i].maxY);
    }
    EXPECT_FALSE(cluster.contains(layout->nodes[0].centre()));
}

TEST(LayoutWorker, CachesByStructureAndReportsState) {
    LayoutWorker worker;
    uint64_t key = worker.submit(chain());
    LayoutStatus pending = worker.status(key);
    EXPECT_NE(pending.state, LayoutState::Unknown);
    EXPECT_EQ(pending.nodeCount, 3u);
    ASSERT_TRUE(worker.waitIdle(60s));
    EXPECT_EQ(worker.status(key).state, LayoutState::Ready);
    std::shared_ptr<const GraphLayout> first = worker.result(key);
    ASSERT_NE(first, nullptr);

    // Same structure, other text and colours: the cached layout, no second dot run.
    auto relabelled = chain();
    relabelled->nodes[0].lines = {"something else"};
    relabelled->nodes[0].fill = 0x123456;
    EXPECT_EQ(worker.submit(relabelled), key);
    EXPECT_EQ(worker.result(key), first);
    EXPECT_EQ(worker.stats().layoutsRun, 1);
    EXPECT_EQ(worker.status(12345).state, LayoutState::Unknown);
    EXPECT_EQ(worker.result(12345), nullptr);
}

TEST(LayoutWorker, EvictsLeastRecentlyUsedLayouts) {
    LayoutWorker worker(2);
    std::vector<uint64_t> keys;
    for (int size = 2; size <= 4; ++size) {
        keys.push_back(worker.submit(randomDag(size, 1)));
        ASSERT_TRUE(worker.waitIdle(60s));
    }
    EXPECT_EQ(worker.stats().cached, 2u);
    EXPECT_EQ(worker.result(keys[0]), nullptr);
    EXPECT_NE(worker.result(keys[2]), nullptr);
}

TEST(LayoutWorker, RendersSvgAndPngOrSaysWhyNot) {
    LayoutWorker worker;
    RenderResult svg = worker.render(chain(), "svg").get();
    ASSERT_TRUE(svg.ok) << svg.error;
    EXPECT_THAT(svg.data, HasSubstr("<svg"));
    EXPECT_THAT(svg.data, HasSubstr("node 1"));
    EXPECT_THAT(svg.data, HasSubstr("kernel"));

    RenderResult png = worker.render(chain(), "png").get();
    if (png.ok) EXPECT_THAT(png.data, StartsWith("\x89PNG"));
    else EXPECT_THAT(png.error, HasSubstr("cannot render png"));

    RenderResult bogus = worker.render(chain(), "no-such-format").get();
    EXPECT_FALSE(bogus.ok);
    EXPECT_THAT(bogus.error, HasSubstr("cannot render no-such-format"));
}

TEST(LayoutWorker, LaysOutATwoThousandNodeRandomDag) {
    LayoutWorker worker;
    auto graph = randomDag(2000, 7);
    uint64_t key = worker.submit(graph);
    EXPECT_EQ(worker.status(key).nodeCount, 2000u);
    std::shared_ptr<const GraphLayout> layout = layOut(worker, graph);
    ASSERT_NE(layout, nullptr) << worker.status(key).error;
    ASSERT_EQ(layout->nodes.size(), 2000u);
    size_t routed = 0;
    for (const EdgePath& edge : layout->edges) routed += edge.points.empty() ? 0 : 1;
    EXPECT_EQ(routed, graph->edges.size());
    // Every edge points down the screen: the graph is a DAG listed in topological order.
    for (size_t e = 0; e < graph->edges.size(); ++e) {
        const LayoutEdge& edge = graph->edges[e];
        if (edge.from == edge.to) continue;
        EXPECT_LT(layout->nodes[static_cast<size_t>(edge.from)].centre().y,
                  layout->nodes[static_cast<size_t>(edge.to)].centre().y);
    }
    std::cout << "[          ] 2,000-node dot layout: " << layout->seconds << " s\n";
}

TEST(GraphLayout, LimitsFollowTheWorkDotWillDo) {
    auto chainOf = [](int nodes) {
        LayoutGraph graph;
        for (int i = 0; i < nodes; ++i) graph.nodes.push_back(box(i));
        for (int i = 1; i < nodes; ++i) graph.edges.push_back({i - 1, i, 1});
        return graph;
    };
    LayoutGraph small = chainOf(100);
    EXPECT_EQ(dotWorkEstimate(small), 100u);
    EXPECT_TRUE(dotLimitsFor(small).empty());
    // One node feeding every node of a long chain: each edge crosses every rank above its target.
    LayoutGraph star = chainOf(300);
    for (int i = 2; i < 300; ++i) star.edges.push_back({0, i, 1});
    EXPECT_EQ(dotWorkEstimate(star), 300u + 298u * 299u / 2u);  // the edge 0 -> i crosses i - 1 ranks
    ASSERT_FALSE(dotLimitsFor(star).empty());
    EXPECT_EQ(dotLimitsFor(star)[0].second, "0.05");
    EXPECT_EQ(dotLimitsFor(chainOf(2000))[0].second, "0.2");
}

TEST(LayoutWorker, GraphsTooCostlyForDotGetTheLayeredLayout) {
    // A long chain plus one node feeding all of it: dot would route 80k virtual nodes through its position pass.
    auto star = std::make_shared<LayoutGraph>();
    for (int i = 0; i < 401; ++i) star->nodes.push_back(box(i, i >= 100 && i < 110 ? 0 : -1));
    star->clusters = {{"some nodes", 0xeeeeee, -1}};
    for (int i = 1; i < 400; ++i) star->edges.push_back({i - 1, i, 1});
    for (int i = 2; i < 400; ++i) star->edges.push_back({0, i, 1});
    star->edges.push_back({400, 5, 1});
    ASSERT_GT(dotWorkEstimate(*star), kMaxDotWork);
    LayoutWorker worker;
    std::shared_ptr<const GraphLayout> layout = layOut(worker, star);
    ASSERT_NE(layout, nullptr);
    EXPECT_EQ(layout->engine, "layered");
    EXPECT_LT(layout->seconds, 1.0);
    for (const LayoutEdge& edge : star->edges)  // every edge goes down
        EXPECT_LT(layout->nodes[static_cast<size_t>(edge.from)].maxY, layout->nodes[static_cast<size_t>(edge.to)].minY);
    EXPECT_LT(layout->nodes[400].maxY, layout->nodes[5].minY);
    for (size_t i = 0; i + 1 < 400; ++i) EXPECT_FALSE(layout->nodes[i].overlaps(layout->nodes[i + 1]));
    const Rect& cluster = layout->clusters[0];
    for (size_t i = 100; i < 110; ++i) {
        EXPECT_LE(cluster.minX, layout->nodes[i].minX);
        EXPECT_GE(cluster.maxY, layout->nodes[i].maxY);
    }
    ASSERT_EQ(layout->edges.size(), star->edges.size());
    EXPECT_EQ(layout->edges[0].points.size(), 4u);
    EXPECT_TRUE(layout->edges[0].hasArrow);
    EXPECT_NEAR(layout->edges[0].arrowTip.y, layout->nodes[1].minY, 0.01f);

    RenderResult svg = worker.render(star, "svg").get();
    EXPECT_FALSE(svg.ok);
    EXPECT_THAT(svg.error, HasSubstr("too big for Graphviz"));
}

}  // namespace
}  // namespace viz
