// A computed graph layout in screen orientation: origin at the top-left of the drawing, y growing down,
// units in points (one pixel at zoom 1). Node, edge and cluster lists are parallel to the LayoutGraph's.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "graph/layout_graph.h"

namespace viz {

struct Point {
    float x = 0;
    float y = 0;
};

struct Rect {
    float minX = 0;
    float minY = 0;
    float maxX = 0;
    float maxY = 0;

    float width() const { return maxX - minX; }
    float height() const { return maxY - minY; }
    Point centre() const { return {(minX + maxX) * 0.5f, (minY + maxY) * 0.5f}; }
    bool contains(Point p) const { return p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY; }
    bool overlaps(const Rect& o) const { return minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY; }
    /// The smallest rect holding all points; an empty list gives an empty rect at the origin.
    static Rect around(const std::vector<Point>& points);
};

struct EdgePath {
    /// Cubic bezier control points: start, then three per segment (1 + 3k), as Graphviz routes it.
    std::vector<Point> points;
    bool hasArrow = false;
    Point arrowTip;  ///< where the arrowhead points (the bezier ends at its base)
    Rect bounds;     ///< of the control points and the tip; a bezier lies inside its control points' hull
};

struct GraphLayout {
    Rect bounds;                  ///< the whole drawing, from (0, 0)
    std::vector<Rect> nodes;
    std::vector<EdgePath> edges;  ///< an edge Graphviz did not route has no points
    std::vector<Rect> clusters;
    double seconds = 0;           ///< time the layout took
    std::string engine = "dot";   ///< "dot", or "layered" when dot would have taken too long
    size_t levels = 1;            ///< Graphviz graphs it was made of (a nested layout's levels, see nested_layout.h)
    size_t levelsLaidOut = 1;     ///< of those, laid out for it rather than found in the cache
};

/// How many nodes dot really works on: the graph's own plus one virtual node per rank an edge crosses (edges
/// spanning many ranks are what make dot slow), estimated from longest-path ranks over forward edges.
size_t dotWorkEstimate(const LayoutGraph& graph);

/// Graph attributes that bound dot's network-simplex and crossing-minimisation passes for big graphs (by
/// dotWorkEstimate), which otherwise take tens of seconds from a few thousand nodes on; none for small ones.
std::vector<std::pair<std::string, std::string>> dotLimitsFor(const LayoutGraph& graph);

}  // namespace viz
