// Edmonds-Karp: augmenting paths found by breadth-first search until none is left; the vertices the last search
// reaches are the source side of a minimum cut.
#include "aot/min_cut.h"

#include <algorithm>
#include <queue>

namespace eng::aot {

void FlowNetwork::addEdge(int from, int to, int64_t capacity) {
    auto& out = adjacency_[static_cast<size_t>(from)];
    auto& in = adjacency_[static_cast<size_t>(to)];
    out.push_back(Edge{to, capacity, in.size()});
    in.push_back(Edge{from, 0, out.size() - 1});
}

std::vector<bool> FlowNetwork::minCut(int source, int sink) {
    const size_t n = adjacency_.size();
    while (true) {
        std::vector<std::pair<int, size_t>> parent(n, {-1, 0});
        std::vector<bool> seen(n, false);
        std::queue<int> frontier;
        frontier.push(source);
        seen[static_cast<size_t>(source)] = true;
        while (!frontier.empty() && !seen[static_cast<size_t>(sink)]) {
            const int v = frontier.front();
            frontier.pop();
            const auto& edges = adjacency_[static_cast<size_t>(v)];
            for (size_t i = 0; i < edges.size(); ++i) {
                const Edge& e = edges[i];
                if (e.capacity <= 0 || seen[static_cast<size_t>(e.to)]) continue;
                seen[static_cast<size_t>(e.to)] = true;
                parent[static_cast<size_t>(e.to)] = {v, i};
                frontier.push(e.to);
            }
        }
        if (!seen[static_cast<size_t>(sink)]) return seen;
        int64_t bottleneck = kInfinite;
        for (int v = sink; v != source; v = parent[static_cast<size_t>(v)].first) {
            const auto [from, index] = parent[static_cast<size_t>(v)];
            bottleneck = std::min(bottleneck, adjacency_[static_cast<size_t>(from)][index].capacity);
        }
        for (int v = sink; v != source; v = parent[static_cast<size_t>(v)].first) {
            const auto [from, index] = parent[static_cast<size_t>(v)];
            Edge& e = adjacency_[static_cast<size_t>(from)][index];
            e.capacity -= bottleneck;
            adjacency_[static_cast<size_t>(v)][e.reverse].capacity += bottleneck;
        }
    }
}

}  // namespace eng::aot
