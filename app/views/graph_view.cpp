// The graph view: every graph captured for the selected compile (Dynamo, AOT forward/backward, post-grad...)
// in its own tab, laid out by Graphviz in the background and drawn on a canvas; a side panel shows the clicked
// node's op, target, tensor, user source line and the kernel it ended up in (a link into the code view).
#include <imgui.h>

#include <algorithm>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/graph_pane.h"
#include "views/graph_views.h"
#include "views/view_support.h"

namespace app {
namespace {

constexpr float kSidePanelWidth = 330.0f;

void field(const char* label, const std::string& value) {
    if (value.empty()) return;
    ImGui::TextDisabled("%s", label);
    ImGui::SameLine(ImGui::GetFontSize() * 5.0f);
    ImGui::TextWrapped("%s", value.c_str());
}

class GraphView : public View {
public:
    ViewId id() const override { return ViewId::Graph; }
    const char* title() const override { return "Graph"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override;

private:
    void bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile, const viz::SessionAnalysis* session);
    /// After a reload of the trace (`--follow`), the same compile's graphs come back as the user left them.
    void restorePanes(const traces::Compile& compile, ViewContext& context);
    void compareWithPreviousCompile(const viz::TraceAnalysis& analysis, const traces::Compile& compile,
                                    const viz::SessionAnalysis& session);
    void drawChanges(GraphPane& pane, ViewContext& context);
    void followSelection(const ViewContext& context);
    void drawPane(int index, ViewContext& context);
    void handleEvents(GraphPane& pane, const viz::CanvasEvents& events, ViewContext& context);
    void selectNode(GraphPane& pane, int modelNode, ViewContext& context);
    void drawSidePanel(GraphPane& pane, ViewContext& context);
    void drawNodeDetails(GraphPane& pane, int modelNode, ViewContext& context);
    void drawGroupDetails(GraphPane& pane, int group, UiDump* dump);
    void nodeLinks(GraphPane& pane, const char* label, const std::vector<int>& nodes, ViewContext& context);

    const viz::TraceAnalysis* analysis_ = nullptr;
    traces::RowId compileId_ = 0;
    std::vector<std::unique_ptr<GraphPane>> panes_;
    int active_ = -1;
    int forceTab_ = -1;
    std::optional<traces::RowId> followedGraph_;
    std::string followedNode_;
    int shownNode_ = -1;   ///< model node in the side panel
    int shownGroup_ = -1;  ///< or a folded group
    std::string recompileReason_;  ///< the guard that failed, when this compile is a recompile

    /// The panes of the compile shown when the trace was reloaded, by compile key and graph (kind, name, n-th).
    struct SavedPanes {
        std::string compileKey;
        std::vector<std::pair<std::string, GraphPane::State>> panes;
        std::string activeGraph;
    };
    std::optional<SavedPanes> saved_;
};

/// A graph's place among a compile's graphs that survives a reload (row ids do not): its kind, name and ordinal.
std::string graphSlot(const std::vector<std::unique_ptr<GraphPane>>& panes, const GraphPane& pane) {
    const traces::Graph& graph = pane.graph();
    int ordinal = 0;
    for (const auto& other : panes) {
        if (other.get() == &pane) break;
        ordinal += other->graph().kind == graph.kind && other->graph().name == graph.name;
    }
    return std::to_string(static_cast<int>(graph.kind)) + "/" + graph.name + "/" + std::to_string(ordinal);
}

void GraphView::forgetTrace() {
    if (analysis_ && !panes_.empty()) {
        if (const traces::Compile* compile = analysis_->compile(compileId_)) {
            SavedPanes saved{compile->key.str(), {}, {}};
            for (const auto& pane : panes_) saved.panes.emplace_back(graphSlot(panes_, *pane), pane->state());
            if (active_ >= 0 && static_cast<size_t>(active_) < panes_.size())
                saved.activeGraph = graphSlot(panes_, *panes_[static_cast<size_t>(active_)]);
            saved_ = std::move(saved);
        }
    }
    analysis_ = nullptr;
}

void GraphView::restorePanes(const traces::Compile& compile, ViewContext& context) {
    if (!saved_) return;
    SavedPanes saved = std::move(*saved_);
    saved_.reset();
    if (saved.compileKey != compile.key.str()) return;
    for (size_t i = 0; i < panes_.size(); ++i) {
        std::string slot = graphSlot(panes_, *panes_[i]);
        for (const auto& [savedSlot, state] : saved.panes)
            if (savedSlot == slot) panes_[i]->restoreState(state);
        if (slot != saved.activeGraph) continue;
        forceTab_ = static_cast<int>(i);
        // The selected node stays selected without being centred again: the view is where the user left it.
        int node = panes_[i]->model().findNode(context.selection.nodeName);
        panes_[i]->selectNode(node);
        shownNode_ = node;
        followedGraph_ = context.selection.graphId;
        followedNode_ = context.selection.nodeName;
    }
}

void GraphView::bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile,
                     const viz::SessionAnalysis* session) {
    if (analysis_ == &analysis && compileId_ == compile.id) return;
    analysis_ = &analysis;
    compileId_ = compile.id;
    panes_.clear();
    active_ = -1;
    forceTab_ = -1;
    followedGraph_.reset();
    followedNode_.clear();
    shownNode_ = shownGroup_ = -1;
    viz::CompileLinks links = viz::linksOfCompile(analysis.index(), compile);
    viz::ModuleDonors donors = viz::moduleDonorsOf(links.graphs);
    std::vector<viz::KernelCallNodes> kernelCalls;  // Inductor ran in the attempt that produced the graphs
    for (const traces::Compile* attempt : links.attempts)
        for (viz::KernelCallNodes& calls : viz::kernelCallNodesOfCompile(analysis.trace().artifacts, attempt->id))
            kernelCalls.push_back(std::move(calls));
    for (const traces::Graph* graph : links.graphs)
        panes_.push_back(std::make_unique<GraphPane>(*graph, links.outputCode, viz::ClusterMode::ExpandedFolds, &donors,
                                                     kernelCalls));
    recompileReason_.clear();
    if (session) compareWithPreviousCompile(analysis, compile, *session);
}

void GraphView::compareWithPreviousCompile(const viz::TraceAnalysis& analysis, const traces::Compile& compile,
                                           const viz::SessionAnalysis& session) {
    viz::RecompileStepper stepper(&session.functions);
    if (!stepper.selectCompile(compile.id) || !stepper.hasPrevious()) return;
    const viz::RecompileStep& step = *stepper.step();
    const viz::RecompileStep& previous = stepper.function()->steps[stepper.stepIndex() - 1];
    if (!step.guardFailures.empty()) {
        const std::string& reason = step.guardFailures.front().reason;
        // Dynamo pads the guard to a column before its source comment: one space reads better in a side panel.
        for (char c : reason.substr(0, reason.find('\n')))
            if (c != ' ' || recompileReason_.empty() || recompileReason_.back() != ' ') recompileReason_ += c;
    }
    // Each graph is compared with the previous compile's graph of the same kind and name, the n-th with the n-th.
    for (auto& pane : panes_) {
        const traces::Graph& graph = pane->graph();
        int ordinal = 0;
        for (auto& other : panes_) {
            if (other == pane) break;
            ordinal += other->graph().kind == graph.kind && other->graph().name == graph.name;
        }
        for (traces::RowId id : previous.graphIds) {
            const traces::Graph* candidate = analysis.graph(id);
            if (!candidate || candidate->kind != graph.kind || candidate->name != graph.name || ordinal-- > 0) continue;
            pane->setComparison(*candidate, previous.display);
            break;
        }
    }
}

void GraphView::followSelection(const ViewContext& context) {
    const Selection& selection = context.selection;
    if (selection.graphId == followedGraph_ && selection.nodeName == followedNode_) return;
    followedGraph_ = selection.graphId;
    followedNode_ = selection.nodeName;
    for (size_t i = 0; i < panes_.size(); ++i) {
        if (!selection.graphId || panes_[i]->graph().id != *selection.graphId) continue;
        forceTab_ = static_cast<int>(i);
        int node = panes_[i]->model().findNode(selection.nodeName);
        shownNode_ = node;
        shownGroup_ = -1;
        if (node >= 0) panes_[i]->focusNode(node);
    }
}

void GraphView::draw(ViewContext& context) {
    const traces::Compile* compile = selectedCompileOrHint(context, "Select a compile in the Sites or Recompiles view to see its graphs");
    if (!compile) return;
    bool rebound = analysis_ != context.currentAnalysis() || compileId_ != compile->id;
    bind(*context.currentAnalysis(), *compile, currentSession(context));
    if (rebound) restorePanes(*compile, context);
    if (panes_.empty()) {
        drawEmptyState("This compile captured no graph (it failed or broke before Dynamo produced one)");
        if (context.uiDump) context.uiDump->add("graph", "none");
        return;
    }
    followSelection(context);
    if (!ImGui::BeginTabBar("graph-tabs")) return;
    for (size_t i = 0; i < panes_.size(); ++i) {
        std::string label = panes_[i]->title() + "###graph" + std::to_string(panes_[i]->graph().id);
        ImGuiTabItemFlags flags = forceTab_ == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
        if (context.uiDump) context.uiDump->add("tab", panes_[i]->title());
        if (!ImGui::BeginTabItem(label.c_str(), nullptr, flags)) continue;
        // ImGui selects a tab one frame after it is asked to: until the forced tab shows, the shown tab is not
        // a switch the user made.
        if (forceTab_ == static_cast<int>(i)) {
            forceTab_ = -1;
        } else if (active_ != static_cast<int>(i) && forceTab_ < 0) {
            // The user switched tabs: the graph selection follows, the node (of the other graph) does not.
            context.selection.graphId = panes_[i]->graph().id;
            context.selection.nodeName.clear();
            followedGraph_ = context.selection.graphId;
            followedNode_.clear();
            shownNode_ = shownGroup_ = -1;
        }
        active_ = static_cast<int>(i);
        drawPane(static_cast<int>(i), context);
        ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
    // Once the shown graph is laid out, the worker lays out the other tabs while the user reads this one.
    if (active_ >= 0 && panes_[static_cast<size_t>(active_)]->laidOut())
        for (auto& pane : panes_) pane->requestLayout();
}

void GraphView::drawPane(int index, ViewContext& context) {
    GraphPane& pane = *panes_[static_cast<size_t>(index)];
    // A search match becomes the selection, as a click on it would (the side panel shows it).
    if (int found = pane.drawToolbar(context.uiDump); found >= 0) selectNode(pane, found, context);
    ImVec2 available = ImGui::GetContentRegionAvail();
    float panelWidth = std::min(kSidePanelWidth * ImGui::GetFontSize() / 13.0f, available.x * 0.4f);
    viz::CanvasEvents events = pane.drawCanvas(ImVec2(available.x - panelWidth - 6.0f, available.y), context.uiDump);
    handleEvents(pane, events, context);
    ImGui::SameLine();
    ImGui::BeginChild("node-panel", ImVec2(0, available.y), true);
    drawSidePanel(pane, context);
    ImGui::EndChild();
}

void GraphView::selectNode(GraphPane& pane, int modelNode, ViewContext& context) {
    shownNode_ = modelNode;
    shownGroup_ = -1;
    pane.selectNode(modelNode);
    context.selection.graphId = pane.graph().id;
    context.selection.nodeName = modelNode >= 0 ? pane.model().nodes[static_cast<size_t>(modelNode)].name : "";
    followedGraph_ = context.selection.graphId;
    followedNode_ = context.selection.nodeName;
}

void GraphView::handleEvents(GraphPane& pane, const viz::CanvasEvents& events, ViewContext& context) {
    if (events.clickedNode < 0) return;
    const viz::DisplayNode& node = pane.display().nodes[static_cast<size_t>(events.clickedNode)];
    if (node.modelNode >= 0) {
        selectNode(pane, node.modelNode, context);
    } else {
        shownNode_ = -1;
        shownGroup_ = node.group;
        pane.canvas().setSelectedNode(events.clickedNode);
    }
}

void GraphView::drawSidePanel(GraphPane& pane, ViewContext& context) {
    if (shownGroup_ >= 0 && pane.folding() && static_cast<size_t>(shownGroup_) < pane.folding()->groups.size()) {
        drawGroupDetails(pane, shownGroup_, context.uiDump);
        return;
    }
    if (shownNode_ < 0 || static_cast<size_t>(shownNode_) >= pane.model().nodes.size()) {
        if (pane.shownDiff()) {
            drawChanges(pane, context);
            return;
        }
        ImGui::TextDisabled("Click a node for its op, target, tensor,");
        ImGui::TextDisabled("user source line and kernel.");
        ImGui::Spacing();
        ImGui::TextDisabled("Drag to pan, wheel to zoom, F to fit,");
        ImGui::TextDisabled("/ or Ctrl+F to search. Arrows move");
        ImGui::TextDisabled("between nodes, Enter opens a group,");
        ImGui::TextDisabled("Esc or Backspace closes it. K opens");
        ImGui::TextDisabled("the node's kernel, Alt+Left goes back.");
        const viz::FusionMap& fusion = pane.fusion();
        if (fusion.match == viz::KernelMatch::None) ImGui::TextDisabled("No kernel information for this graph.");
        else ImGui::TextDisabled("Colours: one per generated kernel.");
        return;
    }
    drawNodeDetails(pane, shownNode_, context);
}

void GraphView::drawNodeDetails(GraphPane& pane, int modelNode, ViewContext& context) {
    const traces::GraphNode& node = pane.graph().nodes[static_cast<size_t>(modelNode)];
    ImGui::TextUnformatted(node.name.c_str());
    ImGui::Separator();
    field("op", node.op);
    field("target", node.target);
    field("args", node.args);
    field("shape", node.shape);
    field("dtype", node.dtype);
    field("stride", node.stride);
    field("device", node.device);
    if (context.uiDump) context.uiDump->add("node", node.name + " " + node.op + " " + node.target);
    if (const viz::GraphDiff* diff = pane.shownDiff()) {
        int change = diff->changeOfAfter[static_cast<size_t>(modelNode)];
        if (change >= 0) {
            const viz::GraphNodeChange& what = diff->changes[static_cast<size_t>(change)];
            std::string text = what.kind == viz::GraphChangeKind::Added ? "added since " + pane.comparedWith()
                                                                         : "changed since " + pane.comparedWith() + ": " + what.what;
            ImGui::TextColored(theme::kWarningText, "%s", text.c_str());
        }
    }

    ImGui::Spacing();
    ImGui::TextDisabled("user source");
    if (node.sourceFile.empty()) {
        ImGui::TextDisabled("  not recorded");
    } else {
        std::string where = node.sourceFile + ":" + std::to_string(node.sourceLine);
        if (!node.sourceFunction.empty()) where += " in " + node.sourceFunction;
        ImGui::TextWrapped("%s", where.c_str());
        if (!node.sourceCode.empty()) {
            ImGui::PushFont(theme::codeFont());
            ImGui::TextWrapped("%s", node.sourceCode.c_str());
            ImGui::PopFont();
        }
        if (context.uiDump) context.uiDump->add("source", where);
    }

    ImGui::Spacing();
    ImGui::TextDisabled("kernel");
    const viz::FusionMap& fusion = pane.fusion();
    const std::vector<int>& kernels = fusion.kernelsOfNode[static_cast<size_t>(modelNode)];
    if (kernels.empty()) {
        bool computes = node.op == "call_function" || node.op == "call_method" || node.op == "call_module";
        const char* why = fusion.match == viz::KernelMatch::None ? "  no kernel information in this log"
                          : computes ? "  in no generated kernel (an extern call such as mm, a view, or removed)"
                                     : "  none (inputs and outputs are not computed)";
        ImGui::TextDisabled("%s", why);
    }
    for (int k : kernels) {
        const viz::FusionKernel& kernel = fusion.kernels[static_cast<size_t>(k)];
        std::string label = kernel.name + "  (" + viz::toString(kernel.role) + ")";
        ImGui::PushID(k);
        // The first kernel takes K: graph node -> kernel from the keyboard.
        bool opened = k == kernels.front() ? widgets::linkButton(label.c_str(), 'K', context.hasKeyboard)
                                           : widgets::linkButton(label.c_str());
        if (opened) {
            context.selection.kernelId = kernel.kernelId;
            context.selection.outputCodeId = kernel.outputCodeId;
            context.focusRequest = ViewId::Code;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Open this kernel's source in the code view");
        ImGui::PopID();
        if (context.uiDump) context.uiDump->add("kernel", kernel.name);
    }
    if (fusion.match == viz::KernelMatch::KernelName && !kernels.empty())
        ImGui::TextDisabled("  (guessed from the kernel's name)");

    std::vector<int> inputs;
    std::vector<int> users;
    for (const viz::GraphModelEdge& edge : pane.model().edges) {
        if (edge.to == modelNode) inputs.push_back(edge.from);
        if (edge.from == modelNode) users.push_back(edge.to);
    }
    ImGui::Spacing();
    nodeLinks(pane, "inputs", inputs, context);
    nodeLinks(pane, "users", users, context);
}

/// With nothing selected on a recompile's graph: the guard that failed and every change, each a link to its node.
void GraphView::drawChanges(GraphPane& pane, ViewContext& context) {
    const viz::GraphDiff& diff = *pane.shownDiff();
    ImGui::Text("Since %s: %s", pane.comparedWith().c_str(), diff.summary().c_str());
    if (!recompileReason_.empty()) {
        ImGui::TextDisabled("recompiled because");
        ImGui::PushFont(theme::codeFont());
        ImGui::TextWrapped("%s", recompileReason_.c_str());
        ImGui::PopFont();
        if (context.uiDump) context.uiDump->add("recompiled-because", recompileReason_);
    }
    ImGui::Separator();
    const viz::GraphModel& before = *pane.previousModel();
    auto nodeOf = [&](const viz::GraphNodeChange& change) -> const viz::GraphModelNode& {
        return change.kind == viz::GraphChangeKind::Removed ? before.nodes[static_cast<size_t>(change.before)]
                                                            : pane.model().nodes[static_cast<size_t>(change.after)];
    };
    // A recompile with dynamic shapes changes most of a big graph: draw only the rows in view.
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(diff.changes.size()));
    while (clipper.Step()) {
        for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
            const viz::GraphNodeChange& change = diff.changes[static_cast<size_t>(row)];
            const viz::GraphModelNode& node = nodeOf(change);
            bool removed = change.kind == viz::GraphChangeKind::Removed;
            bool added = change.kind == viz::GraphChangeKind::Added;
            ImVec4 colour = removed ? theme::kErrorText : added ? theme::kAddedText : theme::kWarningText;
            ImGui::PushID(row);
            ImGui::TextColored(colour, "%s", removed ? "-" : added ? "+" : "~");
            ImGui::SameLine();
            if (removed) {
                ImGui::TextDisabled("%s  %s  (removed)", node.name.c_str(), node.shortTarget.c_str());
            } else {
                if (widgets::linkButton(node.name.c_str())) {
                    selectNode(pane, change.after, context);
                    pane.focusNode(change.after);
                }
                ImGui::SameLine();
                ImGui::TextDisabled("%s", change.what.empty() ? node.shortTarget.c_str() : change.what.c_str());
            }
            ImGui::PopID();
        }
    }
    if (context.uiDump)
        for (const viz::GraphNodeChange& change : diff.changes)
            context.uiDump->add("graph-change", std::string(viz::graphChangeName(change.kind)) + " " + nodeOf(change).name +
                                                     (change.what.empty() ? "" : " " + change.what));
}

void GraphView::nodeLinks(GraphPane& pane, const char* label, const std::vector<int>& nodes, ViewContext& context) {
    ImGui::TextDisabled("%s", label);
    if (nodes.empty()) ImGui::TextDisabled("  none");
    ImGui::PushID(label);
    for (int node : nodes) {
        ImGui::PushID(node);
        ImGui::TextUnformatted("  ");
        ImGui::SameLine(0, 0);
        if (widgets::linkButton(pane.model().nodes[static_cast<size_t>(node)].name.c_str())) {
            selectNode(pane, node, context);
            pane.focusNode(node);
        }
        ImGui::PopID();
    }
    ImGui::PopID();
}

void GraphView::drawGroupDetails(GraphPane& pane, int group, UiDump* dump) {
    const viz::FoldGroup& fold = pane.folding()->groups[static_cast<size_t>(group)];
    if (dump) dump->add("group", fold.label);
    ImGui::TextWrapped("%s", fold.key.c_str());
    ImGui::Separator();
    ImGui::Text("%zu nodes, folded", fold.nodes.size());
    if (ImGui::Button("Expand")) {
        pane.toggleGroup(group);
        shownGroup_ = -1;
        return;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(or double-click it)");
    ImGui::Spacing();
    size_t shown = std::min<size_t>(fold.nodes.size(), 40);
    for (size_t i = 0; i < shown; ++i) {
        const viz::GraphModelNode& node = pane.model().nodes[static_cast<size_t>(fold.nodes[i])];
        ImGui::Text("%s  %s", node.name.c_str(), node.shortTarget.c_str());
    }
    if (shown < fold.nodes.size()) ImGui::TextDisabled("... %zu more", fold.nodes.size() - shown);
}

}  // namespace

std::unique_ptr<View> makeGraphView() { return std::make_unique<GraphView>(); }

bool graphLayoutsPending() { return !layoutWorker().waitIdle(std::chrono::milliseconds(0)); }

bool waitForGraphLayouts(std::chrono::milliseconds timeout) { return layoutWorker().waitIdle(timeout); }

}  // namespace app
