// The fusion diagram: for each generated module of the selected compile (forward, backward, inference), the
// graph its kernels were made from, folded by module and then by kernel: a kernel is one box in its kernel's
// colour, expanding to a cluster around the nodes it fused. Clicking a kernel (in the list, its box or its
// cluster) selects it and opens its source in the code view.
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

constexpr float kKernelListWidth = 300.0f;

/// Post-grad graphs are what Inductor fused (their names are the "Graph fragment" names); among graphs that
/// match equally many nodes, the later stages win.
int stagePriority(const traces::Graph& graph) {
    switch (graph.kind) {
        case traces::GraphKind::PostGrad: return graph.name.starts_with("before_") ? 5 : 6;
        case traces::GraphKind::AotForward:
        case traces::GraphKind::AotBackward:
        case traces::GraphKind::AotInference: return 4;
        case traces::GraphKind::AotJoint: return 3;
        case traces::GraphKind::Dynamo: return 2;
        case traces::GraphKind::PreGrad: return 1;
        default: return 0;
    }
}

/// The graph whose nodes `code`'s kernels name most, or null when they name none of any graph's nodes.
const traces::Graph* graphFusedBy(const traces::OutputCode& code, const std::vector<const traces::Graph*>& graphs) {
    const traces::Graph* best = nullptr;
    std::pair<int, int> bestScore{0, 0};
    for (const traces::Graph* graph : graphs) {
        viz::GraphModel model = viz::buildGraphModel(*graph);
        viz::FusionMap fusion = viz::mapNodesToKernels(model, {&code});
        int matched = 0;
        for (const std::vector<int>& kernels : fusion.kernelsOfNode) matched += kernels.empty() ? 0 : 1;
        std::pair<int, int> score{matched, stagePriority(*graph)};
        if (matched > 0 && score > bestScore) {
            best = graph;
            bestScore = score;
        }
    }
    return best;
}

struct FusionEntry {
    const traces::OutputCode* code = nullptr;
    std::string title;
    std::unique_ptr<GraphPane> pane;  ///< null when no graph matches the kernels
};

class FusionView : public View {
public:
    ViewId id() const override { return ViewId::Fusion; }
    const char* title() const override { return "Fusion"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { analysis_ = nullptr; }

private:
    void bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile);
    void followSelection(const ViewContext& context);
    void drawEntry(FusionEntry& entry, ViewContext& context);
    void drawKernelList(FusionEntry& entry, ViewContext& context);
    void openKernel(const FusionEntry& entry, traces::RowId kernelId, ViewContext& context);

    const viz::TraceAnalysis* analysis_ = nullptr;
    traces::RowId compileId_ = 0;
    std::vector<FusionEntry> entries_;
    int forceTab_ = -1;
    std::optional<traces::RowId> followedKernel_;
};

void FusionView::bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile) {
    if (analysis_ == &analysis && compileId_ == compile.id) return;
    analysis_ = &analysis;
    compileId_ = compile.id;
    entries_.clear();
    followedKernel_.reset();
    viz::CompileLinks links = viz::linksOfCompile(analysis.index(), compile);
    std::vector<int> roleCounts(4, 0);
    viz::ModuleDonors donors = viz::moduleDonorsOf(links.graphs);
    std::vector<viz::KernelCallNodes> kernelCalls;  // Inductor ran in the attempt that produced the graphs
    for (const traces::Compile* attempt : links.attempts)
        for (viz::KernelCallNodes& calls : viz::kernelCallNodesOfCompile(analysis.trace().artifacts, attempt->id))
            kernelCalls.push_back(std::move(calls));
    for (const traces::OutputCode* code : links.outputCode) {
        FusionEntry entry;
        entry.code = code;
        viz::CodeRole role = viz::codeRoleOf(*code);
        int ordinal = ++roleCounts[static_cast<size_t>(role)];
        entry.title = std::string(viz::toString(role)) + " kernels (" + std::to_string(code->kernels.size()) + ")";
        if (ordinal > 1) entry.title += " #" + std::to_string(ordinal);
        if (const traces::Graph* graph = graphFusedBy(*code, links.graphs))
            entry.pane = std::make_unique<GraphPane>(*graph, std::vector<const traces::OutputCode*>{code},
                                                     viz::ClusterMode::Kernels, &donors, kernelCalls);
        entries_.push_back(std::move(entry));
    }
}

void FusionView::followSelection(const ViewContext& context) {
    if (context.selection.kernelId == followedKernel_) return;
    followedKernel_ = context.selection.kernelId;
    if (!followedKernel_) return;
    for (size_t i = 0; i < entries_.size(); ++i) {
        if (!entries_[i].pane) continue;
        int kernel = entries_[i].pane->fusion().findKernel(*followedKernel_);
        if (kernel < 0) continue;
        forceTab_ = static_cast<int>(i);
        entries_[i].pane->selectKernel(kernel);
    }
}

void FusionView::draw(ViewContext& context) {
    const traces::Compile* compile = selectedCompileOrHint(context, "Select a compile in the Sites or Recompiles view to see how its kernels fused its graph");
    if (!compile) return;
    bind(*context.currentAnalysis(), *compile);
    if (entries_.empty()) {
        drawEmptyState("This compile generated no code (eager backend, failure, or a cache hit without code)");
        if (context.uiDump) context.uiDump->add("fusion", "no generated code");
        return;
    }
    followSelection(context);
    if (!ImGui::BeginTabBar("fusion-tabs")) return;
    for (size_t i = 0; i < entries_.size(); ++i) {
        std::string label = entries_[i].title + "###code" + std::to_string(entries_[i].code->id);
        ImGuiTabItemFlags flags = forceTab_ == static_cast<int>(i) ? ImGuiTabItemFlags_SetSelected : 0;
        if (context.uiDump) context.uiDump->add("tab", entries_[i].title);
        if (!ImGui::BeginTabItem(label.c_str(), nullptr, flags)) continue;
        drawEntry(entries_[i], context);
        ImGui::EndTabItem();
    }
    forceTab_ = -1;
    ImGui::EndTabBar();
}

void FusionView::openKernel(const FusionEntry& entry, traces::RowId kernelId, ViewContext& context) {
    context.selection.outputCodeId = entry.code->id;
    context.selection.kernelId = kernelId;
    followedKernel_ = kernelId;
    context.focusRequest = ViewId::Code;
    if (entry.pane) entry.pane->selectKernel(entry.pane->fusion().findKernel(kernelId));
}

void FusionView::drawEntry(FusionEntry& entry, ViewContext& context) {
    ImVec2 available = ImGui::GetContentRegionAvail();
    float listWidth = std::min(kKernelListWidth * ImGui::GetFontSize() / 13.0f, available.x * 0.35f);
    ImGui::BeginChild("kernel-list", ImVec2(listWidth, available.y), true);
    drawKernelList(entry, context);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginGroup();
    if (!entry.pane) {
        ImGui::TextWrapped("This log does not say which graph nodes these kernels fused (no fusion comments in the "
                           "generated code, and the kernel names match no node).");
        ImGui::EndGroup();
        return;
    }
    GraphPane& pane = *entry.pane;
    pane.drawToolbar(context.uiDump);
    viz::CanvasEvents events = pane.drawCanvas(ImVec2(0, 0), context.uiDump);
    ImGui::EndGroup();
    if (events.clickedCluster >= 0) {
        int kernel = pane.display().clusters[static_cast<size_t>(events.clickedCluster)].kernel;
        if (kernel >= 0) openKernel(entry, pane.fusion().kernels[static_cast<size_t>(kernel)].kernelId, context);
    }
    if (events.clickedNode >= 0) {
        const viz::DisplayNode& shown = pane.display().nodes[static_cast<size_t>(events.clickedNode)];
        int node = shown.modelNode;
        int kernel = shown.group >= 0 && pane.folding() ? pane.folding()->groups[static_cast<size_t>(shown.group)].kernel : -1;
        if (kernel >= 0) openKernel(entry, pane.fusion().kernels[static_cast<size_t>(kernel)].kernelId, context);
        if (node >= 0) {
            pane.selectNode(node);
            context.selection.graphId = pane.graph().id;
            context.selection.nodeName = pane.model().nodes[static_cast<size_t>(node)].name;
        }
    }
}

void FusionView::drawKernelList(FusionEntry& entry, ViewContext& context) {
    const std::string& path = entry.code->filename;
    std::string file = path.empty() ? "generated code" : path.substr(path.find_last_of('/') + 1);
    ImGui::TextDisabled("%s", file.c_str());
    if (!path.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", path.c_str());
    if (entry.pane) {
        std::string graphLine = "fused from: " + entry.pane->title() + " graph";
        if (entry.pane->fusion().match == viz::KernelMatch::KernelName) graphLine += " (guessed from kernel names)";
        ImGui::TextDisabled("%s", graphLine.c_str());
    }
    ImGui::Separator();
    for (const traces::Kernel& kernel : entry.code->kernels) {
        int index = entry.pane ? entry.pane->fusion().findKernel(kernel.id) : -1;
        const viz::FusionKernel* fused = index >= 0 ? &entry.pane->fusion().kernels[static_cast<size_t>(index)] : nullptr;
        size_t nodeCount = fused ? fused->nodes.size() : 0;
        // A kernel Inductor added itself (a layout copy) computes no node: say which inputs it copies.
        std::string counted = fused && fused->copiesInputs
                                  ? std::to_string(nodeCount) + (nodeCount == 1 ? " input copied" : " inputs copied")
                                  : std::to_string(nodeCount) + (nodeCount == 1 ? " node" : " nodes");
        bool selected = context.selection.kernelId == kernel.id;
        ImGui::PushID(static_cast<int>(kernel.id));
        if (ImGui::Selectable(kernel.name.c_str(), selected)) openKernel(entry, kernel.id, context);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Select %s and open its source", kernel.name.c_str());
        ImGui::SameLine();
        std::string facts = kernel.language + ", " + counted;
        if (kernel.compileSeconds) facts += ", " + widgets::formatSeconds(*kernel.compileSeconds);
        ImGui::TextDisabled("%s", facts.c_str());
        if (!kernel.launchConfig.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kernel.launchConfig.c_str());
        ImGui::PopID();
        if (context.uiDump) context.uiDump->add("kernel", kernel.name + " " + counted);
    }
    if (entry.code->kernels.empty()) ImGui::TextDisabled("no kernels (only extern calls)");
}

}  // namespace

std::unique_ptr<View> makeFusionView() { return std::make_unique<FusionView>(); }

}  // namespace app
