// The fold tree of big graphs (see graph_fold.h).
#include "graph/graph_fold.h"

#include <algorithm>

namespace viz {
namespace {

constexpr int kMinTopUnits = 16;

std::string foldKey(const GraphModelNode& node, int depth) {
    size_t count = std::min(node.foldPath.size(), static_cast<size_t>(depth));
    const char* separator = node.foldSource == FoldSource::Module ? "." : " / ";
    std::string key;
    for (size_t i = 0; i < count; ++i) key += (i ? separator : "") + node.foldPath[i];
    return key;
}

/// A run: consecutive nodes with one key. Runs, not all nodes of a key, keep the folded graph's edges
/// meaningful: layer 0 and layer 1 run the same source line but are different places in the graph.
struct Run {
    std::string key;
    int first = 0;
    int count = 0;
    bool bundle = false;  ///< several runs of the same depth, bundled to keep a level within the target
};

/// Positions [first, first + count) of `order` (model nodes in fold order), cut into runs.
std::vector<Run> runsAtDepth(const GraphModel& model, const std::vector<int>& order, int first, int count, int depth) {
    std::vector<Run> runs;
    for (int i = first; i < first + count; ++i) {
        std::string key = foldKey(model.nodes[static_cast<size_t>(order[static_cast<size_t>(i)])], depth);
        if (!runs.empty() && runs.back().key == key) {
            ++runs.back().count;
            continue;
        }
        runs.push_back({std::move(key), i, 1, false});
    }
    return runs;
}

std::vector<Run> bundleRuns(const std::vector<Run>& runs, int targetUnits) {
    size_t perBundle = (runs.size() + static_cast<size_t>(targetUnits) - 1) / static_cast<size_t>(targetUnits);
    if (perBundle <= 1) return runs;
    std::vector<Run> bundles;
    for (size_t start = 0; start < runs.size(); start += perBundle) {
        size_t end = std::min(runs.size(), start + perBundle);
        Run bundle{runs[start].key, runs[start].first, 0, end - start > 1};
        for (size_t i = start; i < end; ++i) bundle.count += runs[i].count;
        if (bundle.bundle) bundle.key += " .. " + runs[end - 1].key;
        else bundle.bundle = runs[start].bundle;
        bundles.push_back(std::move(bundle));
    }
    return bundles;
}

/// Graph order, except that inputs (Dynamo lifts every parameter to a placeholder at the top) move to just
/// before their first user. Folding by graph order would otherwise put all parameters in one group feeding every
/// layer: edges spanning the whole graph, which dot turns into tens of thousands of virtual nodes.
std::vector<int> foldOrderOf(const GraphModel& model) {
    std::vector<std::vector<int>> inputs(model.nodes.size());
    std::vector<bool> deferred(model.nodes.size(), false);
    std::vector<std::vector<int>> users = model.usersOfNodes();
    for (const GraphModelEdge& edge : model.edges) inputs[static_cast<size_t>(edge.to)].push_back(edge.from);
    for (const GraphModelNode& node : model.nodes)
        deferred[static_cast<size_t>(node.index)] = node.kind == NodeKind::Input && !users[static_cast<size_t>(node.index)].empty();
    std::vector<int> order;
    order.reserve(model.nodes.size());
    std::vector<bool> placed(model.nodes.size(), false);
    for (const GraphModelNode& node : model.nodes) {
        if (deferred[static_cast<size_t>(node.index)]) continue;
        std::vector<int> waiting;
        for (int input : inputs[static_cast<size_t>(node.index)])
            if (deferred[static_cast<size_t>(input)] && !placed[static_cast<size_t>(input)]) waiting.push_back(input);
        std::sort(waiting.begin(), waiting.end());
        for (int input : waiting) {
            placed[static_cast<size_t>(input)] = true;
            order.push_back(input);
        }
        order.push_back(node.index);
    }
    for (const GraphModelNode& node : model.nodes)  // inputs whose users all come before them (none in FX)
        if (deferred[static_cast<size_t>(node.index)] && !placed[static_cast<size_t>(node.index)]) order.push_back(node.index);
    return order;
}

class FoldBuilder {
public:
    FoldBuilder(const GraphModel& model, int targetUnits, Folding& folding)
        : model_(model), order_(foldOrderOf(model)), target_(targetUnits), folding_(folding) {
        for (const GraphModelNode& node : model.nodes)
            maxDepth_ = std::max(maxDepth_, static_cast<int>(node.foldPath.size()));
        folding_.groupOfNode.assign(model.nodes.size(), -1);
    }

    int maxDepth() const { return maxDepth_; }
    const std::vector<int>& order() const { return order_; }

    /// Folds nodes [first, first + count) at `depth` inside `parent`. A level that would be a single run of the
    /// whole range goes one depth finer instead of repeating its parent.
    void buildLevel(int first, int count, int depth, int parent) {
        std::vector<Run> runs = runsAtDepth(model_, order_, first, count, depth);
        while (runs.size() == 1 && parent >= 0 && depth < maxDepth_)
            runs = runsAtDepth(model_, order_, first, count, ++depth);
        if (runs.size() == 1 && parent >= 0) {
            if (count <= target_) return;  // same key all the way down: the nodes themselves
            runs = chunks(first, count);
        }
        if (static_cast<int>(runs.size()) > target_) runs = bundleRuns(runs, target_);
        for (const Run& run : runs) {
            if (run.count < 2) continue;
            int group = addGroup(run, parent);
            if (run.bundle) buildLevel(run.first, run.count, depth, group);
            else if (depth < maxDepth_ || run.count > target_) buildLevel(run.first, run.count, depth + 1, group);
        }
    }

private:
    /// Consecutive slices of a range whose nodes share their whole fold path (one long source line).
    std::vector<Run> chunks(int first, int count) const {
        std::vector<Run> runs;
        int size = std::max(2, (count + target_ - 1) / target_);
        for (int start = first; start < first + count; start += size) {
            int end = std::min(first + count, start + size);
            std::string key = model_.nodes[static_cast<size_t>(order_[static_cast<size_t>(start)])].name + " .. " +
                              model_.nodes[static_cast<size_t>(order_[static_cast<size_t>(end - 1)])].name;
            runs.push_back({key, start, end - start, false});
        }
        return runs;
    }

    int addGroup(const Run& run, int parent) {
        int index = static_cast<int>(folding_.groups.size());
        FoldGroup group;
        group.key = run.key;
        group.label = run.key + "  (" + std::to_string(run.count) + " nodes)";
        group.parent = parent;
        for (int i = run.first; i < run.first + run.count; ++i) {
            int node = order_[static_cast<size_t>(i)];
            group.nodes.push_back(node);
            folding_.groupOfNode[static_cast<size_t>(node)] = index;
        }
        folding_.groups.push_back(std::move(group));
        if (parent >= 0) folding_.groups[static_cast<size_t>(parent)].children.push_back(index);
        return index;
    }

    const GraphModel& model_;
    std::vector<int> order_;
    int target_;
    Folding& folding_;
    int maxDepth_ = 1;
};

}  // namespace

Folding foldGraph(const GraphModel& model, int targetUnits) {
    targetUnits = std::max(targetUnits, 2);
    Folding folding;
    FoldBuilder builder(model, targetUnits, folding);
    int count = static_cast<int>(model.nodes.size());
    auto units = [&](int depth) {
        return static_cast<int>(runsAtDepth(model, builder.order(), 0, count, depth).size());
    };
    // Deeper while the next depth fits, and also while this one says almost nothing ("layers" alone): bundles
    // of "layers.0 .. layers.7" tell more than one box.
    int depth = 1;
    while (depth < builder.maxDepth() && (units(depth + 1) <= targetUnits || units(depth) < kMinTopUnits)) ++depth;
    builder.buildLevel(0, count, depth, -1);
    return folding;
}

int shownGroupOf(const Folding& folding, const std::vector<bool>& expanded, int modelNode) {
    if (modelNode < 0 || static_cast<size_t>(modelNode) >= folding.groupOfNode.size()) return -1;
    int shown = -1;
    for (int group = folding.groupOfNode[static_cast<size_t>(modelNode)]; group >= 0;
         group = folding.groups[static_cast<size_t>(group)].parent) {
        bool open = static_cast<size_t>(group) < expanded.size() && expanded[static_cast<size_t>(group)];
        if (!open) shown = group;
    }
    return shown;
}

}  // namespace viz
