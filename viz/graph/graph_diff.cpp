// Graph diff between two compiles (see graph_diff.h): a longest common subsequence over what each node computes,
// trimmed to the part between the common start and end, then a comparison of each matched pair.
#include "graph/graph_diff.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "parse/text_scan.h"

namespace viz {
namespace {

/// Above this many cells the exact alignment would take too long and too much memory: a greedy one in order.
constexpr size_t kMaxAlignmentCells = size_t{16} << 20;

/// What a node computes, as matching sees it: inputs and outputs by name (l_x_, s0), calls by kind and target.
std::string keyOf(const GraphModelNode& node) {
    switch (node.kind) {
        case NodeKind::Input:
        case NodeKind::Attribute: return "in:" + node.name;
        case NodeKind::Output: return "out";
        default: return std::to_string(static_cast<int>(node.kind)) + ":" + node.shortTarget;
    }
}

std::vector<int> keyIds(const GraphModel& model, std::unordered_map<std::string, int>& ids) {
    std::vector<int> keys;
    keys.reserve(model.nodes.size());
    for (const GraphModelNode& node : model.nodes) keys.push_back(ids.emplace(keyOf(node), static_cast<int>(ids.size())).first->second);
    return keys;
}

/// Appends the matched pairs of a[aBegin, aEnd) and b[bBegin, bEnd) in order.
void alignMiddle(const std::vector<int>& a, const std::vector<int>& b, size_t aBegin, size_t aEnd, size_t bBegin,
                 size_t bEnd, std::vector<int>& beforeOfAfter) {
    size_t n = aEnd - aBegin;
    size_t m = bEnd - bBegin;
    if (n == 0 || m == 0) return;
    if (n * m > kMaxAlignmentCells) {
        // Greedy: each later node takes the next unmatched earlier node with its key.
        std::unordered_map<int, std::vector<size_t>> positions;
        for (size_t i = aEnd; i-- > aBegin;) positions[a[i]].push_back(i);
        size_t floor = aBegin;
        for (size_t j = bBegin; j < bEnd; ++j) {
            auto found = positions.find(b[j]);
            if (found == positions.end()) continue;
            std::vector<size_t>& stack = found->second;
            while (!stack.empty() && stack.back() < floor) stack.pop_back();
            if (stack.empty()) continue;
            beforeOfAfter[j] = static_cast<int>(stack.back());
            floor = stack.back() + 1;
            stack.pop_back();
        }
        return;
    }
    // lengths[i][j]: the longest common subsequence of a[aBegin + i ..) and b[bBegin + j ..).
    std::vector<uint32_t> lengths((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lengths[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = a[aBegin + i] == b[bBegin + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (a[aBegin + i] == b[bBegin + j]) {
            beforeOfAfter[bBegin + j] = static_cast<int>(aBegin + i);
            ++i;
            ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
}

std::vector<std::vector<int>> inputsOf(const GraphModel& model) {
    std::vector<std::vector<int>> inputs(model.nodes.size());
    for (const GraphModelEdge& edge : model.edges) inputs[static_cast<size_t>(edge.to)].push_back(edge.from);
    for (std::vector<int>& list : inputs) std::sort(list.begin(), list.end());
    return inputs;
}

std::string namesOf(const GraphModel& model, const std::vector<int>& nodes) {
    constexpr size_t kShown = 4;
    std::string text;
    for (size_t i = 0; i < nodes.size() && i < kShown; ++i)
        text += (i ? ", " : "") + model.nodes[static_cast<size_t>(nodes[i])].name;
    if (nodes.size() > kShown) text += ", ... (" + std::to_string(nodes.size()) + ")";
    return text.empty() ? "none" : text;
}

/// The later node's arguments with every node it names replaced by that node's match in the earlier graph, so
/// that renumbering is not a change and a different constant or a rewired input is.
std::string argsInEarlierNames(const GraphModelNode& node, const GraphModel& before, const GraphModel& after,
                               const std::vector<int>& beforeOfAfter) {
    std::string out;
    const std::string& args = node.args;
    for (size_t i = 0; i < args.size();) {
        if (!traces::scan::isIdentStart(args[i])) {
            out += args[i++];
            continue;
        }
        size_t end = i;
        while (end < args.size() && traces::scan::isIdentChar(args[end])) ++end;
        std::string_view word(args.data() + i, end - i);
        int input = after.findNode(word);
        int matched = input >= 0 ? beforeOfAfter[static_cast<size_t>(input)] : -1;
        if (input < 0) out += word;
        else if (matched >= 0) out += before.nodes[static_cast<size_t>(matched)].name;
        else out += "<new " + std::string(word) + ">";
        i = end;
    }
    return out;
}

std::string clipped(const std::string& text) {
    constexpr size_t kShown = 60;
    return text.size() <= kShown ? text : text.substr(0, kShown - 3) + "...";
}

}  // namespace

const char* graphChangeName(GraphChangeKind kind) {
    switch (kind) {
        case GraphChangeKind::Added: return "added";
        case GraphChangeKind::Removed: return "removed";
        case GraphChangeKind::Changed: return "changed";
    }
    return "";
}

bool hasSymbolicDimension(std::string_view tensorText) {
    size_t open = tensorText.find('[');
    if (open == std::string_view::npos) return tensorText == "Sym" || tensorText.starts_with("Sym(");
    for (size_t i = open + 1; i < tensorText.size(); ++i) {
        char c = tensorText[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    }
    return false;
}

std::string GraphDiff::summary() const {
    if (empty()) return "no change";
    std::string text = std::to_string(added) + " added, " + std::to_string(removed) + " removed, " +
                       std::to_string(changed) + " changed";
    if (becameSymbolic > 0) text += " (" + std::to_string(becameSymbolic) + " became symbolic)";
    return text;
}

GraphDiff diffGraphModels(const GraphModel& before, const GraphModel& after) {
    std::unordered_map<std::string, int> ids;
    std::vector<int> a = keyIds(before, ids);
    std::vector<int> b = keyIds(after, ids);
    GraphDiff diff;
    diff.beforeOfAfter.assign(b.size(), -1);
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) {
        diff.beforeOfAfter[prefix] = static_cast<int>(prefix);
        ++prefix;
    }
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
        diff.beforeOfAfter[b.size() - 1 - suffix] = static_cast<int>(a.size() - 1 - suffix);
        ++suffix;
    }
    alignMiddle(a, b, prefix, a.size() - suffix, prefix, b.size() - suffix, diff.beforeOfAfter);

    std::vector<bool> matchedBefore(a.size(), false);
    for (int i : diff.beforeOfAfter)
        if (i >= 0) matchedBefore[static_cast<size_t>(i)] = true;
    std::vector<std::vector<int>> inputsBefore = inputsOf(before);
    std::vector<std::vector<int>> inputsAfter = inputsOf(after);
    diff.changeOfAfter.assign(b.size(), -1);
    size_t nextBefore = 0;  // removed nodes are listed where they were: before the first later match after them
    auto flushRemoved = [&](size_t upTo) {
        for (; nextBefore < upTo; ++nextBefore) {
            if (matchedBefore[nextBefore]) continue;
            diff.changes.push_back({GraphChangeKind::Removed, static_cast<int>(nextBefore), -1, {}, false});
            ++diff.removed;
        }
    };
    for (size_t j = 0; j < b.size(); ++j) {
        int i = diff.beforeOfAfter[j];
        if (i < 0) {
            diff.changeOfAfter[j] = static_cast<int>(diff.changes.size());
            diff.changes.push_back({GraphChangeKind::Added, -1, static_cast<int>(j), {}, false});
            ++diff.added;
            continue;
        }
        flushRemoved(static_cast<size_t>(i));
        nextBefore = std::max(nextBefore, static_cast<size_t>(i) + 1);
        const GraphModelNode& old = before.nodes[static_cast<size_t>(i)];
        const GraphModelNode& now = after.nodes[j];
        GraphNodeChange change{GraphChangeKind::Changed, i, static_cast<int>(j), {}, false};
        if (old.tensorText != now.tensorText) {
            change.what = (old.tensorText.empty() ? "?" : old.tensorText) + " -> " + (now.tensorText.empty() ? "?" : now.tensorText);
            change.becameSymbolic = !hasSymbolicDimension(old.tensorText) && hasSymbolicDimension(now.tensorText);
        }
        std::vector<int> mapped;
        for (int input : inputsAfter[j]) mapped.push_back(diff.beforeOfAfter[static_cast<size_t>(input)]);
        std::sort(mapped.begin(), mapped.end());
        bool otherInputs = mapped != inputsBefore[static_cast<size_t>(i)];
        if (!otherInputs && old.args != argsInEarlierNames(now, before, after, diff.beforeOfAfter)) {
            // The same inputs, other arguments: a constant that was specialised differently.
            if (!change.what.empty()) change.what += "; ";
            change.what += "args: " + clipped(old.args) + " -> " + clipped(now.args);
        } else if (otherInputs) {
            if (!change.what.empty()) change.what += "; ";
            change.what += "inputs: " + namesOf(before, inputsBefore[static_cast<size_t>(i)]) + " -> " +
                           namesOf(after, inputsAfter[j]);
        }
        if (change.what.empty()) continue;
        diff.changeOfAfter[j] = static_cast<int>(diff.changes.size());
        diff.becameSymbolic += change.becameSymbolic;
        ++diff.changed;
        diff.changes.push_back(std::move(change));
    }
    flushRemoved(a.size());
    return diff;
}

}  // namespace viz
