// Builds, filters and flattens the compile-site tree (see site_trie.h).
#include "core/site_trie.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "report/trace_index.h"

namespace viz {
namespace {

using FrameKey = std::tuple<std::optional<int>, std::optional<int>>;

FrameKey frameKeyOf(const traces::Compile& compile) { return {compile.key.autogradId, compile.key.frameId}; }

bool sameFrame(const traces::Frame& a, const traces::Frame& b) {
    // Sources are only sometimes recorded, so the same frame may come with and without its text.
    return a.line == b.line && a.function == b.function && a.file == b.file;
}

/// The user stack a compile id was started from, with the fallbacks described in buildSiteTrie's comment.
traces::Stack stackOf(const traces::TraceIndex& index, const traces::Compile& head,
                      const std::map<FrameKey, traces::RowId>& siteByFrame) {
    std::optional<traces::RowId> siteId = index.effectiveSite(head);
    if (!siteId) {
        auto it = siteByFrame.find(frameKeyOf(head));
        if (it != siteByFrame.end()) siteId = it->second;
    }
    const traces::CompileSite* site = siteId ? index.siteById(*siteId) : nullptr;
    if (site && !site->userStack.empty()) return site->userStack;
    traces::Frame frame;
    frame.file = site ? site->file : head.file;
    frame.line = site ? site->line : head.firstLine;
    frame.function = site ? site->function : head.function;
    if (frame.function.empty() && frame.file.empty()) frame.function = "(unknown site)";
    return {frame};
}

size_t commonPrefixLength(const std::vector<traces::Stack>& stacks) {
    if (stacks.empty()) return 0;
    size_t shortest = stacks.front().size();
    for (const auto& stack : stacks) shortest = std::min(shortest, stack.size());
    // Every stack keeps at least its innermost frame: that is where its compile ids hang.
    size_t limit = shortest == 0 ? 0 : shortest - 1;
    size_t length = 0;
    while (length < limit) {
        const traces::Frame& frame = stacks.front()[length];
        bool shared = std::all_of(stacks.begin(), stacks.end(),
                                  [&](const traces::Stack& stack) { return sameFrame(stack[length], frame); });
        if (!shared) break;
        ++length;
    }
    return length;
}

bool frameMatches(const traces::Frame& frame, std::string_view text) {
    return containsIgnoreCase(frame.file, text) || containsIgnoreCase(frame.function, text) ||
           containsIgnoreCase(frame.source, text) ||
           containsIgnoreCase(frame.file + ":" + std::to_string(frame.line), text);
}

}  // namespace

std::string SiteTrie::frameLabel(const traces::Frame& frame) {
    std::string label = frame.file;
    if (frame.line > 0) label += ":" + std::to_string(frame.line);
    if (!frame.function.empty()) label += (label.empty() ? "" : " in ") + frame.function;
    return label;
}

std::optional<int> SiteTrie::findCompile(traces::RowId compileId) const {
    auto it = compileByRow_.find(compileId);
    if (it == compileByRow_.end()) return std::nullopt;
    return it->second;
}

SiteTrie buildSiteTrie(const traces::TraceIndex& index, traces::RowId sessionId) {
    SiteTrie trie;
    const auto& compiles = index.session(sessionId).compiles;
    std::map<FrameKey, traces::RowId> siteByFrame;
    for (const traces::Compile* compile : compiles)
        if (auto site = index.effectiveSite(*compile)) siteByFrame.try_emplace(frameKeyOf(*compile), *site);

    std::vector<const traces::Compile*> heads;
    std::vector<traces::Stack> stacks;
    for (const traces::Compile* compile : compiles) {
        if (index.occurrenceHead(*compile) != compile) continue;
        heads.push_back(compile);
        stacks.push_back(stackOf(index, *compile, siteByFrame));
    }
    size_t prefix = commonPrefixLength(stacks);
    if (!stacks.empty()) trie.commonPrefix_.assign(stacks.front().begin(), stacks.front().begin() + prefix);

    std::map<std::tuple<int, std::string, int, std::string>, int> childByFrame;
    for (size_t i = 0; i < heads.size(); ++i) {
        int node = 0;
        for (size_t f = prefix; f < stacks[i].size(); ++f) {
            const traces::Frame& frame = stacks[i][f];
            auto [it, isNew] = childByFrame.try_emplace({node, frame.file, frame.line, frame.function},
                                                        static_cast<int>(trie.nodes_.size()));
            if (isNew) {
                SiteTrieNode child;
                child.frame = frame;
                child.parent = node;
                child.depth = trie.nodes_[static_cast<size_t>(node)].depth + 1;
                trie.nodes_[static_cast<size_t>(node)].children.push_back(it->second);
                trie.nodes_.push_back(std::move(child));
            } else if (trie.nodes_[static_cast<size_t>(it->second)].frame.source.empty()) {
                trie.nodes_[static_cast<size_t>(it->second)].frame.source = frame.source;
            }
            node = it->second;
        }
        const traces::Compile& head = *heads[i];
        SiteCompile entry;
        entry.compileId = head.id;
        entry.display = head.key.display();
        entry.function = head.function;
        entry.state = compileStateOf(index, head);
        entry.attempts = std::max<int>(1, static_cast<int>(index.attempts(head).size()));
        entry.node = node;
        int position = static_cast<int>(trie.compiles_.size());
        for (const traces::Compile* attempt : index.attempts(head)) trie.compileByRow_.emplace(attempt->id, position);
        trie.compileByRow_.emplace(head.id, position);
        trie.nodes_[static_cast<size_t>(node)].compiles.push_back(position);
        for (int up = node; up >= 0; up = trie.nodes_[static_cast<size_t>(up)].parent)
            trie.nodes_[static_cast<size_t>(up)].counts.add(entry.state);
        trie.compiles_.push_back(std::move(entry));
    }
    return trie;
}

SiteFilterResult filterSiteTrie(const SiteTrie& trie, const SiteFilter& filter) {
    const auto& nodes = trie.nodes();
    SiteFilterResult result;
    result.nodeVisible.assign(nodes.size(), false);
    result.nodeMatched.assign(nodes.size(), false);
    result.compileVisible.assign(trie.compiles().size(), false);
    // Parents precede children in nodes(), so one forward pass knows whether an ancestor matched.
    std::vector<bool> underMatch(nodes.size(), filter.text.empty());
    for (size_t n = 1; n < nodes.size(); ++n) {
        result.nodeMatched[n] = !filter.text.empty() && frameMatches(nodes[n].frame, filter.text);
        underMatch[n] = underMatch[static_cast<size_t>(nodes[n].parent)] || result.nodeMatched[n];
    }
    for (size_t c = 0; c < trie.compiles().size(); ++c) {
        const SiteCompile& compile = trie.compiles()[c];
        if (!filter.states[static_cast<size_t>(compile.state)]) continue;
        bool textOk = underMatch[static_cast<size_t>(compile.node)] || containsIgnoreCase(compile.display, filter.text) ||
                      containsIgnoreCase(compile.display.substr(1, compile.display.size() - 2), filter.text) ||
                      containsIgnoreCase(compile.function, filter.text);
        if (!textOk) continue;
        result.compileVisible[c] = true;
        ++result.compilesShown;
        for (int up = compile.node; up >= 0; up = nodes[static_cast<size_t>(up)].parent)
            result.nodeVisible[static_cast<size_t>(up)] = true;
    }
    return result;
}

std::vector<SiteRow> visibleSiteRows(const SiteTrie& trie, const SiteFilterResult& filtered,
                                     const std::vector<bool>& collapsed) {
    std::vector<SiteRow> rows;
    const auto& nodes = trie.nodes();
    // Depth-first with an explicit stack: user stacks can be hundreds of frames deep.
    std::vector<int> pending(nodes.front().children.rbegin(), nodes.front().children.rend());
    while (!pending.empty()) {
        int node = pending.back();
        pending.pop_back();
        if (!filtered.nodeVisible[static_cast<size_t>(node)]) continue;
        rows.push_back({node, nodes[static_cast<size_t>(node)].depth - 1});
        bool folded = static_cast<size_t>(node) < collapsed.size() && collapsed[static_cast<size_t>(node)];
        if (folded) continue;
        const auto& children = nodes[static_cast<size_t>(node)].children;
        pending.insert(pending.end(), children.rbegin(), children.rend());
    }
    return rows;
}

}  // namespace viz
