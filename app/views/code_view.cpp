// Generated code of the selected compile: Inductor's wrapper and each kernel (Triton, C++, CUDA, LLVM IR), with
// syntax colours, line numbers, search and copy; links from a kernel to the graph nodes it fused and back.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "gui/code_lines.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

/// Which text is on screen: a whole output file, or one kernel of it.
struct CodeItem {
    traces::RowId outputCodeId = 0;
    std::optional<traces::RowId> kernelId;
    bool operator==(const CodeItem&) const = default;
};

class CodeView : public View {
public:
    ViewId id() const override { return ViewId::Code; }
    const char* title() const override { return "Code"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { loadedTrace_ = nullptr; }

private:
    void drawList(const viz::TraceAnalysis& analysis, ViewContext& context);
    void drawNodeKernels(const viz::TraceAnalysis& analysis, ViewContext& context);
    void drawToolbar(const viz::TraceAnalysis& analysis, ViewContext& context);
    void drawCode(ViewContext& context);
    void load(const viz::TraceAnalysis& analysis, const CodeItem& item);
    void findAll();

    const viz::TraceAnalysis* loadedTrace_ = nullptr;
    std::optional<CodeItem> loaded_;
    std::string title_;
    std::string launch_;  // a kernel's launch configuration and compile time, when the trace has them
    // The compile's warnings (dynamo_warning artifacts): Dynamo's own, and what cwb's compiled code reported on
    // its first runs (max-autotune's choices, a CUDA graph that could not be recorded); for a kernel, only the
    // notes that name it.
    std::vector<std::string> runNotes_;
    viz::HighlightedCode code_;
    bool allCompiles_ = false;
    std::string search_;
    std::vector<viz::TextMatch> matches_;
    size_t currentMatch_ = 0;
    bool scrollToMatch_ = false;
    bool scrollToTop_ = false;  ///< a new text starts at its top, not at the old text's scroll position
};

/// The selected compile's code; the whole session's when asked for, or when no compile is selected yet.
std::vector<const traces::OutputCode*> codeListed(const viz::TraceAnalysis& analysis, const ViewContext& context, bool all) {
    const traces::Compile* head = selectedHead(context);
    if (all || !head) return analysis.index().session(context.selection.sessionId).outputCode;
    return viz::linksOfCompile(analysis.index(), *head).outputCode;
}

std::string fileName(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// "forward wrapper" from Inductor's first line "# AOT ID: ['1_forward']"; else the language's role.
std::string codeRole(const traces::OutputCode& output) {
    std::string role = output.language == "python" ? "wrapper" : output.language;
    std::string_view head = std::string_view(output.source).substr(0, 80);
    constexpr std::string_view kAotId = "# AOT ID: ['";
    if (!head.starts_with(kAotId)) return role;
    std::string_view id = head.substr(kAotId.size());
    id = id.substr(0, id.find('\''));
    size_t underscore = id.find('_');
    return std::string(underscore == std::string_view::npos ? id : id.substr(underscore + 1)) + " " + role;
}

void CodeView::load(const viz::TraceAnalysis& analysis, const CodeItem& item) {
    if (loadedTrace_ == &analysis && loaded_ == item) return;
    loadedTrace_ = &analysis;
    loaded_ = item;
    scrollToTop_ = true;
    const traces::OutputCode* output = analysis.outputCode(item.outputCodeId);
    launch_.clear();
    runNotes_.clear();
    if (!output) {
        code_ = {};
        title_.clear();
        return;
    }
    viz::KernelRef kernel = item.kernelId ? analysis.kernel(*item.kernelId) : viz::KernelRef{};
    if (kernel.kernel) {
        title_ = kernel.kernel->name;
        code_ = viz::HighlightedCode(kernel.kernel->source, viz::codeLanguageFromName(kernel.kernel->language));
        launch_ = kernel.kernel->launchConfig;
        if (kernel.kernel->compileSeconds)
            launch_ += (launch_.empty() ? "" : "  ·  ") + std::string("compiled in ") + widgets::formatSeconds(*kernel.kernel->compileSeconds);
    } else {
        title_ = output->filename.empty() ? output->event : fileName(output->filename);
        code_ = viz::HighlightedCode(output->source, viz::codeLanguageFromName(output->language));
    }
    for (const traces::Artifact& a : analysis.trace().artifacts) {
        if (a.name != "dynamo_warning" || !output->compileId || a.compileId != output->compileId || a.payload.empty()) continue;
        if (kernel.kernel && a.payload.find(" " + kernel.kernel->name + " ") == std::string::npos) continue;
        runNotes_.push_back(a.payload);
    }
    findAll();
}

void CodeView::findAll() {
    matches_ = viz::findMatches(code_, search_);
    currentMatch_ = 0;
    scrollToMatch_ = !matches_.empty();
}

void CodeView::draw(ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    if (!analysis || !currentSession(context)) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    // Follow the selection; with none yet, show the first code of the selected compile.
    Selection& selection = context.selection;
    if (!selection.outputCodeId) {
        auto listed = codeListed(*analysis, context, allCompiles_);
        if (!listed.empty()) selection.outputCodeId = listed.front()->id;
    }
    if (selection.outputCodeId) load(*analysis, {*selection.outputCodeId, selection.kernelId});

    ImGui::BeginChild("Code files", ImVec2(ImGui::GetFontSize() * 24.0f, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    drawNodeKernels(*analysis, context);
    drawList(*analysis, context);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("Generated code", ImVec2(0, 0), false);
    if (!loaded_ || title_.empty()) {
        ImGui::TextDisabled(selectedHead(context) ? "This compile generated no code (eager backend, or it failed)."
                                                  : "Select a compile to read its generated code.");
    } else {
        drawToolbar(*analysis, context);
        drawCode(context);
    }
    ImGui::EndChild();
}

void CodeView::drawNodeKernels(const viz::TraceAnalysis& analysis, ViewContext& context) {
    Selection& selection = context.selection;
    const traces::Graph* graph = selection.graphId ? analysis.graph(*selection.graphId) : nullptr;
    if (!graph || selection.nodeName.empty()) return;
    auto kernels = viz::kernelsOfNode(analysis.index(), *graph, selection.nodeName);
    ImGui::TextDisabled("Node %s is computed by:", selection.nodeName.c_str());
    if (kernels.empty()) ImGui::TextDisabled("  no kernel (not fused, or not recorded)");
    for (const viz::KernelRef& ref : kernels) {
        ImGui::PushID(ref.kernel);
        if (widgets::linkButton(ref.kernel->name.c_str())) {
            selection.outputCodeId = ref.code->id;
            selection.kernelId = ref.kernel->id;
        }
        ImGui::PopID();
    }
    ImGui::Separator();
}

void CodeView::drawList(const viz::TraceAnalysis& analysis, ViewContext& context) {
    ImGui::Checkbox("All compiles of the session", &allCompiles_);
    Selection& selection = context.selection;
    auto listed = codeListed(analysis, context, allCompiles_);
    if (listed.empty()) ImGui::TextDisabled("No generated code here.");
    for (const traces::OutputCode* output : listed) {
        ImGui::PushID(static_cast<int>(output->id));
        const traces::Compile* compile = output->compileId ? analysis.compile(*output->compileId) : nullptr;
        std::string label = (compile ? compile->key.display() + " " : std::string()) + codeRole(*output) + " (" +
                            std::to_string(output->kernels.size()) + " kernels)";
        bool current = selection.outputCodeId == output->id && !selection.kernelId;
        if (ImGui::Selectable(label.c_str(), current)) {
            selection.outputCodeId = output->id;
            selection.kernelId.reset();
            if (output->compileId) selection.compileId = output->compileId;  // so the graph view shows its graphs
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", output->filename.c_str());
        ImGui::Indent();
        for (const traces::Kernel& kernel : output->kernels) {
            ImGui::PushID(static_cast<int>(kernel.id));
            bool kernelCurrent = selection.kernelId == kernel.id;
            std::string kernelLabel = kernel.name + "  " + kernel.language;
            if (kernel.compileSeconds) kernelLabel += "  " + widgets::formatSeconds(*kernel.compileSeconds);
            if (ImGui::Selectable(kernelLabel.c_str(), kernelCurrent)) {
                selection.outputCodeId = output->id;
                selection.kernelId = kernel.id;
                if (output->compileId) selection.compileId = output->compileId;
            }
            ImGui::PopID();
            if (context.uiDump) context.uiDump->add("kernel", kernel.name);
        }
        ImGui::Unindent();
        ImGui::PopID();
    }
}

void CodeView::drawToolbar(const viz::TraceAnalysis& analysis, ViewContext& context) {
    ImGui::Text("%s", title_.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s, %zu lines", viz::codeLanguageName(code_.language()), code_.lineCount());
    if (context.uiDump)
        context.uiDump->add("code", title_ + " (" + viz::codeLanguageName(code_.language()) + ", " +
                                        std::to_string(code_.lineCount()) + " lines)");
    if (!launch_.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("  %s", launch_.c_str());
        if (context.uiDump) context.uiDump->add("launch", launch_);
    }
    // A few notes in full; a compile with many kernels under max-autotune says how many more there are.
    constexpr size_t kShownNotes = 4;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    for (size_t i = 0; i < runNotes_.size() && i < kShownNotes; ++i) {
        ImGui::TextWrapped("%s", runNotes_[i].c_str());
        if (context.uiDump) context.uiDump->add("run note", runNotes_[i]);
    }
    if (runNotes_.size() > kShownNotes) ImGui::Text("... and %zu more notes (open a kernel for its own)", runNotes_.size() - kShownNotes);
    ImGui::PopStyleColor();
    if (widgets::filterBox("##code-search", search_, "Search (Ctrl+F, Enter: next)", 240.0f)) findAll();
    bool searchFocused = ImGui::IsItemActive();
    ImGui::SameLine();
    if (!search_.empty()) {
        if (matches_.empty()) ImGui::TextDisabled("no match");
        else ImGui::TextDisabled("%zu/%zu", currentMatch_ + 1, matches_.size());
        ImGui::SameLine();
    }
    bool next = ImGui::SmallButton("v") || (searchFocused && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) &&
                                            !ImGui::GetIO().KeyShift);
    ImGui::SameLine();
    bool previous = ImGui::SmallButton("^") || (searchFocused && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) &&
                                                ImGui::GetIO().KeyShift);
    if (!matches_.empty() && (next || previous)) {
        currentMatch_ = next ? (currentMatch_ + 1) % matches_.size() : (currentMatch_ + matches_.size() - 1) % matches_.size();
        scrollToMatch_ = true;
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText(code_.text().c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy the whole text to the clipboard");

    // Kernel -> graph nodes: what this kernel computes, each a link into the graph view.
    viz::KernelRef kernel = loaded_->kernelId ? analysis.kernel(*loaded_->kernelId) : viz::KernelRef{};
    if (!kernel.kernel) return;
    auto nodes = viz::nodesOfKernel(analysis.index(), *kernel.code, *kernel.kernel);
    // Kernel -> the lines of the pre-grad graph, post-grad graph and output code it came from.
    if (widgets::linkButton("Provenance: its graph nodes and output code lines side by side", 'P', context.hasKeyboard))
        context.focusRequest = ViewId::Provenance;
    ImGui::TextDisabled("Fused graph nodes:");
    if (nodes.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("not recorded in this log");
    }
    for (const viz::NodeRef& node : nodes) {
        ImGui::SameLine();
        const traces::Graph* graph = analysis.graph(node.graphId);
        std::string label = node.node + (graph ? std::string(" (") + traces::toString(graph->kind) + ")" : "");
        ImGui::PushID(label.c_str());
        // The first node takes G: kernel -> graph node from the keyboard.
        bool first = &node == &nodes.front();
        if (first ? widgets::linkButton(label.c_str(), 'G', context.hasKeyboard) : widgets::linkButton(label.c_str())) {
            if (graph && graph->compileId) context.selection.compileId = graph->compileId;
            context.selection.graphId = node.graphId;
            context.selection.nodeName = node.node;
            context.focusRequest = ViewId::Graph;
        }
        ImGui::PopID();
    }
}

void CodeView::drawCode(ViewContext& context) {
    ImGui::PushFont(theme::codeFont());
    ImGui::BeginChild("code text", ImVec2(0, 0), true, ImGuiWindowFlags_HorizontalScrollbar);
    float lineHeight = ImGui::GetTextLineHeightWithSpacing();
    float gutterWidth = codeGutterWidth(code_.lineCount());
    if (scrollToTop_) {
        ImGui::SetScrollX(0);
        ImGui::SetScrollY(0);
        scrollToTop_ = false;
    }
    if (scrollToMatch_ && !matches_.empty()) {
        float target = static_cast<float>(matches_[currentMatch_].line) * lineHeight;
        ImGui::SetScrollY(std::max(0.0f, target - ImGui::GetWindowHeight() * 0.35f));
        scrollToMatch_ = false;
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(code_.lineCount()), lineHeight);
    int firstShown = -1;
    int lastShown = -1;
    while (clipper.Step()) {
        for (int l = clipper.DisplayStart; l < clipper.DisplayEnd; ++l) {
            if (firstShown < 0) firstShown = l;
            lastShown = l;
            drawCodeLine(code_, static_cast<size_t>(l), gutterWidth, {0, &matches_, currentMatch_, search_.size()});
        }
    }
    if (ImGui::BeginPopupContextWindow("code menu")) {
        if (ImGui::MenuItem("Copy all")) ImGui::SetClipboardText(code_.text().c_str());
        ImGui::EndPopup();
    }
    if (context.uiDump && firstShown >= 0) {
        context.uiDump->add("lines", std::to_string(firstShown + 1) + "-" + std::to_string(lastShown + 1));
        context.uiDump->add("first-line", code_.line(static_cast<size_t>(firstShown)));
    }
    ImGui::EndChild();
    ImGui::PopFont();
}


}  // namespace

std::unique_ptr<View> makeCodeView() { return std::make_unique<CodeView>(); }

}  // namespace app
