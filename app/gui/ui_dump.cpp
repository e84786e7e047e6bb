// Collects the --dump-ui lines (see ui_dump.h).
#include "gui/ui_dump.h"

#include <imgui.h>
#include <imgui_internal.h>

namespace app {

void UiDump::add(std::string_view kind, std::string_view text) {
    std::string line(kind);
    line += ": ";
    // One record per line, whatever the text holds.
    for (char c : text) line += (c == '\n' || c == '\r') ? ' ' : c;
    lines_.push_back(std::move(line));
}

void UiDump::addItem(std::string_view label) {
    ImVec2 min = ImGui::GetItemRectMin();
    ImVec2 max = ImGui::GetItemRectMax();
    std::string where = std::string(label) + " at " + std::to_string(static_cast<int>((min.x + max.x) * 0.5f)) + " " +
                        std::to_string(static_cast<int>((min.y + max.y) * 0.5f));
    add("item", where);
}

void UiDump::addVisibleWindows() {
    ImGuiContext& context = *ImGui::GetCurrentContext();
    for (ImGuiWindow* window : context.Windows) {
        if (!window->Active || window->Hidden) continue;
        // Child windows are named "Parent/Child_ID"; the dump keeps the readable part.
        std::string_view name = window->Name;
        if ((window->Flags & ImGuiWindowFlags_ChildWindow) != 0) {
            size_t slash = name.rfind('/');
            if (slash != std::string_view::npos) name = name.substr(slash + 1);
            size_t idSuffix = name.rfind('_');
            if (idSuffix != std::string_view::npos) name = name.substr(0, idSuffix);
            if (name.empty() || name.starts_with("##")) continue;
            add("panel", name);
            continue;
        }
        // ImGui's implicit "Debug##Default" window is active every frame but never drawn.
        if (name.starts_with("##") || name.starts_with("Debug##")) continue;
        add("window", name);
    }
}

std::string UiDump::text() const {
    std::string out;
    for (const std::string& line : lines_) out += line + "\n";
    return out;
}

}  // namespace app
