// Search box with match stepping (see graph_search_bar.h).
#include "draw/graph_search_bar.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace viz {

SearchBarAction GraphSearchBar::draw(const char* id, int matchCount, float width) {
    SearchBarAction action;
    ImGui::PushID(id);
    if (focusPending_) {
        ImGui::SetKeyboardFocusHere();
        focusPending_ = false;
    }
    ImGui::SetNextItemWidth(width);
    bool entered = ImGui::InputTextWithHint("##query", "search nodes (Ctrl+F)", &query_,
                                            ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::IsItemEdited()) {
        action.queryChanged = true;
        current_ = -1;
    }
    int step = 0;
    if (entered) {
        step = ImGui::GetIO().KeyShift ? -1 : 1;
        ImGui::SetKeyboardFocusHere(-1);  // keep typing / pressing Enter in the box
    }
    ImGui::SameLine();
    if (ImGui::ArrowButton("##previous", ImGuiDir_Up)) step = -1;
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Down)) step = 1;
    ImGui::SameLine();
    if (query_.empty()) ImGui::TextDisabled("      ");
    else if (matchCount == 0) ImGui::TextColored(ImVec4(1.0f, 0.55f, 0.4f, 1.0f), "no match");
    else if (current_ < 0) ImGui::Text("%d found", matchCount);
    else ImGui::Text("%d / %d", current_ + 1, matchCount);

    if (step != 0 && matchCount > 0) {
        current_ = current_ < 0 ? (step > 0 ? 0 : matchCount - 1) : (current_ + step + matchCount) % matchCount;
        action.jumpTo = current_;
    }
    if (current_ >= matchCount) current_ = -1;
    ImGui::PopID();
    return action;
}

}  // namespace viz
