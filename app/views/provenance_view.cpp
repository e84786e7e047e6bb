// Provenance: the selected compile's pre-grad graph, post-grad graph and generated code side by side. A click on
// a line lights up what it became or came from in the other two panes (Inductor's provenance node mappings, else
// the kernels' fusion comments) and scrolls them there.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <string>

#include "graph/provenance.h"
#include "gui/code_lines.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/graph_pane.h"
#include "views/graph_views.h"
#include "views/view_support.h"

namespace app {
namespace {

constexpr std::array<viz::ProvenancePane, 3> kPanes = {viz::ProvenancePane::Pre, viz::ProvenancePane::Post,
                                                       viz::ProvenancePane::Code};
constexpr ImU32 kLinkedLine = IM_COL32(60, 120, 210, 90);

std::string joined(const std::set<std::string>& names) {
    constexpr size_t kShown = 6;
    std::string text;
    size_t count = 0;
    for (const std::string& name : names) {
        if (count++ == kShown) return text + ", ... (" + std::to_string(names.size()) + ")";
        text += (text.empty() ? "" : ", ") + name;
    }
    return text.empty() ? "none" : text;
}

class ProvenanceView : public View {
public:
    ViewId id() const override { return ViewId::Provenance; }
    const char* title() const override { return "Provenance"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { analysis_ = nullptr; }

private:
    struct PaneState {
        viz::HighlightedCode code;
        std::vector<bool> lit;  ///< per line: linked to the selection
        size_t litCount = 0;
        std::vector<int> runs;  ///< first line of each run of linked lines, for stepping through them
        size_t run = 0;         ///< the run last stepped to
        int scrollTo = -1;      ///< line to bring into view next frame
    };

    void bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile);
    void showModule(size_t module);
    void followSelection(const ViewContext& context);
    void select(viz::ProvenancePane pane, const std::string& anchor, bool scrollThatPane);
    void drawToolbar(ViewContext& context);
    void drawPane(size_t index, float width, ViewContext& context);

    const viz::TraceAnalysis* analysis_ = nullptr;
    traces::RowId compileId_ = 0;
    std::vector<viz::ProvenanceModule> modules_;
    size_t module_ = 0;
    std::array<PaneState, 3> panes_;
    viz::ProvenanceSelection selection_;
    std::string selectedWhat_;  ///< "pre-grad node arange", for the status line
    std::optional<traces::RowId> followedKernel_;
    std::string followedNode_;
};

void ProvenanceView::bind(const viz::TraceAnalysis& analysis, const traces::Compile& compile) {
    if (analysis_ == &analysis && compileId_ == compile.id) return;
    analysis_ = &analysis;
    compileId_ = compile.id;
    std::vector<traces::RowId> attempts;
    for (const traces::Compile* attempt : viz::linksOfCompile(analysis.index(), compile).attempts) attempts.push_back(attempt->id);
    if (attempts.empty()) attempts.push_back(compile.id);
    modules_ = viz::provenanceModulesOf(analysis.trace(), attempts);
    followedKernel_.reset();
    followedNode_.clear();
    showModule(0);
}

void ProvenanceView::showModule(size_t module) {
    module_ = module;
    selection_ = {};
    selectedWhat_.clear();
    for (size_t p = 0; p < kPanes.size(); ++p) {
        PaneState& pane = panes_[p];
        pane = {};
        if (module_ >= modules_.size()) continue;
        const viz::LinkedText& text = modules_[module_].text(kPanes[p]);
        pane.code = viz::HighlightedCode(text.text, viz::CodeLanguage::Python);
        pane.lit.assign(pane.code.lineCount(), false);
    }
    // A first impression of what the view does: the module's first kernel, linked to its nodes, until the user
    // (or a kernel or node picked elsewhere) selects something else.
    if (module_ >= modules_.size()) return;
    for (const std::string& anchor : modules_[module_].text(viz::ProvenancePane::Code).anchors) {
        if (anchor.empty()) continue;
        viz::ProvenanceSelection linked = modules_[module_].select(viz::ProvenancePane::Code, anchor);
        if (linked.pre.empty() && linked.post.empty()) continue;
        select(viz::ProvenancePane::Code, anchor, true);
        break;
    }
}

void ProvenanceView::select(viz::ProvenancePane from, const std::string& anchor, bool scrollThatPane) {
    const viz::ProvenanceModule& module = modules_[module_];
    selection_ = module.select(from, anchor);
    static constexpr const char* kWhat[] = {"pre-grad node ", "post-grad node ", "code "};
    selectedWhat_ = kWhat[static_cast<int>(from)] + anchor;
    for (size_t p = 0; p < kPanes.size(); ++p) {
        PaneState& pane = panes_[p];
        const std::vector<std::string>& anchors = module.text(kPanes[p]).anchors;
        pane.litCount = 0;
        pane.scrollTo = -1;
        pane.runs.clear();
        pane.run = 0;
        for (size_t line = 0; line < pane.lit.size(); ++line) {
            bool lit = line < anchors.size() && viz::ProvenanceModule::lineSelected(selection_, kPanes[p], anchors[line]);
            pane.lit[line] = lit;
            pane.litCount += lit;
            if (lit && (line == 0 || !pane.lit[line - 1])) pane.runs.push_back(static_cast<int>(line));
            if (lit && pane.scrollTo < 0 && (kPanes[p] != from || scrollThatPane)) pane.scrollTo = static_cast<int>(line);
        }
    }
}

/// A kernel picked elsewhere (code view, fusion diagram) or a graph node (graph view) is selected here too.
void ProvenanceView::followSelection(const ViewContext& context) {
    if (modules_.empty()) return;
    const Selection& selection = context.selection;
    if (selection.kernelId != followedKernel_) {
        followedKernel_ = selection.kernelId;
        viz::KernelRef kernel = selection.kernelId ? analysis_->kernel(*selection.kernelId) : viz::KernelRef{};
        for (size_t m = 0; kernel.kernel && m < modules_.size(); ++m) {
            const std::vector<std::string>& anchors = modules_[m].code.anchors;
            if (std::find(anchors.begin(), anchors.end(), kernel.kernel->name) == anchors.end()) continue;
            if (m != module_) showModule(m);
            select(viz::ProvenancePane::Code, kernel.kernel->name, true);
            break;
        }
    }
    if (selection.nodeName != followedNode_) {
        followedNode_ = selection.nodeName;
        const std::vector<std::string>& anchors = modules_[module_].pre.anchors;
        if (std::find(anchors.begin(), anchors.end(), followedNode_) != anchors.end())
            select(viz::ProvenancePane::Pre, followedNode_, true);
    }
}

void ProvenanceView::draw(ViewContext& context) {
    const traces::Compile* compile = selectedCompileOrHint(context, "Select a compile in the Sites or Recompiles view to see its provenance");
    if (!compile) return;
    bind(*context.currentAnalysis(), *compile);
    if (modules_.empty()) {
        drawEmptyState("This compile generated no code (eager backend, failure, or a cache hit without code)");
        if (context.uiDump) context.uiDump->add("provenance", "none");
        return;
    }
    followSelection(context);
    drawToolbar(context);
    float spacing = ImGui::GetStyle().ItemSpacing.x;
    float width = (ImGui::GetContentRegionAvail().x - 2 * spacing) / 3.0f;
    for (size_t p = 0; p < kPanes.size(); ++p) {
        if (p > 0) ImGui::SameLine();
        drawPane(p, width, context);
    }
}

void ProvenanceView::drawToolbar(ViewContext& context) {
    for (size_t m = 0; m < modules_.size(); ++m) {
        if (m > 0) ImGui::SameLine();
        if (ImGui::RadioButton(modules_[m].title.c_str(), m == module_) && m != module_) showModule(m);
        if (context.uiDump) context.uiDump->addItem(modules_[m].title);
    }
    const viz::ProvenanceModule& module = modules_[module_];
    ImGui::SameLine();
    const char* source = module.fromArtifact ? "links: Inductor's provenance node mappings"
                                             : "links inferred from the kernels' fusion comments (no provenance mappings "
                                               "for this module; TORCH_COMPILE_DEBUG=1 writes them)";
    ImGui::TextDisabled("%s", source);
    if (selection_.empty()) {
        ImGui::TextDisabled("Click a line of any pane: the lines it came from or became light up in the other two.");
    } else {
        ImGui::Text("%s:", selectedWhat_.c_str());
        ImGui::SameLine();
        ImGui::TextDisabled("pre-grad %s  ->  post-grad %s  ->  code %s", joined(selection_.pre).c_str(),
                            joined(selection_.post).c_str(), joined(selection_.code).c_str());
    }
    if (context.uiDump) {
        context.uiDump->add("provenance", module.title + ": " + source);
        if (!selection_.empty())
            context.uiDump->add("selected", selectedWhat_ + ": pre " + joined(selection_.pre) + "; post " +
                                                joined(selection_.post) + "; code " + joined(selection_.code));
    }
}

void ProvenanceView::drawPane(size_t index, float width, ViewContext& context) {
    PaneState& pane = panes_[index];
    const viz::ProvenanceModule& module = modules_[module_];
    const viz::LinkedText& text = module.text(kPanes[index]);
    ImGui::BeginGroup();
    ImGui::TextUnformatted(text.title.c_str());
    ImGui::PushID(static_cast<int>(index));
    if (pane.litCount > 0) {
        ImGui::SameLine();
        ImGui::TextColored(theme::kLinkText, "%zu linked line(s)", pane.litCount);
        if (pane.runs.size() > 1) {
            // The linked lines of a kernel are apart (its definition, then each call): step through them.
            ImGui::SameLine();
            size_t step = 0;
            if (ImGui::SmallButton("<")) step = pane.runs.size() - 1;
            ImGui::SameLine();
            if (ImGui::SmallButton(">")) step = 1;
            if (step > 0) {
                pane.run = (pane.run + step) % pane.runs.size();
                pane.scrollTo = pane.runs[pane.run];
            }
            ImGui::SameLine();
            ImGui::TextDisabled("%zu/%zu", pane.run + 1, pane.runs.size());
        }
    }
    ImGui::PushFont(theme::codeFont());
    ImGui::BeginChild("text", ImVec2(width, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    float lineHeight = ImGui::GetTextLineHeightWithSpacing();
    if (pane.code.lineCount() == 0 || text.text.empty()) ImGui::TextDisabled("(not in this log)");
    if (pane.scrollTo >= 0) {
        ImGui::SetScrollY(std::max(0.0f, static_cast<float>(pane.scrollTo) * lineHeight - ImGui::GetWindowHeight() * 0.3f));
        pane.scrollTo = -1;
    }
    float gutter = codeGutterWidth(pane.code.lineCount());
    std::string clickedAnchor;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(pane.code.lineCount()), lineHeight);
    int firstShown = -1;
    while (clipper.Step()) {
        for (int l = clipper.DisplayStart; l < clipper.DisplayEnd; ++l) {
            size_t line = static_cast<size_t>(l);
            if (firstShown < 0) firstShown = l;
            drawCodeLine(pane.code, line, gutter, {pane.lit[line] ? kLinkedLine : 0});
            const std::string& anchor = line < text.anchors.size() ? text.anchors[line] : std::string();
            if (anchor.empty() || !ImGui::IsItemHovered()) continue;
            ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
            if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) clickedAnchor = anchor;
        }
    }
    ImGui::EndChild();
    ImGui::PopFont();
    ImGui::PopID();
    ImGui::EndGroup();
    if (!clickedAnchor.empty()) select(kPanes[index], clickedAnchor, false);
    if (context.uiDump) {
        context.uiDump->add("pane", text.title + ": " + std::to_string(pane.code.lineCount()) + " lines, " +
                                        std::to_string(pane.litCount) + " linked");
        if (firstShown >= 0) context.uiDump->add("pane-first-line", std::to_string(firstShown + 1));
    }
}

}  // namespace

std::unique_ptr<View> makeProvenanceView() { return std::make_unique<ProvenanceView>(); }

}  // namespace app
