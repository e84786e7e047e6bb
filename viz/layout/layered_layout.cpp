// Longest-path layered layout (see layered_layout.h).
#include "layout/layered_layout.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace viz {
namespace {

constexpr float kRankGap = 32.0f;  // dot's ranksep=0.45 inch
constexpr float kNodeGap = 18.0f;  // dot's nodesep=0.25 inch
constexpr float kArrowLength = 7.0f;
constexpr float kClusterPadding = 8.0f;
constexpr float kClusterLabel = 18.0f;

EdgePath straightEdge(const Rect& from, const Rect& to) {
    Point start{from.centre().x, from.maxY};
    Point tip{to.centre().x, to.minY};
    float dx = tip.x - start.x;
    float dy = tip.y - start.y;
    float length = std::max(std::sqrt(dx * dx + dy * dy), 1.0f);
    Point base{tip.x - dx / length * kArrowLength, tip.y - dy / length * kArrowLength};
    EdgePath path;
    path.points = {start, {start.x + (base.x - start.x) / 3, start.y + (base.y - start.y) / 3},
                   {start.x + (base.x - start.x) * 2 / 3, start.y + (base.y - start.y) * 2 / 3}, base};
    path.hasArrow = true;
    path.arrowTip = tip;
    path.bounds = Rect::around({start, tip});
    return path;
}

}  // namespace

GraphLayout layeredLayout(const LayoutGraph& graph) {
    auto started = std::chrono::steady_clock::now();
    size_t count = graph.nodes.size();
    std::vector<std::vector<int>> inputs(count);
    for (const LayoutEdge& edge : graph.edges)
        if (edge.from >= 0 && edge.from < edge.to && static_cast<size_t>(edge.to) < count)
            inputs[static_cast<size_t>(edge.to)].push_back(edge.from);

    // Ranks by longest path over forward edges (display graphs are listed in nearly topological order).
    std::vector<int> rank(count, 0);
    int ranks = count ? 1 : 0;
    for (size_t n = 0; n < count; ++n) {
        for (int from : inputs[n]) rank[n] = std::max(rank[n], rank[static_cast<size_t>(from)] + 1);
        ranks = std::max(ranks, rank[n] + 1);
    }
    std::vector<std::vector<int>> byRank(static_cast<size_t>(ranks));
    for (size_t n = 0; n < count; ++n) byRank[static_cast<size_t>(rank[n])].push_back(static_cast<int>(n));

    // One top-down barycentre pass: each node goes under the average position of its inputs.
    std::vector<float> order(count, 0.0f);
    for (std::vector<int>& nodes : byRank) {
        for (size_t i = 0; i < nodes.size(); ++i) {
            const std::vector<int>& from = inputs[static_cast<size_t>(nodes[i])];
            float sum = 0;
            for (int input : from) sum += order[static_cast<size_t>(input)];
            order[static_cast<size_t>(nodes[i])] = from.empty() ? static_cast<float>(i) : sum / static_cast<float>(from.size());
        }
        std::stable_sort(nodes.begin(), nodes.end(),
                         [&](int a, int b) { return order[static_cast<size_t>(a)] < order[static_cast<size_t>(b)]; });
        for (size_t i = 0; i < nodes.size(); ++i) order[static_cast<size_t>(nodes[i])] = static_cast<float>(i);
    }

    GraphLayout layout;
    layout.nodes.resize(count);
    float top = 0;
    float widest = 0;
    std::vector<float> rankWidth(byRank.size(), 0.0f);
    for (size_t r = 0; r < byRank.size(); ++r) {
        float height = 0;
        for (int n : byRank[r]) {
            const LayoutNode& node = graph.nodes[static_cast<size_t>(n)];
            rankWidth[r] += node.width + (rankWidth[r] > 0 ? kNodeGap : 0);
            height = std::max(height, node.height);
        }
        widest = std::max(widest, rankWidth[r]);
        float x = 0;
        for (int n : byRank[r]) {
            const LayoutNode& node = graph.nodes[static_cast<size_t>(n)];
            layout.nodes[static_cast<size_t>(n)] = {x, top + (height - node.height) / 2, x + node.width,
                                                    top + (height + node.height) / 2};
            x += node.width + kNodeGap;
        }
        top += height + kRankGap;
    }
    for (size_t r = 0; r < byRank.size(); ++r) {  // centre each rank
        float shift = (widest - rankWidth[r]) / 2;
        for (int n : byRank[r]) {
            layout.nodes[static_cast<size_t>(n)].minX += shift;
            layout.nodes[static_cast<size_t>(n)].maxX += shift;
        }
    }
    layout.bounds = {0, 0, widest, std::max(top - kRankGap, 0.0f)};

    layout.edges.reserve(graph.edges.size());
    for (const LayoutEdge& edge : graph.edges) {
        bool valid = edge.from >= 0 && edge.to >= 0 && static_cast<size_t>(edge.from) < count &&
                     static_cast<size_t>(edge.to) < count && edge.from != edge.to;
        layout.edges.push_back(valid ? straightEdge(layout.nodes[static_cast<size_t>(edge.from)],
                                                    layout.nodes[static_cast<size_t>(edge.to)])
                                     : EdgePath{});
    }
    layout.clusters.assign(graph.clusters.size(), Rect{});
    std::vector<bool> seen(graph.clusters.size(), false);
    for (size_t n = 0; n < count; ++n) {
        // A node counts for its cluster and every cluster around it.
        for (int c = graph.nodes[n].cluster; c >= 0 && static_cast<size_t>(c) < graph.clusters.size();
             c = graph.clusters[static_cast<size_t>(c)].parent < c ? graph.clusters[static_cast<size_t>(c)].parent : -1) {
            Rect box = layout.nodes[n];
            Rect& cluster = layout.clusters[static_cast<size_t>(c)];
            Rect grown{box.minX - kClusterPadding, box.minY - kClusterPadding - kClusterLabel, box.maxX + kClusterPadding,
                       box.maxY + kClusterPadding};
            cluster = seen[static_cast<size_t>(c)]
                          ? Rect{std::min(cluster.minX, grown.minX), std::min(cluster.minY, grown.minY),
                                 std::max(cluster.maxX, grown.maxX), std::max(cluster.maxY, grown.maxY)}
                          : grown;
            seen[static_cast<size_t>(c)] = true;
        }
    }
    layout.engine = "layered";
    layout.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return layout;
}

}  // namespace viz
