// Writes a LayoutGraph as Graphviz DOT text: the "Export DOT" file, and what the layout worker hands to dot.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/layout_graph.h"

namespace viz {

struct DotOptions {
    /// Node labels and colours, for exports. The canvas's own layout leaves labels out (it draws text itself,
    /// in boxes of the size LayoutNode gives) so dot neither measures text nor resizes boxes.
    bool labels = true;
    /// Extra graph attributes, written as given (e.g. nslimit for big graphs).
    std::vector<std::pair<std::string, std::string>> graphAttributes;
};

std::string writeDot(const LayoutGraph& graph, const DotOptions& options = {});

/// `text` as a DOT double-quoted string: quotes and backslashes escaped, control characters as spaces.
std::string dotQuoted(std::string_view text);

}  // namespace viz
