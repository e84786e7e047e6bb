// Timeline: the compile-time events of every session (rank) of the trace in lanes, one per compile id, nested
// spans stacked, coloured by the compile's status. Wheel zooms around the mouse, drag pans, a click on a span
// selects its compile and opens the compile-site tree on it.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/compile_state.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "report/compile_timeline.h"
#include "views/view_support.h"
#include "views/workbench_views.h"

namespace app {
namespace {

constexpr float kZoomStep = 1.25f;
constexpr double kMinVisibleUs = 10.0;

class TimelineView : public View {
public:
    ViewId id() const override { return ViewId::Timeline; }
    const char* title() const override { return "Timeline"; }
    void draw(ViewContext& context) override;
    void forgetTrace() override { builtFor_ = nullptr; }

private:
    void rebuildIfNeeded(const traces::TraceData& trace);
    void drawLanes(ViewContext& context, const viz::TraceAnalysis& analysis);

    const traces::TraceData* builtFor_ = nullptr;
    traces::CompileTimeline timeline_;
    double viewStartUs_ = 0;   ///< left edge, relative to the timeline's start
    double viewLengthUs_ = 0;  ///< visible duration; 0 = fit everything on the next frame
    bool dragged_ = false;     ///< the press that is going on moved the view, so its release is no click
};

void TimelineView::rebuildIfNeeded(const traces::TraceData& trace) {
    if (builtFor_ == &trace) return;
    builtFor_ = &trace;
    timeline_ = traces::buildCompileTimeline(trace);
    viewStartUs_ = 0;
    viewLengthUs_ = 0;
}

void TimelineView::draw(ViewContext& context) {
    const traces::TraceData* trace = context.currentTrace();
    const viz::TraceAnalysis* analysis = context.currentAnalysis();
    if (!trace || !analysis) {
        drawEmptyState("No trace loaded: File > Open (Ctrl+O) or drop a trace on the window");
        return;
    }
    rebuildIfNeeded(*trace);
    if (timeline_.lanes.empty()) {
        drawEmptyState("This trace has no compile-time events (chromium_event records)");
        return;
    }
    double total = std::max(timeline_.endUs - timeline_.startUs, kMinVisibleUs);
    if (viewLengthUs_ <= 0) viewLengthUs_ = total;
    ImGui::Text("%zu lanes, %s of compile events", timeline_.lanes.size(), widgets::formatSeconds(total / 1e6).c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Fit")) {
        viewStartUs_ = 0;
        viewLengthUs_ = total;
    }
    ImGui::SameLine();
    widgets::helpMarker("Mouse wheel: zoom around the pointer. Drag: pan. Click a span: select its compile.");
    if (context.uiDump)
        context.uiDump->add("timeline", std::to_string(timeline_.lanes.size()) + " lanes, " +
                                            widgets::formatSeconds(total / 1e6));
    drawLanes(context, *analysis);
}

void TimelineView::drawLanes(ViewContext& context, const viz::TraceAnalysis& analysis) {
    ImGui::BeginChild("timeline lanes", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    const float rowHeight = ImGui::GetTextLineHeight() + 4.0f;
    const float labelWidth = ImGui::GetFontSize() * 16.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const float width = std::max(100.0f, ImGui::GetContentRegionAvail().x - labelWidth);
    const double usPerPixel = viewLengthUs_ / width;
    ImDrawList* draw = ImGui::GetWindowDrawList();

    // Zoom and pan act on the area right of the labels.
    float height = 0;
    for (const traces::TimelineLane& lane : timeline_.lanes) height += rowHeight * static_cast<float>(lane.depth) + 4.0f;
    ImGui::SetCursorScreenPos(ImVec2(origin.x + labelWidth, origin.y));
    ImGui::InvisibleButton("timeline area", ImVec2(width, std::max(height, rowHeight)));
    bool areaHovered = ImGui::IsItemHovered();
    if (ImGui::IsItemActivated()) dragged_ = false;
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
        dragged_ = true;
        viewStartUs_ -= ImGui::GetIO().MouseDelta.x * usPerPixel;
    }
    if (areaHovered && ImGui::GetIO().MouseWheel != 0) {
        double atUs = viewStartUs_ + (ImGui::GetIO().MousePos.x - origin.x - labelWidth) * usPerPixel;
        double factor = ImGui::GetIO().MouseWheel > 0 ? 1.0 / kZoomStep : kZoomStep;
        viewLengthUs_ = std::max(kMinVisibleUs, viewLengthUs_ * factor);
        viewStartUs_ = atUs - (atUs - viewStartUs_) * factor;
    }
    bool clicked = ImGui::IsItemDeactivated() && !dragged_;

    float y = origin.y;
    std::string previousSession;
    const traces::Compile* selected = selectedHead(context);
    for (const traces::TimelineLane& lane : timeline_.lanes) {
        float laneHeight = rowHeight * static_cast<float>(lane.depth);
        const traces::Compile* compile = lane.compileId ? analysis.compile(*lane.compileId) : nullptr;
        const traces::Compile* head = compile ? analysis.index().occurrenceHead(*compile) : nullptr;
        viz::CompileState state = head ? viz::compileStateOf(analysis.index(), *head) : viz::CompileState::Unknown;
        bool isSelected = head && selected == head;
        if (lane.sessionLabel != previousSession) {
            draw->AddLine(ImVec2(origin.x, y), ImVec2(origin.x + labelWidth + width, y), ImGui::GetColorU32(ImGuiCol_Separator));
            previousSession = lane.sessionLabel;
        }
        std::string label = lane.sessionLabel + "  " + lane.label;
        draw->PushClipRect(ImVec2(origin.x, y), ImVec2(origin.x + labelWidth - 4, y + laneHeight), true);
        draw->AddText(ImVec2(origin.x + 2, y + 2), isSelected ? theme::stateTextColor(state) : ImGui::GetColorU32(ImGuiCol_Text),
                      label.c_str());
        draw->PopClipRect();
        draw->PushClipRect(ImVec2(origin.x + labelWidth, y), ImVec2(origin.x + labelWidth + width, y + laneHeight), true);
        for (const traces::TimelineSpan& s : lane.spans) {
            double startUs = s.span->startUs - timeline_.startUs - viewStartUs_;
            float x0 = origin.x + labelWidth + static_cast<float>(startUs / usPerPixel);
            float x1 = x0 + std::max(2.0f, static_cast<float>(s.span->durationUs.value_or(0.0) / usPerPixel));
            if (x1 < origin.x + labelWidth || x0 > origin.x + labelWidth + width) continue;
            float top = y + rowHeight * static_cast<float>(s.depth) + 1;
            ImVec2 a(x0, top), b(x1, top + rowHeight - 2);
            draw->AddRectFilled(a, b, theme::stateColor(state));
            // An outline keeps back-to-back spans of one depth apart.
            draw->AddRect(a, b, isSelected ? ImGui::GetColorU32(ImGuiCol_Text) : IM_COL32(20, 20, 20, 160));
            if (x1 - x0 > ImGui::CalcTextSize(s.span->name.c_str()).x + 4)
                draw->AddText(ImVec2(x0 + 2, top), IM_COL32(20, 20, 20, 255), s.span->name.c_str());
            bool hovered = areaHovered && ImGui::IsMouseHoveringRect(a, b);
            if (hovered) {
                ImGui::SetTooltip("%s  %s\n%s\n%s", lane.sessionLabel.c_str(), lane.label.c_str(), s.span->name.c_str(),
                                  widgets::formatSeconds(s.span->durationUs.value_or(0.0) / 1e6).c_str());
                if (clicked && lane.compileId) {
                    selectCompile(context, *lane.compileId);
                    context.focusRequest = ViewId::Sites;
                }
            }
        }
        draw->PopClipRect();
        if (context.uiDump) {
            double busy = 0;
            for (const traces::TimelineSpan& s : lane.spans)
                if (s.depth == 0) busy += s.span->durationUs.value_or(0.0);
            context.uiDump->add("lane", label + ": " + std::to_string(lane.spans.size()) + " events, " +
                                            widgets::formatSeconds(busy / 1e6) + (isSelected ? " (selected)" : ""));
        }
        y += laneHeight + 4.0f;
    }
    ImGui::EndChild();
}

}  // namespace

std::unique_ptr<View> makeTimelineView() { return std::make_unique<TimelineView>(); }

}  // namespace app
