// Tests for the graph canvas without a window: Dear ImGui runs headless (no renderer), and the canvas's frame
// statistics and events show its culling, level of detail and picking.
#include "draw/graph_canvas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

namespace viz {
namespace {

/// A 50 x 40 grid of 60 x 30 boxes, each with an edge to the box below it.
GraphScene gridScene() {
    auto layout = std::make_shared<GraphLayout>();
    constexpr int kColumns = 50;
    constexpr int kRows = 40;
    GraphScene scene;
    for (int row = 0; row < kRows; ++row)
        for (int column = 0; column < kColumns; ++column) {
            float x = column * 100.0f, y = row * 80.0f;
            layout->nodes.push_back({x, y, x + 60, y + 30});
            scene.nodes.push_back({{"node" + std::to_string(layout->nodes.size() - 1), "aten.mul.Tensor"}, 0xfff2cc, false});
        }
    for (int i = 0; i + kColumns < static_cast<int>(layout->nodes.size()); ++i) {
        Point from = layout->nodes[static_cast<size_t>(i)].centre();
        Point to = layout->nodes[static_cast<size_t>(i + kColumns)].centre();
        EdgePath edge;
        edge.points = {{from.x, from.y + 15}, {from.x, from.y + 30}, {to.x, to.y - 35}, {to.x, to.y - 20}};
        edge.hasArrow = true;
        edge.arrowTip = {to.x, to.y - 15};
        edge.bounds = Rect::around({edge.points.front(), edge.arrowTip});
        layout->edges.push_back(edge);
        scene.edges.push_back({i, i + kColumns, 1});
    }
    layout->bounds = {0, 0, (kColumns - 1) * 100.0f + 60, (kRows - 1) * 80.0f + 30};
    scene.layout = layout;
    return scene;
}

class HeadlessImGui : public ::testing::Test {
protected:
    void SetUp() override {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = ImVec2(1000, 700);
        io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
        unsigned char* pixels = nullptr;
        int width = 0, height = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
    }
    void TearDown() override { ImGui::DestroyContext(); }

    CanvasEvents frame(GraphCanvas& canvas) {
        ImGuiIO& io = ImGui::GetIO();
        io.DeltaTime = 1.0f / 60.0f;
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("canvas", nullptr, ImGuiWindowFlags_NoDecoration);
        CanvasEvents events = canvas.draw("graph");
        ImGui::End();
        ImGui::Render();
        return events;
    }
};

TEST_F(HeadlessImGui, OpensLegibleAtTheStartAndFitShowsEverythingWithoutText) {
    GraphCanvas canvas;
    canvas.setScene(gridScene());
    frame(canvas);
    // Fitted, 2,000 boxes would be specks: the first view is the graph's top at a legible zoom, with a minimap.
    EXPECT_GE(canvas.zoom() * 13.0f, kLegiblePixels);
    const CanvasFrameStats& first = canvas.lastFrame();
    EXPECT_TRUE(first.labelsDrawn);
    EXPECT_GT(first.legibleLabels, 20);
    EXPECT_LT(first.nodesDrawn, 400);
    EXPECT_TRUE(first.minimapDrawn);
    EXPECT_LT(canvas.screenOf(canvas.scene().layout->nodes[25].centre()).y, 60.0f);  // the top row, on top

    canvas.fit();
    frame(canvas);
    EXPECT_LT(canvas.zoom(), 0.5f);
    EXPECT_EQ(canvas.lastFrame().nodesDrawn, 2000);
    EXPECT_EQ(canvas.lastFrame().edgesDrawn, 1950);
    EXPECT_FALSE(canvas.lastFrame().labelsDrawn);
    EXPECT_EQ(canvas.lastFrame().legibleLabels, 0);
    EXPECT_FALSE(canvas.lastFrame().curvesDrawn);
    EXPECT_FALSE(canvas.lastFrame().minimapDrawn);  // all of it is in view
}

TEST_F(HeadlessImGui, CloseUpDrawsOnlyWhatIsInViewWithText) {
    GraphCanvas canvas;
    canvas.setScene(gridScene());
    frame(canvas);
    canvas.centerOn(1025);  // middle of the grid
    frame(canvas);
    EXPECT_GE(canvas.zoom(), 1.0f);
    const CanvasFrameStats& stats = canvas.lastFrame();
    EXPECT_GT(stats.nodesDrawn, 0);
    EXPECT_LT(stats.nodesDrawn, 200);
    EXPECT_TRUE(stats.labelsDrawn);
    EXPECT_TRUE(stats.curvesDrawn);
    ImVec2 centre = canvas.screenOf(canvas.scene().layout->nodes[1025].centre());
    EXPECT_NEAR(centre.x, 500.0f, 20.0f);  // the window's padding moves the canvas a little
    EXPECT_NEAR(centre.y, 350.0f, 20.0f);
}

TEST_F(HeadlessImGui, CentringOnANodeZoomsInToTheScaledReadableZoom) {
    GraphCanvas normal;
    normal.setScene(gridScene());
    frame(normal);
    normal.centerOn(1025);
    frame(normal);
    GraphCanvas hidpi;
    hidpi.setPixelScale(2.0f);
    hidpi.setScene(gridScene());
    frame(hidpi);
    hidpi.centerOn(1025);
    frame(hidpi);
    // Centring zooms in to a readable scale: twice the screen pixels on a 2x screen.
    EXPECT_FLOAT_EQ(hidpi.zoom(), 2.0f * normal.zoom());
    EXPECT_TRUE(hidpi.lastFrame().labelsDrawn);
}

TEST_F(HeadlessImGui, FittingASmallGraphStopsAtTheScaledLargestZoom) {
    auto layout = std::make_shared<GraphLayout>();
    layout->nodes.push_back({0, 0, 60, 30});
    layout->bounds = {0, 0, 60, 30};
    GraphScene scene;
    scene.nodes.push_back({{"x", "placeholder"}, 0xcfe2f3, false});
    scene.layout = layout;
    GraphCanvas normal;
    normal.setScene(scene);
    frame(normal);
    GraphCanvas hidpi;
    hidpi.setPixelScale(2.0f);
    hidpi.setScene(scene);
    frame(hidpi);
    // One small node would fill the canvas; the fit stops at 1.5 logical pixels per point on either screen.
    EXPECT_FLOAT_EQ(normal.zoom(), 1.5f);
    EXPECT_FLOAT_EQ(hidpi.zoom(), 3.0f);
}

TEST_F(HeadlessImGui, ClickSelectsTheNodeUnderTheMouse) {
    GraphCanvas canvas;
    canvas.setScene(gridScene());
    canvas.centerOn(1025);
    frame(canvas);
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = canvas.screenOf(canvas.scene().layout->nodes[1026].centre());
    EXPECT_EQ(frame(canvas).hoveredNode, 1026);
    io.MouseDown[0] = true;
    frame(canvas);
    io.MouseDown[0] = false;
    CanvasEvents events = frame(canvas);
    EXPECT_EQ(events.clickedNode, 1026);

    // Dragging pans instead of clicking.
    ImVec2 before = canvas.screenOf({0, 0});
    io.MouseDown[0] = true;
    frame(canvas);
    for (int step = 1; step <= 5; ++step) {
        io.MousePos.x += 20;
        frame(canvas);
    }
    io.MouseDown[0] = false;
    events = frame(canvas);
    EXPECT_EQ(events.clickedNode, -1);
    EXPECT_GT(canvas.screenOf({0, 0}).x, before.x + 50);
}

TEST_F(HeadlessImGui, WheelZoomsAroundTheCursor) {
    GraphCanvas canvas;
    canvas.setScene(gridScene());
    canvas.fit();
    frame(canvas);
    ImGuiIO& io = ImGui::GetIO();
    Point target = canvas.scene().layout->nodes[300].centre();
    io.MousePos = canvas.screenOf(target);
    float zoom = canvas.zoom();
    io.MouseWheel = 2.0f;
    frame(canvas);
    io.MouseWheel = 0.0f;
    EXPECT_GT(canvas.zoom(), zoom * 1.3f);
    ImVec2 after = canvas.screenOf(target);
    EXPECT_NEAR(after.x, io.MousePos.x, 1.0f);
    EXPECT_NEAR(after.y, io.MousePos.y, 1.0f);
}

/// Holds `imguiKey` down (mapped to the backend's code `code`, as the GLFW backend maps it) for one frame.
CanvasEvents pressKey(GraphCanvas& canvas, int code, const std::function<CanvasEvents(GraphCanvas&)>& frame,
                      int imguiKey = -1) {
    ImGuiIO& io = ImGui::GetIO();
    if (imguiKey >= 0) io.KeyMap[imguiKey] = code;
    io.KeysDown[code] = true;
    CanvasEvents events = frame(canvas);
    io.KeysDown[code] = false;
    frame(canvas);
    return events;
}

TEST_F(HeadlessImGui, ArrowsMoveAlongEdgesAndRowsEnterOpensEscClosesSlashSearches) {
    GraphCanvas canvas;
    canvas.setScene(gridScene());
    auto draw = [this](GraphCanvas& c) { return frame(c); };
    frame(canvas);
    canvas.setSelectedNode(1025);
    // GLFW's codes: Down 264, Right 262, Enter 257, Escape 256, '/' 47.
    EXPECT_EQ(pressKey(canvas, 264, draw, ImGuiKey_DownArrow).clickedNode, 1075);  // the box below, along its edge
    EXPECT_EQ(pressKey(canvas, 262, draw, ImGuiKey_RightArrow).clickedNode, 1076);  // the next one in the row
    EXPECT_EQ(pressKey(canvas, 257, draw, ImGuiKey_Enter).doubleClickedNode, 1076);
    EXPECT_EQ(pressKey(canvas, 256, draw, ImGuiKey_Escape).collapseRequested, 1076);
    EXPECT_TRUE(pressKey(canvas, '/', draw).searchRequested);
    // The selection moved into view.
    ImVec2 selected = canvas.screenOf(canvas.scene().layout->nodes[1076].centre());
    EXPECT_GT(selected.x, 0.0f);
    EXPECT_LT(selected.x, 1000.0f);
    EXPECT_GT(selected.y, 0.0f);
    EXPECT_LT(selected.y, 700.0f);
}

// Fills cost llvmpipe a layer of pixels each: a top-level group around nearly every box (GPT-2's "transformer")
// and the groups of its colour inside it are outlined, their labels drawn light on the canvas; a group of another
// colour inside keeps its fill, and a small top-level group too.
TEST(GraphScene, GroupAroundNearlyEveryBoxIsOutlined) {
    LayoutGraph graph;
    graph.clusters = {{"transformer", 0xeeeeff, -1}, {"transformer.h", 0xeeeeff, 0}, {"kernel", 0xffcc99, 1},
                      {"lm_head", 0xeeeeff, -1}};
    for (int cluster : {0, 1, 1, 2, 2, 1, 1, 2, 0, 3}) {
        LayoutNode node;
        node.cluster = cluster;
        graph.nodes.push_back(node);
    }
    GraphScene scene = sceneOf(graph, std::make_shared<GraphLayout>());
    ASSERT_EQ(scene.clusters.size(), 4u);
    EXPECT_TRUE(scene.clusters[0].outlineOnly);  // 9 of the 10 boxes
    EXPECT_TRUE(scene.clusters[0].onCanvas);
    EXPECT_TRUE(scene.clusters[1].outlineOnly);  // the colour around it
    EXPECT_TRUE(scene.clusters[1].onCanvas);
    EXPECT_FALSE(scene.clusters[2].outlineOnly);
    EXPECT_FALSE(scene.clusters[2].onCanvas);
    EXPECT_FALSE(scene.clusters[3].outlineOnly);  // 1 box of 10
}

}  // namespace
}  // namespace viz
