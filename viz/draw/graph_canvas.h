// The graph canvas: draws a laid-out graph with ImGui draw lists, with pan (drag), zoom (wheel, around the
// cursor), fit (F), picking, a minimap, and level of detail (labels, then boxes, then group outlines) so that
// thousands of nodes stay above 30 frames per second.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/layout_graph.h"
#include "layout/graph_layout.h"
#include "layout/spatial_grid.h"

namespace viz {

struct SceneNode {
    std::vector<std::string> lines;
    uint32_t fill = 0xeeeeee;  ///< 0xRRGGBB
    bool folded = false;       ///< drawn as a stack: it stands for a folded group
    std::vector<uint32_t> swatches = {};  ///< kernel colours inside a folded module (LayoutNode::swatches)
};

struct SceneCluster {
    std::string label;
    uint32_t fill = 0xf0f0f0;  ///< 0xRRGGBB
    /// Inside a cluster of the same colour, or a top-level group around nearly every box: only its outline is
    /// drawn. On a software renderer every layer of filled pixels costs time each frame, and open groups nest
    /// three or four deep over most of the view.
    bool outlineOnly = false;
    /// Neither it nor a group around it is filled: its label is drawn light, on the canvas's dark background.
    bool onCanvas = false;
};

/// A finished layout and, parallel to its lists, the text and colours to draw.
struct GraphScene {
    std::shared_ptr<const GraphLayout> layout;
    std::vector<SceneNode> nodes;
    std::vector<SceneCluster> clusters;
    std::vector<LayoutEdge> edges;  ///< which nodes each layout edge joins (for highlighting a node's edges)
};

/// The scene for `layout` of `graph` with the graph's own labels and colours.
GraphScene sceneOf(const LayoutGraph& graph, std::shared_ptr<const GraphLayout> layout);

struct CanvasEvents {
    int clickedNode = -1;
    int doubleClickedNode = -1;
    int clickedCluster = -1;  ///< a click inside a cluster, on none of its nodes
    int doubleClickedCluster = -1;
    int hoveredNode = -1;
    /// Keyboard: Enter on a node asks to open it (reported as doubleClickedNode), arrows move the selection
    /// (reported as clickedNode), Esc/Backspace ask to close the group around this node, / to search.
    int collapseRequested = -1;
    bool searchRequested = false;
};

/// What the last frame drew, for tests and the status line.
struct CanvasFrameStats {
    int nodesDrawn = 0;
    int edgesDrawn = 0;
    int clustersDrawn = 0;
    bool labelsDrawn = false;
    int legibleLabels = 0;     ///< node and cluster labels drawn at kLegiblePixels or more
    bool curvesDrawn = false;  ///< beziers (close up) rather than polylines (far away)
    bool minimapDrawn = false;
    double drawMilliseconds = 0;  ///< CPU time the canvas took to fill the draw list (not to render it)
};

/// Text smaller than this many screen pixels is drawn but not counted as legible.
constexpr float kLegiblePixels = 9.0f;

/// Where the canvas looks: the graph point at its middle and the zoom.
struct CanvasView {
    Point centre;
    float zoom = 1.0f;
};

class GraphCanvas {
public:
    /// Shows `scene`. Pan and zoom stay when the new scene has the same layout object; otherwise the view fits.
    /// A new layout opens at its start (top) at a legible zoom, or fitted whole when that is legible too.
    void setScene(GraphScene scene);
    const GraphScene& scene() const { return scene_; }
    bool hasScene() const { return scene_.layout != nullptr; }

    /// Draws at the cursor, filling `size` (0 means the rest of the content region), and handles input.
    CanvasEvents draw(const char* id, ImVec2 size = ImVec2(0, 0));

    /// Fits the whole graph in view, however small that makes it (F).
    void fit() { fitPending_ = Fit::Whole; }
    /// Centres the node (zooming in to a readable scale if needed), from the next frame on.
    void centerOn(int node);
    /// Centres a cluster and zooms so that it fits (but not beyond a readable scale), from the next frame on.
    void centerOnCluster(int cluster) { clusterPending_ = cluster; }
    void setSelectedNode(int node) { selectedNode_ = node; }
    void setSelectedCluster(int cluster) { selectedCluster_ = cluster; }
    void setHighlighted(std::vector<int> nodes);
    /// Per node an outline colour (0xRRGGBB) that marks it, e.g. what changed since the previous compile; 0 or
    /// missing entries leave a node unmarked. Marked nodes also show on the minimap, so they can be found.
    void setMarks(std::vector<uint32_t> marks);

    /// Screen pixels per logical pixel (2 on a 192 dpi screen): the fitted, readable and largest zooms and the
    /// zoom below which text is left out scale with it, so a graph looks the same size next to the scaled UI.
    void setPixelScale(float scale) { pixelScale_ = scale > 0 ? scale : 1.0f; }

    float zoom() const { return zoom_; }
    CanvasView view() const { return {centre_, zoom_}; }
    /// Looks at `view`, and keeps it when the next scene comes rather than fitting that scene (a reload of the
    /// same graph: the user stays where they were).
    void restoreView(CanvasView view);
    /// Where a graph point is on screen in the frame last drawn.
    ImVec2 screenOf(Point p) const { return toScreen(p); }
    const CanvasFrameStats& lastFrame() const { return stats_; }

private:
    ImVec2 toScreen(Point p) const;
    Point toGraph(ImVec2 p) const;
    void applyPendingView();
    void handleInput(CanvasEvents& events, bool hovered);
    void handleKeys(CanvasEvents& events);
    /// The node an arrow key moves to from `node`: along edges for up and down, within the row for left and
    /// right, else the nearest node that way; -1 when there is none.
    int neighbour(int node, int dx, int dy) const;
    int nodeAt(Point p) const;
    int clusterAt(Point p) const;
    void drawClusters(ImDrawList& list, const Rect& visible);
    void drawEdges(ImDrawList& list, const Rect& visible);
    void drawNodes(ImDrawList& list, const Rect& visible);
    void drawSwatches(ImDrawList& list, const std::vector<uint32_t>& swatches, ImVec2 min, ImVec2 max);
    void drawNodeText(ImDrawList& list, int node, ImVec2 min, ImVec2 max);
    void drawTooltip(int node) const;
    /// The minimap's screen rect this frame (empty when the whole graph is in view).
    Rect minimapRect() const;
    void placeMinimap();
    void buildMinimap();
    void drawMinimap(ImDrawList& list, const Rect& visible);
    bool handleMinimap();

    GraphScene scene_;
    SpatialGrid nodeGrid_;
    SpatialGrid edgeGrid_;
    std::vector<bool> highlighted_;
    std::vector<uint32_t> marks_;
    std::vector<int> markedNodes_;  ///< the nodes with a mark, for the minimap
    std::vector<int> visibleScratch_;
    int selectedNode_ = -1;
    int selectedCluster_ = -1;

    Point centre_;        ///< graph point at the middle of the canvas
    float zoom_ = 1.0f;   ///< screen pixels per point
    float pixelScale_ = 1.0f;
    ImVec2 origin_;       ///< canvas top-left on screen, this frame
    ImVec2 size_;         ///< canvas size, this frame
    enum class Fit { None, Whole, Start };
    Fit fitPending_ = Fit::Start;
    bool viewRestored_ = false;  ///< the next scene keeps the view (restoreView)
    std::vector<Rect> minimapCells_;  ///< occupied cells of a coarse grid over the drawing, in graph points
    bool minimapDragging_ = false;
    bool minimapOnLeft_ = false;  ///< chosen when the view is fitted: the corner hiding fewer nodes
    int centerPending_ = -1;
    int clusterPending_ = -1;
    bool dragged_ = false;
    CanvasFrameStats stats_;
};

}  // namespace viz
