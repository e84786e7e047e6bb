// A small file browser drawn with ImGui (a modal): directories, files filtered to traces and logs, a path bar,
// and a file-name box when saving. File > Open, File > Export report and the recent-directory memory use it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace app {

class UiDump;

class FileBrowser {
public:
    enum class Mode { Open, Save };

    /// One entry of the save dialog's type list, e.g. {"HTML report", ".html"}.
    struct FileType {
        std::string label;
        std::string extension;
    };

    /// Shows the dialog from the next frame on. `types` only matter when saving.
    void show(Mode mode, const std::string& title, const std::string& directory, const std::string& fileName = {},
              std::vector<FileType> types = {});
    /// Draws it while shown; true on the frame the user confirms a choice. `dump` (may be null) receives the
    /// directory and where the dialog's fields and buttons are.
    bool draw(UiDump* dump);
    bool visible() const { return visible_; }

    /// The chosen path (a file, or a directory when opening a folder of logs).
    const std::string& chosenPath() const { return chosen_; }
    /// The index into `types` the user picked when saving.
    size_t chosenType() const { return typeIndex_; }
    std::string directory() const { return directory_.string(); }

private:
    struct Entry {
        std::string name;
        bool isDirectory = false;
        uintmax_t bytes = 0;
    };

    void enter(const std::filesystem::path& directory);
    void rescan();
    bool passesFilter(const Entry& entry) const;
    void drawEntries(bool& confirmed);
    bool confirmSelection();

    Mode mode_ = Mode::Open;
    std::string title_;
    bool visible_ = false;
    bool openRequested_ = false;
    std::filesystem::path directory_;
    std::string pathInput_;
    std::string fileName_;
    std::vector<FileType> types_;
    size_t typeIndex_ = 0;
    std::vector<Entry> entries_;
    int selected_ = -1;
    bool tracesOnly_ = true;
    bool showHidden_ = false;
    std::string error_;
    std::string chosen_;
};

}  // namespace app
