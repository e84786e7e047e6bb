// Colours and style (see theme.h).
#include "gui/theme.h"

#include <array>

namespace app::theme {

ImU32 stateColor(viz::CompileState state) {
    switch (state) {
        case viz::CompileState::Ok: return IM_COL32(46, 160, 67, 255);
        case viz::CompileState::GraphBreak: return IM_COL32(165, 220, 40, 255);
        case viz::CompileState::Failed: return IM_COL32(215, 58, 58, 255);
        case viz::CompileState::Recompiled: return IM_COL32(240, 150, 30, 255);
        case viz::CompileState::Unknown: return IM_COL32(150, 90, 200, 255);
        case viz::CompileState::Empty: return IM_COL32(225, 228, 232, 255);
    }
    return IM_COL32(128, 128, 128, 255);
}

ImU32 stateTextColor(viz::CompileState state) {
    switch (state) {
        case viz::CompileState::GraphBreak:
        case viz::CompileState::Empty:
        case viz::CompileState::Recompiled: return IM_COL32(20, 20, 20, 255);
        case viz::CompileState::Ok:
        case viz::CompileState::Failed:
        case viz::CompileState::Unknown: return IM_COL32(255, 255, 255, 255);
    }
    return IM_COL32(255, 255, 255, 255);
}

ImU32 tokenColor(viz::TokenKind kind) {
    switch (kind) {
        case viz::TokenKind::Plain: return IM_COL32(212, 212, 212, 255);
        case viz::TokenKind::Keyword: return IM_COL32(198, 120, 221, 255);
        case viz::TokenKind::Type: return IM_COL32(86, 182, 194, 255);
        case viz::TokenKind::Builtin: return IM_COL32(97, 175, 239, 255);
        case viz::TokenKind::Number: return IM_COL32(209, 154, 102, 255);
        case viz::TokenKind::String: return IM_COL32(152, 195, 121, 255);
        case viz::TokenKind::Comment: return IM_COL32(110, 118, 129, 255);
        case viz::TokenKind::Preprocessor: return IM_COL32(224, 108, 117, 255);
        case viz::TokenKind::Decorator: return IM_COL32(229, 192, 123, 255);
        case viz::TokenKind::Variable: return IM_COL32(224, 175, 104, 255);
    }
    return IM_COL32(212, 212, 212, 255);
}

ImU32 phaseColor(int depth) {
    static constexpr std::array<ImU32, 5> kColors = {IM_COL32(70, 110, 170, 255), IM_COL32(90, 150, 200, 255),
                                                     IM_COL32(120, 185, 215, 255), IM_COL32(170, 215, 230, 255),
                                                     IM_COL32(210, 235, 240, 255)};
    return kColors[static_cast<size_t>(depth) < kColors.size() ? static_cast<size_t>(depth) : kColors.size() - 1];
}

namespace {
float appliedScale = 1.0f;
}  // namespace

float uiScale() { return appliedScale; }

void applyStyle(float scale) {
    appliedScale = scale;
    // Starts from ImGui's defaults each time: ScaleAllSizes multiplies, and the scale can change at run time.
    ImGui::GetStyle() = ImGuiStyle();
    ImGui::StyleColorsDark();
    ImGuiStyle& style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.ChildRounding = 3.0f;
    style.FrameRounding = 3.0f;
    style.GrabRounding = 3.0f;
    style.TabRounding = 3.0f;
    style.ScrollbarRounding = 6.0f;
    style.WindowBorderSize = 1.0f;
    style.FramePadding = ImVec2(6.0f, 3.0f);
    style.ItemSpacing = ImVec2(8.0f, 5.0f);
    style.CellPadding = ImVec2(6.0f, 3.0f);
    ImVec4* colors = style.Colors;
    colors[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
    colors[ImGuiCol_ChildBg] = ImVec4(0.13f, 0.14f, 0.16f, 1.0f);
    colors[ImGuiCol_MenuBarBg] = ImVec4(0.16f, 0.17f, 0.20f, 1.0f);
    colors[ImGuiCol_Header] = ImVec4(0.24f, 0.36f, 0.55f, 0.55f);
    colors[ImGuiCol_HeaderHovered] = ImVec4(0.28f, 0.42f, 0.62f, 0.80f);
    colors[ImGuiCol_Tab] = ImVec4(0.17f, 0.20f, 0.26f, 1.0f);
    colors[ImGuiCol_TabActive] = ImVec4(0.26f, 0.38f, 0.58f, 1.0f);
    colors[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.03f);
    style.ScaleAllSizes(scale);
}

ImFont* codeFont() {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    return atlas->Fonts.Size > 1 ? atlas->Fonts[1] : ImGui::GetFont();
}

}  // namespace app::theme
