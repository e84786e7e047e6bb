// The graph views' search box: type to highlight matching nodes, Enter / Shift+Enter or the arrows to jump
// from match to match. It holds the query and the current match; the caller supplies the matches.
#pragma once

#include <string>

namespace viz {

struct SearchBarAction {
    bool queryChanged = false;
    int jumpTo = -1;  ///< index into the caller's matches to centre on, -1 for none
};

class GraphSearchBar {
public:
    /// Draws the box, the match count and the arrows on the current line. `matchCount` is the number of
    /// matches of query() as last computed by the caller.
    SearchBarAction draw(const char* id, int matchCount, float width = 220.0f);
    const std::string& query() const { return query_; }
    /// Keyboard focus into the box next frame (Ctrl+F).
    void focus() { focusPending_ = true; }

private:
    std::string query_;
    int current_ = -1;
    bool focusPending_ = false;
};

}  // namespace viz
