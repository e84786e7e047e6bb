// Compile sites: the tree of user stacks that led to compiles (as tlparse's index), every compile id as a chip
// in its status colour, counts per status, a filter box, and the selected compile's details with links.
#include <imgui.h>

#include <algorithm>
#include <memory>
#include <string>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "report/compile_insights.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

/// Every cache lookup of a compile's attempts in a few words: "cache hit" when all hit, "cache miss" or
/// "cache bypass" likewise, else "cache mixed"; "" when the compile logged none.
std::string cacheBadge(const traces::InsightIndex& insights, const traces::TraceIndex& index, traces::RowId compileId) {
    const traces::Compile* compile = index.compileById(compileId);
    if (!compile) return "";
    std::string result;
    for (const traces::Compile* attempt : index.attempts(*index.occurrenceHead(*compile)))
        for (const traces::CacheOutcome& c : insights.compile(attempt->id).caches) {
            if (result.empty()) result = c.result;
            else if (result != c.result) result = "mixed";
        }
    return result.empty() ? "" : "cache " + result;
}

class SitesView : public View {
public:
    ViewId id() const override { return ViewId::Sites; }
    const char* title() const override { return "Compile sites"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override {
        bound_ = nullptr;
        insightsFor_ = nullptr;
    }

private:
    void rebuildIfNeeded(const viz::SessionAnalysis& session);
    void drawToolbar(const viz::SessionAnalysis& session, ViewContext& context);
    void drawTree(const viz::SessionAnalysis& session, ViewContext& context);
    void drawRow(const viz::SessionAnalysis& session, const viz::SiteRow& row, ViewContext& context);
    void drawDetails(ViewContext& context);
    void revealSelected(const viz::SessionAnalysis& session, ViewContext& context);

    const viz::SessionAnalysis* bound_ = nullptr;
    viz::SiteFilter filter_;
    viz::SiteFilterResult filtered_;
    std::vector<bool> collapsed_;
    std::vector<viz::SiteRow> rows_;
    bool dirty_ = true;
    std::optional<traces::RowId> revealedCompile_;
    std::optional<size_t> scrollToRow_;
    const traces::TraceData* insightsFor_ = nullptr;
    std::unique_ptr<traces::InsightIndex> insights_;
};

void SitesView::rebuildIfNeeded(const viz::SessionAnalysis& session) {
    if (bound_ != &session) {
        bound_ = &session;
        collapsed_.assign(session.sites.nodes().size(), false);
        revealedCompile_.reset();
        dirty_ = true;
    }
    if (!dirty_) return;
    filtered_ = viz::filterSiteTrie(session.sites, filter_);
    rows_ = viz::visibleSiteRows(session.sites, filtered_, collapsed_);
    dirty_ = false;
}

void SitesView::draw(ViewContext& context) {
    const viz::SessionAnalysis* session = currentSession(context);
    if (!session) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    rebuildIfNeeded(*session);
    if (context.currentTrace() != insightsFor_) {
        insightsFor_ = context.currentTrace();
        insights_ = std::make_unique<traces::InsightIndex>(*insightsFor_);
    }
    revealSelected(*session, context);
    drawToolbar(*session, context);

    float detailsWidth = std::max(320.0f, ImGui::GetContentRegionAvail().x * 0.34f);
    ImGui::BeginChild("Compile sites", ImVec2(-detailsWidth - ImGui::GetStyle().ItemSpacing.x, 0), true,
                      ImGuiWindowFlags_HorizontalScrollbar);
    drawTree(*session, context);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("Compile details", ImVec2(0, 0), true);
    drawDetails(context);
    ImGui::EndChild();
}

void SitesView::drawToolbar(const viz::SessionAnalysis& session, ViewContext& context) {
    if (widgets::filterBox("##site-filter", filter_.text, "Filter frames, functions, compile ids (Ctrl+F)", 330.0f))
        dirty_ = true;
    const viz::StateCounts& counts = session.sites.root().counts;
    for (viz::CompileState state : viz::kCompileStates) {
        ImGui::SameLine();
        if (widgets::stateToggle(state, counts.count(state), filter_.states[static_cast<size_t>(state)])) dirty_ = true;
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%d of %d compile ids", filtered_.compilesShown, counts.total());
    ImGui::SameLine();
    if (ImGui::SmallButton("Expand all")) {
        std::fill(collapsed_.begin(), collapsed_.end(), false);
        dirty_ = true;
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Collapse all")) {
        std::fill(collapsed_.begin(), collapsed_.end(), true);
        dirty_ = true;
    }
    const traces::Stack& prefix = session.sites.commonPrefix();
    if (!prefix.empty()) {
        ImGui::TextDisabled("%zu shared outer frame(s) hidden, innermost: %s", prefix.size(),
                            viz::SiteTrie::frameLabel(prefix.back()).c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            for (const traces::Frame& frame : prefix) ImGui::TextUnformatted(viz::SiteTrie::frameLabel(frame).c_str());
            ImGui::EndTooltip();
        }
    }
    if (context.uiDump) {
        std::string line;
        for (viz::CompileState state : viz::kCompileStates)
            line += std::string(viz::compileStateName(state)) + " " + std::to_string(counts.count(state)) + ", ";
        context.uiDump->add("counts", line.substr(0, line.size() - 2));
    }
}

void SitesView::revealSelected(const viz::SessionAnalysis& session, ViewContext& context) {
    if (context.selection.compileId == revealedCompile_) return;
    revealedCompile_ = context.selection.compileId;
    if (!revealedCompile_) return;
    auto position = session.sites.findCompile(*revealedCompile_);
    if (!position) return;
    // Open every folded ancestor so the compile's row exists, then scroll to it once the rows are rebuilt.
    int node = session.sites.compiles()[static_cast<size_t>(*position)].node;
    for (int up = session.sites.nodes()[static_cast<size_t>(node)].parent; up > 0;
         up = session.sites.nodes()[static_cast<size_t>(up)].parent) {
        if (collapsed_[static_cast<size_t>(up)]) dirty_ = true;
        collapsed_[static_cast<size_t>(up)] = false;
    }
    rebuildIfNeeded(session);
    for (size_t r = 0; r < rows_.size(); ++r)
        if (rows_[r].node == node) scrollToRow_ = r;
}

void SitesView::drawTree(const viz::SessionAnalysis& session, ViewContext& context) {
    if (rows_.empty()) {
        ImGui::TextDisabled("No compile id matches the filter.");
        return;
    }
    float rowHeight = ImGui::GetFrameHeight();
    if (scrollToRow_) {
        ImGui::SetScrollY(std::max(0.0f, static_cast<float>(*scrollToRow_) * rowHeight - ImGui::GetWindowHeight() * 0.4f));
        scrollToRow_.reset();
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(rows_.size()), rowHeight);
    while (clipper.Step())
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) drawRow(session, rows_[static_cast<size_t>(r)], context);
}

void SitesView::drawRow(const viz::SessionAnalysis& session, const viz::SiteRow& row, ViewContext& context) {
    const viz::SiteTrie& trie = session.sites;
    const viz::SiteTrieNode& node = trie.nodes()[static_cast<size_t>(row.node)];
    float rowHeight = ImGui::GetFrameHeight();
    float indent = ImGui::GetFontSize() * 1.1f;
    ImGui::PushID(row.node);
    ImVec2 start = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(ImVec2(start.x + indent * static_cast<float>(row.depth), start.y));
    bool folded = collapsed_[static_cast<size_t>(row.node)];
    if (!node.children.empty()) {
        ImVec2 at = ImGui::GetCursorScreenPos();
        if (ImGui::InvisibleButton("##fold", ImVec2(indent, rowHeight))) {
            collapsed_[static_cast<size_t>(row.node)] = !folded;
            dirty_ = true;
        }
        float size = ImGui::GetFontSize() * 0.32f;
        ImVec2 center(at.x + indent * 0.5f, at.y + rowHeight * 0.5f);
        ImDrawList* draw = ImGui::GetWindowDrawList();
        ImU32 arrow = ImGui::GetColorU32(ImGuiCol_Text);
        if (folded)
            draw->AddTriangleFilled(ImVec2(center.x - size * 0.6f, center.y - size), ImVec2(center.x - size * 0.6f, center.y + size),
                                    ImVec2(center.x + size, center.y), arrow);
        else
            draw->AddTriangleFilled(ImVec2(center.x - size, center.y - size * 0.6f), ImVec2(center.x + size, center.y - size * 0.6f),
                                    ImVec2(center.x, center.y + size), arrow);
        ImGui::SameLine(0, 0);
    } else {
        ImGui::Dummy(ImVec2(indent, rowHeight));
        ImGui::SameLine(0, 0);
    }
    ImGui::AlignTextToFramePadding();
    std::string label = viz::SiteTrie::frameLabel(node.frame);
    if (filtered_.nodeMatched[static_cast<size_t>(row.node)])
        ImGui::TextColored(theme::kWarningText, "%s", label.c_str());
    else
        ImGui::TextUnformatted(label.c_str());
    if (!node.frame.source.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", node.frame.source.c_str());
    }
    if (context.uiDump) context.uiDump->add("row", label);

    for (int c : node.compiles) {
        if (!filtered_.compileVisible[static_cast<size_t>(c)]) continue;
        const viz::SiteCompile& compile = trie.compiles()[static_cast<size_t>(c)];
        ImGui::SameLine();
        bool selected = context.selection.compileId && trie.findCompile(*context.selection.compileId) == c;
        if (widgets::compileChip(compile.display.c_str(), compile.state, selected)) {
            selectCompile(context, compile.compileId);
            revealedCompile_ = compile.compileId;
        }
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s %s: %s%s", compile.display.c_str(), compile.function.c_str(),
                              viz::compileStateName(compile.state),
                              compile.attempts > 1 ? (", " + std::to_string(compile.attempts) + " attempts").c_str() : "");
        }
        if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) context.focusRequest = ViewId::Recompiles;
        std::string cache = cacheBadge(*insights_, context.currentAnalysis()->index(), compile.compileId);
        if (!cache.empty()) {
            ImGui::SameLine();
            ImGui::TextDisabled("%s", cache.c_str());
        }
        if (context.uiDump)
            context.uiDump->add("compile", compile.display + " " + viz::compileStateName(compile.state) +
                                               (cache.empty() ? "" : " " + cache));
    }
    if (folded && node.counts.total() > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("(%d compile ids below)", node.counts.total());
    }
    ImGui::PopID();
}

/// The recompile step of compile `compileId` (its occurrence head), or null; a scan of the session's histories.
const viz::RecompileStep* stepOf(const ViewContext& context, traces::RowId compileId) {
    const viz::SessionAnalysis* session = currentSession(context);
    if (!session) return nullptr;
    for (const viz::FunctionHistory& history : session->functions)
        for (const viz::RecompileStep& step : history.steps)
            if (step.compileId == compileId) return &step;
    return nullptr;
}

void SitesView::drawDetails(ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    const traces::Compile* head = selectedHead(context);
    if (!analysis || !head) {
        ImGui::TextDisabled("Click a compile id to see its details.");
        return;
    }
    const traces::TraceIndex& index = analysis->index();
    viz::CompileState state = viz::compileStateOf(index, *head);
    widgets::compileChip(head->key.display().c_str(), state, false);
    ImGui::SameLine();
    const viz::SiteCompile* leaf = nullptr;
    if (const viz::SessionAnalysis* session = currentSession(context))
        if (auto position = session->sites.findCompile(head->id)) leaf = &session->sites.compiles()[static_cast<size_t>(*position)];
    const viz::SiteTrieNode* node = leaf && bound_ ? &bound_->sites.nodes()[static_cast<size_t>(leaf->node)] : nullptr;
    // A compile refused before dynamo_start has no name; the frame it hangs on has.
    std::string function = !head->function.empty() ? head->function : node ? node->frame.function : std::string();
    ImGui::Text("%s  %s", function.c_str(), viz::compileStateName(state));
    if (!head->file.empty()) ImGui::TextDisabled("%s:%d", head->file.c_str(), head->firstLine);
    else if (node) ImGui::TextDisabled("%s", viz::SiteTrie::frameLabel(node->frame).c_str());

    viz::CompileLinks links = viz::linksOfCompile(index, *head);
    ImGui::Separator();
    bool keys = context.hasKeyboard;
    if (widgets::linkButton("Step through this function's compiles", 'R', keys)) context.focusRequest = ViewId::Recompiles;
    if (const traces::Graph* graph = viz::primaryGraph(links)) {
        std::string text = "Graph: " + std::string(traces::toString(graph->kind)) + " (" +
                           std::to_string(graph->nodes.size()) + " nodes), " + std::to_string(links.graphs.size()) +
                           " graphs in all";
        if (widgets::linkButton(text.c_str(), 'G', keys)) {
            context.selection.graphId = graph->id;
            context.focusRequest = ViewId::Graph;
        }
    }
    if (!links.outputCode.empty()) {
        size_t kernels = 0;
        for (const traces::OutputCode* code : links.outputCode) kernels += code->kernels.size();
        std::string text = "Generated code: " + std::to_string(links.outputCode.size()) + " file(s), " +
                           std::to_string(kernels) + " kernel(s)";
        if (widgets::linkButton(text.c_str(), 'C', keys)) {
            context.selection.outputCodeId = links.outputCode.front()->id;
            context.selection.kernelId.reset();
            context.focusRequest = ViewId::Code;
        }
    }
    if (!links.graphBreaks.empty()) {
        std::string text = std::to_string(links.graphBreaks.size()) + " graph break record(s)";
        if (widgets::linkButton(text.c_str(), 'B', keys)) {
            context.selection.graphBreakId = links.graphBreaks.front()->id;
            context.focusRequest = ViewId::Breaks;
        }
    }

    ImGui::Separator();
    ImGui::Text("Attempts (%zu)", links.attempts.size());
    for (const traces::Compile* attempt : links.attempts) {
        ImGui::BulletText("%s  %s", attempt->key.display().c_str(), traces::toString(attempt->status));
        if (!attempt->failType.empty()) ImGui::TextColored(theme::kErrorText, "  %s", attempt->failType.c_str());
    }
    for (const traces::Compile* attempt : links.attempts)
        if (std::string caches = traces::cacheSummaryText(insights_->compile(attempt->id)); !caches.empty())
            ImGui::TextWrapped("Caches %s: %s", attempt->key.display().c_str(), caches.c_str());
    for (const traces::Compile* attempt : links.attempts) {
        const traces::CustomOps& ops = insights_->compile(attempt->id).customOps;
        if (ops.empty()) continue;
        std::string text = "Custom ops " + attempt->key.display() + ": " + traces::customOpsText(ops);
        if (ops.nonCompliant.empty()) ImGui::TextWrapped("%s", text.c_str());
        else ImGui::TextColored(theme::kWarningText, "%s", text.c_str());
        if (context.uiDump) context.uiDump->add("custom ops", text);
    }
    ImGui::Text("Guards %zu", links.guards.size());
    if (head->opCount) {
        ImGui::SameLine();
        ImGui::Text("  ops %lld", static_cast<long long>(*head->opCount));
    }
    if (head->cacheSize) {
        ImGui::SameLine();
        ImGui::Text("  cache size %lld", static_cast<long long>(*head->cacheSize));
    }

    ImGui::PushFont(theme::codeFont());
    if (const viz::RecompileStep* step = stepOf(context, head->id); step && !step->guardFailures.empty()) {
        // One line per cache entry that rejected the call; the stepper shows Dynamo's whole message.
        ImGui::Separator();
        ImGui::TextColored(theme::kWarningText, "Recompiled: guards of earlier entries failed (newest first)");
        for (const traces::GuardFailureText& failure : step->guardFailures) {
            std::string_view reason = failure.reason;
            reason = reason.substr(0, reason.find('\n'));
            reason = reason.substr(0, reason.find("  #"));  // Dynamo appends the guard's source line as a comment
            ImGui::BulletText("%s: %.*s", failure.failedCompile.c_str(), static_cast<int>(reason.size()), reason.data());
        }
    }
    for (const traces::Compile* attempt : links.attempts) {
        for (const std::string& reason : attempt->restartReasons) {
            ImGui::Separator();
            ImGui::TextColored(theme::kWarningText, "Restarted analysis:");
            ImGui::TextWrapped("%s", reason.c_str());
        }
        if (!attempt->failReason.empty()) {
            ImGui::Separator();
            ImGui::TextColored(theme::kErrorText, "%s:", attempt->failType.c_str());
            ImGui::TextWrapped("%s", attempt->failReason.c_str());
        }
    }
    ImGui::PopFont();

    auto siteId = index.effectiveSite(*head);
    if (const traces::CompileSite* site = siteId ? index.siteById(*siteId) : nullptr) {
        ImGui::Separator();
        ImGui::Text("User stack (outermost first)");
        for (const traces::Frame& frame : site->userStack) {
            ImGui::BulletText("%s", viz::SiteTrie::frameLabel(frame).c_str());
            if (!frame.source.empty()) ImGui::TextDisabled("    %s", frame.source.c_str());
        }
    }
}

}  // namespace

std::unique_ptr<View> makeSitesView() { return std::make_unique<SitesView>(); }

}  // namespace app
