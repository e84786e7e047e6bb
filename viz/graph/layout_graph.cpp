// Hashing and label sizing of layout inputs (see layout_graph.h).
#include "graph/layout_graph.h"

#include <algorithm>
#include <cmath>

namespace viz {
namespace {

constexpr float kCharWidth = 7.0f;
constexpr float kLineHeight = 14.0f;
constexpr float kPaddingX = 16.0f;
constexpr float kPaddingY = 10.0f;
constexpr float kMinWidth = 48.0f;

/// FNV-1a: stable across runs and platforms, unlike std::hash, so cache keys can be logged and compared.
class Fnv1a {
public:
    void add(const void* data, size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < size; ++i) {
            value_ ^= bytes[i];
            value_ *= 0x100000001b3ull;
        }
    }
    void add(const std::string& text) {
        add(text.data(), text.size());
        add(static_cast<int64_t>(text.size()));
    }
    void add(int64_t number) { add(&number, sizeof number); }
    uint64_t value() const { return value_; }

private:
    uint64_t value_ = 0xcbf29ce484222325ull;
};

}  // namespace

uint64_t layoutHash(const LayoutGraph& graph) {
    Fnv1a hash;
    hash.add(static_cast<int64_t>(graph.nodes.size()));
    for (const LayoutNode& node : graph.nodes) {
        hash.add(node.id);
        // Sizes to a tenth of a point: float noise must not miss the cache.
        hash.add(static_cast<int64_t>(std::lround(node.width * 10)));
        hash.add(static_cast<int64_t>(std::lround(node.height * 10)));
        hash.add(node.cluster);
    }
    hash.add(static_cast<int64_t>(graph.edges.size()));
    for (const LayoutEdge& edge : graph.edges) {
        hash.add(edge.from);
        hash.add(edge.to);
    }
    hash.add(static_cast<int64_t>(graph.clusters.size()));
    for (const LayoutCluster& cluster : graph.clusters) {
        hash.add(cluster.label);
        hash.add(cluster.parent);
    }
    hash.add(static_cast<int64_t>(graph.nested));
    return hash.value();
}

std::pair<float, float> labelBoxSize(const std::vector<std::string>& lines) {
    size_t longest = 0;
    for (const std::string& line : lines) longest = std::max(longest, line.size());
    float width = std::max(kMinWidth, static_cast<float>(longest) * kCharWidth + kPaddingX);
    float height = static_cast<float>(std::max<size_t>(lines.size(), 1)) * kLineHeight + kPaddingY;
    return {width, height};
}

}  // namespace viz
