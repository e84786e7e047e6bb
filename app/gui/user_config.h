// The per-user settings of the workbench (window size, layout, recent files), kept in one file next to ImGui's
// own window settings: $XDG_CONFIG_HOME/cwb/config.ini (or ~/.config/cwb/config.ini). Never in a trace.
#pragma once

#include <string>
#include <vector>

namespace app {

struct UserConfig {
    static constexpr size_t kMaxRecent = 12;

    int windowWidth = 1440;
    int windowHeight = 900;
    float sidebarWidth = 270.0f;
    bool splitView = false;
    std::string leftView = "sites";
    std::string rightView = "recompiles";
    std::string lastDirectory;
    std::vector<std::string> recentFiles;  ///< most recent first

    /// Moves `path` to the front of the recent files (absolute path), dropping the oldest beyond kMaxRecent.
    void rememberRecent(const std::string& path);

    /// The config file's path; its directory is created when `createDirectory`. Empty when no home is known.
    static std::string defaultPath(bool createDirectory);
};

/// Registers the "[Cwb][Workbench]" section with the current ImGui context, so ImGui's .ini file carries the
/// workbench settings too; `config` must outlive the context.
void registerConfigHandler(UserConfig& config);

/// Asks ImGui to write the config file soon (it batches writes; see io.IniSavingRate).
void markConfigDirty();

/// Reads the file into ImGui's settings (and `config`, through the handler) before any window exists.
void loadConfigFile(const std::string& path);

}  // namespace app
