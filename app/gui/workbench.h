// The workbench window's content: menus, the trace and session list, one or two panes of views side by side,
// dialogs (open, export, help), shortcuts and the status bar. The frame loop around it is in gui_main.cpp.
#pragma once

#include <array>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gui/file_browser.h"
#include "gui/trace_loader.h"
#include "gui/user_config.h"
#include "views/view.h"

namespace app {

class UiDump;

class Workbench {
public:
    /// `persistent`: remember recent files and layout in `config` (off for scripted screenshots).
    Workbench(UserConfig& config, bool persistent);
    ~Workbench();

    /// Starts loading `path` (a trace file, a log or a directory) in the background.
    void open(const std::string& path);
    /// Like open(), but shown in pane `pane` once loaded (pane 1 turns side-by-side on).
    void openInPane(const std::string& path, size_t pane);
    /// Follow mode (`--follow`): what logs and directories opened from now on gain is imported as they grow, and
    /// the views switch to the grown trace keeping their selection; the old one stays shown meanwhile.
    void setFollow(bool follow) { follow_ = follow; }
    /// True while any trace is still loading.
    bool loading() const;
    /// Paths dropped on the window at (`x`, `y`) in window pixels (GLFW callback); opened on the next frame, in
    /// the pane they were dropped on.
    void queueDrop(std::vector<std::string> paths, float x, float y);

    /// Brings `view` to the front of the first pane.
    void showView(ViewId view);
    /// Selects compile `key` ("0/1" or "[0/1]") in the first pane; false with a message if there is none.
    bool selectCompile(const std::string& key, std::string& error);
    /// Points the first pane at the graph of `kind` (the graph view's tab for it) of the selected compile, or of
    /// the first compile that has such a graph when none is selected; false with a message if there is none.
    bool selectGraphKind(traces::GraphKind kind, std::string& error);
    /// Opens kernel `name` of the selected compile's generated code (of the first compile with such a kernel when
    /// none is selected); false with a message if there is none.
    bool selectKernel(const std::string& name, std::string& error);
    /// Every view's command-line name in tab order, for --dump-ui.
    std::string viewNames() const;

    /// Draws the whole window for this frame; `dump` (may be null) receives what the views show.
    void drawFrame(UiDump* dump);
    bool quitRequested() const { return quit_; }
    /// Errors of traces that failed to load, for the command line.
    std::vector<std::string> loadErrors() const;

private:
    struct TraceSlot {
        std::unique_ptr<TraceLoad> load;  ///< while loading
        std::string error;
        std::string note;
        std::optional<size_t> targetPane;  ///< the pane that shows this trace once it has loaded
        std::unique_ptr<TraceLoad> refresh;  ///< follow mode: a newer import of the grown logs, in flight
        /// Follow mode: the logs imported so far, kept between refreshes so each imports only what was appended.
        std::shared_ptr<traces::FollowedPath> follower;
    };
    /// A place in a pane: a view and what was selected there.
    struct Place {
        ViewId view = ViewId::Sites;
        Selection selection;
    };
    struct Pane {
        Selection selection;
        std::vector<std::unique_ptr<View>> views;
        ViewId active = ViewId::Sites;
        std::optional<ViewId> pendingFocus;
        /// Back and forward history, as a browser's: a new place starts where the view, the trace, the session or
        /// the compile changes; each place keeps the latest selection made there.
        std::vector<Place> back;
        std::vector<Place> forward;
        std::optional<Place> here;
    };

    void pollLoads();
    /// History (workbench_history.cpp): notes where the pane is after its frame; goes back or forward.
    void recordPlace(Pane& pane);
    void goBack(Pane& pane);
    void goForward(Pane& pane);
    /// The Back and Forward buttons at the start of a pane's header, with where they lead.
    void drawHistoryButtons(Pane& pane);
    /// The pane's history as it stands at the end of the frame (the buttons, drawn before the view, show the
    /// frame before's: a dump taken as a link is followed must not pair the new view with the old history).
    void dumpHistory(const Pane& pane, UiDump& dump) const;
    /// "Graph  [0/1]": a place as the buttons' tooltips and the dump name it.
    std::string placeName(const Place& place) const;
    /// Follow mode: imports what every followed log gained, at most once a second, in the background.
    void followLogs();
    /// Follow mode: shows the finished import of slot `index`, keeping what each pane selected.
    void takeRefresh(size_t index);
    /// Every view of every pane drops what it built from a trace that is about to go away.
    void forgetTraces();
    void closeTrace(size_t index);
    void drawMenuBar(UiDump* dump);
    void drawSidebar(UiDump* dump);
    void drawPane(size_t paneIndex, UiDump* dump);
    void drawPaneHeader(Pane& pane);
    /// "trace name" or "trace name  >  session" of what the pane shows.
    std::string paneTraceName(const Pane& pane) const;
    /// Points a pane whose trace was closed, failed or never chosen at the first loaded session.
    void ensureSession(Pane& pane);
    void drawWelcome();
    void drawStatusBar(UiDump* dump);
    void drawHelp();
    void drawDialogs(UiDump* dump);
    void handleShortcuts();
    void startExport();
    void finishExport(const std::string& path, size_t type);
    Pane& focusedPane() { return panes_[focusedPane_]; }
    void ensurePanes();

    UserConfig& config_;
    bool persistent_;
    std::vector<OpenTrace> traces_;
    std::vector<TraceSlot> slots_;  ///< parallel to traces_
    std::vector<Pane> panes_;
    size_t focusedPane_ = 0;
    struct Drop {
        std::vector<std::string> paths;
        float x = 0;
        float y = 0;
    };
    std::vector<Drop> drops_;
    /// Where each pane was drawn last frame (min x, min y, max x, max y), to open drops in the pane under them.
    std::array<std::array<float, 4>, 2> paneRects_{};
    FileBrowser openDialog_;
    FileBrowser exportDialog_;
    std::optional<std::future<std::string>> exportJob_;
    bool follow_ = false;
    std::chrono::steady_clock::time_point nextFollowCheck_{};
    bool showHelp_ = false;
    bool quit_ = false;
    std::string status_;
};

}  // namespace app
