// Geometry helpers of computed layouts and dot's limits for big graphs (see graph_layout.h).
#include "layout/graph_layout.h"

#include <algorithm>
#include <cstdint>

namespace viz {

Rect Rect::around(const std::vector<Point>& points) {
    if (points.empty()) return {};
    Rect rect{points[0].x, points[0].y, points[0].x, points[0].y};
    for (const Point& p : points) {
        rect.minX = std::min(rect.minX, p.x);
        rect.minY = std::min(rect.minY, p.y);
        rect.maxX = std::max(rect.maxX, p.x);
        rect.maxY = std::max(rect.maxY, p.y);
    }
    return rect;
}

size_t dotWorkEstimate(const LayoutGraph& graph) {
    // Display graphs list nodes in (nearly) topological order; edges pointing back are ignored here.
    std::vector<std::vector<int>> forward(graph.nodes.size());
    for (const LayoutEdge& edge : graph.edges)
        if (edge.from >= 0 && edge.from < edge.to && static_cast<size_t>(edge.to) < graph.nodes.size())
            forward[static_cast<size_t>(edge.from)].push_back(edge.to);
    std::vector<size_t> rank(graph.nodes.size(), 0);
    std::vector<bool> hasInput(graph.nodes.size(), false);
    size_t work = graph.nodes.size();
    for (size_t from = 0; from < forward.size(); ++from)
        for (int to : forward[from]) {
            rank[static_cast<size_t>(to)] = std::max(rank[static_cast<size_t>(to)], rank[from] + 1);
            hasInput[static_cast<size_t>(to)] = true;
        }
    // dot ranks a source (a parameter, say) just above its first user, not at the top: no long edges there.
    for (size_t from = 0; from < forward.size(); ++from) {
        if (hasInput[from] || forward[from].empty()) continue;
        size_t first = SIZE_MAX;
        for (int to : forward[from]) first = std::min(first, rank[static_cast<size_t>(to)]);
        rank[from] = first - 1;
    }
    for (size_t from = 0; from < forward.size(); ++from)
        for (int to : forward[from]) work += rank[static_cast<size_t>(to)] - rank[from] - 1;
    return work;
}

std::vector<std::pair<std::string, std::string>> dotLimitsFor(const LayoutGraph& graph) {
    size_t work = dotWorkEstimate(graph);
    if (work >= 20000) return {{"nslimit", "0.05"}, {"nslimit1", "0.05"}, {"mclimit", "0.05"}, {"searchsize", "10"}};
    if (work >= 1500) return {{"nslimit", "0.2"}, {"nslimit1", "0.2"}, {"mclimit", "0.2"}};
    if (work >= 600) return {{"nslimit", "1.0"}, {"nslimit1", "1.0"}, {"mclimit", "0.5"}};
    return {};
}

}  // namespace viz
