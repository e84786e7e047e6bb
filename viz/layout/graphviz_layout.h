// Graphviz `dot` through its C API: lays out a LayoutGraph into screen coordinates, or renders it to SVG/PNG.
// Graphviz keeps global state and is not thread-safe: a GraphvizSession must only ever be used by one thread
// (the LayoutWorker's), and there must be at most one session in the process.
#pragma once

#include <string>
#include <string_view>

#include "graph/layout_graph.h"
#include "layout/graph_layout.h"

struct GVC_s;

namespace viz {

struct RenderResult {
    bool ok = false;
    std::string data;   ///< the rendered file (SVG text, PNG bytes, DOT text)
    std::string error;  ///< what went wrong, in words, when !ok
};

class GraphvizSession {
public:
    GraphvizSession();
    ~GraphvizSession();
    GraphvizSession(const GraphvizSession&) = delete;
    GraphvizSession& operator=(const GraphvizSession&) = delete;

    /// dot layout of `graph` (labels left to the canvas; see DotOptions::labels), or layeredLayout when dot
    /// would work on more than kMaxDotWork nodes. Throws std::runtime_error when Graphviz rejects the graph.
    GraphLayout layout(const LayoutGraph& graph);

    /// `graph` laid out with its labels and rendered by Graphviz in `format` ("svg", "png", ...). When no
    /// installed plugin renders that format the result says so instead of throwing.
    RenderResult render(const LayoutGraph& graph, std::string_view format);

private:
    GVC_s* context_ = nullptr;
};

}  // namespace viz
