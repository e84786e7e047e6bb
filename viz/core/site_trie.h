// The compile-site tree of one session, as tlparse's index shows it: user stacks merged frame by frame, the
// frames every stack shares stripped, and each compile id hung on the frame where its stack ends.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/compile_state.h"
#include "core/text_match.h"
#include "model/trace_model.h"

namespace traces {
class TraceIndex;
}

namespace viz {

/// One compile id (all attempts of one occurrence) as a tree leaf.
struct SiteCompile {
    traces::RowId compileId = 0;  ///< the occurrence head's Compile row
    std::string display;          ///< "[0/1]"
    std::string function;
    CompileState state = CompileState::Unknown;
    int attempts = 1;
    int node = 0;                 ///< the SiteTrie node it hangs on
};

struct SiteTrieNode {
    traces::Frame frame;          ///< empty for the root
    int parent = -1;
    int depth = 0;                ///< 0 for the root, 1 for its children
    std::vector<int> children;    ///< node indices, in first-seen order
    std::vector<int> compiles;    ///< SiteTrie::compiles() indices whose stack ends here, in input order
    StateCounts counts;           ///< compile ids at or below this node
};

class SiteTrie {
public:
    const std::vector<SiteTrieNode>& nodes() const { return nodes_; }
    const std::vector<SiteCompile>& compiles() const { return compiles_; }
    const SiteTrieNode& root() const { return nodes_.front(); }
    /// Frames that every stack of the session began with, removed from the tree (outermost first).
    const traces::Stack& commonPrefix() const { return commonPrefix_; }
    /// The compiles() index of the compile id headed by `compileId` (or of one of its attempts).
    std::optional<int> findCompile(traces::RowId compileId) const;

    /// "programs/x.py:12 in f" (with the source text after two spaces when known).
    static std::string frameLabel(const traces::Frame& frame);

private:
    friend SiteTrie buildSiteTrie(const traces::TraceIndex& index, traces::RowId sessionId);
    std::vector<SiteTrieNode> nodes_{SiteTrieNode{}};
    std::vector<SiteCompile> compiles_;
    std::unordered_map<traces::RowId, int> compileByRow_;  ///< every attempt's row id -> compiles_ index
    traces::Stack commonPrefix_;
};

/// Builds the tree of one session. A compile without a site of its own (a restart attempt, or a recompile the
/// limit refused before dynamo_start) takes the site of its occurrence, else of another compile of its frame.
SiteTrie buildSiteTrie(const traces::TraceIndex& index, traces::RowId sessionId);

/// What the filter box and the status toggles keep. Text matches, case-insensitively, a frame's file, line,
/// function or source, or a compile id's display ("[4/1]", "4/1") or function.
struct SiteFilter {
    std::string text;
    std::array<bool, kCompileStateCount> states{true, true, true, true, true, true};
};

struct SiteFilterResult {
    std::vector<bool> nodeVisible;     ///< per node: it or something below it is shown
    std::vector<bool> nodeMatched;     ///< per node: its own frame matched the text (for highlighting)
    std::vector<bool> compileVisible;  ///< per SiteTrie::compiles() entry
    int compilesShown = 0;
};

/// A compile id shows when its status is on and the text matches it, its frame or a frame above it (so a
/// matched frame shows its whole subtree); a node shows when it holds or leads to a compile that shows.
SiteFilterResult filterSiteTrie(const SiteTrie& trie, const SiteFilter& filter);

/// One line of the tree as drawn: a node at an indentation depth.
struct SiteRow {
    int node = 0;
    int depth = 0;
};

/// The visible nodes in tree order (root excluded), skipping the subtrees of nodes in `collapsed`.
std::vector<SiteRow> visibleSiteRows(const SiteTrie& trie, const SiteFilterResult& filtered,
                                     const std::vector<bool>& collapsed);

}  // namespace viz
