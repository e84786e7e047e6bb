// The fold tree of big graphs (see graph_fold.h).
#include "graph/graph_fold.h"

#include <algorithm>
#include <map>

namespace viz {
namespace {

constexpr int kSmallInterruption = 4;

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

/// An input that names no module (a tangent, a user tensor): it is moved next to its first user, and folds
/// with the run around it rather than cutting that run in two.
bool joinsItsRun(const GraphModelNode& node) { return node.kind == NodeKind::Input && node.foldSource != FoldSource::Module; }

/// Positions [first, first + count) of `order` (model nodes in fold order), cut into runs.
std::vector<Run> runsAtDepth(const GraphModel& model, const std::vector<int>& order, int first, int count, int depth) {
    auto nodeAt = [&](int i) -> const GraphModelNode& { return model.nodes[static_cast<size_t>(order[static_cast<size_t>(i)])]; };
    std::vector<std::string> keys(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) keys[static_cast<size_t>(i)] = foldKey(nodeAt(first + i), depth);
    for (int i = 0; i < count; ++i) {
        if (!joinsItsRun(nodeAt(first + i))) continue;
        int before = i - 1;
        int after = i + 1;
        while (after < count && joinsItsRun(nodeAt(first + after))) ++after;
        if (before >= 0 && after < count && keys[static_cast<size_t>(before)] == keys[static_cast<size_t>(after)])
            keys[static_cast<size_t>(i)] = keys[static_cast<size_t>(before)];
    }
    std::vector<Run> runs;
    for (int i = 0; i < count; ++i) {
        std::string& key = keys[static_cast<size_t>(i)];
        if (!runs.empty() && runs.back().key == key) {
            ++runs.back().count;
            continue;
        }
        runs.push_back({std::move(key), first + i, 1, false});
    }
    // A few nodes of a neighbouring module inside a run (a backward interleaves the gradients of adjacent
    // layers) would cut it in three: they fold with the run, and show their own module one level down.
    std::vector<Run> smoothed;
    for (size_t i = 0; i < runs.size(); ++i) {
        bool interruption = !smoothed.empty() && i + 1 < runs.size() && runs[i].count <= kSmallInterruption &&
                            smoothed.back().key == runs[i + 1].key;
        if (interruption) {
            smoothed.back().count += runs[i].count + runs[i + 1].count;
            ++i;
        } else if (!smoothed.empty() && smoothed.back().key == runs[i].key) {
            smoothed.back().count += runs[i].count;
        } else {
            smoothed.push_back(std::move(runs[i]));
        }
    }
    return smoothed;
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

/// A training forward computes what it saves for the backward (a weight's transpose, a layer norm's scale) at
/// its end, after the last block: such nodes, used by the output alone, move to just after their last input, so
/// that they fold with the block they belong to rather than in a second copy of every block at the bottom.
std::vector<int> hoistOutputOnlyNodes(const GraphModel& model, const std::vector<std::vector<int>>& inputs,
                                      const std::vector<std::vector<int>>& users, const std::vector<int>& order) {
    auto outputOnly = [&](int node) {
        const GraphModelNode& shown = model.nodes[static_cast<size_t>(node)];
        if (shown.kind == NodeKind::Input || shown.kind == NodeKind::Output) return false;
        if (inputs[static_cast<size_t>(node)].empty() || users[static_cast<size_t>(node)].empty()) return false;
        for (int user : users[static_cast<size_t>(node)])
            if (model.nodes[static_cast<size_t>(user)].kind != NodeKind::Output) return false;
        return true;
    };
    std::vector<int> position(model.nodes.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<int>(i);
    std::vector<std::vector<int>> hoistedAfter(order.size());
    std::vector<bool> hoisted(model.nodes.size(), false);
    for (int node : order) {
        if (!outputOnly(node)) continue;
        int anchor = 0;
        for (int input : inputs[static_cast<size_t>(node)]) anchor = std::max(anchor, position[static_cast<size_t>(input)]);
        hoistedAfter[static_cast<size_t>(anchor)].push_back(node);
        hoisted[static_cast<size_t>(node)] = true;
    }
    std::vector<int> hoistedOrder;
    hoistedOrder.reserve(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
        if (!hoisted[static_cast<size_t>(order[i])]) hoistedOrder.push_back(order[i]);
        hoistedOrder.insert(hoistedOrder.end(), hoistedAfter[i].begin(), hoistedAfter[i].end());
    }
    return hoistedOrder;
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
    return hoistOutputOnlyNodes(model, inputs, users, order);
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
        for (Run& run : runs) {
            if (run.count < 2) continue;
            // Named by the longest path its nodes share: "h.0.attn.c_attn", not "h.0" over a single child.
            int shared = depth;
            while (!run.bundle && shared < maxDepth_) {
                std::vector<Run> finer = runsAtDepth(model_, order_, run.first, run.count, shared + 1);
                if (finer.size() != 1) break;
                ++shared;
                run.key = std::move(finer.front().key);
            }
            int group = addGroup(run, parent);
            if (run.bundle) buildLevel(run.first, run.count, depth, group);
            else if (shared < maxDepth_ || run.count > target_) buildLevel(run.first, run.count, shared + 1, group);
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

Folding foldGraph(const GraphModel& model, int targetUnits, const FusionMap* kernels) {
    targetUnits = std::max(targetUnits, 2);
    Folding folding;
    if (kernels) {
        // The kernel is one more (innermost) path segment: "transformer.h.0.attn.triton_poi_fused_add_3".
        GraphModel byKernel = model;
        for (GraphModelNode& node : byKernel.nodes) {
            int kernel = kernels->kernelOf(node.index);
            if (kernel >= 0) node.foldPath.push_back(kernels->kernels[static_cast<size_t>(kernel)].name);
        }
        FoldBuilder builder(byKernel, targetUnits, folding);
        builder.buildLevel(0, static_cast<int>(model.nodes.size()), 1, -1);
        // A group is a kernel's when it was cut by the kernel and no other kernel's node is inside (a getitem or
        // view amid the kernel's nodes folds along).
        for (FoldGroup& group : folding.groups) {
            group.kernel = -1;
            for (int node : group.nodes) {
                int kernel = kernels->kernelOf(node);
                if (kernel < 0 || kernel == group.kernel) continue;
                bool first = group.kernel < 0 && group.key.ends_with(kernels->kernels[static_cast<size_t>(kernel)].name);
                group.kernel = first ? kernel : -1;
                if (!first) break;
            }
        }
        return folding;
    }
    FoldBuilder builder(model, targetUnits, folding);
    builder.buildLevel(0, static_cast<int>(model.nodes.size()), 1, -1);
    return folding;
}

namespace {

/// Units a group shows when expanded: its child groups plus its nodes in none of them.
int unitsInside(const Folding& folding, int group) {
    const FoldGroup& fold = folding.groups[static_cast<size_t>(group)];
    int inChildren = 0;
    for (int child : fold.children) inChildren += static_cast<int>(folding.groups[static_cast<size_t>(child)].nodes.size());
    return static_cast<int>(fold.children.size()) + static_cast<int>(fold.nodes.size()) - inChildren;
}

/// "transformer.h.11" -> "transformer.h.#": siblings that differ only in their indices repeat one block.
std::string repeatShapeOf(const std::string& key) {
    std::string shape;
    for (size_t i = 0; i < key.size(); ++i) {
        bool digit = key[i] >= '0' && key[i] <= '9';
        if (!digit) shape += key[i];
        else if (shape.empty() || shape.back() != '#') shape += '#';
    }
    return shape;
}

}  // namespace

std::vector<bool> overviewExpansion(const Folding& folding, size_t modelNodes, int budget) {
    std::vector<bool> expanded(folding.groups.size(), false);
    int shown = 0;
    std::vector<int> level;
    for (size_t g = 0; g < folding.groups.size(); ++g)
        if (folding.groups[g].parent < 0) level.push_back(static_cast<int>(g));
    size_t grouped = 0;
    for (int group : level) grouped += folding.groups[static_cast<size_t>(group)].nodes.size();
    shown = static_cast<int>(level.size() + (modelNodes - grouped));
    while (!level.empty() && shown < budget) {
        // Classes of repeated siblings, the biggest (most nodes inside) first.
        std::map<std::string, std::vector<int>> classes;
        for (int group : level)  // kernels stay one box each: the overview is of modules
            if (folding.groups[static_cast<size_t>(group)].kernel < 0)
                classes[repeatShapeOf(folding.groups[static_cast<size_t>(group)].key)].push_back(group);
        std::vector<std::pair<size_t, std::vector<int>>> bySize;
        for (auto& [shape, members] : classes) {
            size_t nodes = 0;
            for (int group : members) nodes += folding.groups[static_cast<size_t>(group)].nodes.size();
            bySize.emplace_back(nodes, std::move(members));
        }
        std::stable_sort(bySize.begin(), bySize.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<int> next;
        for (const auto& [nodes, members] : bySize) {
            int added = 0;
            for (int group : members) added += unitsInside(folding, group) - 1;
            if (shown + added > budget) continue;
            shown += added;
            for (int group : members) {
                expanded[static_cast<size_t>(group)] = true;
                const std::vector<int>& children = folding.groups[static_cast<size_t>(group)].children;
                next.insert(next.end(), children.begin(), children.end());
            }
        }
        level = std::move(next);
    }
    return expanded;
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
