// One graph tab of the graph and fusion views (see graph_pane.h).
#include "views/graph_pane.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "graph/dot_writer.h"
#include "graph/graph_search.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/view_support.h"

namespace app {
namespace {

std::string slug(std::string_view text) {
    std::string out;
    for (char c : text) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (plain) out += c;
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
}

std::string withExtension(std::string path, const std::string& extension) {
    size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.erase(dot);
    return path + "." + extension;
}

/// The relative default name lands in the working directory; the message says which one.
std::string absolutePath(const std::string& path) {
    std::error_code error;
    std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return error ? path : absolute.string();
}

bool writeFile(const std::string& path, const std::string& data, std::string& error) {
    std::ofstream out(path, std::ios::binary);
    if (out) out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (out) return true;
    error = "cannot write " + path;
    return false;
}

std::string sizeText(size_t bytes) {
    char buffer[32];
    if (bytes < 10 * 1024) std::snprintf(buffer, sizeof buffer, "%zu bytes", bytes);
    else std::snprintf(buffer, sizeof buffer, "%zu KB", bytes / 1024);
    return buffer;
}

}  // namespace

viz::LayoutWorker& layoutWorker() {
    static viz::LayoutWorker worker;
    return worker;
}

GraphPane::GraphPane(const traces::Graph& graph, const std::vector<const traces::OutputCode*>& codes,
                     viz::ClusterMode mode, const viz::ModuleDonors* donors,
                     const std::vector<viz::KernelCallNodes>& kernelCalls)
    : graph_(&graph),
      model_(viz::buildGraphModel(graph, donors)),
      fusion_(viz::mapNodesToKernels(model_, codes, kernelCalls)),
      mode_(mode) {
    if (static_cast<int>(model_.nodes.size()) > viz::kFoldMinNodes) setFolded(true);
    exportPath_ = "graph-" + std::to_string(graph.id) + "-" + slug(title()) + ".svg";
    rebuildDisplay();
}

void GraphPane::setFolded(bool folded) {
    if (!folded) {
        folding_.reset();
        expanded_.clear();
        return;
    }
    folding_ = viz::foldGraph(model_, viz::kFoldTargetUnits, mode_ == viz::ClusterMode::Kernels ? &fusion_ : nullptr);
    expanded_ = viz::overviewExpansion(*folding_, model_.nodes.size());
}

std::string GraphPane::title() const { return viz::graphTitle(*graph_, fusion_); }

void GraphPane::rebuildDisplay() {
    viz::DisplayOptions options;
    options.clusters = mode_;
    options.fusion = &fusion_;
    options.folding = folding();
    options.expanded = &expanded_;
    display_ = viz::buildDisplayGraph(model_, options);
    display_.layout.title = title();
    layoutGraph_ = std::make_shared<const viz::LayoutGraph>(display_.layout);
    requested_ = false;
    bumped_ = false;
    shownLayout_.reset();
    updateSearch();
}

void GraphPane::requestLayout() {
    if (requested_) return;
    layoutKey_ = layoutWorker().submit(layoutGraph_);
    requested_ = true;
}

void GraphPane::pollLayout() {
    requestLayout();
    viz::LayoutWorker& worker = layoutWorker();
    std::shared_ptr<const viz::GraphLayout> layout = worker.result(layoutKey_);
    if (!layout) {
        viz::LayoutState state = worker.status(layoutKey_).state;
        // Evicted from the cache (the user visited many graphs since), or queued behind prefetches: ask again,
        // which also moves it to the front.
        if (state == viz::LayoutState::Unknown || (state == viz::LayoutState::Queued && !bumped_)) {
            layoutKey_ = worker.submit(layoutGraph_);
            bumped_ = true;
        }
        return;
    }
    if (layout == shownLayout_) return;
    shownLayout_ = layout;
    if (firstShownSeconds_ < 0)
        firstShownSeconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - openedAt_).count();
    canvas_.setScene(viz::sceneOf(display_.layout, layout));
    canvas_.setHighlighted(matches_);
    applyMarks();
    canvas_.setSelectedNode(display_.displayNodeOf(selectedModelNode_));
    if (pendingFocus_ >= 0) canvas_.centerOn(display_.displayNodeOf(pendingFocus_));
    pendingFocus_ = -1;
    if (selectedKernel_ >= 0) selectKernel(selectedKernel_);
}

void GraphPane::setComparison(const traces::Graph& previous, std::string since) {
    Comparison comparison{viz::buildGraphModel(previous), {}, std::move(since)};
    comparison.diff = viz::diffGraphModels(comparison.before, model_);
    comparison_ = std::move(comparison);
    applyMarks();
}

void GraphPane::applyMarks() {
    if (!shownLayout_) return;
    std::vector<uint32_t> marks;
    if (const viz::GraphDiff* diff = shownDiff()) {
        // A folded group takes the mark of what it hides; an added node outweighs a changed one.
        marks.assign(display_.nodes.size(), 0);
        for (size_t node = 0; node < diff->changeOfAfter.size(); ++node) {
            int change = diff->changeOfAfter[node];
            int shown = display_.displayNodeOf(static_cast<int>(node));
            if (change < 0 || shown < 0) continue;
            bool added = diff->changes[static_cast<size_t>(change)].kind == viz::GraphChangeKind::Added;
            uint32_t& mark = marks[static_cast<size_t>(shown)];
            if (added || mark == 0) mark = added ? theme::kAddedMark : theme::kChangedMark;
        }
    }
    canvas_.setMarks(std::move(marks));
}

void GraphPane::updateSearch() {
    matches_.clear();
    matchedModelNodes_.clear();
    std::vector<bool> listed(display_.nodes.size(), false);  // a folded group matches once however many inside do
    for (int node : viz::searchNodes(model_, search_.query())) {
        int shown = display_.displayNodeOf(node);
        if (shown < 0 || listed[static_cast<size_t>(shown)]) continue;
        listed[static_cast<size_t>(shown)] = true;
        matches_.push_back(shown);
        matchedModelNodes_.push_back(node);
    }
    canvas_.setHighlighted(matches_);
}

void GraphPane::focusNode(int modelNode) {
    if (modelNode < 0 || static_cast<size_t>(modelNode) >= model_.nodes.size()) return;
    selectNode(modelNode);
    if (folding_ && viz::shownGroupOf(*folding_, expanded_, modelNode) >= 0) {
        for (int group = folding_->groupOfNode[static_cast<size_t>(modelNode)]; group >= 0;
             group = folding_->groups[static_cast<size_t>(group)].parent)
            expanded_[static_cast<size_t>(group)] = true;
        rebuildDisplay();
        canvas_.setSelectedNode(-1);
    }
    if (shownLayout_) canvas_.centerOn(display_.displayNodeOf(modelNode));
    else pendingFocus_ = modelNode;
}

void GraphPane::selectNode(int modelNode) {
    selectedModelNode_ = modelNode;
    canvas_.setSelectedNode(shownLayout_ ? display_.displayNodeOf(modelNode) : -1);
}

void GraphPane::selectKernel(int kernel) {
    selectedKernel_ = kernel;
    if (folding_ && kernel >= 0) {
        // Folded: open the modules around the kernel's boxes (one per module it spans) and mark them.
        bool opened = false;
        std::vector<int> boxes;
        for (size_t g = 0; g < folding_->groups.size(); ++g) {
            const viz::FoldGroup& group = folding_->groups[g];
            if (group.kernel != kernel || (group.parent >= 0 && folding_->groups[static_cast<size_t>(group.parent)].kernel == kernel))
                continue;
            for (int outer = group.parent; outer >= 0; outer = folding_->groups[static_cast<size_t>(outer)].parent) {
                opened = opened || !expanded_[static_cast<size_t>(outer)];
                expanded_[static_cast<size_t>(outer)] = true;
            }
            boxes.push_back(static_cast<int>(g));
        }
        if (opened) {
            rebuildDisplay();
            pendingFocus_ = boxes.empty() ? -1 : folding_->groups[static_cast<size_t>(boxes.front())].nodes.front();
        }
        std::vector<int> shown;
        for (int group : boxes) shown.push_back(display_.displayNodeOf(folding_->groups[static_cast<size_t>(group)].nodes.front()));
        if (!shown.empty()) {
            canvas_.setHighlighted(shown);
            if (shownLayout_) canvas_.centerOn(shown.front());
        }
    }
    int cluster = -1;
    for (size_t c = 0; c < display_.clusters.size(); ++c)
        if (display_.clusters[c].kernel == kernel && kernel >= 0) cluster = static_cast<int>(c);
    canvas_.setSelectedCluster(cluster);
    if (cluster >= 0 && shownLayout_) canvas_.centerOnCluster(cluster);
}

void GraphPane::restoreState(const State& state) {
    if (state.folded != folding_.has_value()) setFolded(state.folded);
    if (folding_ && state.expanded.size() == expanded_.size()) expanded_ = state.expanded;
    rebuildDisplay();
    pendingFocus_ = -1;
    canvas_.restoreView(state.view);
}

void GraphPane::toggleGroup(int group) {
    if (!folding_ || group < 0 || static_cast<size_t>(group) >= expanded_.size()) return;
    expanded_[static_cast<size_t>(group)] = !expanded_[static_cast<size_t>(group)];
    rebuildDisplay();
    // Stay where the user was looking rather than fitting the whole new layout.
    pendingFocus_ = folding_->groups[static_cast<size_t>(group)].nodes.front();
}

int GraphPane::drawToolbar(UiDump* dump) {
    int jumpedTo = -1;
    if (ImGui::Button("Fit")) canvas_.fit();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fit the whole graph in view (F)");
    ImGui::SameLine();
    if (mode_ != viz::ClusterMode::Kernels) {
        bool fold = folding_.has_value();
        if (ImGui::Checkbox("Fold", &fold)) {
            setFolded(fold);
            rebuildDisplay();
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Fold runs of nodes by module path, source line or name into groups;\n"
                              "double-click a group to expand or collapse it");
        ImGui::SameLine();
    }
    if (widgets::ctrlPressed('F')) search_.focus();
    constexpr float kSearchWidth = 220.0f;
    viz::SearchBarAction action = search_.draw("search", static_cast<int>(matches_.size()), kSearchWidth * theme::uiScale());
    if (action.queryChanged) updateSearch();
    if (action.jumpTo >= 0 && static_cast<size_t>(action.jumpTo) < matches_.size()) {
        // A match inside a folded group opens the group (and those around it) to show the node itself.
        jumpedTo = matchedModelNodes_[static_cast<size_t>(action.jumpTo)];
        focusNode(jumpedTo);
    }
    ImGui::SameLine();
    if (ImGui::Button("Export...")) ImGui::OpenPopup("export-graph");
    if (comparison_) {
        ImGui::SameLine();
        std::string label = "Changes since " + comparison_->since;
        if (ImGui::Checkbox(label.c_str(), &showChanges_)) applyMarks();
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("Mark the nodes added (green) and changed (amber) since this function's previous compile;\n"
                              "the side panel lists them, with the removed ones");
        ImGui::SameLine();
        const viz::GraphDiff& diff = comparison_->diff;
        ImGui::TextColored(diff.empty() ? theme::kDimText : theme::kWarningText, "%s", diff.summary().c_str());
        if (dump) dump->add("graph-diff", "since " + comparison_->since + ": " + diff.summary());
    }
    if (dump) dump->addItem("Export...");
    drawExportPopup(dump);

    ImGui::SameLine();
    viz::LayoutStatus status = layoutWorker().status(layoutKey_);
    std::string line = std::to_string(model_.nodes.size()) + " nodes, " + std::to_string(model_.edges.size()) + " edges";
    if (folding_) {
        // What is hidden: how many boxes stand for how many nodes (double-click one to open it).
        size_t boxes = 0;
        size_t inside = 0;
        for (const viz::DisplayNode& node : display_.nodes) {
            if (node.group < 0) continue;
            ++boxes;
            inside += folding_->groups[static_cast<size_t>(node.group)].nodes.size();
        }
        line += " (" + std::to_string(display_.layout.nodes.size()) + " shown: " + std::to_string(boxes) +
                " folded groups hold " + std::to_string(inside) + ")";
    }
    if (status.state == viz::LayoutState::Ready && shownLayout_) {
        line += "  ·  layout " + widgets::formatSeconds(status.seconds);
        // Opening a group lays out that group and the levels around it; the rest come from the cache.
        size_t levels = shownLayout_->levels;
        size_t fresh = shownLayout_->levelsLaidOut;
        if (levels > 1 && fresh == levels) line += " (" + std::to_string(levels) + " groups, each on its own)";
        else if (levels > 1) line += " (" + std::to_string(fresh) + " of " + std::to_string(levels) + " groups, the rest cached)";
    }
    if (shownLayout_ && shownLayout_->engine != "dot") line += " (simple layers: dot would take minutes here)";
    if (fusion_.match == viz::KernelMatch::KernelName) line += "  ·  kernels guessed from their names";
    if (shownLayout_) {
        char fps[48];
        std::snprintf(fps, sizeof fps, "  ·  %.0f fps", static_cast<double>(ImGui::GetIO().Framerate));
        line += fps;
    }
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(line.c_str()).x) ImGui::NewLine();  // narrow pane
    ImGui::TextDisabled("%s", line.c_str());
    if (dump) dump->add("graph", title() + ": " + line);
    return jumpedTo;
}

viz::CanvasEvents GraphPane::drawCanvas(ImVec2 size, UiDump* dump) {
    pollLayout();
    pollExport();
    if (!shownLayout_) {
        viz::LayoutStatus status = layoutWorker().status(layoutKey_);
        std::string message;
        if (status.state == viz::LayoutState::Failed) {
            message = "Layout failed: " + status.error;
        } else {
            static constexpr const char* kSpinner[] = {"|", "/", "-", "\\"};
            int frame = static_cast<int>(ImGui::GetTime() * 8.0) % 4;
            message = std::string(kSpinner[frame]) + " laying out " + std::to_string(status.nodeCount) + " nodes";
            if (status.levels > 1)
                message += ", group " + std::to_string(status.levelsDone + 1) + " of " + std::to_string(status.levels);
            if (status.state == viz::LayoutState::Running) message += " (" + widgets::formatSeconds(status.seconds) + ")";
            else message += " (queued)";
        }
        ImGui::BeginChild("layout-pending", size, true);
        ImGui::TextUnformatted(message.c_str());
        ImGui::EndChild();
        if (dump) dump->add("layout", message);
        return {};
    }
    canvas_.setPixelScale(theme::uiScale());
    viz::CanvasEvents events = canvas_.draw("canvas", size);
    if (events.searchRequested) search_.focus();
    if (events.doubleClickedNode >= 0) {
        const viz::DisplayNode& node = display_.nodes[static_cast<size_t>(events.doubleClickedNode)];
        if (node.group >= 0) {
            // Opened (double-click or Enter): its first node is selected, so the arrows go on from inside it.
            int first = folding_->groups[static_cast<size_t>(node.group)].nodes.front();
            toggleGroup(node.group);
            selectedModelNode_ = first;
            events.clickedNode = display_.displayNodeOf(first);
        }
    }
    if (events.collapseRequested >= 0 && folding_) {
        // Esc or Backspace closes the innermost open group around the selection, which stays selected as its box.
        const viz::DisplayNode& node = display_.nodes[static_cast<size_t>(events.collapseRequested)];
        int group = node.modelNode >= 0 ? folding_->groupOfNode[static_cast<size_t>(node.modelNode)]
                                        : folding_->groups[static_cast<size_t>(node.group)].parent;
        if (group >= 0 && expanded_[static_cast<size_t>(group)]) {
            int first = folding_->groups[static_cast<size_t>(group)].nodes.front();
            toggleGroup(group);
            selectedModelNode_ = first;
            events.clickedNode = display_.displayNodeOf(first);
        }
    }
    // Double-clicking an expanded group's box (not one of its nodes) folds it again.
    if (events.doubleClickedCluster >= 0) {
        int group = display_.clusters[static_cast<size_t>(events.doubleClickedCluster)].group;
        if (group >= 0) toggleGroup(group);
    }
    if (dump) {
        const viz::CanvasFrameStats& stats = canvas_.lastFrame();
        // The zoom, and the graph point at the canvas's middle (where the user panned to).
        char zoom[96];
        viz::CanvasView view = canvas_.view();
        std::snprintf(zoom, sizeof zoom, "%.3f; centre %.0f %.0f", static_cast<double>(view.zoom),
                      static_cast<double>(view.centre.x), static_cast<double>(view.centre.y));
        char fps[64];
        std::snprintf(fps, sizeof fps, "%.0f (canvas %.2f ms)", static_cast<double>(ImGui::GetIO().Framerate),
                      stats.drawMilliseconds);
        dump->add("canvas", std::to_string(stats.nodesDrawn) + " nodes, " + std::to_string(stats.edgesDrawn) +
                                " edges, " + std::to_string(stats.clustersDrawn) + " clusters drawn; zoom " + zoom +
                                (stats.labelsDrawn ? "; labels" : "") + "; legible labels: " +
                                std::to_string(stats.legibleLabels) + (stats.minimapDrawn ? "; minimap" : "") +
                                "; fps " + fps + "; first drawn " + widgets::formatSeconds(firstShownSeconds_) +
                                " after the graph was opened");
    }
    return events;
}

void GraphPane::drawExportPopup(UiDump* dump) {
    if (!ImGui::BeginPopup("export-graph")) return;
    ImGui::TextUnformatted("Export the graph as shown (folded groups stay folded)");
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer, "%s", exportPath_.c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
    if (ImGui::InputText("File", buffer, sizeof buffer)) exportPath_ = buffer;
    if (dump) dump->addItem("File");
    bool busy = exportJob_.has_value();
    if (busy) ImGui::BeginDisabled();
    for (const char* format : {"DOT", "SVG", "PNG"}) {
        if (format[0] != 'D') ImGui::SameLine();
        if (ImGui::Button(format)) startExport(format[0] == 'D' ? "dot" : format[0] == 'S' ? "svg" : "png");
        if (dump) dump->addItem(format);
    }
    if (busy) ImGui::EndDisabled();
    if (busy) ImGui::TextDisabled("rendering with Graphviz...");
    if (!exportMessage_.empty())
        ImGui::TextColored(exportFailed_ ? theme::kErrorText : theme::kDimText, "%s", exportMessage_.c_str());
    if (dump) dump->add("export", busy ? "rendering" : exportMessage_);
    ImGui::EndPopup();
}

void GraphPane::startExport(const std::string& format) {
    std::string path = withExtension(exportPath_, format);
    exportPath_ = path;
    exportFailed_ = false;
    if (format == "dot") {
        // DOT needs no Graphviz: our writer gives the same text the worker lays out, with labels and colours.
        std::string dot = viz::writeDot(display_.layout);
        std::string error;
        exportFailed_ = !writeFile(path, dot, error);
        exportMessage_ = exportFailed_ ? error : "Saved " + absolutePath(path) + " (" + sizeText(dot.size()) + ")";
        return;
    }
    exportJobPath_ = path;
    exportMessage_.clear();
    exportJob_ = layoutWorker().render(layoutGraph_, format);
}

void GraphPane::pollExport() {
    if (!exportJob_ || exportJob_->wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    viz::RenderResult result = exportJob_->get();
    exportJob_.reset();
    std::string error;
    if (!result.ok) {
        exportFailed_ = true;
        exportMessage_ = result.error + ". DOT export still works; `dot -T<format>` can render it.";
    } else if (!writeFile(exportJobPath_, result.data, error)) {
        exportFailed_ = true;
        exportMessage_ = error;
    } else {
        exportMessage_ = "Saved " + absolutePath(exportJobPath_) + " (" + sizeText(result.data.size()) + ")";
    }
}

const traces::Compile* selectedCompileOrHint(ViewContext& context, const char* selectHint) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    if (!analysis) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return nullptr;
    }
    const traces::Compile* compile =
        context.selection.compileId ? analysis->compile(*context.selection.compileId) : nullptr;
    // Nothing picked yet (the trace just opened): show the first compile that captured a graph rather than an
    // empty view, without choosing it for the other views.
    const traces::TraceData* trace = context.currentTrace();
    for (size_t i = 0; !compile && !context.selection.compileId && trace && i < trace->compiles.size(); ++i)
        if (!viz::linksOfCompile(analysis->index(), trace->compiles[i]).graphs.empty()) compile = &trace->compiles[i];
    if (!compile) drawEmptyState(selectHint);
    return compile;
}

}  // namespace app
