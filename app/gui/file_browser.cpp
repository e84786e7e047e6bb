// The ImGui file browser (see file_browser.h).
#include "gui/file_browser.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <optional>
#include <system_error>

#include "gui/theme.h"
#include "gui/ui_dump.h"

namespace app {
namespace {

namespace fs = std::filesystem;

bool looksLikeTrace(const std::string& name) {
    for (const char* extension : {".db", ".log", ".txt", ".sqlite"})
        if (name.ends_with(extension)) return true;
    return name.starts_with("dedicated_log_torch_trace");
}

std::string formatBytes(uintmax_t bytes) {
    char text[32];
    if (bytes >= (1u << 30)) std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / (1u << 30));
    else if (bytes >= (1u << 20)) std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1u << 20));
    else if (bytes >= 1024) std::snprintf(text, sizeof text, "%.1f KB", static_cast<double>(bytes) / 1024);
    else std::snprintf(text, sizeof text, "%ju B", bytes);
    return text;
}

}  // namespace

void FileBrowser::show(Mode mode, const std::string& title, const std::string& directory, const std::string& fileName,
                       std::vector<FileType> types) {
    mode_ = mode;
    title_ = title;
    fileName_ = fileName;
    types_ = std::move(types);
    typeIndex_ = 0;
    chosen_.clear();
    std::error_code error;
    fs::path start = directory.empty() ? fs::current_path(error) : fs::path(directory);
    if (!fs::is_directory(start, error)) start = fs::current_path(error);
    enter(start);
    visible_ = true;
    openRequested_ = true;
}

void FileBrowser::enter(const fs::path& directory) {
    std::error_code error;
    fs::path canonical = fs::weakly_canonical(directory, error);
    directory_ = error ? directory : canonical;
    pathInput_ = directory_.string();
    selected_ = -1;
    rescan();
}

void FileBrowser::rescan() {
    entries_.clear();
    error_.clear();
    std::error_code error;
    // Listing can fail half-way (permissions); keep what was read and say why.
    for (fs::directory_iterator it(directory_, fs::directory_options::skip_permission_denied, error), end;
         !error && it != end; it.increment(error)) {
        Entry entry;
        entry.name = it->path().filename().string();
        std::error_code statError;
        entry.isDirectory = it->is_directory(statError);
        if (!entry.isDirectory) entry.bytes = it->file_size(statError);
        entries_.push_back(std::move(entry));
    }
    if (error) error_ = directory_.string() + ": " + error.message();
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
        if (a.isDirectory != b.isDirectory) return a.isDirectory;
        return a.name < b.name;
    });
}

bool FileBrowser::passesFilter(const Entry& entry) const {
    if (!showHidden_ && entry.name.starts_with(".")) return false;
    if (entry.isDirectory || !tracesOnly_) return true;
    if (mode_ == Mode::Save && !types_.empty()) return entry.name.ends_with(types_[typeIndex_].extension);
    return looksLikeTrace(entry.name);
}

bool FileBrowser::confirmSelection() {
    if (mode_ == Mode::Save) {
        if (fileName_.empty()) return false;
        fs::path file = directory_ / fileName_;
        // A typed extension wins over the type list ("report.md" while HTML is picked means Markdown).
        for (size_t t = 0; t < types_.size(); ++t)
            if (file.extension() == types_[t].extension) typeIndex_ = t;
        if (!types_.empty() && file.extension().empty()) file += types_[typeIndex_].extension;
        chosen_ = file.string();
        return true;
    }
    if (selected_ < 0) return false;
    chosen_ = (directory_ / entries_[static_cast<size_t>(selected_)].name).string();
    return true;
}

void FileBrowser::drawEntries(bool& confirmed) {
    float footer = ImGui::GetFrameHeightWithSpacing() * (mode_ == Mode::Save ? 3.2f : 2.2f);
    ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersOuter;
    if (!ImGui::BeginTable("entries", 2, flags, ImVec2(0, -footer))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 6);
    ImGui::TableHeadersRow();
    std::optional<fs::path> enterInto;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const Entry& entry = entries_[i];
        if (!passesFilter(entry)) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        std::string label = entry.isDirectory ? entry.name + "/" : entry.name;
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Selectable(label.c_str(), selected_ == static_cast<int>(i),
                              ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
            selected_ = static_cast<int>(i);
            if (!entry.isDirectory && mode_ == Mode::Save) fileName_ = entry.name;
            if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
                if (entry.isDirectory) enterInto = directory_ / entry.name;
                else confirmed = confirmSelection();
            }
        }
        ImGui::PopID();
        ImGui::TableNextColumn();
        if (!entry.isDirectory) ImGui::TextDisabled("%s", formatBytes(entry.bytes).c_str());
    }
    ImGui::EndTable();
    if (enterInto) enter(*enterInto);
}

bool FileBrowser::draw(UiDump* dump) {
    if (!visible_) return false;
    if (openRequested_) {
        ImGui::OpenPopup(title_.c_str());
        openRequested_ = false;
    }
    ImGuiViewport* viewport = ImGui::GetMainViewport();
    ImGui::SetNextWindowSize(ImVec2(viewport->Size.x * 0.6f, viewport->Size.y * 0.65f), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(viewport->Pos.x + viewport->Size.x * 0.5f, viewport->Pos.y + viewport->Size.y * 0.5f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    bool open = true;
    if (!ImGui::BeginPopupModal(title_.c_str(), &open)) {
        visible_ = open;
        return false;
    }
    bool confirmed = false;
    if (dump) dump->add("dialog", title_ + " in " + directory_.string());
    if (ImGui::Button("Up")) enter(directory_.parent_path());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 16);
    if (ImGui::InputText("##path", &pathInput_, ImGuiInputTextFlags_EnterReturnsTrue)) enter(pathInput_);
    ImGui::SameLine();
    if (ImGui::Checkbox(mode_ == Mode::Open ? "Traces and logs only" : "Matching files only", &tracesOnly_)) selected_ = -1;
    ImGui::SameLine();
    ImGui::Checkbox("Hidden", &showHidden_);
    if (!error_.empty()) ImGui::TextColored(theme::kErrorText, "%s", error_.c_str());

    drawEntries(confirmed);

    if (mode_ == Mode::Save) {
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
        if (ImGui::InputText("File name", &fileName_, ImGuiInputTextFlags_EnterReturnsTrue)) confirmed = confirmSelection();
        if (dump) dump->addItem("File name");
        if (dump) dump->add("file-name", fileName_);
        if (!types_.empty()) {
            ImGui::SameLine();
            ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
            bool comboOpen = ImGui::BeginCombo("Format", types_[typeIndex_].label.c_str());
            if (dump) dump->addItem("Format");
            if (comboOpen) {
                for (size_t t = 0; t < types_.size(); ++t) {
                    bool picked = ImGui::Selectable(types_[t].label.c_str(), t == typeIndex_);
                    if (dump) dump->addItem(types_[t].label);
                    if (!picked) continue;
                    // Keep the name, change its extension to the new type's.
                    fs::path name(fileName_);
                    if (name.extension() == types_[typeIndex_].extension) fileName_ = name.replace_extension(types_[t].extension).string();
                    typeIndex_ = t;
                }
                ImGui::EndCombo();
            }
        }
    }
    bool selectedIsDirectory = selected_ >= 0 && entries_[static_cast<size_t>(selected_)].isDirectory;
    if (mode_ == Mode::Open) {
        ImGui::BeginDisabled(selected_ < 0);
        if (ImGui::Button(selectedIsDirectory ? "Open folder of logs" : "Open")) confirmed = confirmSelection();
        if (dump) dump->addItem("Open");
        ImGui::EndDisabled();
        ImGui::SameLine();
        if (ImGui::Button("Open this folder")) {
            chosen_ = directory_.string();
            confirmed = true;
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("Import every TORCH_TRACE log in %s, one session per file", directory_.c_str());
    } else {
        ImGui::BeginDisabled(fileName_.empty());
        if (ImGui::Button("Save")) confirmed = confirmSelection();
        if (dump) dump->addItem("Save");
        ImGui::EndDisabled();
    }
    ImGui::SameLine();
    bool cancelled = ImGui::Button("Cancel");
    if (dump) dump->addItem("Cancel");
    if (cancelled || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
        visible_ = false;
        ImGui::CloseCurrentPopup();
    }
    if (confirmed) {
        visible_ = false;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
    return confirmed;
}

}  // namespace app
