// Graph canvas drawing and input (see graph_canvas.h). Two rules keep big graphs fast: only what the spatial
// grids say is in view is touched, and detail (text, curves, arrowheads, anti-aliasing) depends on the zoom.
#include "draw/graph_canvas.h"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>

namespace viz {
namespace {

constexpr float kMinZoom = 0.002f;
constexpr float kMaxZoom = 8.0f;
constexpr float kWheelStep = 1.2f;
/// Below this zoom a 13 px font would be under 6.5 px: unreadable, and text is most of the vertices.
constexpr float kTextZoom = 0.5f;
constexpr float kCurveZoom = 0.6f;
constexpr float kArrowZoom = 0.35f;
/// Below this zoom an edge's curvature spans a pixel or two: one straight segment looks the same.
constexpr float kStraightEdgeZoom = 0.15f;
constexpr float kBorderZoom = 0.25f;
constexpr float kReadableZoom = 1.0f;
/// Below this zoom boxes are a pixel or two high: groups' outlines carry the picture, boxes are left out.
constexpr float kOutlineZoom = 0.06f;
constexpr float kMinimapWidth = 160.0f;
constexpr int kMinimapCells = 48;
constexpr float kFontPoints = 13.0f;
constexpr float kLinePoints = 14.0f;

constexpr ImU32 kCanvasFrame = IM_COL32(70, 72, 80, 255);
constexpr ImU32 kEdgeColour = IM_COL32(150, 152, 160, 210);
constexpr ImU32 kEdgeSelected = IM_COL32(95, 170, 255, 255);
constexpr ImU32 kNodeBorder = IM_COL32(60, 60, 64, 255);
constexpr ImU32 kNodeText = IM_COL32(22, 22, 24, 255);
constexpr ImU32 kSelectedBorder = IM_COL32(60, 140, 255, 255);
constexpr ImU32 kMatchBorder = IM_COL32(255, 150, 40, 255);
constexpr ImU32 kClusterBorder = IM_COL32(120, 120, 130, 255);
constexpr ImU32 kClusterText = IM_COL32(40, 40, 46, 255);
constexpr ImU32 kClusterTextOnCanvas = IM_COL32(200, 202, 212, 255);
constexpr ImU32 kMinimapBackground = IM_COL32(30, 32, 38, 200);
constexpr ImU32 kMinimapContent = IM_COL32(150, 155, 170, 255);
constexpr ImU32 kMinimapView = IM_COL32(95, 170, 255, 255);

ImU32 colourOf(uint32_t rgb) { return IM_COL32((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff, 255); }

ImU32 darker(uint32_t rgb) {
    auto channel = [&](int shift) { return static_cast<int>(((rgb >> shift) & 0xff) * 3 / 4); };
    return IM_COL32(channel(16), channel(8), channel(0), 255);
}

}  // namespace

void GraphCanvas::setScene(GraphScene scene) {
    bool sameLayout = scene.layout == scene_.layout;
    scene_ = std::move(scene);
    if (sameLayout) return;
    highlighted_.assign(scene_.nodes.size(), false);
    marks_.clear();
    markedNodes_.clear();
    if (!scene_.layout) return;
    const GraphLayout& layout = *scene_.layout;
    nodeGrid_.build(layout.nodes, suggestedCellSize(layout.bounds, layout.nodes.size()));
    std::vector<Rect> edgeBounds;
    edgeBounds.reserve(layout.edges.size());
    for (const EdgePath& edge : layout.edges) edgeBounds.push_back(edge.bounds);
    edgeGrid_.build(edgeBounds, suggestedCellSize(layout.bounds, layout.nodes.size()));
    buildMinimap();
    fitPending_ = viewRestored_ ? Fit::None : Fit::Start;
    viewRestored_ = false;
}

void GraphCanvas::restoreView(CanvasView view) {
    centre_ = view.centre;
    zoom_ = view.zoom;
    fitPending_ = Fit::None;
    viewRestored_ = true;
}

void GraphCanvas::buildMinimap() {
    minimapCells_.clear();
    const GraphLayout& layout = *scene_.layout;
    float cell = std::max(std::max(layout.bounds.width(), layout.bounds.height()) / kMinimapCells, 1.0f);
    std::vector<bool> occupied(static_cast<size_t>(kMinimapCells + 1) * (kMinimapCells + 1), false);
    for (const Rect& node : layout.nodes) {
        Point centre = node.centre();
        int x = std::clamp(static_cast<int>((centre.x - layout.bounds.minX) / cell), 0, kMinimapCells);
        int y = std::clamp(static_cast<int>((centre.y - layout.bounds.minY) / cell), 0, kMinimapCells);
        size_t slot = static_cast<size_t>(y) * (kMinimapCells + 1) + static_cast<size_t>(x);
        if (occupied[slot]) continue;
        occupied[slot] = true;
        float minX = layout.bounds.minX + static_cast<float>(x) * cell;
        float minY = layout.bounds.minY + static_cast<float>(y) * cell;
        minimapCells_.push_back({minX, minY, minX + cell, minY + cell});
    }
}

void GraphCanvas::centerOn(int node) { centerPending_ = node; }

void GraphCanvas::setHighlighted(std::vector<int> nodes) {
    highlighted_.assign(scene_.nodes.size(), false);
    for (int node : nodes)
        if (node >= 0 && static_cast<size_t>(node) < highlighted_.size()) highlighted_[static_cast<size_t>(node)] = true;
}

void GraphCanvas::setMarks(std::vector<uint32_t> marks) {
    marks_ = std::move(marks);
    markedNodes_.clear();
    for (size_t i = 0; i < marks_.size(); ++i)
        if (marks_[i] != 0) markedNodes_.push_back(static_cast<int>(i));
}

ImVec2 GraphCanvas::toScreen(Point p) const {
    return ImVec2(origin_.x + size_.x * 0.5f + (p.x - centre_.x) * zoom_,
                  origin_.y + size_.y * 0.5f + (p.y - centre_.y) * zoom_);
}

Point GraphCanvas::toGraph(ImVec2 p) const {
    return {centre_.x + (p.x - origin_.x - size_.x * 0.5f) / zoom_, centre_.y + (p.y - origin_.y - size_.y * 0.5f) / zoom_};
}

void GraphCanvas::applyPendingView() {
    if (!scene_.layout || size_.x <= 1 || size_.y <= 1) return;
    const GraphLayout& layout = *scene_.layout;
    if (fitPending_ != Fit::None) {
        float width = std::max(layout.bounds.width(), 1.0f);
        float height = std::max(layout.bounds.height(), 1.0f);
        zoom_ = std::clamp(std::min(size_.x / width, size_.y / height) * 0.95f, kMinZoom, kReadableZoom * 1.5f * pixelScale_);
        centre_ = layout.bounds.centre();
        float legible = kLegiblePixels / kFontPoints * pixelScale_;
        if (fitPending_ == Fit::Start && zoom_ < legible && !layout.nodes.empty()) {
            // Fitted, the labels would be specks: open at a legible zoom on the graph's start (its inputs, on
            // top). Where the graph is wider than the view, centre on the nodes of that first screenful.
            zoom_ = legible;
            float halfWidth = size_.x * 0.5f / zoom_;
            float halfHeight = size_.y * 0.5f / zoom_;
            if (layout.bounds.height() > 2 * halfHeight) centre_.y = layout.bounds.minY + halfHeight - 12.0f / zoom_;
            if (layout.bounds.width() > 2 * halfWidth) {
                // The view's width of that first screenful that holds the most nodes.
                std::vector<float> xs;
                for (const Rect& node : layout.nodes)
                    if (node.minY <= centre_.y + halfHeight) xs.push_back(node.centre().x);
                std::sort(xs.begin(), xs.end());
                size_t bestFirst = 0, bestLast = 0;
                for (size_t first = 0, last = 0; first < xs.size(); ++first) {
                    last = std::max(last, first);
                    while (last + 1 < xs.size() && xs[last + 1] - xs[first] <= 1.8f * halfWidth) ++last;
                    if (last - first > bestLast - bestFirst) {
                        bestFirst = first;
                        bestLast = last;
                    }
                }
                float x = xs.empty() ? centre_.x : (xs[bestFirst] + xs[bestLast]) * 0.5f;
                centre_.x = std::clamp(x, layout.bounds.minX + halfWidth, layout.bounds.maxX - halfWidth);
            }
        }
        fitPending_ = Fit::None;
        placeMinimap();
    }
    if (centerPending_ >= 0 && static_cast<size_t>(centerPending_) < layout.nodes.size()) {
        centre_ = layout.nodes[static_cast<size_t>(centerPending_)].centre();
        zoom_ = std::max(zoom_, kReadableZoom * pixelScale_);
    }
    centerPending_ = -1;
    if (clusterPending_ >= 0 && static_cast<size_t>(clusterPending_) < layout.clusters.size()) {
        const Rect& cluster = layout.clusters[static_cast<size_t>(clusterPending_)];
        centre_ = cluster.centre();
        float fitting = std::min(size_.x / std::max(cluster.width(), 1.0f), size_.y / std::max(cluster.height(), 1.0f));
        zoom_ = std::clamp(fitting * 0.9f, kMinZoom, kReadableZoom * 1.5f * pixelScale_);
    }
    clusterPending_ = -1;
}

int GraphCanvas::nodeAt(Point p) const {
    std::vector<int> hits;
    nodeGrid_.query({p.x, p.y, p.x, p.y}, hits);
    return hits.empty() ? -1 : hits.back();
}

int GraphCanvas::clusterAt(Point p) const {
    if (!scene_.layout) return -1;
    int best = -1;
    float bestArea = FLT_MAX;
    const std::vector<Rect>& clusters = scene_.layout->clusters;
    for (size_t i = 0; i < clusters.size(); ++i) {
        float area = clusters[i].width() * clusters[i].height();
        if (clusters[i].contains(p) && area < bestArea) {
            best = static_cast<int>(i);
            bestArea = area;
        }
    }
    return best;
}

void GraphCanvas::handleInput(CanvasEvents& events, bool hovered) {
    ImGuiIO& io = ImGui::GetIO();
    if (handleMinimap()) return;
    bool active = ImGui::IsItemActive();
    if (active && (ImGui::IsMouseDragging(ImGuiMouseButton_Left) || ImGui::IsMouseDragging(ImGuiMouseButton_Right) ||
                   ImGui::IsMouseDragging(ImGuiMouseButton_Middle))) {
        dragged_ = true;
        centre_.x -= io.MouseDelta.x / zoom_;
        centre_.y -= io.MouseDelta.y / zoom_;
    }
    Point mouse = toGraph(io.MousePos);
    if (ImGui::IsItemDeactivated()) {
        if (!dragged_ && ImGui::IsMouseReleased(ImGuiMouseButton_Left)) {
            events.clickedNode = nodeAt(mouse);
            if (events.clickedNode < 0) events.clickedCluster = clusterAt(mouse);
        }
        dragged_ = false;
    }
    if (!hovered) return;
    events.hoveredNode = nodeAt(mouse);
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        events.doubleClickedNode = events.hoveredNode;
        if (events.hoveredNode < 0) events.doubleClickedCluster = clusterAt(mouse);
    }
    if (io.MouseWheel != 0.0f) {
        float zoom = std::clamp(zoom_ * std::pow(kWheelStep, io.MouseWheel), kMinZoom, kMaxZoom * pixelScale_);
        // Keep the graph point under the cursor where it is.
        centre_.x = mouse.x - (io.MousePos.x - origin_.x - size_.x * 0.5f) / zoom;
        centre_.y = mouse.y - (io.MousePos.y - origin_.y - size_.y * 0.5f) / zoom;
        zoom_ = zoom;
    }
    // Dear ImGui 1.86 indexes keys by the backend's key codes; GLFW's letter codes are their ASCII capitals.
    if (!io.WantTextInput && ImGui::IsKeyPressed('F', false)) fitPending_ = Fit::Whole;
}

void GraphCanvas::handleKeys(CanvasEvents& events) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || !ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) return;
    auto pressed = [](ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); };
    // Dear ImGui 1.86 indexes keys by GLFW's codes, and GLFW's code for '/' is its ASCII.
    if (ImGui::IsKeyPressed('/', false)) events.searchRequested = true;
    int dx = pressed(ImGuiKey_RightArrow) - pressed(ImGuiKey_LeftArrow);
    int dy = pressed(ImGuiKey_DownArrow) - pressed(ImGuiKey_UpArrow);
    if (dx != 0 || dy != 0) {
        int target = neighbour(selectedNode_, dx, dy);
        if (target >= 0) {
            events.clickedNode = target;
            selectedNode_ = target;
            // Follow the selection without jumping the zoom: centre only when it leaves the view.
            const Rect& box = scene_.layout->nodes[static_cast<size_t>(target)];
            Point min = toGraph(origin_);
            Point max = toGraph(ImVec2(origin_.x + size_.x, origin_.y + size_.y));
            if (box.minX < min.x || box.maxX > max.x || box.minY < min.y || box.maxY > max.y) centre_ = box.centre();
        }
    }
    if (selectedNode_ < 0) return;
    if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) events.doubleClickedNode = selectedNode_;
    if (pressed(ImGuiKey_Escape) || pressed(ImGuiKey_Backspace)) events.collapseRequested = selectedNode_;
}

int GraphCanvas::neighbour(int node, int dx, int dy) const {
    const std::vector<Rect>& nodes = scene_.layout->nodes;
    if (nodes.empty()) return -1;
    if (node < 0 || static_cast<size_t>(node) >= nodes.size()) {
        // Nothing selected yet: start from the node nearest the middle of the view.
        int best = -1;
        float bestDistance = FLT_MAX;
        for (size_t i = 0; i < nodes.size(); ++i) {
            Point c = nodes[i].centre();
            float distance = std::fabs(c.x - centre_.x) + std::fabs(c.y - centre_.y);
            if (distance < bestDistance) {
                bestDistance = distance;
                best = static_cast<int>(i);
            }
        }
        return best;
    }
    Point from = nodes[static_cast<size_t>(node)].centre();
    int best = -1;
    float bestScore = FLT_MAX;
    auto consider = [&](int candidate, float weightAcross) {
        if (candidate == node || candidate < 0 || static_cast<size_t>(candidate) >= nodes.size()) return;
        Point to = nodes[static_cast<size_t>(candidate)].centre();
        float along = dy != 0 ? (to.y - from.y) * static_cast<float>(dy) : (to.x - from.x) * static_cast<float>(dx);
        float across = dy != 0 ? std::fabs(to.x - from.x) : std::fabs(to.y - from.y);
        if (along <= 0.5f) return;
        float score = along + weightAcross * across;
        if (score < bestScore) {
            bestScore = score;
            best = candidate;
        }
    };
    if (dy != 0) {
        // Down follows the node's users, up its inputs: the one most nearly straight that way.
        for (const LayoutEdge& edge : scene_.edges) {
            if (dy > 0 && edge.from == node) consider(edge.to, 2.0f);
            if (dy < 0 && edge.to == node) consider(edge.from, 2.0f);
        }
        if (best >= 0) return best;
    }
    // Left and right stay in the row; without an edge that way, the nearest node in that direction.
    for (size_t i = 0; i < nodes.size(); ++i) consider(static_cast<int>(i), 4.0f);
    return best;
}

CanvasEvents GraphCanvas::draw(const char* id, ImVec2 size) {
    auto started = std::chrono::steady_clock::now();
    CanvasEvents events;
    stats_ = {};
    origin_ = ImGui::GetCursorScreenPos();
    ImVec2 available = ImGui::GetContentRegionAvail();
    size_ = ImVec2(size.x > 0 ? size.x : std::max(available.x, 50.0f), size.y > 0 ? size.y : std::max(available.y, 50.0f));
    ImGui::InvisibleButton(id, size_, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonRight |
                                          ImGuiButtonFlags_MouseButtonMiddle);
    bool hovered = ImGui::IsItemHovered();
    applyPendingView();
    if (scene_.layout) {
        handleInput(events, hovered);
        handleKeys(events);
    }

    ImDrawList& list = *ImGui::GetWindowDrawList();
    ImVec2 end(origin_.x + size_.x, origin_.y + size_.y);
    // No background fill: on a software renderer every covered pixel costs, and the window's own background
    // is already there. A frame shows where the canvas is.
    list.AddRect(origin_, end, kCanvasFrame);
    if (!scene_.layout) return events;
    list.PushClipRect(origin_, end, true);
    Point topLeft = toGraph(origin_);
    Point bottomRight = toGraph(end);
    Rect visible{topLeft.x, topLeft.y, bottomRight.x, bottomRight.y};

    // Anti-aliased lines cost twice the triangles; far away nobody sees the difference.
    ImDrawListFlags savedFlags = list.Flags;
    if (zoom_ < kCurveZoom) list.Flags &= ~ImDrawListFlags_AntiAliasedLines;
    drawClusters(list, visible);
    drawEdges(list, visible);
    drawNodes(list, visible);
    list.Flags = savedFlags;
    drawMinimap(list, visible);
    list.PopClipRect();
    if (events.hoveredNode >= 0 && !stats_.labelsDrawn) drawTooltip(events.hoveredNode);
    stats_.drawMilliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return events;
}

void GraphCanvas::drawClusters(ImDrawList& list, const Rect& visible) {
    const std::vector<Rect>& clusters = scene_.layout->clusters;
    for (size_t i = 0; i < clusters.size(); ++i) {
        if (!clusters[i].overlaps(visible)) continue;
        ImVec2 min = toScreen({clusters[i].minX, clusters[i].minY});
        ImVec2 max = toScreen({clusters[i].maxX, clusters[i].maxY});
        uint32_t fill = i < scene_.clusters.size() ? scene_.clusters[i].fill : 0xf0f0f0;
        bool selected = static_cast<int>(i) == selectedCluster_;
        bool outlineOnly = i < scene_.clusters.size() && scene_.clusters[i].outlineOnly;
        if (!outlineOnly) list.AddRectFilled(min, max, colourOf(fill), 6.0f * std::min(zoom_, 1.0f));
        list.AddRect(min, max, selected ? kSelectedBorder : kClusterBorder, 6.0f * std::min(zoom_, 1.0f), 0,
                     selected ? 3.0f : 1.0f);
        if (zoom_ >= kTextZoom * 0.7f * pixelScale_ && i < scene_.clusters.size()) {
            const std::string& label = scene_.clusters[i].label;
            ImVec4 clip(min.x, min.y, max.x, max.y);
            // A group wider than the view keeps its label in view: drawn at the group's left edge, off-screen,
            // only the label's end showed ("(9 nodes)" of ResNet's "bn1  (9 nodes)"). It slides right with the
            // view's left edge, as far as the group's right edge allows.
            float pad = 6.0f * zoom_;
            float textWidth = ImGui::GetFont()->CalcTextSizeA(kFontPoints * zoom_, FLT_MAX, 0.0f, label.c_str(),
                                                              label.c_str() + label.size()).x;
            float x = std::max(min.x + pad, std::min(origin_.x + pad, max.x - pad - textWidth));
            bool onCanvas = i < scene_.clusters.size() && scene_.clusters[i].onCanvas;
            list.AddText(ImGui::GetFont(), kFontPoints * zoom_, ImVec2(x, min.y + 3.0f * zoom_),
                         onCanvas ? kClusterTextOnCanvas : kClusterText,
                         label.c_str(), label.c_str() + label.size(), 0.0f, &clip);
            if (kFontPoints * zoom_ >= kLegiblePixels) ++stats_.legibleLabels;
        }
        ++stats_.clustersDrawn;
    }
}

void GraphCanvas::drawEdges(ImDrawList& list, const Rect& visible) {
    const GraphLayout& layout = *scene_.layout;
    visibleScratch_.clear();
    edgeGrid_.query(visible, visibleScratch_);
    bool curves = zoom_ >= kCurveZoom;
    bool arrows = zoom_ >= kArrowZoom;
    float thickness = std::clamp(zoom_, 1.0f, 2.0f);
    std::vector<ImVec2> polyline;
    for (int index : visibleScratch_) {
        const EdgePath& edge = layout.edges[static_cast<size_t>(index)];
        if (edge.points.size() < 2) continue;
        ImU32 colour = kEdgeColour;
        float width = thickness;
        bool ofSelected = selectedNode_ >= 0 && static_cast<size_t>(index) < scene_.edges.size() &&
                          (scene_.edges[static_cast<size_t>(index)].from == selectedNode_ ||
                           scene_.edges[static_cast<size_t>(index)].to == selectedNode_);
        if (ofSelected) {  // the edges the user follows from the selected node
            colour = kEdgeSelected;
            width = thickness * 2.0f;
        }
        if (curves) {
            for (size_t i = 0; i + 3 < edge.points.size(); i += 3)
                list.AddBezierCubic(toScreen(edge.points[i]), toScreen(edge.points[i + 1]), toScreen(edge.points[i + 2]),
                                    toScreen(edge.points[i + 3]), colour, width, 12);
        } else if (zoom_ >= kStraightEdgeZoom) {
            polyline.clear();
            for (const Point& p : edge.points) polyline.push_back(toScreen(p));
            list.AddPolyline(polyline.data(), static_cast<int>(polyline.size()), colour, 0, width);
        } else {
            list.AddLine(toScreen(edge.points.front()), toScreen(edge.hasArrow ? edge.arrowTip : edge.points.back()),
                         colour, width);
        }
        if (arrows && edge.hasArrow) {
            ImVec2 base = toScreen(edge.points.back());
            ImVec2 tip = toScreen(edge.arrowTip);
            ImVec2 direction(tip.x - base.x, tip.y - base.y);
            if (std::fabs(direction.x) + std::fabs(direction.y) > 0.5f) {
                ImVec2 normal(-direction.y * 0.45f, direction.x * 0.45f);
                list.AddTriangleFilled(tip, ImVec2(base.x + normal.x, base.y + normal.y),
                                       ImVec2(base.x - normal.x, base.y - normal.y), colour);
            }
        }
        ++stats_.edgesDrawn;
    }
    stats_.curvesDrawn = curves;
}

void GraphCanvas::drawNodes(ImDrawList& list, const Rect& visible) {
    const GraphLayout& layout = *scene_.layout;
    visibleScratch_.clear();
    nodeGrid_.query(visible, visibleScratch_);
    if (zoom_ < kOutlineZoom * pixelScale_ && !scene_.clusters.empty()) return;
    bool borders = zoom_ >= kBorderZoom;
    bool text = zoom_ >= kTextZoom * pixelScale_;
    bool legible = kFontPoints * zoom_ >= kLegiblePixels;
    float rounding = text ? 4.0f * zoom_ : 0.0f;
    for (int index : visibleScratch_) {
        size_t i = static_cast<size_t>(index);
        const Rect& box = layout.nodes[i];
        ImVec2 min = toScreen({box.minX, box.minY});
        ImVec2 max = toScreen({box.maxX, box.maxY});
        uint32_t fill = i < scene_.nodes.size() ? scene_.nodes[i].fill : 0xeeeeee;
        if (i < scene_.nodes.size() && scene_.nodes[i].folded) {
            float offset = std::max(3.0f * zoom_, 1.0f);
            list.AddRectFilled(ImVec2(min.x + offset, min.y - offset), ImVec2(max.x + offset, max.y - offset), darker(fill),
                               rounding);
        }
        list.AddRectFilled(min, max, colourOf(fill), rounding);
        if (i < scene_.nodes.size() && !scene_.nodes[i].swatches.empty()) drawSwatches(list, scene_.nodes[i].swatches, min, max);
        bool selected = index == selectedNode_;
        bool matched = i < highlighted_.size() && highlighted_[i];
        uint32_t mark = i < marks_.size() ? marks_[i] : 0;
        if (selected || matched) {
            float grow = 2.0f;
            list.AddRect(ImVec2(min.x - grow, min.y - grow), ImVec2(max.x + grow, max.y + grow),
                         selected ? kSelectedBorder : kMatchBorder, rounding, 0, 3.0f);
        } else if (mark != 0) {
            float grow = std::max(3.0f * zoom_, 1.5f);
            list.AddRect(ImVec2(min.x - grow, min.y - grow), ImVec2(max.x + grow, max.y + grow), colourOf(mark), rounding,
                         0, std::max(3.0f * zoom_, 2.0f));
        } else if (borders) {
            list.AddRect(min, max, kNodeBorder, rounding);
        }
        if (text) drawNodeText(list, index, min, max);
        if (text && legible) ++stats_.legibleLabels;
        ++stats_.nodesDrawn;
    }
    stats_.labelsDrawn = text;
}

void GraphCanvas::drawSwatches(ImDrawList& list, const std::vector<uint32_t>& swatches, ImVec2 min, ImVec2 max) {
    float inset = std::max(2.0f * zoom_, 1.0f);
    float bottom = max.y - inset;
    float top = bottom - std::max((kSwatchStripPoints - 2.0f) * zoom_, 1.0f);
    float left = min.x + inset;
    float width = (max.x - min.x - 2 * inset) / static_cast<float>(swatches.size());
    for (size_t k = 0; k < swatches.size(); ++k) {
        float x = left + width * static_cast<float>(k);
        list.AddRectFilled(ImVec2(x, top), ImVec2(x + width, bottom), colourOf(swatches[k]));
    }
}

void GraphCanvas::drawNodeText(ImDrawList& list, int node, ImVec2 min, ImVec2 max) {
    if (static_cast<size_t>(node) >= scene_.nodes.size()) return;
    const std::vector<std::string>& lines = scene_.nodes[static_cast<size_t>(node)].lines;
    ImFont* font = ImGui::GetFont();
    float fontSize = kFontPoints * zoom_;
    float lineHeight = kLinePoints * zoom_;
    if (!scene_.nodes[static_cast<size_t>(node)].swatches.empty()) max.y -= kSwatchStripPoints * zoom_;
    float top = (min.y + max.y) * 0.5f - lineHeight * static_cast<float>(lines.size()) * 0.5f;
    ImVec4 clip(min.x + 1, min.y + 1, max.x - 1, max.y - 1);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        float width = font->CalcTextSizeA(fontSize, FLT_MAX, 0.0f, line.c_str(), line.c_str() + line.size()).x;
        float left = std::max(min.x + 3.0f * zoom_, (min.x + max.x - width) * 0.5f);
        list.AddText(font, fontSize, ImVec2(left, top + lineHeight * static_cast<float>(i)), kNodeText, line.c_str(),
                     line.c_str() + line.size(), 0.0f, &clip);
    }
}

void GraphCanvas::drawTooltip(int node) const {
    if (static_cast<size_t>(node) >= scene_.nodes.size()) return;
    ImGui::BeginTooltip();
    for (const std::string& line : scene_.nodes[static_cast<size_t>(node)].lines) ImGui::TextUnformatted(line.c_str());
    ImGui::EndTooltip();
}

Rect GraphCanvas::minimapRect() const {
    const Rect& bounds = scene_.layout->bounds;
    float width = std::max(bounds.width(), 1.0f);
    float height = std::max(bounds.height(), 1.0f);
    if (width * zoom_ <= size_.x && height * zoom_ <= size_.y) return {};  // all of it is in view
    float side = std::min(kMinimapWidth * pixelScale_, std::min(size_.x, size_.y) * 0.3f);
    float scale = std::min(side / width, side / height);
    float margin = 8.0f * pixelScale_;
    float maxY = origin_.y + size_.y - margin;
    if (minimapOnLeft_) {
        float minX = origin_.x + margin;
        return {minX, maxY - height * scale, minX + width * scale, maxY};
    }
    float maxX = origin_.x + size_.x - margin;
    return {maxX - width * scale, maxY - height * scale, maxX, maxY};
}

void GraphCanvas::placeMinimap() {
    // In the bottom corner that covers fewer of the nodes in view.
    minimapOnLeft_ = false;
    Rect right = minimapRect();
    if (right.width() <= 0) return;
    minimapOnLeft_ = true;
    Rect left = minimapRect();
    auto nodesUnder = [&](const Rect& screen) {
        Point min = toGraph(ImVec2(screen.minX, screen.minY));
        Point max = toGraph(ImVec2(screen.maxX, screen.maxY));
        visibleScratch_.clear();
        nodeGrid_.query({min.x, min.y, max.x, max.y}, visibleScratch_);
        return visibleScratch_.size();
    };
    minimapOnLeft_ = nodesUnder(left) < nodesUnder(right);
}

bool GraphCanvas::handleMinimap() {
    Rect map = minimapRect();
    ImGuiIO& io = ImGui::GetIO();
    if (map.width() <= 0) {
        minimapDragging_ = false;
        return false;
    }
    if (ImGui::IsItemActivated() && map.contains({io.MousePos.x, io.MousePos.y})) minimapDragging_ = true;
    if (!minimapDragging_) return false;
    if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) {
        minimapDragging_ = false;
        return true;
    }
    // The view's centre follows the mouse over the map.
    const Rect& bounds = scene_.layout->bounds;
    float scale = map.width() / std::max(bounds.width(), 1.0f);
    centre_.x = bounds.minX + (std::clamp(io.MousePos.x, map.minX, map.maxX) - map.minX) / scale;
    centre_.y = bounds.minY + (std::clamp(io.MousePos.y, map.minY, map.maxY) - map.minY) / scale;
    return true;
}

void GraphCanvas::drawMinimap(ImDrawList& list, const Rect& visible) {
    Rect map = minimapRect();
    if (map.width() <= 0) return;
    const Rect& bounds = scene_.layout->bounds;
    float scale = map.width() / std::max(bounds.width(), 1.0f);
    auto toMap = [&](float x, float y) { return ImVec2(map.minX + (x - bounds.minX) * scale, map.minY + (y - bounds.minY) * scale); };
    float pad = 3.0f;
    list.AddRectFilled(ImVec2(map.minX - pad, map.minY - pad), ImVec2(map.maxX + pad, map.maxY + pad), kMinimapBackground, 3.0f);
    for (const Rect& cell : minimapCells_)
        list.AddRectFilled(toMap(cell.minX, cell.minY), toMap(cell.maxX, cell.maxY), kMinimapContent);
    for (int node : markedNodes_) {
        if (static_cast<size_t>(node) >= scene_.layout->nodes.size()) continue;
        Point centre = scene_.layout->nodes[static_cast<size_t>(node)].centre();
        ImVec2 at = toMap(centre.x, centre.y);
        list.AddRectFilled(ImVec2(at.x - 2, at.y - 2), ImVec2(at.x + 2, at.y + 2), colourOf(marks_[static_cast<size_t>(node)]));
    }
    ImVec2 viewMin = toMap(std::max(visible.minX, bounds.minX), std::max(visible.minY, bounds.minY));
    ImVec2 viewMax = toMap(std::min(visible.maxX, bounds.maxX), std::min(visible.maxY, bounds.maxY));
    list.AddRect(viewMin, ImVec2(std::max(viewMax.x, viewMin.x + 2), std::max(viewMax.y, viewMin.y + 2)), kMinimapView, 0, 0, 1.5f);
    stats_.minimapDrawn = true;
}

}  // namespace viz
