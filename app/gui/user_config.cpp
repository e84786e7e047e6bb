// Reading and writing the workbench's section of the per-user config file (see user_config.h).
#include "gui/user_config.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace app {
namespace {

constexpr const char* kSectionType = "Cwb";

void clearRecent(ImGuiContext*, ImGuiSettingsHandler* handler) {
    // Reading appends, so a second read of the same file must not duplicate the list.
    static_cast<UserConfig*>(handler->UserData)->recentFiles.clear();
}

void* openSection(ImGuiContext*, ImGuiSettingsHandler* handler, const char* name) {
    return std::strcmp(name, "Workbench") == 0 ? handler->UserData : nullptr;
}

void readLine(ImGuiContext*, ImGuiSettingsHandler*, void* entry, const char* line) {
    auto* config = static_cast<UserConfig*>(entry);
    std::string_view text(line);
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) return;
    std::string_view key = text.substr(0, equals);
    std::string value(text.substr(equals + 1));
    int width = 0;
    int height = 0;
    if (key == "window" && std::sscanf(value.c_str(), "%d,%d", &width, &height) == 2) {
        // Ignore sizes no screen can show (a corrupt or hand-edited file).
        if (width >= 400 && height >= 300 && width <= 16384 && height <= 16384) {
            config->windowWidth = width;
            config->windowHeight = height;
        }
    } else if (key == "sidebar") {
        config->sidebarWidth = std::clamp(std::strtof(value.c_str(), nullptr), 120.0f, 1200.0f);
    } else if (key == "split") {
        config->splitView = value == "1";
    } else if (key == "left_view") {
        config->leftView = value;
    } else if (key == "right_view") {
        config->rightView = value;
    } else if (key == "last_directory") {
        config->lastDirectory = value;
    } else if (key == "recent" && !value.empty() && config->recentFiles.size() < UserConfig::kMaxRecent) {
        config->recentFiles.push_back(value);
    }
}

void writeSection(ImGuiContext*, ImGuiSettingsHandler* handler, ImGuiTextBuffer* out) {
    const auto* config = static_cast<const UserConfig*>(handler->UserData);
    out->appendf("[%s][Workbench]\n", kSectionType);
    out->appendf("window=%d,%d\n", config->windowWidth, config->windowHeight);
    out->appendf("sidebar=%.0f\n", config->sidebarWidth);
    out->appendf("split=%d\n", config->splitView ? 1 : 0);
    out->appendf("left_view=%s\n", config->leftView.c_str());
    out->appendf("right_view=%s\n", config->rightView.c_str());
    out->appendf("last_directory=%s\n", config->lastDirectory.c_str());
    for (const std::string& path : config->recentFiles) out->appendf("recent=%s\n", path.c_str());
    out->append("\n");
}

}  // namespace

void UserConfig::rememberRecent(const std::string& path) {
    std::error_code error;
    std::string absolute = std::filesystem::absolute(path, error).lexically_normal().string();
    if (error) absolute = path;
    if (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
    recentFiles.erase(std::remove(recentFiles.begin(), recentFiles.end(), absolute), recentFiles.end());
    recentFiles.insert(recentFiles.begin(), absolute);
    if (recentFiles.size() > kMaxRecent) recentFiles.resize(kMaxRecent);
}

std::string UserConfig::defaultPath(bool createDirectory) {
    std::filesystem::path directory;
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg) directory = std::filesystem::path(xdg) / "cwb";
    else if (home && *home) directory = std::filesystem::path(home) / ".config" / "cwb";
    else return {};
    if (createDirectory) {
        std::error_code error;
        std::filesystem::create_directories(directory, error);
        if (error) return {};
    }
    return (directory / "config.ini").string();
}

void registerConfigHandler(UserConfig& config) {
    ImGuiSettingsHandler handler;
    handler.TypeName = kSectionType;
    handler.TypeHash = ImHashStr(kSectionType);
    handler.ReadInitFn = clearRecent;
    handler.ReadOpenFn = openSection;
    handler.ReadLineFn = readLine;
    handler.WriteAllFn = writeSection;
    handler.UserData = &config;
    ImGui::GetCurrentContext()->SettingsHandlers.push_back(handler);
}

void markConfigDirty() { ImGui::MarkIniSettingsDirty(); }

void loadConfigFile(const std::string& path) {
    std::error_code error;
    if (path.empty() || !std::filesystem::exists(path, error)) return;
    ImGui::LoadIniSettingsFromDisk(path.c_str());
}

}  // namespace app
