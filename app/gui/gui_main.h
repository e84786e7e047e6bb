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
    std::optional<int> frames;   ///< render this many frames after loading, then exit
    std::string screenshotPath;  ///< write the last frame here (implies frames, default 3)
    bool dumpUi = false;         ///< print what the last frame shows
};

/// Opens the window and runs until the user quits (or the scripted frames are done). Returns the exit status.
int runWorkbench(const WorkbenchOptions& options);

}  // namespace app
