// Runs the workbench window: `cwb open` calls this with what the command line asked for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "views/view.h"

namespace app {

struct WorkbenchOptions {
    std::vector<std::string> paths;
    std::optional<ViewId> view;
    std::string selectCompile;   ///< "0/1" or "[0/1]"; empty for none
    std::string selectKernel;    ///< a kernel's name in the selected compile's generated code; empty for none
    std::optional<int> frames;   ///< render this many frames after loading, then exit
    std::string screenshotPath;  ///< write the last frame here (implies frames, default 3)
    bool dumpUi = false;         ///< print what the last frame shows
    std::optional<traces::GraphKind> graphTab;  ///< the graph view shows this graph of the selected compile
    std::optional<float> scale;  ///< UI scale; by default the window's content scale (Xft.dpi / 96 on X11)
    /// On each SIGUSR1, write what the next frame shows to PREFIX.png and PREFIX.txt (the --dump-ui text): lets
    /// tests that drive a live window with real input events see it. Empty for off.
    std::string snapshotOnSignalPrefix;
    /// Import logs and directories again whenever they grow (a job still writing them), keeping the selection.
    bool follow = false;
};

/// Opens the window and runs until the user quits (or the scripted frames are done). Returns the exit status.
int runWorkbench(const WorkbenchOptions& options);

}  // namespace app
