// One line of syntax-coloured code with its line number, as the code view and the provenance panes draw it:
// search hits and a line's highlight behind the text, only the visible lines drawn by the caller's clipper.
#pragma once

#include <imgui.h>

#include <vector>

#include "core/code_tokens.h"

namespace app {

struct CodeLineMarks {
    ImU32 background = 0;  ///< the whole line's highlight, 0 for none
    const std::vector<viz::TextMatch>* matches = nullptr;  ///< search hits of the whole text, in order
    size_t currentMatch = 0;
    size_t matchLength = 0;
};

/// The gutter width that fits the line numbers of `lineCount` lines in the current font.
float codeGutterWidth(size_t lineCount);

/// Draws line `lineIndex` of `code` at the cursor and reserves its size (so long lines scroll sideways).
void drawCodeLine(const viz::HighlightedCode& code, size_t lineIndex, float gutterWidth, const CodeLineMarks& marks = {});

}  // namespace app
