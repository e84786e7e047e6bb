// The workbench's menus, keyboard shortcuts, help window and dialogs (open, export report).
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iterator>

#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/widgets.h"
#include "gui/workbench.h"
#include "report/report.h"

namespace app {
namespace {

struct Shortcut {
    const char* keys;
    const char* action;
};

constexpr Shortcut kShortcuts[] = {
    {"Ctrl+O", "Open a trace, log or folder of logs"},
    {"Ctrl+E", "Export the current trace's report (Markdown, HTML, JSON)"},
    {"Ctrl+W", "Close the current trace"},
    {"Ctrl+Q", "Quit"},
    {"Ctrl+1 ... Ctrl+9, Ctrl+0", "Show a view: sites, recompiles, graph, fusion, code, breaks, metrics, timeline, shapes, diff"},
    {"Ctrl+D", "Side by side: two panes, each with its own trace or session"},
    {"Ctrl+F", "Focus the current view's filter or search box (Esc clears it)"},
    {"Left / Right", "Recompiles view: previous / next compile of the function"},
    {"Enter / Shift+Enter", "Code view search: next / previous match"},
    {"Arrows, Enter, Esc, /", "Graph view: move between nodes, open a group, close it, search"},
    {"Double-click a compile id", "Compile sites: step through that function's compiles"},
    {"[G] [C] [K] [P] ... before a link", "Follow it: compile -> graph (G), code (C), breaks (B), recompiles (R); "
                                         "graph node -> kernel (K); kernel -> graph node (G), provenance (P)"},
    {"Alt+Left / Alt+Right", "Back / forward through the places followed (also the mouse's side buttons)"},
    {"Drop files on the window", "Open traces and logs; side by side, in the pane they are dropped on"},
    {"F1", "This help"},
};

constexpr ViewId kViewOrder[] = {ViewId::Sites, ViewId::Recompiles, ViewId::Graph, ViewId::Fusion,
                                 ViewId::Code,  ViewId::Breaks,     ViewId::Metrics, ViewId::Timeline, ViewId::Shapes, ViewId::Diff,
                                 ViewId::Provenance};
/// Ctrl+1 .. Ctrl+9 and Ctrl+0 show the first ten views.
constexpr int kViewShortcuts = 10;

}  // namespace

void Workbench::handleShortcuts() {
    const ImGuiIO& io = ImGui::GetIO();
    if (widgets::ctrlPressed('O')) openDialog_.show(FileBrowser::Mode::Open, "Open trace", config_.lastDirectory);
    if (widgets::ctrlPressed('E')) startExport();
    if (widgets::ctrlPressed('Q')) quit_ = true;
    if (widgets::ctrlPressed('D')) config_.splitView = !config_.splitView;
    if (widgets::ctrlPressed('W')) {
        int shown = focusedPane().selection.traceIndex;
        if (shown >= 0 && shown < static_cast<int>(traces_.size())) closeTrace(static_cast<size_t>(shown));
    }
    if (!io.WantTextInput && ImGui::IsKeyPressed(GLFW_KEY_F1, false)) showHelp_ = !showHelp_;
    // Back and forward as in a browser: Alt+Left / Alt+Right, or the mouse's side buttons.
    bool back = (io.KeyAlt && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow), false)) || ImGui::IsMouseClicked(3);
    bool forward = (io.KeyAlt && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow), false)) || ImGui::IsMouseClicked(4);
    if (back) goBack(focusedPane());
    if (forward) goForward(focusedPane());
    for (int n = 0; n < std::min(kViewShortcuts, static_cast<int>(std::size(kViewOrder))); ++n)
        if (widgets::ctrlPressed(static_cast<char>(n == 9 ? '0' : '1' + n))) showView(kViewOrder[n]);
}

void Workbench::drawMenuBar(UiDump* dump) {
    if (!ImGui::BeginMenuBar()) return;
    bool fileMenuOpen = ImGui::BeginMenu("File");
    if (dump) dump->addItem("File");
    if (fileMenuOpen) {
        if (ImGui::MenuItem("Open...", "Ctrl+O")) openDialog_.show(FileBrowser::Mode::Open, "Open trace", config_.lastDirectory);
        if (dump) dump->addItem("Open...");
        if (ImGui::BeginMenu("Open recent", !config_.recentFiles.empty())) {
            std::optional<std::string> chosen;
            for (const std::string& path : config_.recentFiles)
                if (ImGui::MenuItem(path.c_str())) chosen = path;
            ImGui::Separator();
            if (ImGui::MenuItem("Clear recent files")) {
                config_.recentFiles.clear();
                markConfigDirty();
            }
            ImGui::EndMenu();
            if (chosen) open(*chosen);
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Export report...", "Ctrl+E", false, focusedPane().selection.traceIndex < static_cast<int>(traces_.size())))
            startExport();
        if (dump) dump->addItem("Export report...");
        if (ImGui::MenuItem("Close trace", "Ctrl+W", false, !traces_.empty())) {
            int shown = focusedPane().selection.traceIndex;
            if (shown >= 0 && shown < static_cast<int>(traces_.size())) closeTrace(static_cast<size_t>(shown));
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
        if (dump) dump->addItem("Quit");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (const auto& view : panes_[0].views) {
            int position = static_cast<int>(std::find(std::begin(kViewOrder), std::end(kViewOrder), view->id()) - std::begin(kViewOrder));
            std::string shortcut = position < kViewShortcuts ? "Ctrl+" + std::to_string((position + 1) % 10) : "";
            if (ImGui::MenuItem(view->title(), shortcut.empty() ? nullptr : shortcut.c_str(), focusedPane().active == view->id()))
                showView(view->id());
        }
        ImGui::Separator();
        ImGui::MenuItem("Side by side", "Ctrl+D", &config_.splitView);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        if (ImGui::MenuItem("Keyboard shortcuts", "F1")) showHelp_ = true;
        ImGui::EndMenu();
    }
    ImGui::EndMenuBar();
}

void Workbench::drawHelp() {
    if (!showHelp_) return;
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 50, 0), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (!ImGui::Begin("Keyboard shortcuts", &showHelp_, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch);
        for (const Shortcut& shortcut : kShortcuts) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(theme::kLinkText, "%s", shortcut.keys);
            ImGui::TableNextColumn();
            ImGui::TextWrapped("%s", shortcut.action);
        }
        ImGui::EndTable();
    }
    ImGui::Separator();
    ImGui::TextWrapped("Compile ids are coloured by status: ok, graph break (the analysis restarted at a break), failed, "
                       "recompiled (a later entry of a function whose guards failed), unknown (no metrics were logged).");
    ImGui::TextDisabled("Settings and recent files: %s", UserConfig::defaultPath(false).c_str());
    ImGui::End();
}

void Workbench::startExport() {
    int shown = focusedPane().selection.traceIndex;
    if (shown < 0 || shown >= static_cast<int>(traces_.size()) || !traces_[static_cast<size_t>(shown)].data) {
        status_ = "Nothing to export: open a trace first";
        return;
    }
    std::string stem = std::filesystem::path(traces_[static_cast<size_t>(shown)].path).stem().string();
    exportDialog_.show(FileBrowser::Mode::Save, "Export report", config_.lastDirectory, stem + "_report.html",
                       {{"HTML report", ".html"}, {"Markdown report", ".md"}, {"JSON report", ".json"}});
}

void Workbench::finishExport(const std::string& path, size_t type) {
    int shown = focusedPane().selection.traceIndex;
    if (shown < 0 || shown >= static_cast<int>(traces_.size())) return;
    auto trace = traces_[static_cast<size_t>(shown)].data;
    if (!trace) return;
    constexpr traces::ReportFormat kFormats[] = {traces::ReportFormat::Html, traces::ReportFormat::Markdown,
                                                 traces::ReportFormat::Json};
    traces::ReportFormat format = kFormats[type < 3 ? type : 0];
    status_ = "Writing " + path + "...";
    // Big traces take a while to render; the window keeps drawing meanwhile.
    exportJob_ = std::async(std::launch::async, [trace, format, path]() -> std::string {
        try {
            std::ofstream out(path, std::ios::binary);
            if (!out) return path + ": cannot write the report";
            traces::writeReport(*trace, format, out, "cwb " CWB_VERSION " workbench, File > Export report");
            out.close();
            return out ? "Wrote report to " + path : path + ": writing the report failed";
        } catch (const std::exception& e) {
            return path + ": " + e.what();
        }
    });
}

void Workbench::drawDialogs(UiDump* dump) {
    if (openDialog_.draw(dump)) {
        config_.lastDirectory = openDialog_.directory();
        if (persistent_) markConfigDirty();
        open(openDialog_.chosenPath());
    }
    if (exportDialog_.draw(dump)) {
        config_.lastDirectory = exportDialog_.directory();
        if (persistent_) markConfigDirty();
        finishExport(exportDialog_.chosenPath(), exportDialog_.chosenType());
    }
}

}  // namespace app
