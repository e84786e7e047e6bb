// Finds and loads the workbench's fonts (see fonts.h).
#include "gui/fonts.h"

#include <imgui.h>

#include <filesystem>
#include <initializer_list>

namespace app {
namespace {

// Debian's paths first, then the layouts of other distributions for people building elsewhere.
constexpr std::initializer_list<const char*> kUiFonts = {
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
};
constexpr std::initializer_list<const char*> kCodeFonts = {
    "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
    "/usr/share/fonts/opentype/jetbrains-mono/JetBrainsMono-Regular.otf",
    "/usr/share/fonts/TTF/JetBrainsMono-Regular.ttf",
    "/usr/share/fonts/jetbrains-mono/JetBrainsMono-Regular.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
    "/usr/share/fonts/dejavu/DejaVuSansMono.ttf",
};

constexpr float kUiSize = 15.0f;
constexpr float kCodeSize = 14.0f;

std::string firstExisting(std::initializer_list<const char*> candidates) {
    std::error_code error;
    for (const char* path : candidates)
        if (std::filesystem::is_regular_file(path, error)) return path;
    return {};
}

const ImWchar* glyphRanges() {
    // Latin-1 plus the few symbols the UI and Python/LLVM text use (dashes, arrows, bullets, ellipsis).
    static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x2010, 0x2027, 0x2190, 0x21FF, 0x2500, 0x257F, 0x25A0, 0x25FF, 0};
    return kRanges;
}

}  // namespace

LoadedFonts loadFonts(float scale) {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    LoadedFonts loaded;
    loaded.uiFile = firstExisting(kUiFonts);
    loaded.codeFile = firstExisting(kCodeFonts);
    if (loaded.uiFile.empty()) loaded.uiFile = loaded.codeFile;
    ImFontConfig config;
    config.OversampleH = 2;
    ImFont* ui = nullptr;
    if (!loaded.uiFile.empty()) ui = atlas->AddFontFromFileTTF(loaded.uiFile.c_str(), kUiSize * scale, &config, glyphRanges());
    if (!ui) {
        loaded.uiFile.clear();
        ImFontConfig fallback;
        fallback.SizePixels = 13.0f * scale;
        atlas->AddFontDefault(&fallback);
    }
    ImFont* code = nullptr;
    if (!loaded.codeFile.empty())
        code = atlas->AddFontFromFileTTF(loaded.codeFile.c_str(), kCodeSize * scale, &config, glyphRanges());
    if (!code) {
        loaded.codeFile.clear();
        ImFontConfig fallback;
        fallback.SizePixels = 13.0f * scale;
        atlas->AddFontDefault(&fallback);
    }
    return loaded;
}

}  // namespace app
