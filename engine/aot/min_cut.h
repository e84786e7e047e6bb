// A minimum s-t cut over a small directed graph with integer capacities (Edmonds-Karp max flow), for the
// partitioner's choice of saved values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace eng::aot {

class FlowNetwork {
public:
    static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;
    explicit FlowNetwork(int vertices) : adjacency_(static_cast<size_t>(vertices)) {}
    void addEdge(int from, int to, int64_t capacity);
    /// Runs max flow from `source` to `sink`; returns which vertices stay reachable from the source in the residual
    /// graph (the source side of a minimum cut).
    std::vector<bool> minCut(int source, int sink);

private:
    struct Edge {
        int to;
        int64_t capacity;
        size_t reverse;
    };
    std::vector<std::vector<Edge>> adjacency_;
};

}  // namespace eng::aot
