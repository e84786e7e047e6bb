// Fonts from the system's Debian font packages (never embedded): a UI font and a monospace font for code,
// JetBrains Mono when fonts-jetbrains-mono is installed, else DejaVu, else ImGui's built-in font.
#pragma once

#include <string>

namespace app {

struct LoadedFonts {
    std::string uiFile;    ///< empty when ImGui's built-in font is used
    std::string codeFile;
};

/// Adds the UI font (index 0) and the code font (index 1) to the current ImGui context's atlas at `scale`.
LoadedFonts loadFonts(float scale);

}  // namespace app
