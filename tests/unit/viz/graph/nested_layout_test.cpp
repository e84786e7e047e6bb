// Tests for the per-group (nested) layout of folded graphs: how a clustered graph splits into levels, that the
// composed layout puts every node inside its groups without overlaps and routes edges between the nodes
// themselves, and that opening one more group lays out only that group and the levels around it.
#include "layout/nested_layout.h"

#include <cmath>

#include <gtest/gtest.h>

#include "layout/layout_worker.h"

namespace viz {
namespace {

using namespace std::chrono_literals;

LayoutNode box(int index, int cluster = -1) {
    return {"n" + std::to_string(index), {"node " + std::to_string(index)}, 60, 30, cluster, 0xffffff, false};
}

/// n0 -> [outer: n1 -> [inner: n2 -> n3]] -> n4, with n0 -> n3 and n1 -> n4 crossing group borders.
std::shared_ptr<LayoutGraph> nestedGroups() {
    auto graph = std::make_shared<LayoutGraph>();
    graph->nodes = {box(0), box(1, 0), box(2, 1), box(3, 1), box(4)};
    graph->clusters = {{"outer", 0xeeeeee, -1}, {"inner", 0xdddddd, 0}};
    graph->edges = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {0, 3, 1}, {1, 4, 1}};
    graph->nested = true;
    return graph;
}

bool near(Point p, const Rect& rect) {
    constexpr float kSlack = 2.0f;
    return p.x >= rect.minX - kSlack && p.x <= rect.maxX + kSlack && p.y >= rect.minY - kSlack && p.y <= rect.maxY + kSlack;
}

bool inside(const Rect& in, const Rect& out) {
    return in.minX >= out.minX && in.maxX <= out.maxX && in.minY >= out.minY && in.maxY <= out.maxY;
}

std::shared_ptr<const GraphLayout> layOut(LayoutWorker& worker, std::shared_ptr<const LayoutGraph> graph) {
    uint64_t key = worker.submit(std::move(graph));
    EXPECT_TRUE(worker.waitIdle(60s));
    return worker.result(key);
}

TEST(NestedLayout, SplitsIntoLevelsInnermostFirst) {
    NestedPlan plan = planNestedLayout(*nestedGroups());
    ASSERT_EQ(plan.levels.size(), 3u);
    EXPECT_EQ(plan.levels[0].cluster, 1);
    EXPECT_EQ(plan.levels[1].cluster, 0);
    EXPECT_EQ(plan.levels[2].cluster, -1);
    EXPECT_EQ(plan.levels[0].nodes, (std::vector<int>{2, 3}));
    EXPECT_EQ(plan.levels[1].nodes, (std::vector<int>{1}));
    EXPECT_EQ(plan.levels[1].innerClusters, (std::vector<int>{1}));
    EXPECT_EQ(plan.levels[2].nodes, (std::vector<int>{0, 4}));
    EXPECT_EQ(plan.levels[2].innerClusters, (std::vector<int>{0}));
    // n2 -> n3 inside the inner group; n1 -> n2 in the outer group, to the inner group's box (its unit 1);
    // n0 -> n3 at the top, to the outer group's box (unit 2), which n0 -> n1 shares: one edge of weight 2.
    EXPECT_EQ(plan.edgeAt[2], (std::pair<int, int>{0, 0}));
    EXPECT_EQ(plan.edgeAt[1].first, 1);
    EXPECT_EQ(plan.levels[1].edges[static_cast<size_t>(plan.edgeAt[1].second)].to, 1);
    EXPECT_EQ(plan.edgeAt[0], plan.edgeAt[4]);
    const LayoutEdge& shared = plan.levels[2].edges[static_cast<size_t>(plan.edgeAt[0].second)];
    EXPECT_EQ(shared.from, 0);
    EXPECT_EQ(shared.to, 2);
    EXPECT_EQ(shared.weight, 2);
}

TEST(NestedLayout, PlacesNodesInsideTheirGroupsAndEdgesBetweenTheNodes) {
    LayoutWorker worker;
    auto graph = nestedGroups();
    std::shared_ptr<const GraphLayout> layout = layOut(worker, graph);
    ASSERT_NE(layout, nullptr);
    EXPECT_EQ(layout->levels, 3u);
    EXPECT_EQ(layout->levelsLaidOut, 3u);
    ASSERT_EQ(layout->nodes.size(), graph->nodes.size());
    ASSERT_EQ(layout->clusters.size(), 2u);
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
        EXPECT_TRUE(inside(layout->nodes[n], layout->bounds)) << n;
        int cluster = graph->nodes[n].cluster;
        if (cluster >= 0) {
            EXPECT_TRUE(inside(layout->nodes[n], layout->clusters[static_cast<size_t>(cluster)])) << n;
        }
        for (size_t m = n + 1; m < graph->nodes.size(); ++m)
            EXPECT_FALSE(layout->nodes[n].overlaps(layout->nodes[m])) << n << " and " << m;
    }
    EXPECT_TRUE(inside(layout->clusters[1], layout->clusters[0]));
    EXPECT_FALSE(layout->clusters[0].overlaps(layout->nodes[0]));
    EXPECT_FALSE(layout->clusters[0].overlaps(layout->nodes[4]));
    for (size_t e = 0; e < graph->edges.size(); ++e) {
        const EdgePath& path = layout->edges[e];
        ASSERT_GE(path.points.size(), 4u) << e;
        EXPECT_EQ((path.points.size() - 1) % 3, 0u) << e;  // cubic beziers, as dot's
        EXPECT_TRUE(path.hasArrow) << e;
        EXPECT_TRUE(near(path.points.front(), layout->nodes[static_cast<size_t>(graph->edges[e].from)])) << e;
        EXPECT_TRUE(near(path.arrowTip, layout->nodes[static_cast<size_t>(graph->edges[e].to)])) << e;
    }
}

Point bezierAt(const std::vector<Point>& p, size_t segment, float t) {
    const Point& a = p[3 * segment];
    const Point& b = p[3 * segment + 1];
    const Point& c = p[3 * segment + 2];
    const Point& d = p[3 * segment + 3];
    float u = 1 - t;
    return {u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x,
            u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y};
}

/// Length of `path` (sampled) that runs within `reach` of the outline of `box`: a path crossing the border once
/// covers about 2 * reach of it; one that runs along the border covers much more.
float lengthAlongBorder(const EdgePath& path, const Rect& box, float reach) {
    auto nearBorder = [&](Point p) {
        bool inX = p.x >= box.minX - reach && p.x <= box.maxX + reach;
        bool inY = p.y >= box.minY - reach && p.y <= box.maxY + reach;
        bool nearSide = std::fabs(p.x - box.minX) < reach || std::fabs(p.x - box.maxX) < reach;
        bool nearTopOrBottom = std::fabs(p.y - box.minY) < reach || std::fabs(p.y - box.maxY) < reach;
        return (inY && nearSide) || (inX && nearTopOrBottom);
    };
    float length = 0;
    Point previous = path.points.front();
    for (size_t segment = 0; 3 * segment + 3 < path.points.size(); ++segment) {
        for (float t = 0.01f; t <= 1.0f; t += 0.01f) {
            Point p = bezierAt(path.points, segment, t);
            if (nearBorder(p) && nearBorder(previous)) length += std::hypot(p.x - previous.x, p.y - previous.y);
            previous = p;
        }
    }
    return length;
}

/// A group one node wide, the column n1 -> n2 -> n3, with edges that leave it from its top node (edge 4: n1 -> n5,
/// below the group) and enter it at its bottom node (edge 5: n0 -> n3, from above): drawn straight, both would cut
/// through n2.
std::shared_ptr<LayoutGraph> columnGroup() {
    auto graph = std::make_shared<LayoutGraph>();
    graph->nodes = {box(0), box(1, 0), box(2, 0), box(3, 0), box(4), box(5)};
    graph->clusters = {{"column", 0xeeeeee, -1}};
    graph->edges = {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {1, 5, 1}, {0, 3, 1}};
    graph->nested = true;
    return graph;
}

TEST(NestedLayout, EdgesLeavingAndEnteringGroupsGoAroundTheNodesBetween) {
    // No edge crosses a node; the two that leave and enter the column pass n2 in the group's margin, which must
    // keep them apart from the border: they cross it once each, not run along it (a second outline).
    auto graph = columnGroup();
    LayoutWorker worker;
    std::shared_ptr<const GraphLayout> layout = layOut(worker, graph);
    ASSERT_NE(layout, nullptr);
    for (size_t e = 0; e < graph->edges.size(); ++e) {
        const EdgePath& path = layout->edges[e];
        ASSERT_GE(path.points.size(), 4u) << e;
        for (size_t n = 0; n < graph->nodes.size(); ++n) {
            if (static_cast<int>(n) == graph->edges[e].from || static_cast<int>(n) == graph->edges[e].to) continue;
            Rect node = layout->nodes[n];
            Rect core{node.minX + 1, node.minY + 1, node.maxX - 1, node.maxY - 1};
            for (size_t segment = 0; 3 * segment + 3 < path.points.size(); ++segment)
                for (float t = 0; t <= 1.0f; t += 0.05f)
                    EXPECT_FALSE(core.contains(bezierAt(path.points, segment, t))) << "edge " << e << " crosses node " << n;
        }
    }
    constexpr float kReach = 6.0f;
    for (size_t e : {4u, 5u})
        EXPECT_LT(lengthAlongBorder(layout->edges[e], layout->clusters[0], kReach), 4 * kReach)
            << "edge " << e << " runs along the border";
}

TEST(NestedLayout, OpeningAnotherGroupLaysOutOnlyItAndTheLevelsAroundIt) {
    LayoutWorker worker;
    ASSERT_NE(layOut(worker, nestedGroups()), nullptr);
    // n4 opens into a group of two nodes at the top level: the outer and inner groups come from the cache.
    auto opened = nestedGroups();
    opened->nodes[4].cluster = 2;
    opened->nodes.push_back(box(5, 2));
    opened->edges.push_back({4, 5, 1});
    opened->clusters.push_back({"opened", 0xcccccc, -1});
    std::shared_ptr<const GraphLayout> sameShape = layOut(worker, std::make_shared<LayoutGraph>(*opened));
    ASSERT_NE(sameShape, nullptr);
    EXPECT_EQ(sameShape->levelsLaidOut, 1u);  // only the top: the new group has the inner group's shape, cached
    opened->nodes[5].width = 90;
    std::shared_ptr<const GraphLayout> layout = layOut(worker, opened);
    ASSERT_NE(layout, nullptr);
    EXPECT_EQ(layout->levels, 4u);
    EXPECT_EQ(layout->levelsLaidOut, 2u);  // the opened group and the top level
    EXPECT_TRUE(inside(layout->nodes[5], layout->clusters[2]));
    EXPECT_FALSE(layout->clusters[2].overlaps(layout->clusters[0]));
    // The same graph laid out whole by dot, for comparison: one level.
    auto whole = std::make_shared<LayoutGraph>(*opened);
    whole->nested = false;
    std::shared_ptr<const GraphLayout> flat = layOut(worker, whole);
    ASSERT_NE(flat, nullptr);
    EXPECT_EQ(flat->levels, 1u);
}

}  // namespace
}  // namespace viz
