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

/// The smallest 1, 2 or 5 times a power of ten at least `minimum`.
double niceStep(double minimum) {
    double power = std::pow(10.0, std::floor(std::log10(std::max(minimum, 1e-9))));
    for (double multiple : {1.0, 2.0, 5.0, 10.0})
        if (power * multiple >= minimum) return power * multiple;
    return power * 10.0;
}

/// Ticks in seconds from the first compile event, at least ~90 px apart, so durations read off the lanes.
void drawRuler(ImDrawList* draw, ImVec2 topLeft, float width, float rowHeight, double usPerPixel, double viewStartUs) {
    const ImU32 tickColor = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    double stepUs = niceStep(90.0 * usPerPixel);
    draw->PushClipRect(topLeft, ImVec2(topLeft.x + width, topLeft.y + rowHeight), true);
    for (double tickUs = std::ceil(viewStartUs / stepUs) * stepUs; tickUs <= viewStartUs + width * usPerPixel; tickUs += stepUs) {
        float x = topLeft.x + static_cast<float>((tickUs - viewStartUs) / usPerPixel);
        draw->AddLine(ImVec2(x, topLeft.y + rowHeight * 0.5f), ImVec2(x, topLeft.y + rowHeight), tickColor);
        draw->AddText(ImVec2(x + 3, topLeft.y), tickColor, widgets::formatSeconds(tickUs / 1e6).c_str());
    }
    draw->AddLine(ImVec2(topLeft.x, topLeft.y + rowHeight - 1), ImVec2(topLeft.x + width, topLeft.y + rowHeight - 1), tickColor);
    draw->PopClipRect();
}

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

    // Zoom and pan act on the area right of the labels: a time ruler, then per session a header row and its lanes.
    float height = rowHeight;
    std::string headerFor;
    for (const traces::TimelineLane& lane : timeline_.lanes) {
        if (lane.sessionLabel != headerFor) height += rowHeight;
        headerFor = lane.sessionLabel;
        height += rowHeight * static_cast<float>(lane.depth) + 4.0f;
    }
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

    drawRuler(draw, ImVec2(origin.x + labelWidth, origin.y), width, rowHeight, usPerPixel, viewStartUs_);
    float y = origin.y + rowHeight;
    std::string previousSession;
    const traces::Compile* selected = selectedHead(context);
    for (const traces::TimelineLane& lane : timeline_.lanes) {
        float laneHeight = rowHeight * static_cast<float>(lane.depth);
        const traces::Compile* compile = lane.compileId ? analysis.compile(*lane.compileId) : nullptr;
        const traces::Compile* head = compile ? analysis.index().occurrenceHead(*compile) : nullptr;
        viz::CompileState state = head ? viz::compileStateOf(analysis.index(), *head) : viz::CompileState::Unknown;
        bool isSelected = head && selected == head;
        // Each session (rank or log) gets a header row, as a process track in Perfetto, so that the lane labels
        // can name the compile (id and function) without the long log file name cutting them off.
        if (lane.sessionLabel != previousSession) {
            draw->AddLine(ImVec2(origin.x, y), ImVec2(origin.x + labelWidth + width, y), ImGui::GetColorU32(ImGuiCol_Separator));
            draw->PushClipRect(ImVec2(origin.x, y), ImVec2(origin.x + labelWidth + width, y + rowHeight), true);
            draw->AddText(ImVec2(origin.x + 2, y + 2), ImGui::GetColorU32(ImGuiCol_TextDisabled), lane.sessionLabel.c_str());
            draw->PopClipRect();
            previousSession = lane.sessionLabel;
            y += rowHeight;
        }
        std::string label = lane.sessionLabel + "  " + lane.label;
        draw->PushClipRect(ImVec2(origin.x, y), ImVec2(origin.x + labelWidth - 4, y + laneHeight), true);
        draw->AddText(ImVec2(origin.x + 10, y + 2), isSelected ? theme::stateTextColor(state) : ImGui::GetColorU32(ImGuiCol_Text),
                      lane.label.c_str());
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
