// Builds the displayed graph of a tab from the model, its folding and its fusion map (see display_graph.h).
#include "graph/display_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "graph/graph_palette.h"

namespace viz {
namespace {

constexpr size_t kMaxLabelChars = 36;
/// In a folded graph, a single node with this many users among the boxes fans out across the graph (see below).
constexpr size_t kFanOutUsers = 8;

/// Long names differ at their end ("..._modules_17_modules_fc1_parameters_weight_"): keep both ends.
std::string clipped(std::string text) {
    if (text.size() <= kMaxLabelChars) return text;
    constexpr size_t kHead = 12;
    return text.substr(0, kHead) + "..." + text.substr(text.size() - (kMaxLabelChars - kHead - 3));
}

uint32_t fillOf(const GraphModelNode& node, const FusionMap* fusion) {
    int kernel = fusion ? fusion->kernelOf(node.index) : -1;
    if (kernel >= 0) return kernelFill(kernel);
    bool computes = node.kind == NodeKind::Function || node.kind == NodeKind::Method || node.kind == NodeKind::Module;
    if (fusion && fusion->match != KernelMatch::None && computes) return kUnfusedFill;
    return nodeKindFill(node.kind);
}

std::vector<std::string> groupLabelLines(const GraphModel& model, const FoldGroup& group, const FusionMap* fusion) {
    if (group.kernel >= 0 && fusion) {
        // A kernel folded in its module: the kernel's name first, then where it is.
        const std::string& name = fusion->kernels[static_cast<size_t>(group.kernel)].name;
        std::string where = group.key.ends_with(name) ? group.key.substr(0, group.key.size() - name.size()) : group.key;
        if (where.ends_with('.')) where.pop_back();
        std::vector<std::string> lines{clipped(name)};
        if (!where.empty()) lines.push_back(clipped(where));
        lines.push_back(std::to_string(group.nodes.size()) + " nodes");
        return lines;
    }
    // The ops inside, most frequent first, hint at what the group does without expanding it.
    std::map<std::string, int> opCounts;
    for (int node : group.nodes) {
        const std::string& op = model.nodes[static_cast<size_t>(node)].opName;
        if (!op.empty()) ++opCounts[op];
    }
    std::vector<std::pair<int, std::string>> ops;
    for (const auto& [op, count] : opCounts) ops.emplace_back(-count, op);
    std::sort(ops.begin(), ops.end());
    std::string summary;
    for (size_t i = 0; i < ops.size() && i < 3; ++i) summary += (i ? " " : "") + ops[i].second;
    std::vector<std::string> lines{clipped(group.key), std::to_string(group.nodes.size()) + " nodes"};
    if (!summary.empty()) lines.push_back(clipped(summary));
    return lines;
}

/// The colours of the kernels a folded module's nodes fused into, one per kernel in graph order, at most a strip's
/// worth: the fusion diagram's overview says which kernels each block runs without opening it.
std::vector<uint32_t> kernelSwatches(const FoldGroup& group, const FusionMap& fusion) {
    constexpr size_t kMaxSwatches = 16;
    std::vector<uint32_t> swatches;
    std::set<int> seen;
    for (int node : group.nodes) {
        int kernel = fusion.kernelOf(node);
        if (kernel < 0 || !seen.insert(kernel).second) continue;
        if (swatches.size() == kMaxSwatches) break;
        swatches.push_back(kernelFill(kernel));
    }
    return swatches;
}

}  // namespace

std::vector<std::string> nodeLabelLines(const GraphModelNode& node) {
    std::vector<std::string> lines{clipped(node.name)};
    bool computes = node.kind == NodeKind::Function || node.kind == NodeKind::Method ||
                    node.kind == NodeKind::Module || node.kind == NodeKind::Attribute;
    if (computes && !node.shortTarget.empty() && node.shortTarget != node.name) lines.push_back(clipped(node.shortTarget));
    if (!node.tensorText.empty()) lines.push_back(clipped(node.tensorText));
    return lines;
}

int DisplayGraph::displayNodeOf(int modelNode) const {
    if (modelNode < 0 || static_cast<size_t>(modelNode) >= displayOfModelNode.size()) return -1;
    return displayOfModelNode[static_cast<size_t>(modelNode)];
}

DisplayGraph buildDisplayGraph(const GraphModel& model, const DisplayOptions& options) {
    DisplayGraph display;
    display.layout.title = model.title;
    display.layout.nested = options.folding != nullptr;  // groups open one at a time: lay out each on its own
    display.displayOfModelNode.assign(model.nodes.size(), -1);
    const Folding* folding = options.folding;
    static const std::vector<bool> kNoneExpanded;
    const std::vector<bool>& expanded = options.expanded ? *options.expanded : kNoneExpanded;
    std::vector<int> clusterOfGroup(folding ? folding->groups.size() : 0, -1);
    std::vector<int> displayOfGroup(clusterOfGroup.size(), -1);
    std::vector<int> clusterOfKernel(options.fusion ? options.fusion->kernels.size() : 0, -1);

    auto addNode = [&](std::vector<std::string> lines, DisplayNode ref, uint32_t fill, int cluster, bool folded) {
        LayoutNode node;
        node.id = "n" + std::to_string(display.layout.nodes.size());
        auto [width, height] = labelBoxSize(lines);
        node.lines = std::move(lines);
        node.width = width;
        node.height = height;
        node.fill = fill;
        node.cluster = cluster;
        node.folded = folded;
        display.layout.nodes.push_back(std::move(node));
        display.nodes.push_back(ref);
        return static_cast<int>(display.nodes.size()) - 1;
    };
    auto addCluster = [&](std::string label, uint32_t fill, int parent, DisplayCluster ref) {
        display.layout.clusters.push_back({std::move(label), fill, parent});
        display.clusters.push_back(ref);
        return static_cast<int>(display.clusters.size()) - 1;
    };
    // The cluster an expanded group is drawn as, created with its enclosing groups' clusters first. An
    // expanded kernel (the fusion diagram folds by kernel) is the kernel's cluster.
    auto clusterOf = [&](int group, auto&& self) -> int {
        if (group < 0 || options.clusters == ClusterMode::None) return -1;
        int& slot = clusterOfGroup[static_cast<size_t>(group)];
        if (slot == -1) {
            const FoldGroup& fold = folding->groups[static_cast<size_t>(group)];
            int parent = self(fold.parent, self);
            uint32_t fill = fold.kernel >= 0 ? kernelClusterFill(fold.kernel) : kFoldClusterFill;
            slot = addCluster(fold.label, fill, parent, {fold.kernel, group});
        }
        return slot;
    };

    for (const GraphModelNode& node : model.nodes) {
        int shown = folding ? shownGroupOf(*folding, expanded, node.index) : -1;
        if (shown >= 0) {
            int& slot = displayOfGroup[static_cast<size_t>(shown)];  // created by the group's first member
            if (slot == -1) {
                const FoldGroup& fold = folding->groups[static_cast<size_t>(shown)];
                uint32_t fill = fold.kernel >= 0 ? kernelFill(fold.kernel) : kFoldedFill;
                slot = addNode(groupLabelLines(model, fold, options.fusion), {-1, shown}, fill,
                               clusterOf(fold.parent, clusterOf), true);
                if (fold.kernel < 0 && options.fusion) {
                    LayoutNode& box = display.layout.nodes[static_cast<size_t>(slot)];
                    box.swatches = kernelSwatches(fold, *options.fusion);
                    if (!box.swatches.empty()) box.height += kSwatchStripPoints;
                }
            }
            display.displayOfModelNode[static_cast<size_t>(node.index)] = slot;
            continue;
        }
        int cluster = folding ? clusterOf(folding->groupOfNode[static_cast<size_t>(node.index)], clusterOf) : -1;
        int kernel = options.fusion ? options.fusion->kernelOf(node.index) : -1;
        if (options.clusters == ClusterMode::Kernels && kernel >= 0 && !folding) {
            int& slot = clusterOfKernel[static_cast<size_t>(kernel)];
            if (slot == -1) slot = addCluster(options.fusion->kernels[static_cast<size_t>(kernel)].name,
                                              kernelClusterFill(kernel), -1, {kernel, -1});
            cluster = slot;
        }
        display.displayOfModelNode[static_cast<size_t>(node.index)] =
            addNode(nodeLabelLines(node), {node.index, -1}, fillOf(node, options.fusion), cluster, false);
    }

    // In a folded graph, a single node that feeds boxes all over it (Inductor's RNG seeds, an attention mask, a
    // constant) would draw a fan of edges across the screen and pull the layout apart: its edges are left out
    // and its label (or, inside a folded group, the group's) says how many users it has (the side panel lists
    // them). The same holds for the output of a training forward, which collects the tensors saved from every
    // block: only the edge from its last input's box is kept, which keeps it below them.
    std::vector<std::set<int>> targetsOf(folding ? model.nodes.size() : 0);
    std::set<int> sourcesOfOutput;
    int output = -1;
    for (const GraphModelEdge& edge : model.edges) {
        if (!folding) break;
        int from = display.displayOfModelNode[static_cast<size_t>(edge.from)];
        int to = display.displayOfModelNode[static_cast<size_t>(edge.to)];
        if (from == to) continue;
        targetsOf[static_cast<size_t>(edge.from)].insert(to);
        if (model.nodes[static_cast<size_t>(edge.to)].kind != NodeKind::Output) continue;
        output = edge.to;
        sourcesOfOutput.insert(from);
    }
    std::vector<bool> fansOut(model.nodes.size(), false);
    auto annotate = [&](int box, std::string line) {
        LayoutNode& shown = display.layout.nodes[static_cast<size_t>(box)];
        shown.lines.push_back(clipped(std::move(line)));
        std::tie(shown.width, shown.height) = labelBoxSize(shown.lines);
    };
    for (size_t node = 0; node < targetsOf.size(); ++node) {
        size_t users = targetsOf[node].size();
        if (users < kFanOutUsers || model.nodes[node].kind == NodeKind::Output) continue;
        fansOut[node] = true;
        int box = display.displayOfModelNode[node];
        std::string count = "-> " + std::to_string(users) + " users, edges hidden";
        annotate(box, display.nodes[static_cast<size_t>(box)].modelNode >= 0 ? count : model.nodes[node].name + " " + count);
    }
    // Into a crowded output, only computed nodes shown on their own (the logits, the loss) keep their edges, or,
    // when there are none, the box of its last input.
    std::set<int> keptIntoOutput;
    if (sourcesOfOutput.size() >= kFanOutUsers) {
        int last = -1;
        for (const GraphModelEdge& edge : model.edges) {
            if (edge.to != output) continue;
            last = std::max(last, edge.from);
            int from = display.displayOfModelNode[static_cast<size_t>(edge.from)];
            if (display.nodes[static_cast<size_t>(from)].modelNode >= 0 && model.nodes[static_cast<size_t>(edge.from)].kind != NodeKind::Input)
                keptIntoOutput.insert(from);
        }
        if (keptIntoOutput.empty()) keptIntoOutput.insert(display.displayOfModelNode[static_cast<size_t>(last)]);
        int hidden = 0;
        for (const GraphModelEdge& edge : model.edges)
            hidden += edge.to == output && !keptIntoOutput.contains(display.displayOfModelNode[static_cast<size_t>(edge.from)]);
        annotate(display.displayOfModelNode[static_cast<size_t>(output)], "<- " + std::to_string(hidden) + " inputs, edges hidden");
    }

    std::map<std::pair<int, int>, size_t> edgeIndex;
    for (const GraphModelEdge& edge : model.edges) {
        int from = display.displayOfModelNode[static_cast<size_t>(edge.from)];
        int to = display.displayOfModelNode[static_cast<size_t>(edge.to)];
        if (from == to) continue;  // inside one collapsed group
        if (folding && fansOut[static_cast<size_t>(edge.from)]) continue;
        if (!keptIntoOutput.empty() && edge.to == output && !keptIntoOutput.contains(from)) continue;
        auto [it, added] = edgeIndex.try_emplace({from, to}, display.layout.edges.size());
        if (added) display.layout.edges.push_back({from, to, 1});
        else ++display.layout.edges[it->second].weight;
    }
    return display;
}

}  // namespace viz
