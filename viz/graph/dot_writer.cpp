// DOT text for layout and export (see dot_writer.h).
#include "graph/dot_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace viz {
namespace {

std::string inches(float points) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3f", static_cast<double>(points) / 72.0);
    return buffer;
}

std::string hexColour(uint32_t rgb) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "\"#%06x\"", rgb & 0xffffff);
    return buffer;
}

/// One node statement; `\n` inside the quoted label is DOT's own centred line break.
void writeNode(std::string& out, const LayoutNode& node, const DotOptions& options, const char* indent) {
    out += indent + node.id + " [width=" + inches(node.width) + ", height=" + inches(node.height);
    if (options.labels) {
        std::string withBreaks;
        for (size_t i = 0; i < node.lines.size(); ++i) {
            std::string line = dotQuoted(node.lines[i]);
            withBreaks += (i ? "\\n" : "") + line.substr(1, line.size() - 2);
        }
        out += ", label=\"" + withBreaks + "\", fillcolor=" + hexColour(node.fill);
        if (node.folded) out += ", shape=box3d, style=filled";
    } else {
        out += ", label=\"\", fixedsize=true";
    }
    out += "];\n";
}

void writeCluster(std::string& out, const LayoutGraph& graph, size_t c, const std::vector<std::vector<size_t>>& members,
                  const std::vector<std::vector<size_t>>& children, const DotOptions& options, int depth) {
    std::string indent(static_cast<size_t>(depth) * 2, ' ');
    std::string inner = indent + "  ";
    const LayoutCluster& cluster = graph.clusters[c];
    out += indent + "subgraph cluster_" + std::to_string(c) + " {\n";
    out += inner + "label=" + dotQuoted(cluster.label) + "; labeljust=l; fontsize=10; style=\"rounded,filled\"; ";
    out += "fillcolor=" + hexColour(cluster.fill) + "; color=\"#999999\";\n";
    for (size_t node : members[c]) writeNode(out, graph.nodes[node], options, inner.c_str());
    for (size_t child : children[c]) writeCluster(out, graph, child, members, children, options, depth + 1);
    out += indent + "}\n";
}

}  // namespace

std::string dotQuoted(std::string_view text) {
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
    return quoted + "\"";
}

std::string writeDot(const LayoutGraph& graph, const DotOptions& options) {
    std::string out = "digraph " + dotQuoted(graph.title.empty() ? "graph" : graph.title) + " {\n";
    out += "  graph [rankdir=TB, nodesep=0.25, ranksep=0.45, fontname=\"Helvetica\", fontsize=11";
    for (const auto& [key, value] : options.graphAttributes) out += ", " + key + "=" + value;
    out += "];\n";
    out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10, color=\"#555555\"];\n";
    out += "  edge [color=\"#666666\", arrowsize=0.6];\n";

    std::vector<std::vector<size_t>> members(graph.clusters.size());
    std::vector<std::vector<size_t>> children(graph.clusters.size());
    auto validCluster = [&](int c) { return c >= 0 && static_cast<size_t>(c) < graph.clusters.size(); };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        int cluster = graph.nodes[i].cluster;
        if (validCluster(cluster)) members[static_cast<size_t>(cluster)].push_back(i);
        else writeNode(out, graph.nodes[i], options, "  ");
    }
    std::vector<size_t> roots;
    for (size_t c = 0; c < graph.clusters.size(); ++c) {
        int parent = graph.clusters[c].parent;
        // A parent must come first: anything else (a cycle, a forward reference) is written at the top.
        if (validCluster(parent) && static_cast<size_t>(parent) < c) children[static_cast<size_t>(parent)].push_back(c);
        else roots.push_back(c);
    }
    for (size_t root : roots) writeCluster(out, graph, root, members, children, options, 1);
    for (size_t e = 0; e < graph.edges.size(); ++e) {
        const LayoutEdge& edge = graph.edges[e];
        if (edge.from < 0 || edge.to < 0 || static_cast<size_t>(edge.from) >= graph.nodes.size() ||
            static_cast<size_t>(edge.to) >= graph.nodes.size())
            continue;
        out += "  " + graph.nodes[static_cast<size_t>(edge.from)].id + " -> " +
               graph.nodes[static_cast<size_t>(edge.to)].id + " [id=\"e" + std::to_string(e) + "\"";
        if (options.labels && edge.weight > 1) {
            double width = std::min(4.0, 1.0 + std::log2(static_cast<double>(edge.weight)));
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, "%.1f", width);
            out += std::string(", penwidth=") + buffer;
        }
        out += "];\n";
    }
    out += "}\n";
    return out;
}

}  // namespace viz
