// Metrics: the counts of every session of the trace side by side, compile time per phase for the session, one bar
// per compile with its nested phases (entire frame > backend > inductor > code generation), and the records that
// named no compile id.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <map>
#include <string>

#include "core/compile_metrics.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "report/compile_insights.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

class MetricsView : public View {
public:
    ViewId id() const override { return ViewId::Metrics; }
    const char* title() const override { return "Metrics"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override {
        recordsFor_ = nullptr;
        sortedFor_ = nullptr;
    }

private:
    void drawSessions(const viz::TraceAnalysis& analysis, ViewContext& context);
    void drawPhaseTotals(const viz::SessionMetrics& metrics, ViewContext& context);
    void drawCompileBars(const viz::SessionAnalysis& session, ViewContext& context);
    void drawRecordsWithoutCompileId(const viz::SessionAnalysis& session, ViewContext& context);
    const traces::RecordsWithoutCompileId& recordsOf(const traces::TraceData& trace, traces::RowId sessionId);

    const traces::TraceData* recordsFor_ = nullptr;
    std::map<traces::RowId, traces::RecordsWithoutCompileId> records_;
    float barWidth(double seconds, double maxSeconds, float fullWidth) const;

    bool logScale_ = true;
    bool sortByTime_ = false;
    const viz::SessionAnalysis* sortedFor_ = nullptr;
    bool sortedByTime_ = false;
    std::vector<size_t> order_;
};

float MetricsView::barWidth(double seconds, double maxSeconds, float fullWidth) const {
    if (seconds <= 0 || maxSeconds <= 0) return 0;
    if (!logScale_) return static_cast<float>(seconds / maxSeconds) * fullWidth;
    // Log scale from 1 ms, so a 75 s first compile does not flatten the 50 ms recompiles.
    constexpr double kFloor = 0.001;
    double span = std::log10(std::max(maxSeconds, kFloor * 10) / kFloor);
    double value = std::log10(std::max(seconds, kFloor) / kFloor);
    return static_cast<float>(std::max(value / span, 0.01)) * fullWidth;
}

void MetricsView::draw(ViewContext& context) {
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    const viz::SessionAnalysis* session = currentSession(context);
    if (!analysis || !session) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    ImGui::BeginChild("Compile metrics", ImVec2(0, 0), false);
    drawSessions(*analysis, context);
    ImGui::Spacing();
    drawPhaseTotals(session->metrics, context);
    ImGui::Spacing();
    drawRecordsWithoutCompileId(*session, context);
    ImGui::Spacing();
    drawCompileBars(*session, context);
    ImGui::EndChild();
}

void MetricsView::drawSessions(const viz::TraceAnalysis& analysis, ViewContext& context) {
    ImGui::Text("Counts per session");
    constexpr int kColumns = 12;
    // Scrolls sideways in a narrow pane instead of squeezing the numbers into unreadable columns.
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit |
                            ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY;
    float rowHeight = ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().CellPadding.y * 2;
    float rows = static_cast<float>(std::min<size_t>(analysis.sessions().size(), 8) + 1);
    float height = rows * rowHeight + ImGui::GetStyle().ScrollbarSize + ImGui::GetStyle().CellPadding.y * 2;
    if (!ImGui::BeginTable("sessions", kColumns, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* name : {"Session", "Compiles", "Graphs", "Graph breaks", "Recompiles", "Failed", "Output code",
                             "Kernels", "Ops", "Functions", "No compile id", "Compile time"})
        ImGui::TableSetupColumn(name);
    ImGui::TableHeadersRow();
    for (const auto& session : analysis.sessions()) {
        const viz::SessionMetrics& metrics = session->metrics;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushID(session.get());
        if (ImGui::Selectable(session->label.c_str(), context.selection.sessionId == session->session->id,
                              ImGuiSelectableFlags_SpanAllColumns)) {
            context.selection.sessionId = session->session->id;
            context.selection.compileId.reset();
        }
        ImGui::PopID();
        const traces::SummaryCounts& counts = metrics.counts;
        for (int64_t value : {counts.compiles, counts.graphs, counts.graphBreaks, counts.recompiles, counts.failedCompiles,
                              counts.outputCode, static_cast<int64_t>(metrics.kernels), metrics.ops,
                              static_cast<int64_t>(metrics.functions),
                              static_cast<int64_t>(recordsOf(*context.currentTrace(), session->session->id).records.size())}) {
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(value));
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(widgets::formatSeconds(metrics.sumTotalSeconds).c_str());
        if (context.uiDump)
            context.uiDump->add("session", session->label + ": compiles " + std::to_string(counts.compiles) + ", recompiles " +
                                               std::to_string(counts.recompiles) + ", graph breaks " +
                                               std::to_string(counts.graphBreaks));
    }
    ImGui::EndTable();
}

void MetricsView::drawPhaseTotals(const viz::SessionMetrics& metrics, ViewContext& context) {
    ImGui::Text("Compile time per phase (this session)");
    if (metrics.phaseTotals.empty()) {
        ImGui::TextDisabled("  no compile recorded phase times");
        return;
    }
    double longest = 0;
    for (const traces::PhaseTime& phase : metrics.phaseTotals) longest = std::max(longest, phase.seconds);
    float labelWidth = ImGui::GetFontSize() * 14.0f;
    float full = std::max(100.0f, ImGui::GetContentRegionAvail().x - labelWidth - ImGui::GetFontSize() * 6.0f);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (const traces::PhaseTime& phase : metrics.phaseTotals) {
        ImGui::TextUnformatted(phase.phase.c_str());
        ImGui::SameLine(labelWidth);
        ImVec2 at = ImGui::GetCursorScreenPos();
        // Linear on purpose: this answers "where does the time go", so shares must compare honestly.
        float width = std::max(2.0f, static_cast<float>(phase.seconds / longest) * full);
        float height = ImGui::GetTextLineHeight();
        draw->AddRectFilled(at, ImVec2(at.x + width, at.y + height), theme::phaseColor(1), 2.0f);
        ImGui::Dummy(ImVec2(width, height));
        ImGui::SameLine();
        ImGui::TextUnformatted(widgets::formatSeconds(phase.seconds).c_str());
        if (context.uiDump) context.uiDump->add("phase", phase.phase + " " + widgets::formatSeconds(phase.seconds));
    }
}

const traces::RecordsWithoutCompileId& MetricsView::recordsOf(const traces::TraceData& trace,
                                                              traces::RowId sessionId) {
    if (recordsFor_ != &trace) {
        recordsFor_ = &trace;
        records_.clear();
    }
    auto it = records_.find(sessionId);
    if (it == records_.end()) it = records_.emplace(sessionId, traces::recordsWithoutCompileId(trace, sessionId)).first;
    return it->second;
}

// tlparse files these under [-/-]; here each says what it was, and where the payload named a compile, which one.
void MetricsView::drawRecordsWithoutCompileId(const viz::SessionAnalysis& session, ViewContext& context) {
    const traces::RecordsWithoutCompileId& found = recordsOf(*context.currentTrace(), session.session->id);
    std::string header = "Records without a compile id (" + std::to_string(found.records.size()) + ")###no compile id";
    if (context.uiDump) {
        std::string counts;
        for (const auto& [name, count] : found.countsByName) counts += name + " " + std::to_string(count) + ", ";
        context.uiDump->add("no compile id", std::to_string(found.records.size()) + " records, " +
                                                 std::to_string(found.joinedByPayload) + " joined by payload" +
                                                 (counts.empty() ? "" : ": " + counts.substr(0, counts.size() - 2)));
    }
    if (found.records.empty()) {
        ImGui::TextDisabled("Records without a compile id: none");
        return;
    }
    if (!ImGui::CollapsingHeader(header.c_str())) return;
    ImGui::TextWrapped("%zu record(s) named no compile id in their envelope; %lld named one in their payload "
                       "(a chromium event's args) and were attached to that compile.",
                       found.records.size(), static_cast<long long>(found.joinedByPayload));
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY;
    float height = std::min(12.0f, static_cast<float>(found.records.size()) + 1.5f) * ImGui::GetFrameHeightWithSpacing();
    if (!ImGui::BeginTable("no compile id", 4, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Line", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.0f);
    ImGui::TableSetupColumn("Record", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Compile", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.0f);
    ImGui::TableSetupColumn("Logged from", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    const traces::TraceIndex& index = context.currentAnalysis()->index();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(found.records.size()));
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const traces::RecordWithoutCompileId& record = *found.records[static_cast<size_t>(r)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(record.line));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(record.event == record.name ? record.event.c_str()
                                                               : (record.event + ": " + record.name).c_str());
            ImGui::TableNextColumn();
            if (const traces::Compile* joined = record.compileId ? index.compileById(*record.compileId) : nullptr) {
                ImGui::PushID(r);
                if (widgets::linkButton(joined->key.display().c_str())) selectCompile(context, joined->id);
                ImGui::PopID();
            }
            ImGui::TableNextColumn();
            if (!record.stack.empty())
                ImGui::TextUnformatted((record.stack.back().file + ":" + std::to_string(record.stack.back().line) +
                                        " in " + record.stack.back().function).c_str());
        }
    }
    ImGui::EndTable();
}

void MetricsView::drawCompileBars(const viz::SessionAnalysis& session, ViewContext& context) {
    const viz::SessionMetrics& metrics = session.metrics;
    ImGui::Text("Compile time per compile id");
    ImGui::SameLine();
    ImGui::Checkbox("Log scale", &logScale_);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Bar lengths on a log scale from 1 ms; phases inside stay proportional");
    ImGui::SameLine();
    ImGui::Checkbox("Longest first", &sortByTime_);
    for (int depth = 0; depth < 4; ++depth) {
        static constexpr const char* kNames[] = {"entire frame", "backend", "inductor", "code gen"};
        ImGui::SameLine();
        ImVec2 at = ImGui::GetCursorScreenPos();
        float size = ImGui::GetTextLineHeight();
        ImGui::GetWindowDrawList()->AddRectFilled(at, ImVec2(at.x + size, at.y + size), theme::phaseColor(depth), 2.0f);
        ImGui::Dummy(ImVec2(size, size));
        ImGui::SameLine();
        ImGui::TextDisabled("%s", kNames[depth]);
    }
    if (metrics.compiles.empty()) {
        ImGui::TextDisabled("  no compile recorded phase times");
        return;
    }
    if (sortedFor_ != &session || sortedByTime_ != sortByTime_ || order_.size() != metrics.compiles.size()) {
        order_.resize(metrics.compiles.size());
        std::iota(order_.begin(), order_.end(), 0);
        if (sortByTime_)
            std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
                return metrics.compiles[a].totalSeconds > metrics.compiles[b].totalSeconds;
            });
        sortedFor_ = &session;
        sortedByTime_ = sortByTime_;
    }
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV;
    if (!ImGui::BeginTable("compile bars", 4, flags, ImVec2(0, 0))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Compile", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6.0f);
    ImGui::TableSetupColumn("Function", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 14.0f);
    ImGui::TableSetupColumn("Time", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 5.0f);
    ImGui::TableSetupColumn("Phases", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    float rowHeight = ImGui::GetFrameHeight();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(order_.size()), rowHeight + ImGui::GetStyle().CellPadding.y * 2);
    while (clipper.Step()) {
        for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
            const viz::CompileTiming& timing = metrics.compiles[order_[static_cast<size_t>(r)]];
            ImGui::TableNextRow(0, rowHeight);
            ImGui::TableNextColumn();
            ImGui::PushID(static_cast<int>(timing.compileId));
            if (widgets::compileChip(timing.display.c_str(), timing.state, context.selection.compileId == timing.compileId))
                selectCompile(context, timing.compileId);
            ImGui::PopID();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(timing.function.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(widgets::formatSeconds(timing.totalSeconds).c_str());
            ImGui::TableNextColumn();
            ImVec2 at = ImGui::GetCursorScreenPos();
            float full = ImGui::GetContentRegionAvail().x;
            ImDrawList* draw = ImGui::GetWindowDrawList();
            // The bar's length is the compile's total (log or linear); nested phases are insets drawn thinner on
            // top, each as its share of the total, so the split stays readable on a log scale too.
            float total = barWidth(timing.totalSeconds, metrics.maxTotalSeconds, full);
            for (const viz::PhaseBar& bar : timing.nested) {
                float inset = static_cast<float>(bar.depth) * rowHeight * 0.12f;
                float share = timing.totalSeconds > 0 ? static_cast<float>(bar.seconds / timing.totalSeconds) : 0.0f;
                float width = std::max(total * std::min(share, 1.0f), bar.seconds > 0 ? 2.0f : 0.0f);
                draw->AddRectFilled(ImVec2(at.x, at.y + inset), ImVec2(at.x + width, at.y + rowHeight - inset),
                                    theme::phaseColor(bar.depth), 2.0f);
            }
            if (timing.nested.empty())
                draw->AddRectFilled(at, ImVec2(at.x + total, at.y + rowHeight), theme::phaseColor(0), 2.0f);
            ImGui::Dummy(ImVec2(full, rowHeight));
            if (ImGui::IsItemHovered()) {
                ImGui::BeginTooltip();
                ImGui::Text("%s %s", timing.display.c_str(), timing.function.c_str());
                for (const viz::PhaseBar& bar : timing.nested)
                    ImGui::Text("%*s%s  %s", bar.depth * 2, "", bar.phase.c_str(), widgets::formatSeconds(bar.seconds).c_str());
                for (const traces::PhaseTime& phase : timing.details)
                    ImGui::TextDisabled("%s  %s", phase.phase.c_str(), widgets::formatSeconds(phase.seconds).c_str());
                ImGui::EndTooltip();
            }
            if (context.uiDump) context.uiDump->add("bar", timing.display + " " + widgets::formatSeconds(timing.totalSeconds));
        }
    }
    ImGui::EndTable();
}

}  // namespace

std::unique_ptr<View> makeMetricsView() { return std::make_unique<MetricsView>(); }

}  // namespace app
