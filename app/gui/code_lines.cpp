// Drawing one line of code (see code_lines.h).
#include "gui/code_lines.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>

#include "gui/theme.h"

namespace app {

float codeGutterWidth(size_t lineCount) {
    std::string digits = std::to_string(std::max<size_t>(lineCount, 1));
    return ImGui::CalcTextSize(digits.c_str()).x + ImGui::GetFontSize();
}

void drawCodeLine(const viz::HighlightedCode& code, size_t lineIndex, float gutterWidth, const CodeLineMarks& marks) {
    std::string_view line = code.line(lineIndex);
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImFont* font = ImGui::GetFont();
    float fontSize = ImGui::GetFontSize();
    if (marks.background != 0)
        draw->AddRectFilled(origin, ImVec2(origin.x + ImGui::GetContentRegionAvail().x + ImGui::GetScrollX() + gutterWidth,
                                           origin.y + ImGui::GetTextLineHeightWithSpacing()),
                            marks.background);
    char number[16];
    int numberLength = std::snprintf(number, sizeof number, "%zu", lineIndex + 1);
    float numberWidth = ImGui::CalcTextSize(number, number + numberLength).x;
    draw->AddText(ImVec2(origin.x + gutterWidth - numberWidth - fontSize * 0.6f, origin.y), IM_COL32(110, 115, 125, 255),
                  number, number + numberLength);
    float textX = origin.x + gutterWidth;
    auto widthOf = [&](size_t from, size_t to) {
        return font->CalcTextSizeA(fontSize, FLT_MAX, 0.0f, line.data() + from, line.data() + to).x;
    };
    // Search hits behind the text, the current one stronger.
    if (marks.matches) {
        const std::vector<viz::TextMatch>& matches = *marks.matches;
        auto first = std::lower_bound(matches.begin(), matches.end(), lineIndex,
                                      [](const viz::TextMatch& match, size_t l) { return match.line < l; });
        for (auto it = first; it != matches.end() && it->line == lineIndex; ++it) {
            float x0 = textX + widthOf(0, it->column);
            float x1 = x0 + widthOf(it->column, it->column + marks.matchLength);
            bool current = static_cast<size_t>(it - matches.begin()) == marks.currentMatch;
            draw->AddRectFilled(ImVec2(x0, origin.y), ImVec2(x1, origin.y + fontSize),
                                current ? theme::kCurrentMatch : theme::kSearchMatch);
        }
    }
    size_t at = 0;
    float x = textX;
    auto drawRun = [&](size_t from, size_t to, ImU32 color) {
        if (to <= from) return;
        draw->AddText(font, fontSize, ImVec2(x, origin.y), color, line.data() + from, line.data() + to);
        x += widthOf(from, to);
    };
    for (const viz::Token& token : code.tokens(lineIndex)) {
        drawRun(at, token.begin, theme::tokenColor(viz::TokenKind::Plain));
        drawRun(token.begin, token.begin + token.length, theme::tokenColor(token.kind));
        at = token.begin + token.length;
    }
    drawRun(at, line.size(), theme::tokenColor(viz::TokenKind::Plain));
    ImGui::Dummy(ImVec2(x - origin.x + fontSize, ImGui::GetTextLineHeight()));
}

}  // namespace app
