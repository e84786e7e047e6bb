// The only file that calls Graphviz (see graphviz_layout.h for the threading rule).
#include "layout/graphviz_layout.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "graph/dot_writer.h"
#include "layout/graphviz_api.h"
#include "layout/layered_layout.h"

namespace viz {
namespace {

/// Graphviz reports errors through a process-wide callback; the session's (single) thread collects them here
/// so that a failed layout or render can say why.
thread_local std::string graphvizErrors;

int collectGraphvizError(char* message) {
    if (graphvizErrors.size() < 4096) graphvizErrors += message;
    return 0;
}

std::string takeErrors() {
    std::string errors;
    errors.swap(graphvizErrors);
    while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
    return errors;
}

/// Owns a parsed graph (and its layout, once made) and frees both on every path.
class ParsedGraph {
public:
    ParsedGraph(GVC_t* context, const std::string& dot) : context_(context), graph_(agmemread(dot.c_str())) {}
    ~ParsedGraph() {
        if (!graph_) return;
        if (laidOut_) gvFreeLayout(context_, graph_);
        agclose(graph_);
    }
    ParsedGraph(const ParsedGraph&) = delete;
    ParsedGraph& operator=(const ParsedGraph&) = delete;

    Agraph_t* get() const { return graph_; }
    bool layOut() {
        laidOut_ = gvLayout(context_, graph_, "dot") == 0;
        return laidOut_;
    }

private:
    GVC_t* context_;
    Agraph_t* graph_;
    bool laidOut_ = false;
};

/// "n12" / "e7" / "cluster_3" -> 12 / 7 / 3; -1 when the name has another shape.
int indexAfter(const char* name, std::string_view prefix) {
    std::string_view text = name ? name : "";
    if (!text.starts_with(prefix) || text.size() == prefix.size()) return -1;
    int value = 0;
    for (char c : text.substr(prefix.size())) {
        if (c < '0' || c > '9') return -1;
        value = value * 10 + (c - '0');
    }
    return value;
}

class ScreenMapping {
public:
    explicit ScreenMapping(boxf bb) : left_(static_cast<float>(bb.LL.x)), top_(static_cast<float>(bb.UR.y)) {}
    Point operator()(pointf p) const { return {static_cast<float>(p.x) - left_, top_ - static_cast<float>(p.y)}; }
    Rect operator()(boxf box) const {
        Point a = (*this)(box.LL);
        Point b = (*this)(box.UR);
        return {std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.x, b.x), std::max(a.y, b.y)};
    }

private:
    float left_;
    float top_;
};

/// Clusters nest (expanded folds inside expanded folds), so the walk goes down every subgraph.
void readClusters(Agraph_t* graph, const ScreenMapping& toScreen, GraphLayout& layout) {
    for (Agraph_t* sub = agfstsubg(graph); sub; sub = agnxtsubg(sub)) {
        int index = indexAfter(agnameof(sub), "cluster_");
        if (index >= 0 && static_cast<size_t>(index) < layout.clusters.size())
            layout.clusters[static_cast<size_t>(index)] = toScreen(GD_bb(sub));
        readClusters(sub, toScreen, layout);
    }
}

EdgePath readEdge(Agedge_t* edge, const ScreenMapping& toScreen) {
    EdgePath path;
    const splines* spline = ED_spl(edge);
    if (!spline || spline->size == 0) return path;
    // dot splits an edge into several beziers only for concentrators and loops, which we never ask for.
    const bezier& curve = spline->list[0];
    path.points.reserve(static_cast<size_t>(curve.size));
    for (int i = 0; i < curve.size; ++i) path.points.push_back(toScreen(curve.list[i]));
    if (curve.eflag) {
        path.hasArrow = true;
        path.arrowTip = toScreen(curve.ep);
    }
    std::vector<Point> all = path.points;
    if (path.hasArrow) all.push_back(path.arrowTip);
    path.bounds = Rect::around(all);
    return path;
}

}  // namespace

GraphvizSession::GraphvizSession() {
    agseterrf(collectGraphvizError);
    context_ = gvContext();
    if (!context_) throw std::runtime_error("Graphviz: gvContext() failed");
}

GraphvizSession::~GraphvizSession() {
    if (context_) gvFreeContext(context_);
}

GraphLayout GraphvizSession::layout(const LayoutGraph& graph) {
    if (dotWorkEstimate(graph) > kMaxDotWork) return layeredLayout(graph);
    auto start = std::chrono::steady_clock::now();
    DotOptions options;
    options.labels = false;
    options.graphAttributes = dotLimitsFor(graph);
    takeErrors();
    ParsedGraph parsed(context_, writeDot(graph, options));
    if (!parsed.get()) throw std::runtime_error("Graphviz could not read the graph: " + takeErrors());
    if (!parsed.layOut()) throw std::runtime_error("Graphviz dot layout failed: " + takeErrors());

    Agraph_t* g = parsed.get();
    ScreenMapping toScreen(GD_bb(g));
    GraphLayout layout;
    layout.bounds = toScreen(GD_bb(g));
    layout.nodes.resize(graph.nodes.size());
    layout.edges.resize(graph.edges.size());
    layout.clusters.resize(graph.clusters.size());
    for (Agnode_t* node = agfstnode(g); node; node = agnxtnode(g, node)) {
        int index = indexAfter(agnameof(node), "n");
        if (index < 0 || static_cast<size_t>(index) >= layout.nodes.size()) continue;
        Point centre = toScreen(ND_coord(node));
        float halfWidth = static_cast<float>(ND_width(node)) * 36.0f;  // inches -> points, halved
        float halfHeight = static_cast<float>(ND_height(node)) * 36.0f;
        layout.nodes[static_cast<size_t>(index)] = {centre.x - halfWidth, centre.y - halfHeight, centre.x + halfWidth,
                                                    centre.y + halfHeight};
        for (Agedge_t* edge = agfstout(g, node); edge; edge = agnxtout(g, edge)) {
            int edgeIndex = indexAfter(agget(edge, const_cast<char*>("id")), "e");
            if (edgeIndex >= 0 && static_cast<size_t>(edgeIndex) < layout.edges.size())
                layout.edges[static_cast<size_t>(edgeIndex)] = readEdge(edge, toScreen);
        }
    }
    readClusters(g, toScreen, layout);
    layout.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return layout;
}

RenderResult GraphvizSession::render(const LayoutGraph& graph, std::string_view format) {
    RenderResult result;
    if (size_t work = dotWorkEstimate(graph); work > kMaxDotWork) {
        result.error = "this graph is too big for Graphviz to lay out in reasonable time (about " + std::to_string(work) +
                       " nodes with the ranks its edges cross); fold it, or export DOT";
        return result;
    }
    DotOptions options;
    options.graphAttributes = dotLimitsFor(graph);
    options.graphAttributes.emplace_back("bgcolor", "white");
    options.graphAttributes.emplace_back("pad", "0.2");
    takeErrors();
    ParsedGraph parsed(context_, writeDot(graph, options));
    if (!parsed.get() || !parsed.layOut()) {
        result.error = "Graphviz could not lay out the graph: " + takeErrors();
        return result;
    }
    std::string formatName(format);
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(context_, parsed.get(), formatName.c_str(), &data, &length) != 0 || !data) {
        std::string why = takeErrors();
        result.error = "Graphviz cannot render " + formatName + " here (no renderer plugin for it is installed" +
                       (why.empty() ? std::string(")") : "; Graphviz says: " + why + ")");
        if (data) gvFreeRenderData(data);
        return result;
    }
    result.data.assign(data, length);
    gvFreeRenderData(data);
    result.ok = true;
    return result;
}

}  // namespace viz
