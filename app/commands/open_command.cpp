// `cwb open PATH... [--view NAME] [--select COMPILE_ID] [--frames N] [--screenshot FILE.png] [--dump-ui]`:
// the desktop workbench; with --screenshot (or --frames) it renders a few frames, writes the PNG and exits.
#include <fmt/core.h>

#include "commands/commands.h"
#include "gui/gui_main.h"

namespace cwb {
namespace {

struct OpenOptions {
    std::vector<std::string> paths;
    std::string view;
    std::string select;
    int frames = 0;
    std::string screenshot;
    bool dumpUi = false;
};

int runOpen(const OpenOptions& options, bool framesGiven) {
    app::WorkbenchOptions workbench;
    workbench.paths = options.paths;
    if (!options.view.empty()) {
        workbench.view = app::viewFromName(options.view);
        if (!workbench.view)
            throw CLI::ValidationError("--view", "expected sites, recompiles, graph, fusion, code, breaks or metrics, got '" +
                                                     options.view + "'");
    }
    workbench.selectCompile = options.select;
    if (framesGiven) workbench.frames = options.frames;
    workbench.screenshotPath = options.screenshot;
    workbench.dumpUi = options.dumpUi;
    if (workbench.dumpUi && !workbench.frames && workbench.screenshotPath.empty()) workbench.frames = 3;
    return app::runWorkbench(workbench);
}

}  // namespace

void registerOpenCommand(CLI::App& app) {
    auto options = std::make_shared<OpenOptions>();
    CLI::App* cmd = app.add_subcommand("open", "Open traces, logs or directories in the desktop workbench");
    cmd->add_option("PATH", options->paths, "Trace files (.db), TORCH_TRACE logs or directories of logs");
    cmd->add_option("--view", options->view, "View to show: sites, recompiles, graph, fusion, code, breaks, metrics");
    cmd->add_option("--select", options->select, "Compile id to select, e.g. 0/1 or [0/1]");
    CLI::Option* frames =
        cmd->add_option("--frames", options->frames, "Render this many frames after loading, then exit (default 3 with --screenshot)")
            ->check(CLI::Range(1, 100000));
    cmd->add_option("--screenshot", options->screenshot, "Write the last frame to this PNG file and exit");
    cmd->add_flag("--dump-ui", options->dumpUi, "Print the visible windows, panels and rows of the last frame");
    cmd->callback([options, frames] { throw CLI::RuntimeError(runOpen(*options, frames->count() > 0)); });
}

}  // namespace cwb
