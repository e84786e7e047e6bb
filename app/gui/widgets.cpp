// Shared ImGui helpers (see widgets.h).
#include "gui/widgets.h"

#include <imgui_stdlib.h>

#include <cstdio>

#include "gui/theme.h"

namespace app::widgets {
namespace {

bool chip(const char* label, ImU32 fill, ImU32 textColor, bool outlined) {
    float scale = theme::uiScale();
    ImVec2 textSize = ImGui::CalcTextSize(label);
    ImVec2 padding(5.0f * scale, 1.0f * scale);
    ImVec2 size(textSize.x + padding.x * 2, textSize.y + padding.y * 2);
    ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::PushID(label);
    bool clicked = ImGui::InvisibleButton("##chip", size);
    bool hovered = ImGui::IsItemHovered();
    ImGui::PopID();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImVec2 end(at.x + size.x, at.y + size.y);
    draw->AddRectFilled(at, end, fill, 4.0f * scale);
    if (hovered) draw->AddRectFilled(at, end, IM_COL32(255, 255, 255, 50), 4.0f * scale);
    if (outlined)
        draw->AddRect(ImVec2(at.x - scale, at.y - scale), ImVec2(end.x + scale, end.y + scale), IM_COL32(255, 255, 255, 255),
                      4.0f * scale, 0, 2.0f * scale);
    draw->AddText(ImVec2(at.x + padding.x, at.y + padding.y), textColor, label);
    return clicked;
}

}  // namespace

bool compileChip(const char* label, viz::CompileState state, bool selected) {
    return chip(label, theme::stateColor(state), theme::stateTextColor(state), selected);
}

bool stateToggle(viz::CompileState state, int count, bool& enabled) {
    char label[64];
    std::snprintf(label, sizeof label, "%s %d", viz::compileStateName(state), count);
    ImU32 fill = enabled ? theme::stateColor(state) : IM_COL32(60, 62, 68, 255);
    ImU32 text = enabled ? theme::stateTextColor(state) : IM_COL32(150, 150, 150, 255);
    bool clicked = chip(label, fill, text, false);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show or hide %s compile ids", viz::compileStateName(state));
    if (clicked) enabled = !enabled;
    return clicked;
}

bool filterBox(const char* id, std::string& text, const char* hint, float width) {
    if (ctrlPressed('F')) ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(width * theme::uiScale());
    bool changed = ImGui::InputTextWithHint(id, hint, &text);
    if (ImGui::IsItemActive() && keyPressed(ImGuiKey_Escape)) {
        text.clear();
        changed = true;
    }
    return changed;
}

bool keyPressed(ImGuiKey key) {
    const ImGuiIO& io = ImGui::GetIO();
    if (key != ImGuiKey_Escape && io.WantTextInput) return false;
    if (io.KeyCtrl || io.KeyAlt) return false;  // Alt+Left is Back, not a step to the left
    return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true);
}

bool letterPressed(char letter) {
    const ImGuiIO& io = ImGui::GetIO();
    // Dear ImGui 1.86 indexes keys by GLFW's codes, which are the ASCII capitals for letters.
    return !io.WantTextInput && !io.KeyCtrl && !io.KeyAlt && ImGui::IsKeyPressed(letter, false);
}

bool ctrlPressed(char letter) {
    // The GLFW backend indexes io.KeysDown by GLFW key codes, which are the upper-case ASCII letters.
    return ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(static_cast<int>(letter), false);
}

bool linkButton(const char* label) {
    ImGui::PushStyleColor(ImGuiCol_Text, theme::kLinkText);
    ImGui::TextUnformatted(label);
    ImGui::PopStyleColor();
    bool hovered = ImGui::IsItemHovered();
    if (hovered) {
        ImVec2 min = ImGui::GetItemRectMin();
        ImVec2 max = ImGui::GetItemRectMax();
        ImGui::GetWindowDrawList()->AddLine(ImVec2(min.x, max.y), max, ImGui::GetColorU32(theme::kLinkText));
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    }
    return hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left);
}

bool linkButton(const char* label, char shortcut, bool keys) {
    char hint[8];
    std::snprintf(hint, sizeof hint, "[%c]", shortcut);
    ImGui::TextDisabled("%s", hint);
    ImGui::SameLine(0, ImGui::GetFontSize() * 0.3f);
    bool clicked = linkButton(label);
    return clicked || (keys && letterPressed(shortcut));
}

void helpMarker(const char* text) {
    ImGui::TextDisabled("(?)");
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

bool beginLayoutChild(const char* id, ImVec2 size) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(0, 0, 0, 0));
    bool shown = ImGui::BeginChild(id, size, false);
    ImGui::PopStyleColor();
    return shown;
}

std::string formatSeconds(double seconds) {
    char text[32];
    if (seconds >= 10) std::snprintf(text, sizeof text, "%.1f s", seconds);
    else if (seconds >= 1) std::snprintf(text, sizeof text, "%.2f s", seconds);
    else if (seconds >= 0.001) std::snprintf(text, sizeof text, "%.0f ms", seconds * 1000);
    else std::snprintf(text, sizeof text, "%.1f ms", seconds * 1000);
    return text;
}

}  // namespace app::widgets
