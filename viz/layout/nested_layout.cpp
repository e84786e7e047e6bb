// Splitting a clustered graph into levels laid out one by one, and placing their layouts inside each other (see
// nested_layout.h).
#include "layout/nested_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace viz {
namespace {

/// Room around a group's contents inside its box, and above them for the group's label (the canvas draws it at
/// the box's top-left). The sides are a lane wide enough that an edge running down a group's margin (where nodes
/// fill its width) stays clear of both the border and the nodes, and reads as an edge rather than another border.
constexpr float kGroupPadding = 16.0f;
constexpr float kGroupHeader = 22.0f;
/// The least room between an edge's corridor and a unit it passes: no squeezing between nodes closer than that.
constexpr float kCorridorClear = 6.0f;
/// How far an arrowhead reaches back from the node it points at.
constexpr float kArrowLength = 8.0f;

/// The clusters around a node or cluster, innermost first, ending with -1 (the top level).
std::vector<int> scopesAround(const LayoutGraph& graph, int cluster) {
    std::vector<int> scopes;
    auto valid = [&](int c) { return c >= 0 && static_cast<size_t>(c) < graph.clusters.size(); };
    for (int c = cluster; valid(c) && scopes.size() <= graph.clusters.size(); c = graph.clusters[static_cast<size_t>(c)].parent)
        scopes.push_back(c);
    scopes.push_back(-1);
    return scopes;
}

Rect shifted(const Rect& rect, Point by) { return {rect.minX + by.x, rect.minY + by.y, rect.maxX + by.x, rect.maxY + by.y}; }

/// A cubic from the path's last point to `to` that leaves downwards and arrives from above, as dot's edges do.
void curveTo(std::vector<Point>& points, Point to) {
    Point from = points.back();
    float reach = std::max(8.0f, std::fabs(to.y - from.y) * 0.5f);
    points.push_back({from.x, from.y + reach});
    points.push_back({to.x, to.y - reach});
    points.push_back(to);
}

void lineTo(std::vector<Point>& points, Point to) {
    Point from = points.back();
    points.push_back({from.x + (to.x - from.x) / 3.0f, from.y + (to.y - from.y) / 3.0f});
    points.push_back({from.x + (to.x - from.x) * 2.0f / 3.0f, from.y + (to.y - from.y) * 2.0f / 3.0f});
    points.push_back(to);
}

/// The clusters around `node`, innermost first, up to (not including) `holder`, the cluster of the level that
/// routes an edge of it (-1: the top level).
std::vector<int> clustersUpTo(const LayoutGraph& graph, int node, int holder) {
    std::vector<int> clusters = scopesAround(graph, graph.nodes[static_cast<size_t>(node)].cluster);
    clusters.erase(std::find(clusters.begin(), clusters.end(), holder), clusters.end());
    return clusters;
}

/// Where a level's units (its nodes, then its inner groups' boxes) were placed.
std::vector<Rect> placedUnits(const NestedLevel& level, const GraphLayout& placed) {
    std::vector<Rect> units;
    units.reserve(level.nodes.size() + level.innerClusters.size());
    for (int node : level.nodes) units.push_back(placed.nodes[static_cast<size_t>(node)]);
    for (int cluster : level.innerClusters) units.push_back(placed.clusters[static_cast<size_t>(cluster)]);
    return units;
}

/// The middle of a band across a level that no unit reaches into, next to `unit` on the side an edge leaves it
/// (below when `down`, else above), up to `border`.
float channelBeside(const std::vector<Rect>& units, const Rect& unit, float border, bool down) {
    // Widen the band's near side past every unit that straddles it (a taller node of the same rank).
    float near = down ? unit.maxY : unit.minY;
    for (bool widened = true; widened;) {
        widened = false;
        for (const Rect& u : units) {
            if (u.minY < near && u.maxY > near) {
                near = down ? u.maxY : u.minY;
                widened = true;
            }
        }
    }
    float far = border;
    for (const Rect& u : units) {
        if (down && u.minY >= near && u.minY < far) far = u.minY;
        if (!down && u.maxY <= near && u.maxY > far) far = u.maxY;
    }
    return (near + far) * 0.5f;
}

/// The x, nearest `goal` and then `from`, at which a vertical line between `y0` and `y1` passes beside every unit
/// of a group `box`: the goal itself, a gap beside a unit in the way, or at worst the group's side margin. Edges
/// so cross a group's border where they go on, not along the border to get there.
float freeCorridor(const std::vector<Rect>& units, float y0, float y1, float goal, float from, const Rect& box) {
    constexpr float kBeside = 8.0f;   // a corridor beside a unit keeps this far from it
    float top = std::min(y0, y1);
    float bottom = std::max(y0, y1);
    float left = box.minX + kGroupPadding * 0.5f;
    float right = box.maxX - kGroupPadding * 0.5f;
    std::vector<const Rect*> inWay;
    for (const Rect& u : units)
        if (u.maxY > top && u.minY < bottom) inWay.push_back(&u);
    std::vector<float> candidates{goal, from, left, right};
    for (const Rect* u : inWay) {
        candidates.push_back(u->minX - kBeside);
        candidates.push_back(u->maxX + kBeside);
    }
    auto free = [&](float x) {
        if (x < left || x > right) return false;
        return std::none_of(inWay.begin(), inWay.end(),
                            [&](const Rect* u) { return x > u->minX - kCorridorClear && x < u->maxX + kCorridorClear; });
    };
    float best = std::fabs(goal - left) <= std::fabs(goal - right) ? left : right;
    for (float x : candidates) {
        if (!free(x)) continue;
        float cost = std::fabs(x - goal), bestCost = std::fabs(best - goal);
        if (cost < bestCost || (cost == bestCost && std::fabs(x - from) < std::fabs(best - from))) best = x;
    }
    return best;
}

/// Corners from `at`, in a band free of units, down (or up) through the units of a group `box` to its `border`,
/// ending as near `goal` as it can: straight down the free corridor nearest the goal when one runs all the way,
/// else past one row of units at a time, beside the unit in the way (nearest the goal), along the free band
/// before each row. An edge so threads between the rows as dot's own do instead of running to a side margin.
void stepsToBorder(std::vector<Point>& corners, const std::vector<Rect>& units, Point at, float border, float goal,
                   const Rect& box, bool down) {
    auto ahead = [&](const Rect& u, float y) { return down ? u.minY > y && u.minY < border : u.maxY < y && u.maxY > border; };
    auto inColumn = [&](const Rect& u, float x) { return x > u.minX - kCorridorClear && x < u.maxX + kCorridorClear; };
    auto bandFree = [&](float y, float x0, float x1) {
        return std::none_of(units.begin(), units.end(), [&](const Rect& u) {
            return u.minY < y && u.maxY > y && u.maxX > std::min(x0, x1) - kCorridorClear && u.minX < std::max(x0, x1) + kCorridorClear;
        });
    };
    for (size_t step = 0; step <= units.size(); ++step) {
        float straight = freeCorridor(units, at.y, border, goal, at.x, box);
        // The first unit straight ahead; none: the corridor found runs all the way.
        const Rect* blocker = nullptr;
        for (const Rect& u : units)
            if (ahead(u, at.y) && inColumn(u, at.x) && (!blocker || (down ? u.minY < blocker->minY : u.maxY > blocker->maxY)))
                blocker = &u;
        bool inMargin = std::fabs(straight - (box.minX + kGroupPadding * 0.5f)) < 0.5f ||
                        std::fabs(straight - (box.maxX - kGroupPadding * 0.5f)) < 0.5f;
        if (!blocker || !inMargin) {
            if (!bandFree(at.y, at.x, straight)) break;
            corners.push_back({straight, at.y});
            corners.push_back({straight, border});
            return;
        }
        // Past the blocker's row: along the band before it to a column free through that row, then to the band after.
        float before = channelBeside(units, *blocker, at.y, !down);
        if (down ? before < at.y : before > at.y) before = at.y;
        float after = channelBeside(units, *blocker, border, down);
        float x = freeCorridor(units, before, after, goal, at.x, box);
        if (!bandFree(before, at.x, x)) break;
        corners.push_back({at.x, before});
        corners.push_back({x, before});
        corners.push_back({x, after});
        at = {x, after};
    }
    // No way between the rows: the side margin nearer the goal, from where the path got to.
    float x = freeCorridor(units, at.y, border, goal, at.x, box);
    corners.push_back({x, at.y});
    corners.push_back({x, border});
}

/// The corners of a path from `start` (a node's bottom centre, or top centre when `down` is false) out of the
/// groups `clusters` (innermost first) onto the outermost group's border, near `exit` (where the route between
/// the groups goes on): in each group, along the band free of units beside what it leaves, then between the units
/// in the way (stepsToBorder) through the group's border. The last corner is on that border.
std::vector<Point> cornersOutOfGroups(Point start, Rect unit, const std::vector<int>& clusters, Point exit,
                                      const NestedPlan& plan, const GraphLayout& placed,
                                      const std::vector<std::vector<Rect>>& unitsOfLevel, bool down) {
    std::vector<Point> corners{start};
    for (size_t i = 0; i < clusters.size(); ++i) {
        const Rect& box = placed.clusters[static_cast<size_t>(clusters[i])];
        const std::vector<Rect>& units = unitsOfLevel[static_cast<size_t>(plan.levelOfCluster[static_cast<size_t>(clusters[i])])];
        // Below the contents the padding is free; above them only the header's lower part (its label sits on top).
        float channel = channelBeside(units, unit, down ? box.maxY : box.minY + kGroupHeader - 4.0f, down);
        Point at = corners.back();
        corners.push_back({at.x, channel});
        stepsToBorder(corners, units, {at.x, channel}, down ? box.maxY : box.minY, exit.x, box, down);
        unit = box;
    }
    return corners;
}

/// Straight segments through `corners`, their corners rounded so that a path along a group's border reads as an
/// edge rather than another box (cubic beziers, as dot's).
void linesThrough(std::vector<Point>& points, std::vector<Point> corners) {
    constexpr float kCornerRadius = 6.0f;
    auto length = [](Point a, Point b) { return std::fabs(a.x - b.x) + std::fabs(a.y - b.y); };
    corners.erase(std::unique(corners.begin(), corners.end(),
                              [&](Point a, Point b) { return length(a, b) < 0.01f; }),
                  corners.end());
    if (corners.empty()) return;
    if (points.empty()) points.push_back(corners.front());
    else if (length(points.back(), corners.front()) > 0.01f) lineTo(points, corners.front());
    auto towards = [](Point from, Point to, float by) {
        float d = std::hypot(to.x - from.x, to.y - from.y);
        return d <= 0 ? from : Point{from.x + (to.x - from.x) * by / d, from.y + (to.y - from.y) * by / d};
    };
    for (size_t i = 1; i < corners.size(); ++i) {
        Point corner = corners[i];
        if (i + 1 == corners.size()) {
            lineTo(points, corner);
            break;
        }
        Point next = corners[i + 1];
        float radius = std::min({kCornerRadius, std::hypot(corner.x - points.back().x, corner.y - points.back().y) * 0.5f,
                                 std::hypot(next.x - corner.x, next.y - corner.y) * 0.5f});
        Point before = towards(corner, points.back(), radius);
        if (length(points.back(), before) > 0.01f) lineTo(points, before);
        points.push_back(towards(before, corner, radius * 0.55f));
        Point after = towards(corner, next, radius);
        points.push_back(towards(after, corner, radius * 0.55f));
        points.push_back(after);
    }
}

}  // namespace

NestedPlan planNestedLayout(const LayoutGraph& graph) {
    NestedPlan plan;
    size_t clusterCount = graph.clusters.size();
    // Deepest clusters first: a level is laid out after every level inside it.
    std::vector<size_t> depth(clusterCount);
    std::vector<int> order(clusterCount);
    for (size_t c = 0; c < clusterCount; ++c) {
        depth[c] = scopesAround(graph, static_cast<int>(c)).size();
        order[c] = static_cast<int>(c);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth[static_cast<size_t>(a)] > depth[static_cast<size_t>(b)]; });
    plan.levelOfCluster.assign(clusterCount, -1);
    for (int c : order) {
        plan.levelOfCluster[static_cast<size_t>(c)] = static_cast<int>(plan.levels.size());
        plan.levels.push_back({c, {}, {}, {}});
    }
    plan.levels.push_back({});  // the top level
    auto levelOf = [&](int scope) {
        return scope < 0 ? static_cast<int>(plan.levels.size()) - 1 : plan.levelOfCluster[static_cast<size_t>(scope)];
    };

    std::vector<int> unitOfNode(graph.nodes.size(), -1);
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        int cluster = graph.nodes[n].cluster;
        bool valid = cluster >= 0 && static_cast<size_t>(cluster) < clusterCount;
        NestedLevel& level = plan.levels[static_cast<size_t>(levelOf(valid ? cluster : -1))];
        unitOfNode[n] = static_cast<int>(level.nodes.size());
        level.nodes.push_back(static_cast<int>(n));
    }
    std::vector<int> unitOfCluster(clusterCount, -1);
    for (size_t c = 0; c < clusterCount; ++c) {
        int parent = graph.clusters[c].parent;
        NestedLevel& level = plan.levels[static_cast<size_t>(levelOf(parent >= 0 && static_cast<size_t>(parent) < clusterCount ? parent : -1))];
        level.innerClusters.push_back(static_cast<int>(c));
    }
    for (NestedLevel& level : plan.levels)
        for (size_t j = 0; j < level.innerClusters.size(); ++j)
            unitOfCluster[static_cast<size_t>(level.innerClusters[j])] = static_cast<int>(level.nodes.size() + j);

    // Each edge goes to the innermost level holding both ends, between the units there that hold them.
    std::vector<std::map<std::pair<int, int>, int>> edgeIndex(plan.levels.size());
    plan.edgeAt.assign(graph.edges.size(), {-1, -1});
    for (size_t e = 0; e < graph.edges.size(); ++e) {
        const LayoutEdge& edge = graph.edges[e];
        if (edge.from == edge.to) continue;
        std::vector<int> fromScopes = scopesAround(graph, graph.nodes[static_cast<size_t>(edge.from)].cluster);
        std::vector<int> toScopes = scopesAround(graph, graph.nodes[static_cast<size_t>(edge.to)].cluster);
        size_t toAt = 0;
        size_t fromAt = fromScopes.size();
        for (; toAt < toScopes.size(); ++toAt) {
            fromAt = static_cast<size_t>(std::find(fromScopes.begin(), fromScopes.end(), toScopes[toAt]) - fromScopes.begin());
            if (fromAt < fromScopes.size()) break;
        }
        // The unit is the node itself when it sits directly in the shared scope, else the cluster just inside it.
        auto unitIn = [&](const std::vector<int>& scopes, size_t at, int node) {
            return at == 0 ? unitOfNode[static_cast<size_t>(node)] : unitOfCluster[static_cast<size_t>(scopes[at - 1])];
        };
        int from = unitIn(fromScopes, fromAt, edge.from);
        int to = unitIn(toScopes, toAt, edge.to);
        if (from == to) continue;
        int level = levelOf(toScopes[toAt]);
        NestedLevel& holder = plan.levels[static_cast<size_t>(level)];
        auto [it, added] = edgeIndex[static_cast<size_t>(level)].try_emplace({from, to}, static_cast<int>(holder.edges.size()));
        if (added) holder.edges.push_back({from, to, edge.weight});
        else holder.edges[static_cast<size_t>(it->second)].weight += edge.weight;
        plan.edgeAt[e] = {level, it->second};
    }
    return plan;
}

LayoutGraph nestedLevelGraph(const LayoutGraph& graph, const NestedPlan& plan, size_t level,
                             const std::vector<std::shared_ptr<const GraphLayout>>& layouts) {
    const NestedLevel& shown = plan.levels[level];
    LayoutGraph out;
    out.title = shown.cluster >= 0 ? graph.clusters[static_cast<size_t>(shown.cluster)].label : graph.title;
    for (int node : shown.nodes) {
        LayoutNode unit = graph.nodes[static_cast<size_t>(node)];
        unit.id = "n" + std::to_string(out.nodes.size());
        unit.cluster = -1;
        out.nodes.push_back(std::move(unit));
    }
    for (int cluster : shown.innerClusters) {
        const GraphLayout* inner = layouts[static_cast<size_t>(plan.levelOfCluster[static_cast<size_t>(cluster)])].get();
        LayoutNode box;
        box.id = "n" + std::to_string(out.nodes.size());
        box.lines = {graph.clusters[static_cast<size_t>(cluster)].label};
        box.fill = graph.clusters[static_cast<size_t>(cluster)].fill;
        float contentWidth = inner ? inner->bounds.width() : 0.0f;
        float contentHeight = inner ? inner->bounds.height() : 0.0f;
        box.width = std::max(contentWidth + 2 * kGroupPadding, labelBoxSize(box.lines).first);
        box.height = contentHeight + kGroupHeader + kGroupPadding;
        out.nodes.push_back(std::move(box));
    }
    out.edges = shown.edges;
    return out;
}

GraphLayout composeNestedLayout(const LayoutGraph& graph, const NestedPlan& plan,
                                const std::vector<std::shared_ptr<const GraphLayout>>& layouts) {
    GraphLayout out;
    out.nodes.resize(graph.nodes.size());
    out.edges.resize(graph.edges.size());
    out.clusters.resize(graph.clusters.size());
    const GraphLayout& top = *layouts.back();
    out.bounds = top.bounds;
    // Top down: a level's origin comes from where its box sits in the level around it.
    std::vector<Point> origin(plan.levels.size());
    for (size_t l = plan.levels.size(); l-- > 0;) {
        const NestedLevel& level = plan.levels[l];
        const GraphLayout& layout = *layouts[l];
        for (size_t i = 0; i < level.nodes.size(); ++i)
            out.nodes[static_cast<size_t>(level.nodes[i])] = shifted(layout.nodes[i], origin[l]);
        for (size_t j = 0; j < level.innerClusters.size(); ++j) {
            Rect box = shifted(layout.nodes[level.nodes.size() + j], origin[l]);
            int cluster = level.innerClusters[j];
            out.clusters[static_cast<size_t>(cluster)] = box;
            size_t inner = static_cast<size_t>(plan.levelOfCluster[static_cast<size_t>(cluster)]);
            const Rect& content = layouts[inner]->bounds;
            origin[inner] = {box.minX + (box.width() - content.width()) * 0.5f - content.minX,
                             box.minY + kGroupHeader - content.minY};
        }
        out.engine = layout.engine == "dot" ? out.engine : layout.engine;
        out.seconds += layout.seconds;
    }
    // Every level's placed units, once: each edge that crosses groups looks for free bands among them.
    std::vector<std::vector<Rect>> unitsOfLevel;
    for (const NestedLevel& level : plan.levels) unitsOfLevel.push_back(placedUnits(level, out));
    for (size_t e = 0; e < graph.edges.size(); ++e) {
        auto [level, at] = plan.edgeAt[e];
        if (level < 0) continue;
        const LayoutEdge& edge = graph.edges[e];
        const NestedLevel& holder = plan.levels[static_cast<size_t>(level)];
        const EdgePath& routed = layouts[static_cast<size_t>(level)]->edges[static_cast<size_t>(at)];
        const LayoutEdge& unitEdge = holder.edges[static_cast<size_t>(at)];
        const Rect& fromNode = out.nodes[static_cast<size_t>(edge.from)];
        const Rect& toNode = out.nodes[static_cast<size_t>(edge.to)];
        Point start{fromNode.centre().x, fromNode.maxY};
        Point end{toNode.centre().x, toNode.minY};
        bool fromInside = static_cast<size_t>(unitEdge.from) >= holder.nodes.size();
        bool toInside = static_cast<size_t>(unitEdge.to) >= holder.nodes.size();
        Point by = origin[static_cast<size_t>(level)];
        auto moved = [&](Point p) { return Point{p.x + by.x, p.y + by.y}; };
        EdgePath path;
        if (!fromInside && !toInside) {
            path = routed;
            for (Point& p : path.points) p = moved(p);
            path.arrowTip = moved(path.arrowTip);
        } else {
            // The route between the boxes, extended inside them to the nodes through the groups' borders: out of
            // the source's groups and into the target's along bands free of nodes and corridors beside them.
            bool routedAround = routed.points.size() >= 4;
            Point exit = routedAround ? moved(routed.points.front()) : Point{start.x, start.y};
            Point entry = routedAround ? moved(routed.hasArrow ? routed.arrowTip : routed.points.back()) : Point{end.x, end.y};
            std::vector<int> fromClusters = clustersUpTo(graph, edge.from, holder.cluster);
            std::vector<int> toClusters = clustersUpTo(graph, edge.to, holder.cluster);
            if (!routedAround && fromInside) exit = {start.x, out.clusters[static_cast<size_t>(fromClusters.back())].maxY};
            if (!routedAround && toInside) entry = {end.x, out.clusters[static_cast<size_t>(toClusters.back())].minY};
            linesThrough(path.points, fromInside ? cornersOutOfGroups(start, fromNode, fromClusters, exit, plan, out, unitsOfLevel, true)
                                                 : std::vector<Point>{start});
            // The route between the groups goes on from where the path came through the border: where that is
            // beside the route's own start, its first segment is redrawn from there.
            std::vector<Point> in;
            bool reachedIn = false;  // the path already ends where it goes into the target's groups
            if (toInside) {
                in = cornersOutOfGroups(end, toNode, toClusters, entry, plan, out, unitsOfLevel, false);
                std::reverse(in.begin(), in.end());
                in.back().y -= kArrowLength;  // the bezier ends at the arrowhead's base
            }
            if (routedAround) {
                size_t first = 1;
                if (fromInside && std::fabs(path.points.back().x - exit.x) > 2.0f) {
                    curveTo(path.points, moved(routed.points[3]));
                    first = 4;
                }
                reachedIn = toInside && std::fabs(in.front().x - entry.x) > 2.0f;
                size_t last = reachedIn ? std::max(first, routed.points.size() - 3) : routed.points.size();
                for (size_t i = first; i < last; ++i) path.points.push_back(moved(routed.points[i]));
                path.hasArrow = routed.hasArrow;
                path.arrowTip = moved(routed.arrowTip);
                if (reachedIn) curveTo(path.points, in.front());
            }
            if (toInside) {
                if (!reachedIn && !routedAround) curveTo(path.points, in.front());
                else if (!reachedIn && routed.hasArrow) lineTo(path.points, in.front());
                else if (!reachedIn) path.points.back() = in.front();
                linesThrough(path.points, in);
            } else if (!routedAround) {
                curveTo(path.points, {end.x, end.y - kArrowLength});
            }
            if (toInside || !routedAround) {
                path.hasArrow = true;
                path.arrowTip = end;
            }
        }
        std::vector<Point> all = path.points;
        if (path.hasArrow) all.push_back(path.arrowTip);
        path.bounds = Rect::around(all);
        out.edges[e] = std::move(path);
    }
    return out;
}

}  // namespace viz
