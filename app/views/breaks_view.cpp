// Graph breaks, de-duplicated: one row per distinct break with its count, reason, user source line and the
// compiles it split; a row's details show Dynamo's full explanation and the user stack. Clicking a compile
// id jumps to it in the compile-site tree.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

class BreaksView : public View {
public:
    ViewId id() const override { return ViewId::Breaks; }
    const char* title() const override { return "Graph breaks"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { bound_ = nullptr; }

private:
    void refresh(const viz::SessionAnalysis& session);
    void followSelection(const viz::SessionAnalysis& session, const ViewContext& context);
    void drawTable(const viz::SessionAnalysis& session, ViewContext& context);
    void drawDetails(const viz::SessionAnalysis& session, ViewContext& context);
    void compileLinks(const viz::BreakGroup& group, ViewContext& context);

    const viz::SessionAnalysis* bound_ = nullptr;
    std::string filter_;
    std::vector<size_t> shown_;
    bool dirty_ = true;
    bool sortByCount_ = true;  ///< the table's default sort (count, descending)
    std::optional<size_t> selected_;
    std::optional<traces::RowId> followedBreak_;
};

void BreaksView::refresh(const viz::SessionAnalysis& session) {
    if (bound_ != &session) {
        bound_ = &session;
        selected_.reset();
        followedBreak_.reset();
        dirty_ = true;
    }
    if (!dirty_) return;
    shown_ = viz::filterBreaks(session.breaks, filter_);
    if (sortByCount_) {
        std::stable_sort(shown_.begin(), shown_.end(), [&](size_t a, size_t b) {
            return session.breaks[a].reason.count > session.breaks[b].reason.count;
        });
    }
    dirty_ = false;
}

void BreaksView::followSelection(const viz::SessionAnalysis& session, const ViewContext& context) {
    if (context.selection.graphBreakId == followedBreak_) return;
    followedBreak_ = context.selection.graphBreakId;
    if (!followedBreak_) return;
    for (size_t g = 0; g < session.breaks.size(); ++g) {
        const auto& ids = session.breaks[g].reason.graphBreakIds;
        if (std::find(ids.begin(), ids.end(), *followedBreak_) != ids.end()) selected_ = g;
    }
}

void BreaksView::draw(ViewContext& context) {
    const viz::SessionAnalysis* session = currentSession(context);
    if (!session) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    refresh(*session);
    followSelection(*session, context);
    if (!selected_ && !shown_.empty()) selected_ = shown_.front();
    if (widgets::filterBox("##break-filter", filter_, "Filter reasons, files, source, compile ids (Ctrl+F)", 360.0f))
        dirty_ = true;
    ImGui::SameLine();
    int64_t total = 0;
    for (const viz::BreakGroup& group : session->breaks) total += group.reason.count;
    ImGui::TextDisabled("%zu distinct break(s), %lld in all", session->breaks.size(), static_cast<long long>(total));
    if (session->summary.breakReasonsFromRestarts && !session->breaks.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(theme::kWarningText, "(from restart reasons: this log has no graph-break records)");
    }
    if (session->breaks.empty()) {
        drawEmptyState("No graph breaks in this session.");
        if (context.uiDump) context.uiDump->add("breaks", "none");
        return;
    }
    // As tall as its rows, up to half the view: the details below matter as much.
    float rowsHeight = (static_cast<float>(shown_.size()) + 1.5f) * (ImGui::GetFrameHeight() + ImGui::GetStyle().CellPadding.y * 2);
    float tableHeight = std::clamp(rowsHeight, ImGui::GetFrameHeight() * 4, ImGui::GetContentRegionAvail().y * 0.5f);
    ImGui::BeginChild("Graph breaks", ImVec2(0, tableHeight), false);
    drawTable(*session, context);
    ImGui::EndChild();
    ImGui::BeginChild("Break details", ImVec2(0, 0), true);
    drawDetails(*session, context);
    ImGui::EndChild();
}

void BreaksView::compileLinks(const viz::BreakGroup& group, ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    for (const traces::CompileRef& ref : group.reason.compiles) {
        const traces::Compile* compile = analysis->compile(ref.compileId);
        viz::CompileState state = compile ? viz::compileStateOf(analysis->index(), *analysis->index().occurrenceHead(*compile))
                                          : viz::CompileState::Unknown;
        ImGui::PushID(static_cast<int>(ref.compileId));
        bool selected = context.selection.compileId == ref.compileId;
        if (widgets::compileChip(ref.display.c_str(), state, selected)) {
            auto breakId = group.reason.graphBreakIds.empty() ? std::nullopt
                                                              : std::optional<traces::RowId>(group.reason.graphBreakIds.front());
            selectCompile(context, ref.compileId);
            context.selection.graphBreakId = breakId;
            followedBreak_ = breakId;
            context.focusRequest = ViewId::Sites;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show %s in the compile-site tree", ref.display.c_str());
        ImGui::PopID();
        ImGui::SameLine();
    }
    ImGui::NewLine();
}

void BreaksView::drawTable(const viz::SessionAnalysis& session, ViewContext& context) {
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                            ImGuiTableFlags_Resizable | ImGuiTableFlags_Sortable;
    if (!ImGui::BeginTable("breaks", 5, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Count", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_PreferSortDescending,
                            ImGui::GetFontSize() * 4.0f);
    ImGui::TableSetupColumn("Break", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 3.0f);
    ImGui::TableSetupColumn("Where", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 1.4f);
    ImGui::TableSetupColumn("Source line", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 2.0f);
    ImGui::TableSetupColumn("Compiles", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoSort, 1.2f);
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* sort = ImGui::TableGetSortSpecs(); sort && sort->SpecsDirty) {
        sortByCount_ = sort->SpecsCount > 0;
        sort->SpecsDirty = false;
        dirty_ = true;
    }
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(shown_.size()));
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            size_t g = shown_[static_cast<size_t>(r)];
            const viz::BreakGroup& group = session.breaks[g];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushID(static_cast<int>(g));
            std::string count = std::to_string(group.reason.count) + "x";
            if (ImGui::Selectable(count.c_str(), selected_ == g, ImGuiSelectableFlags_SpanAllColumns |
                                                                      ImGuiSelectableFlags_AllowItemOverlap))
                selected_ = g;
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(group.title.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(group.location.empty() ? "-" : group.location.c_str());
            ImGui::TableNextColumn();
            ImGui::PushFont(theme::codeFont());
            ImGui::TextUnformatted(group.sourceLine.c_str());
            ImGui::PopFont();
            ImGui::TableNextColumn();
            compileLinks(group, context);
            ImGui::PopID();
            if (context.uiDump)
                context.uiDump->add("break", count + " " + group.title + " at " + group.location + ": " + group.sourceLine);
        }
    }
    ImGui::EndTable();
}

void BreaksView::drawDetails(const viz::SessionAnalysis& session, ViewContext& context) {
    if (!selected_ || *selected_ >= session.breaks.size()) {
        ImGui::TextDisabled("Select a break to read Dynamo's explanation and the user stack.");
        return;
    }
    const viz::BreakGroup& group = session.breaks[*selected_];
    ImGui::TextColored(theme::kWarningText, "%s", group.title.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%lldx at %s", static_cast<long long>(group.reason.count), group.location.c_str());
    ImGui::PushFont(theme::codeFont());
    if (!group.explanation.empty()) ImGui::TextWrapped("%s", group.explanation.c_str());
    ImGui::PopFont();
    ImGui::Separator();
    ImGui::Text("User stack (outermost first)");
    for (const traces::Frame& frame : group.reason.userStack) {
        ImGui::BulletText("%s", viz::SiteTrie::frameLabel(frame).c_str());
        if (!frame.source.empty()) {
            ImGui::SameLine();
            ImGui::PushFont(theme::codeFont());
            ImGui::TextDisabled("  %s", frame.source.c_str());
            ImGui::PopFont();
        }
    }
    if (group.reason.userStack.empty()) ImGui::TextDisabled("  not recorded");
    ImGui::Separator();
    ImGui::Text("Compiles it split:");
    ImGui::SameLine();
    compileLinks(group, context);
    if (context.uiDump) context.uiDump->add("break-details", group.title);
}

}  // namespace

std::unique_ptr<View> makeBreaksView() { return std::make_unique<BreaksView>(); }

}  // namespace app
