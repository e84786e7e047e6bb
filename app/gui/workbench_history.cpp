// Back and forward through the places a pane showed (Alt+Left / Alt+Right, the mouse's side buttons, or the
// arrows at the start of the pane's header), as in a browser: following a link from a compile site to its graph,
// a node to its kernel, a kernel to its provenance, can always be undone.
#include <imgui.h>

#include "gui/ui_dump.h"
#include "gui/workbench.h"

namespace app {
namespace {

constexpr size_t kMaxHistory = 100;

bool samePlace(ViewId view, const Selection& a, const Selection& b, ViewId otherView) {
    return view == otherView && a.traceIndex == b.traceIndex && a.sessionId == b.sessionId && a.compileId == b.compileId;
}

}  // namespace

void Workbench::recordPlace(Pane& pane) {
    if (pane.pendingFocus) return;  // a move to another view is under way: record where it lands
    // A place with no compile chosen yet (a trace just opened, a session picked) is replaced, not remembered.
    bool worthGoingBackTo = pane.here && (pane.here->selection.compileId || pane.here->view != pane.active);
    if (worthGoingBackTo && !samePlace(pane.active, pane.selection, pane.here->selection, pane.here->view)) {
        pane.back.push_back(*pane.here);
        if (pane.back.size() > kMaxHistory) pane.back.erase(pane.back.begin());
        pane.forward.clear();
    }
    pane.here = Place{pane.active, pane.selection};
}

namespace {

/// Moves a pane to the last place of `from`, leaving where it is on `to`.
template <typename Pane, typename Place>
void stepThroughHistory(Pane& pane, std::vector<Place>& from, std::vector<Place>& to) {
    if (from.empty()) return;
    to.push_back({pane.active, pane.selection});
    Place place = std::move(from.back());
    from.pop_back();
    pane.selection = place.selection;
    pane.pendingFocus = place.view;
    pane.here = std::move(place);
}

}  // namespace

void Workbench::goBack(Pane& pane) { stepThroughHistory(pane, pane.back, pane.forward); }

void Workbench::goForward(Pane& pane) { stepThroughHistory(pane, pane.forward, pane.back); }

std::string Workbench::placeName(const Place& place) const {
    std::string name = viewName(place.view);
    const Selection& selection = place.selection;
    if (selection.compileId && selection.traceIndex >= 0 && selection.traceIndex < static_cast<int>(traces_.size()))
        if (const traces::TraceData* trace = traces_[static_cast<size_t>(selection.traceIndex)].data.get())
            for (const traces::Compile& compile : trace->compiles)
                if (compile.id == *selection.compileId) name += " " + compile.key.str();
    return name;
}

void Workbench::drawHistoryButtons(Pane& pane) {
    std::string back = pane.back.empty() ? "none" : placeName(pane.back.back());
    std::string forward = pane.forward.empty() ? "none" : placeName(pane.forward.back());
    ImGui::BeginDisabled(pane.back.empty());
    if (ImGui::ArrowButton("##back", ImGuiDir_Left)) goBack(pane);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Back to %s (Alt+Left)", back.c_str());
    ImGui::SameLine(0, 2.0f);
    ImGui::BeginDisabled(pane.forward.empty());
    if (ImGui::ArrowButton("##forward", ImGuiDir_Right)) goForward(pane);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Forward to %s (Alt+Right)", forward.c_str());
}

void Workbench::dumpHistory(const Pane& pane, UiDump& dump) const {
    std::string back = pane.back.empty() ? "none" : placeName(pane.back.back());
    std::string forward = pane.forward.empty() ? "none" : placeName(pane.forward.back());
    dump.add("history", "back: " + back + " (" + std::to_string(pane.back.size()) + "), forward: " + forward + " (" +
                            std::to_string(pane.forward.size()) + ")");
}

}  // namespace app
